//! [`ResponseBuilder`] and [`ToolResponse`]: the ordered blocks of one tool call
//! (WIRE.md §1, §8, §9, §10).
//!
//! Building validates everything that can fail (TOON depth, lone surrogates, the reserved-tag
//! fallback of WIRE.md §2) before any data byte is written; afterwards writing a block cannot
//! fail, so a streamed or framed response is never half-written.

use std::borrow::Cow;

use super::blocks::{
    FieldProblem, Suggestion, ToolError, UiBlock, write_bullets, write_required,
    write_simple_error, write_suggestions, write_validation_error,
};
use super::bounds::{data_len_bound, escaped_len};
use super::format::Format;
use super::rows::RowBlock;
use super::windowed_block::{self, WindowedBlock};
use crate::doc::{Doc, Value};
use crate::error::Result;
use crate::json::{JsonInput, WindowPlan};
use crate::sink::Sink;
use crate::toon::Delimiter;

/// What a handler returned, as the data block sees it.
#[derive(Clone, Debug)]
pub enum Data<'d> {
    /// "No value" (Rust `()`/`None`): the data block is `OK`.
    None,
    /// A string result: used verbatim in every format; the empty string becomes `OK`.
    Text(&'d str),
    /// Anything else: serialized in the response's format.
    Value(Value<'d>),
    /// A document the response owns (for example the output of a Presenter: stripped,
    /// redacted, truncated, selected), serialized like [`Data::Value`] of its root.
    Doc(Doc<'d>),
    /// JSON text, serialized like [`Data::Doc`] of its parse (with [`ParseOptions`]'
    /// defaults), which [`ResponseBuilder::build`] validates. A root array larger than 8 MiB
    /// is never parsed whole: `build` reads it window by window (validation, flags, size
    /// bound, TOON form) and writing the block reads it again, encoding each window as it is
    /// parsed, so a framed or streamed response of any size needs the input plus a few MiB
    /// (`Format::Auto` parses it whole).
    ///
    /// [`ParseOptions`]: crate::json::ParseOptions
    Json(&'d [u8]),
}

impl<'d> From<Doc<'d>> for Data<'d> {
    fn from(d: Doc<'d>) -> Data<'d> {
        Data::Doc(d)
    }
}

impl<'d> From<Value<'d>> for Data<'d> {
    fn from(v: Value<'d>) -> Data<'d> {
        Data::Value(v)
    }
}

impl<'d> From<&'d str> for Data<'d> {
    fn from(s: &'d str) -> Data<'d> {
        Data::Text(s)
    }
}

impl From<()> for Data<'_> {
    fn from((): ()) -> Self {
        Data::None
    }
}

/// Starts a response whose data block is `data` (WIRE.md §1).
pub fn response<'d>(data: impl Into<Data<'d>>) -> ResponseBuilder<'d> {
    ResponseBuilder {
        data: data.into(),
        format: Format::Pretty,
        ui: Vec::new(),
        embedded: Vec::new(),
        raw: Vec::new(),
        hints: Vec::new(),
        rules: Vec::new(),
        suggestions: Vec::new(),
        view: None,
        window_plan: WindowPlan::default(),
        json_input: JsonInput::Heap,
        size_bound: true,
    }
}

/// Starts a response whose data block is a presenter's row view (the rows encoded straight
/// from the input tape; see `present::view`).
pub(crate) fn response_view(view: RowBlock<'_>) -> ResponseBuilder<'_> {
    let mut r = response(Data::None);
    r.view = Some(Box::new(view));
    r
}

/// A success response with only a data block, pretty JSON (`success(data)`).
///
/// # Errors
///
/// See [`ResponseBuilder::build`].
pub fn success<'d>(data: impl Into<Data<'d>>) -> Result<ToolResponse<'d>> {
    response(data).build()
}

/// A success response whose data block is TOON with delimiter `|` (`toon_success(data)`).
///
/// # Errors
///
/// See [`ResponseBuilder::build`].
pub fn toon_success<'d>(data: impl Into<Data<'d>>) -> Result<ToolResponse<'d>> {
    response(data).format(Format::Toon(Delimiter::Pipe)).build()
}

/// `error(message)`: `<tool_error>` LF `<message>…</message>` LF `</tool_error>`, `isError: true`.
pub fn error(message: &str) -> ToolResponse<'static> {
    let mut text = Vec::new();
    write_simple_error(&mut text, None, message);
    ToolResponse::error_text(text, true)
}

/// `error(message)` with a code: `<tool_error code="…">`.
pub fn error_with_code(code: &str, message: &str) -> ToolResponse<'static> {
    let mut text = Vec::new();
    write_simple_error(&mut text, Some(code), message);
    ToolResponse::error_text(text, true)
}

/// `required(field)`: the `MISSING_REQUIRED_FIELD` envelope.
pub fn required(field: &str) -> ToolResponse<'static> {
    let mut text = Vec::new();
    write_required(&mut text, field);
    ToolResponse::error_text(text, true)
}

/// An input validation error: `<validation_error action="tool/action">` with one field per
/// problem.
pub fn validation_error(action: &str, problems: &[FieldProblem]) -> ToolResponse<'static> {
    let mut text = Vec::new();
    write_validation_error(&mut text, action, problems);
    ToolResponse::error_text(text, true)
}

impl ToolError {
    /// The response carrying this error; `isError` is `false` only for warnings.
    pub fn into_response(self) -> ToolResponse<'static> {
        let mut text = Vec::new();
        self.write(&mut text);
        let is_error = self.is_error();
        ToolResponse::error_text(text, is_error)
    }
}

/// Collects the blocks of a response in any order; [`ResponseBuilder::build`] emits them in
/// the fixed order of WIRE.md §1.1.
#[derive(Clone, Debug)]
pub struct ResponseBuilder<'d> {
    data: Data<'d>,
    format: Format,
    ui: Vec<UiBlock>,
    embedded: Vec<UiBlock>,
    raw: Vec<String>,
    hints: Vec<String>,
    rules: Vec<String>,
    suggestions: Vec<Suggestion>,
    /// A presenter's row view: the data block instead of `data`.
    view: Option<Box<RowBlock<'d>>>,
    /// How [`Data::Json`] is read: whole, or window by window keeping how much.
    window_plan: WindowPlan,
    /// Where the bytes of [`Data::Json`] are held: the tape room their reading may keep.
    json_input: JsonInput,
    /// Something will ask for the data block's size bound ([`ResponseBuilder::size_bound`]).
    size_bound: bool,
}

impl<'d> ResponseBuilder<'d> {
    /// Reads [`Data::Json`] longer than `n` bytes in windows of `n` bytes (defaults: windows
    /// of 1 MiB above 8 MiB): for tests that cut small inputs into many windows
    /// (`test_hooks`).
    pub(crate) fn set_window_bytes(mut self, n: usize) -> Self {
        self.window_plan = WindowPlan::windows_of(n, 0);
        self
    }

    /// Keeps up to `n` bytes of window tapes to read [`Data::Json`] once (default: 11 MiB,
    /// or none after [`Self::set_window_bytes`]): for tests (`test_hooks`).
    pub(crate) fn set_keep_tape(mut self, n: usize) -> Self {
        self.window_plan.keep = n;
        self
    }

    /// Says that the bytes of [`Data::Json`] are not on the heap (a memory-mapped file): the
    /// heap contract's share for the input (ARCHITECTURE.md: peak heap ≤ input + output +
    /// 16 MiB) is then free for the parsed windows, so an input whose tape fits in its size
    /// plus 11 MiB is read once instead of twice. Bytes out are the same either way.
    pub fn input_off_heap(mut self, yes: bool) -> Self {
        self.json_input = if yes {
            JsonInput::OffHeap
        } else {
            JsonInput::Heap
        };
        self
    }

    /// Says where the bytes of [`Data::Json`] are held, which decides how much more tape
    /// than the engine's 11 MiB their reading may keep to read them once (see
    /// [`JsonInput`]): [`JsonInput::OffHeap`] is [`Self::input_off_heap`],
    /// [`JsonInput::Binding`] a binding's heap under its contract (a peak below twice the
    /// input). Bytes out are the same either way.
    pub fn json_input(mut self, input: JsonInput) -> Self {
        self.json_input = input;
        self
    }

    /// Says whether anything will ask for the data block's size bound
    /// ([`ToolResponse::block_len_bound`]: the cap checks of [`crate::frame::check_size`],
    /// [`crate::frame::frame_capped`] and `stream_frame`; default yes). [`Data::Json`] read
    /// window by window computes the bound in its first reading, a walk over every window's
    /// tape (7% of the instructions of a 100k-row framed response); without it the bound is
    /// `usize::MAX`, which is still an upper bound, so a cap check then counts the bytes
    /// exactly. Other data computes its bound only when asked. Bytes out are the same either
    /// way.
    pub fn size_bound(mut self, yes: bool) -> Self {
        self.size_bound = yes;
        self
    }

    /// Sets the data format.
    pub fn format(mut self, format: Format) -> Self {
        self.format = format;
        self
    }

    /// Adds a UI block (after any already added).
    pub fn ui_block(mut self, block: UiBlock) -> Self {
        self.ui.push(block);
        self
    }

    /// Adds UI blocks in order.
    pub fn ui_blocks(mut self, blocks: impl IntoIterator<Item = UiBlock>) -> Self {
        self.ui.extend(blocks);
        self
    }

    /// Adds an embedded block (UI of an embedded child Presenter), after the UI blocks.
    pub fn embedded_block(mut self, block: UiBlock) -> Self {
        self.embedded.push(block);
        self
    }

    /// Adds a raw block: verbatim trusted text, not escaped, outside the tag-safety invariant.
    pub fn raw_block(mut self, text: impl Into<String>) -> Self {
        self.raw.push(text.into());
        self
    }

    /// Adds a directive to `<llm_directives>`.
    pub fn llm_hint(mut self, hint: impl Into<String>) -> Self {
        self.hints.push(hint.into());
        self
    }

    /// Adds rules to `<domain_rules>`.
    pub fn system_rules<I: IntoIterator<Item = S>, S: Into<String>>(mut self, rules: I) -> Self {
        self.rules.extend(rules.into_iter().map(Into::into));
        self
    }

    /// Adds suggestions to `<action_suggestions>`.
    pub fn system_hint(mut self, suggestions: impl IntoIterator<Item = Suggestion>) -> Self {
        self.suggestions.extend(suggestions);
        self
    }

    /// Validates and assembles the response. After this succeeds, writing any block cannot fail.
    ///
    /// TOON data whose document holds a reserved tag sequence or a lone surrogate falls back to
    /// compact JSON (WIRE.md §2); the side door's `format` says so.
    ///
    /// # Errors
    ///
    /// The data cannot be encoded in the chosen format (for example nested deeper than the
    /// encoder's limit).
    pub fn build(mut self) -> Result<ToolResponse<'d>> {
        if let Some(view) = self.view.take() {
            let format = view.resolve(self.format);
            return Ok(self.assemble(DataBlock::View(view, format), format));
        }
        if let Data::Json(src) = self.data {
            if self.format != Format::Auto && self.window_plan.windowed(src.len()) {
                let plan = self.window_plan.with_room(self.json_input.room(src.len()));
                if let Some(w) = windowed_block::analyse(src, self.format, &plan, self.size_bound)?
                {
                    let format = w.format();
                    return Ok(self.assemble(DataBlock::Windowed(Box::new(w)), format));
                }
            }
            self.data = Data::Doc(crate::json::parse(src, &crate::json::ParseOptions::new())?);
        }
        let format = match (&self.data, self.format) {
            (Data::Value(v), Format::Auto) => resolve(super::estimate::choose_auto(*v), *v)?,
            (Data::Doc(d), Format::Auto) => {
                resolve(super::estimate::choose_auto(d.root()), d.root())?
            }
            (_, Format::Auto) => Format::Pretty,
            (Data::Value(v), Format::Toon(delimiter)) => toon_or_fallback(*v, delimiter)?,
            (Data::Doc(d), Format::Toon(delimiter)) => toon_or_fallback(d.root(), delimiter)?,
            (_, f) => f,
        };
        let data = match std::mem::replace(&mut self.data, Data::None) {
            Data::None | Data::Text("") => DataBlock::Text(Cow::Borrowed("OK")),
            Data::Text(s) => DataBlock::Text(Cow::Borrowed(s)),
            Data::Value(v) => DataBlock::Encoded(v, format),
            Data::Doc(d) => DataBlock::Owned(Box::new(d), format),
            // Never here: replaced by its parse above.
            Data::Json(_) => DataBlock::Text(Cow::Borrowed("OK")),
        };
        Ok(self.assemble(data, format))
    }

    /// The response of `data` written in `format`, with the other blocks of `self`.
    fn assemble(self, data: DataBlock<'d>, format: Format) -> ToolResponse<'d> {
        let mut blocks = Vec::new();
        for b in self.ui.iter().chain(&self.embedded) {
            let mut t = Vec::new();
            b.write(&mut t);
            blocks.push(t);
        }
        blocks.extend(self.raw.iter().map(|r| r.as_bytes().to_vec()));
        let mut t = Vec::new();
        if write_bullets(&mut t, "llm_directives", &self.hints) {
            blocks.push(std::mem::take(&mut t));
        }
        if write_bullets(&mut t, "domain_rules", &self.rules) {
            blocks.push(std::mem::take(&mut t));
        }
        if write_suggestions(&mut t, &self.suggestions) {
            blocks.push(t);
        }
        let meta = Meta {
            rules: self.rules,
            ui_blocks: self.ui.into_iter().chain(self.embedded).collect(),
            hints: self.hints,
            suggestions: self.suggestions,
            format,
        };
        ToolResponse {
            data,
            blocks,
            is_error: None,
            structured: None,
            meta,
        }
    }
}

/// `success_structured(data)` (WIRE.md §7): one text block holding the compact JSON of `data`
/// (a string result stays verbatim), plus `structuredContent` = the same data. For protocols
/// before 2026-07-28 the frame wraps a non-object as `{"items": [...]}` (arrays) or
/// `{"value": x}`.
///
/// # Errors
///
/// None today; the signature matches the other constructors.
pub fn success_structured<'d>(data: impl Into<Data<'d>>) -> Result<ToolResponse<'d>> {
    let mut r = response(data).format(Format::Compact).build()?;
    r.structured = Some(Structured::Value);
    Ok(r)
}

/// What a handler returned, in any of the forms WIRE.md §9 accepts.
#[derive(Debug)]
pub enum HandlerOutput<'d> {
    /// An already-built response: passes through untouched.
    Response(ToolResponse<'d>),
    /// A builder: built.
    Builder(ResponseBuilder<'d>),
    /// Anything else (`None` is "no value", `OK`): `success(value)`.
    Data(Data<'d>),
}

impl<'d> From<ToolResponse<'d>> for HandlerOutput<'d> {
    fn from(r: ToolResponse<'d>) -> Self {
        HandlerOutput::Response(r)
    }
}

impl<'d> From<ResponseBuilder<'d>> for HandlerOutput<'d> {
    fn from(b: ResponseBuilder<'d>) -> Self {
        HandlerOutput::Builder(b)
    }
}

impl<'d> From<Data<'d>> for HandlerOutput<'d> {
    fn from(d: Data<'d>) -> Self {
        HandlerOutput::Data(d)
    }
}

/// Implicit wrapping (WIRE.md §9): the one post-processing path for every handler style. A
/// failed handler becomes the `INTERNAL_ERROR` envelope of WIRE.md §8 (no stack trace).
pub fn wrap<'d, E: std::fmt::Display>(
    tool_action: &str,
    result: std::result::Result<HandlerOutput<'d>, E>,
) -> ToolResponse<'d> {
    let built = match result {
        Ok(HandlerOutput::Response(r)) => return r,
        Ok(HandlerOutput::Builder(b)) => b.build(),
        Ok(HandlerOutput::Data(d)) => success(d),
        Err(e) => return handler_error(tool_action, &e.to_string()),
    };
    built.unwrap_or_else(|e| handler_error(tool_action, &e.to_string()))
}

/// The `INTERNAL_ERROR` envelope for a failed handler: message `[tool/action] <message>` and
/// the parity recovery text.
pub fn handler_error(tool_action: &str, message: &str) -> ToolResponse<'static> {
    ToolError::new("INTERNAL_ERROR")
        .message(format!("[{tool_action}] {message}"))
        .recovery("This may be a transient error. Retry the same call with identical parameters.")
        .into_response()
}

fn resolve(format: Format, v: Value<'_>) -> Result<Format> {
    match format {
        Format::Toon(d) => toon_or_fallback(v, d),
        f => Ok(f),
    }
}

/// The format TOON data is really written in: compact JSON when the document holds a reserved
/// tag sequence or a lone surrogate (WIRE.md §2), else TOON after [`crate::toon::check`].
fn toon_or_fallback(v: Value<'_>, delimiter: Delimiter) -> Result<Format> {
    let doc = v.doc();
    if doc.has_reserved_tag() || doc.has_lone_surrogate() {
        return Ok(Format::Compact);
    }
    let format = Format::Toon(delimiter);
    crate::toon::check(v, &format.toon_options().unwrap_or_default())?;
    Ok(format)
}

/// The data block: verbatim text, or a value encoded on demand.
#[derive(Clone, Debug)]
enum DataBlock<'d> {
    Text(Cow<'d, str>),
    Encoded(Value<'d>, Format),
    Owned(Box<Doc<'d>>, Format),
    /// A presenter's row view.
    View(Box<RowBlock<'d>>, Format),
    /// JSON text read window by window (its format inside).
    Windowed(Box<WindowedBlock<'d>>),
}

/// The testing side door (WIRE.md §10): what the response's blocks were built from. Never
/// serialized.
#[derive(Clone, Debug)]
pub struct Meta {
    /// The rules, merged child rules included.
    pub rules: Vec<String>,
    /// The UI blocks, embedded ones included, in block order.
    pub ui_blocks: Vec<UiBlock>,
    /// The directives.
    pub hints: Vec<String>,
    /// The suggestions.
    pub suggestions: Vec<Suggestion>,
    /// The format the data block was actually written in.
    pub format: Format,
}

/// How a response's data travels as `structuredContent` too (WIRE.md §7).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Structured {
    /// The data itself ([`success_structured`]): before 2026-07-28 a non-object is wrapped
    /// as `{"items": [...]}` (arrays) or `{"value": x}`.
    Value,
    /// Always `{"items": [...]}`: a collection's kept items, or the one item of a
    /// non-array (a presenter's `outputSchema`, SERVE.md §2).
    Items,
}

/// A built MCP `CallToolResult`: the ordered text blocks, `isError`, and the side door.
#[derive(Clone, Debug)]
pub struct ToolResponse<'d> {
    data: DataBlock<'d>,
    blocks: Vec<Vec<u8>>,
    is_error: Option<bool>,
    structured: Option<Structured>,
    meta: Meta,
}

impl<'d> ToolResponse<'d> {
    fn error_text(text: Vec<u8>, is_error: bool) -> ToolResponse<'static> {
        // Block writers only write valid UTF-8 from `&str` inputs.
        let text = String::from_utf8(text).unwrap_or_default();
        ToolResponse {
            data: DataBlock::Text(Cow::Owned(text)),
            blocks: Vec::new(),
            is_error: Some(is_error),
            structured: None,
            meta: Meta {
                rules: Vec::new(),
                ui_blocks: Vec::new(),
                hints: Vec::new(),
                suggestions: Vec::new(),
                format: Format::Pretty,
            },
        }
    }

    /// Number of content blocks (never 0).
    pub fn block_count(&self) -> usize {
        1 + self.blocks.len()
    }

    /// `isError`: absent on success, `true` for errors, `false` written for warnings.
    pub fn is_error(&self) -> Option<bool> {
        self.is_error
    }

    /// True when the response carries `structuredContent` (from [`success_structured`] or
    /// [`ToolResponse::set_structured`]).
    pub fn is_structured(&self) -> bool {
        self.structured.is_some()
    }

    /// How the data travels as `structuredContent`, if it does.
    pub fn structured(&self) -> Option<Structured> {
        self.structured
    }

    /// Makes the data travel as `structuredContent` too, in `form` (`None`: not at all).
    /// Error responses and text results never carry it.
    pub fn set_structured(&mut self, form: Option<Structured>) {
        let has_data = !matches!(self.data, DataBlock::Text(_));
        self.structured = form.filter(|_| has_data && self.is_error != Some(true));
    }

    /// Adds a directive to the response's `<llm_directives>` block (made where WIRE.md §1.1
    /// puts it when there was none), as [`ResponseBuilder::llm_hint`] would have: for a
    /// directive that depends on what the response holds (the next page of a collection).
    pub fn push_hint(&mut self, hint: impl Into<String>) {
        let after = usize::from(!self.meta.rules.is_empty())
            + usize::from(!self.meta.suggestions.is_empty());
        let had = !self.meta.hints.is_empty();
        self.meta.hints.push(hint.into());
        let mut t = Vec::new();
        write_bullets(&mut t, "llm_directives", &self.meta.hints);
        let at = self.blocks.len() - after;
        if had {
            self.blocks[at - 1] = t;
        } else {
            self.blocks.insert(at, t);
        }
    }

    /// The number of items of the data block when it is an array (`None` otherwise, and for
    /// JSON text read window by window), without materialising anything.
    pub fn items(&self) -> Option<usize> {
        match &self.data {
            DataBlock::Text(_) => None,
            DataBlock::Encoded(v, _) => v.as_array().map(|a| a.len()),
            DataBlock::Owned(d, _) => d.root().as_array().map(|a| a.len()),
            DataBlock::View(v, _) => Some(v.rows),
            DataBlock::Windowed(_) => None,
        }
    }

    /// The side door.
    pub fn meta(&self) -> &Meta {
        &self.meta
    }

    /// True when the data block is a presenter's row view (rows encoded straight from the
    /// input tape) rather than a document: for tests comparing both paths (`test_hooks`).
    pub(crate) fn is_view(&self) -> bool {
        matches!(self.data, DataBlock::View(..))
    }

    /// True when the data block is JSON text read window by window ([`Data::Json`]): for
    /// tests comparing both paths (`test_hooks`).
    pub(crate) fn is_windowed(&self) -> bool {
        matches!(self.data, DataBlock::Windowed(..))
    }

    /// True when the data block is JSON text read window by window and the first reading
    /// kept every window (the input is read once).
    pub(crate) fn is_read_once(&self) -> bool {
        matches!(&self.data, DataBlock::Windowed(w) if w.read_once())
    }

    /// The input range of the rows of each window of a windowed data block the first reading
    /// kept (none otherwise).
    pub(crate) fn kept_ranges(&self) -> Vec<(usize, usize)> {
        match &self.data {
            DataBlock::Windowed(w) => w.kept_ranges(),
            _ => Vec::new(),
        }
    }

    /// The windowed data block, if it is one (its `structuredContent` is written from it).
    pub(crate) fn windowed(&self) -> Option<&WindowedBlock<'d>> {
        match &self.data {
            DataBlock::Windowed(w) => Some(w),
            _ => None,
        }
    }

    /// Side door: exactly what the data block encodes (`None` for text results and errors).
    pub fn data(&self) -> Option<Value<'_>> {
        match &self.data {
            DataBlock::Text(_) => None,
            DataBlock::Encoded(v, _) => Some(*v),
            DataBlock::Owned(d, _) => Some(d.root()),
            DataBlock::View(v, _) => Some(v.derived().root()),
            DataBlock::Windowed(w) => w.doc().map(|d| d.root()),
        }
    }

    /// Writes the text of block `i` (0 is the data block) into `out`.
    ///
    /// # Panics
    ///
    /// When `i >= self.block_count()`.
    pub fn write_block<W: Sink + ?Sized>(&self, i: usize, out: &mut W) {
        if i > 0 {
            out.write(&self.blocks[i - 1]);
            return;
        }
        match &self.data {
            DataBlock::Text(t) => out.write(t.as_bytes()),
            DataBlock::Encoded(v, format) => write_data(*v, *format, out),
            DataBlock::Owned(d, format) => write_data(d.root(), *format, out),
            DataBlock::View(v, format) => v.write(*format, out),
            DataBlock::Windowed(w) => w.write(w.format(), out),
        }
    }

    /// An upper bound of block `i`'s length once JSON-string-escaped into a frame, computed
    /// without encoding: exact for text blocks, a walk over the tape for data (`usize::MAX`
    /// for JSON bytes read window by window without [`ResponseBuilder::size_bound`]).
    ///
    /// # Panics
    ///
    /// When `i >= self.block_count()`.
    pub fn block_len_bound(&self, i: usize) -> usize {
        if i > 0 {
            return escaped_len(&self.blocks[i - 1]);
        }
        match &self.data {
            DataBlock::Text(t) => escaped_len(t.as_bytes()),
            DataBlock::Encoded(v, _) => data_len_bound(*v),
            DataBlock::Owned(d, _) => data_len_bound(d.root()),
            DataBlock::View(v, _) => v.len_bound(),
            DataBlock::Windowed(w) => w.len_bound(),
        }
    }

    /// The text of block `i`.
    ///
    /// # Panics
    ///
    /// When `i >= self.block_count()`.
    pub fn block_text(&self, i: usize) -> String {
        let v = self.block_bytes(i);
        // Every block is UTF-8: data encoders write UTF-8 (lone surrogates are escaped or
        // rejected at build time) and the other blocks come from `&str`s.
        String::from_utf8(v).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    }

    /// The UTF-8 bytes of block `i`, written into room made for what it most likely takes
    /// (guessed without writing it: a data document's as `toon::to_vec` reserves, a row
    /// view's and windows' from their first rows and their input), for a binding that hands
    /// them to its language, which checks them as it decodes.
    ///
    /// # Panics
    ///
    /// When `i >= self.block_count()`.
    pub fn block_bytes(&self, i: usize) -> Vec<u8> {
        let mut v = crate::sink::output_with_capacity(self.likely_len(i));
        self.write_block(i, &mut v);
        v
    }

    /// The bytes block `i` most likely takes, without writing it: exact for text blocks; a
    /// data document's as `toon::to_vec` reserves; a row view's and windows' guessed from
    /// their first rows and their input. Never from `data()`, which derives a view's
    /// document (a copy of the rows: Node's `present` of 100k flat rows took 59 ms instead
    /// of 25). A guess, not a bound ([`Self::block_len_bound`] is one).
    ///
    /// # Panics
    ///
    /// When `i >= self.block_count()`.
    pub(crate) fn likely_len(&self, i: usize) -> usize {
        match (i, &self.data) {
            (0, DataBlock::Text(t)) => t.len(),
            (0, DataBlock::Encoded(v, _)) => crate::toon::likely_len(*v),
            (0, DataBlock::Owned(d, _)) => crate::toon::likely_len(d.root()),
            (0, DataBlock::View(v, format)) => v.likely_len(*format),
            (0, DataBlock::Windowed(w)) => w.likely_len(),
            _ => self.blocks[i - 1].len(),
        }
    }

    /// All block texts in order.
    pub fn texts(&self) -> Vec<String> {
        (0..self.block_count())
            .map(|i| self.block_text(i))
            .collect()
    }
}

fn write_data<W: Sink + ?Sized>(v: Value<'_>, format: Format, out: &mut W) {
    match format {
        Format::Pretty => crate::json::write_pretty(v, out),
        // `Auto` is resolved in `build`; never seen here.
        Format::Compact | Format::Auto => crate::json::write_compact(v, out),
        Format::Toon(_) => {
            let opts = format.toon_options().unwrap_or_default();
            // `build` ran `toon::check` with these options, so encoding cannot fail here.
            if crate::toon::encode(v, &opts, out).is_err() {
                debug_assert!(false, "toon::encode failed after toon::check succeeded");
            }
        }
    }
}
