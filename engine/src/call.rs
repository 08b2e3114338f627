//! The front door: one tool call → its response bytes.
//!
//! Every interface (the CLI, `toolwire serve`, the Node and Python bindings) turns a tool call
//! into its response through this module and nothing else, so each behaves exactly like the
//! others. A [`ToolCall`] carries what the call is made of — an optional [`Presenter`], the
//! agent's `_select`, per-call [`Overrides`] of `format`, `limit` and `token_budget` — and
//! owns every decision between input bytes and output bytes:
//!
//! 1. [`ToolCall::read`] prepares the input as this call needs it: with a presenter, parsed
//!    through the presenter's selector (fields nothing reads are never materialised); under a
//!    `limit` (the presenter's or the call's) only the rows it keeps go on the tape, the
//!    others validated and counted (the reply is the whole document's, in less memory); a
//!    plain root array that needs no document up front goes in as [`Data::Json`] (read window
//!    by window when large, never held whole, and validated by step 2); anything else is
//!    parsed whole. Malformed input is the only error, positioned.
//! 2. [`ToolCall::respond`] presents it. Problems of the response (a bad `_select`, output
//!    validation, data that cannot be encoded under a presenter) are error *responses*, as
//!    the agent receives them, with the [`Problem`] kept beside for the caller's logs and
//!    exit codes.
//! 3. [`Reply::write`] / [`Reply::write_io`] (and `write_async` with the `tokio` feature)
//!    write it as a bare `CallToolResult` line, a JSON-RPC frame or block texts for humans,
//!    in chunks as it is encoded: everything that can fail was checked in step 2.
//!
//! ```
//! use toolwire::call::{Framing, ToolCall};
//! use toolwire::present::Presenter;
//!
//! let presenter = Presenter::from_json(
//!     br#"{"name": "Invoice", "select": true, "limit": 1,
//!          "schema": {"type": "object", "properties": {"id": {"type": "string"}, "n": {"type": "integer"}}}}"#,
//! ).unwrap();
//! let call = ToolCall::new().presenter(&presenter).select(["id"]).format("toon-comma".parse().unwrap());
//! let input = call.read(br#"[{"id": "A", "n": 1, "secret": 2}, {"id": "B", "n": 2}]"#)?;
//! let reply = call.respond(&input)?;
//! assert_eq!(reply.response().texts()[0], "[1]{id}:\n  A");
//! let mut line = Vec::new();
//! reply.write_io(&Framing::result(), &mut line)?;
//! assert!(line.starts_with(br#"{"content":[{"type":"text","text":"[1]{id}:\n  A"}"#));
//!
//! // A `_select` name the schema does not have: an error response, the problem beside it.
//! let call = ToolCall::new().presenter(&presenter).select(["x"]);
//! let input = call.read(b"[]")?;
//! let reply = call.respond(&input)?;
//! assert_eq!(reply.response().is_error(), Some(true));
//! assert!(matches!(reply.problem(), Some(toolwire::call::Problem::Select(_))));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::io;

mod page;

pub use page::Fit;

#[doc(inline)]
pub use crate::present::UNCOUNTED;

use crate::doc::{Doc, Value};
use crate::error::{Category, Error, Result};
use crate::frame::{self, Id, Protocol};
use crate::json::{JsonInput, ParseOptions, Selector};
use crate::present::{Overrides, PresentError, Presenter};
use crate::sink::Sink;
use crate::wire::{self, Data, FieldProblem, Format, ToolResponse};

/// Bytes per chunk when a reply is written to an `io::Write` or an `AsyncWrite`.
pub const CHUNK_BYTES: usize = 256 << 10;

/// One tool call: the presenter, the agent's `_select` and the per-call overrides.
///
/// Cheap to build per call (the presenter is shared, not copied).
#[derive(Clone, Debug, Default)]
pub struct ToolCall {
    presenter: Option<Presenter>,
    select: Option<SelectArg>,
    overrides: Overrides,
    action: Option<String>,
    paging: Option<page::Paging>,
    structured: bool,
    cancel: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

/// The `_select` of a call, as far as the call is concerned.
#[derive(Clone, Debug)]
enum SelectArg {
    /// Names in request order (empty: all fields).
    Names(Vec<String>),
    /// The argument was not a list of names: what was wrong with it.
    Invalid(Vec<FieldProblem>),
}

/// The input of a call, prepared by [`ToolCall::read`] (or made from a value the caller
/// already has).
#[derive(Debug)]
pub struct Input<'d>(InputKind<'d>);

#[derive(Debug)]
enum InputKind<'d> {
    /// A parsed document (whole, or through a presenter's selector).
    Doc(Doc<'d>),
    /// A value of a document the caller holds.
    Value(Value<'d>),
    /// JSON text handed to the response as it is (a plain root array), and where it is
    /// held (see [`ToolCall::read_held`]).
    Json(&'d [u8], JsonInput),
    /// A page of a larger collection ([`Input::page`]): its rows, and the items it stands for.
    Page { doc: Doc<'d>, total: usize },
    /// "No value" (a handler returned nothing): the data block is `OK`.
    Nothing,
}

impl<'d> Input<'d> {
    /// A value the caller already parsed (a server's collection, a decoded document).
    pub fn value(v: Value<'d>) -> Input<'d> {
        Input(InputKind::Value(v))
    }

    /// "No value": what a handler that returned nothing (`undefined`, `None`, `()`) hands
    /// over; the data block is `OK` (WIRE.md §1.3), with or without a presenter.
    pub fn nothing() -> Input<'static> {
        Input(InputKind::Nothing)
    }

    /// A document the caller built or parsed.
    pub fn doc(d: Doc<'d>) -> Input<'d> {
        Input(InputKind::Doc(d))
    }

    /// The root value, when the input was parsed (`None` for JSON text kept as it is).
    pub fn root(&self) -> Option<Value<'_>> {
        match &self.0 {
            InputKind::Doc(d) | InputKind::Page { doc: d, .. } => Some(d.root()),
            InputKind::Value(v) => Some(*v),
            InputKind::Json(..) | InputKind::Nothing => None,
        }
    }
}

/// Why a reply is an error response (it is written all the same: it is what the agent
/// receives).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum Problem {
    /// The `_select` argument: the problems of WIRE.md §4, first one first.
    Select(Vec<FieldProblem>),
    /// The data does not match the presenter's schema (`OUTPUT_VALIDATION_FAILED`).
    Output,
    /// The data cannot be encoded in the chosen format (`INTERNAL_ERROR`), with the reason.
    Encode(String),
    /// Not even one whole item fits in the message cap of
    /// [`ToolCall::respond_within`] (`TOO_LARGE`).
    TooLarge {
        /// The cap, in bytes.
        cap: usize,
    },
    /// Not even one whole item fits in the token budget of [`ToolCall::respond_fitted`]
    /// (`TOO_LARGE`).
    TooManyTokens {
        /// The budget, in tokens.
        budget: usize,
    },
}

impl Problem {
    /// The limit a `TOO_LARGE` passed, in the words of its message ("the token budget of
    /// 25000 tokens (o200k_base)", "the message cap of 4096 bytes"); `None` for the other
    /// problems.
    pub fn limit(&self) -> Option<String> {
        match self {
            Problem::TooManyTokens { budget } => {
                Some(format!("the token budget of {budget} tokens (o200k_base)"))
            }
            Problem::TooLarge { cap } => Some(format!("the message cap of {cap} bytes")),
            Problem::Select(_) | Problem::Output | Problem::Encode(_) => None,
        }
    }
}

/// The response of one call, ready to be written, and what went wrong with it, if anything.
#[derive(Debug)]
pub struct Reply<'d> {
    response: ToolResponse<'d>,
    problem: Option<Problem>,
    select_ignored: bool,
    /// TOO_LARGE because one item alone (a collection's first) is over the limits.
    item_over: bool,
}

impl<'d> Reply<'d> {
    /// The response (blocks, `isError`, the side door).
    pub fn response(&self) -> &ToolResponse<'d> {
        &self.response
    }

    /// Takes the response out.
    pub fn into_response(self) -> ToolResponse<'d> {
        self.response
    }

    /// Why the response is an error response (`None` for success responses and for error
    /// responses a handler built itself).
    pub fn problem(&self) -> Option<&Problem> {
        self.problem.as_ref()
    }

    /// True when a `_select` was given but the presenter does not enable select, so it was
    /// ignored (an agent could not have sent it: worth a warning).
    pub fn select_ignored(&self) -> bool {
        self.select_ignored
    }

    /// True when the reply is the `TOO_LARGE` of [`ToolCall::respond_fitted`] because one
    /// item alone (a collection's first, or the only one) is over the limits; false when the
    /// response's other blocks are, or for any other reply. A server paging a collection can
    /// then name the call that skips that item.
    pub fn item_too_large(&self) -> bool {
        self.item_over
    }

    /// True when the response is an error response (`isError: true`).
    pub fn is_error(&self) -> bool {
        self.response.is_error() == Some(true)
    }

    /// Writes the reply in `framing` into `out`. Cannot fail: everything was checked when the
    /// reply was made.
    pub fn write<W: Sink + ?Sized>(&self, framing: &Framing, out: &mut W) {
        match framing {
            Framing::Result { protocol } => {
                frame::write_result(&self.response, *protocol, out);
                out.write_byte(b'\n');
            }
            Framing::Frame { id, protocol } => {
                frame::write_frame(id, &self.response, *protocol, out)
            }
            Framing::Blocks => {
                for i in 0..self.response.block_count() {
                    self.response.write_block(i, out);
                    out.write(b"\n-----\n");
                }
            }
        }
    }

    /// Writes the reply in `framing` to `w` in chunks of [`CHUNK_BYTES`] as it is encoded (the
    /// whole text is never held), then flushes.
    ///
    /// # Errors
    ///
    /// The first error of `w`; encoding stops at it.
    pub fn write_io<W: io::Write>(&self, framing: &Framing, w: W) -> io::Result<()> {
        write_chunked(w, |sink| self.write(framing, sink))
    }
}

#[cfg(feature = "tokio")]
impl Reply<'static> {
    /// Writes the reply in `framing` to an async writer in chunks of [`CHUNK_BYTES`]: encoded
    /// on a blocking thread, at most four chunks ahead of the writer; a failing writer stops
    /// the encoding.
    ///
    /// # Errors
    ///
    /// The first error of `w`.
    pub async fn write_async<W>(self, framing: Framing, w: &mut W) -> io::Result<()>
    where
        W: tokio::io::AsyncWrite + Unpin + ?Sized,
    {
        use tokio::io::AsyncWriteExt;
        let (tx, mut rx) = tokio::sync::mpsc::channel::<bytes::Bytes>(4);
        let encoder = tokio::task::spawn_blocking(move || {
            let mut sink =
                crate::sink::ChunkedSink::new(CHUNK_BYTES, |chunk| tx.blocking_send(chunk).is_ok());
            self.write(&framing, &mut sink);
            sink.finish();
        });
        let mut result = Ok(());
        while let Some(chunk) = rx.recv().await {
            if let Err(e) = w.write_all(&chunk).await {
                result = Err(e);
                break;
            }
        }
        // Dropping the receiver cancels the encoder (its next chunk finds nobody).
        drop(rx);
        encoder.await.map_err(io::Error::other)?;
        result?;
        w.flush().await
    }
}

/// How a reply is written.
#[derive(Clone, Debug)]
pub enum Framing {
    /// The bare `CallToolResult` object, compact, on one line ending with LF.
    Result {
        /// The negotiated protocol (`resultType` from 2026-07-28).
        protocol: Protocol,
    },
    /// One JSON-RPC 2.0 response line answering `id` (WIRE.md §11).
    Frame {
        /// The request id.
        id: Id,
        /// The negotiated protocol.
        protocol: Protocol,
    },
    /// Each block's text followed by a line `-----`, for humans.
    Blocks,
}

impl Framing {
    /// [`Framing::Result`] for the default protocol.
    pub fn result() -> Framing {
        Framing::Result {
            protocol: Protocol::default(),
        }
    }
}

/// Runs `write` into a sink that hands chunks of [`CHUNK_BYTES`] to `w` as they fill, then
/// flushes `w`: `write`'s result, or the first error of `w` (after which the sink reports
/// itself cancelled, so encoders stop).
///
/// # Errors
///
/// The first error of `w`.
pub fn write_chunked<W: io::Write, T>(
    mut w: W,
    write: impl FnOnce(&mut crate::sink::ChunkedSink<&mut dyn FnMut(bytes::Bytes) -> bool>) -> T,
) -> io::Result<T> {
    let mut error = None;
    let mut consumer = |chunk: bytes::Bytes| match w.write_all(&chunk) {
        Ok(()) => true,
        Err(e) => {
            error.get_or_insert(e);
            false
        }
    };
    let mut sink =
        crate::sink::ChunkedSink::new(CHUNK_BYTES, &mut consumer as &mut dyn FnMut(_) -> _);
    let out = write(&mut sink);
    sink.finish();
    if let Some(e) = error {
        return Err(e);
    }
    w.flush()?;
    Ok(out)
}

impl ToolCall {
    /// A call without presenter, `_select` or overrides: the data as it is, pretty JSON.
    pub fn new() -> ToolCall {
        ToolCall::default()
    }

    /// Presents the data through `presenter` (shared, not copied).
    pub fn presenter(mut self, presenter: &Presenter) -> ToolCall {
        self.presenter = Some(presenter.clone());
        self
    }

    /// The agent's `_select` names, in request order (empty: all fields). With a presenter
    /// they are checked against its schema and apply only when it enables select (else they
    /// are ignored and [`Reply::select_ignored`] says so); without one they pick root keys,
    /// unchecked, as [`ToolCall::read`] parses the input (an [`Input::value`] is not
    /// projected).
    pub fn select<I: IntoIterator<Item = S>, S: Into<String>>(mut self, names: I) -> ToolCall {
        self.select = Some(SelectArg::Names(
            names.into_iter().map(Into::into).collect(),
        ));
        self
    }

    /// The agent's `_select` argument as it was sent (any JSON value): with a presenter that
    /// enables select, checked as WIRE.md §4 says (a non-array or a non-string element is a
    /// `<validation_error>`); otherwise read as a list of names when it is one. It is checked
    /// against the presenter set so far: call it after [`ToolCall::presenter`].
    pub fn select_value(mut self, arg: Value<'_>) -> ToolCall {
        let checked = match &self.presenter {
            Some(p) if p.select_enabled() => match p.parse_select(arg) {
                Ok(names) => SelectArg::Names(names),
                Err(problems) => SelectArg::Invalid(problems),
            },
            _ => match arg.as_array() {
                Some(a) => SelectArg::Names(
                    a.iter()
                        .filter_map(|v| v.as_str().and_then(|s| s.to_str()).map(str::to_owned))
                        .collect(),
                ),
                None => SelectArg::Names(Vec::new()),
            },
        };
        self.select = Some(checked);
        self
    }

    /// Per-call overrides of the presenter's `format`, `limit` and `token_budget` (added to
    /// earlier ones).
    pub fn overrides(mut self, overrides: Overrides) -> ToolCall {
        self.overrides = self.overrides.then(overrides);
        self
    }

    /// The data format of this call.
    pub fn format(self, format: Format) -> ToolCall {
        self.overrides(Overrides {
            format: Some(format),
            ..Overrides::default()
        })
    }

    /// Keep at most `n` items of a collection.
    pub fn limit(self, n: usize) -> ToolCall {
        self.overrides(Overrides {
            limit: Some(n),
            ..Overrides::default()
        })
    }

    /// Keep as many whole items as fit in `n` tokens of the data format.
    pub fn token_budget(self, n: usize) -> ToolCall {
        self.overrides(Overrides {
            token_budget: Some(n),
            ..Overrides::default()
        })
    }

    /// The `action` attribute of a `<validation_error>` (`tool/action`); default
    /// `<presenter name>/present`, or `present` without a presenter.
    pub fn action(mut self, action: impl Into<String>) -> ToolCall {
        self.action = Some(action.into());
        self
    }

    /// The format of the data block when a successful response to this call is that block
    /// alone, as [`wire::response`] writes a value: no presenter, `_select`, limit, token
    /// budget, paging or structured content. A binding that writes such a block from its own
    /// objects (rows read as cells, a list encoded as it is walked) asks here instead of
    /// deciding the format itself. `None` for any other call, and for `auto` (decided from
    /// the data).
    pub fn plain_format(&self) -> Option<Format> {
        let plain = self.presenter.is_none()
            && self.select.is_none()
            && self.overrides.limit.is_none()
            && self.overrides.token_budget.is_none()
            && self.paging.is_none()
            && !self.structured;
        match self.overrides.format.unwrap_or_default() {
            Format::Auto => None,
            f => plain.then_some(f),
        }
    }

    /// The presenter with this call's overrides.
    fn effective_presenter(&self) -> Option<Presenter> {
        self.presenter
            .as_ref()
            .map(|p| p.with_overrides(self.overrides))
    }

    /// The `_select` names that apply: `None` when none were given, when the argument was
    /// invalid, or when a presenter does not enable select.
    fn names(&self) -> Option<Vec<&str>> {
        let Some(SelectArg::Names(names)) = &self.select else {
            return None;
        };
        if self.presenter.as_ref().is_some_and(|p| !p.select_enabled()) {
            return None;
        }
        Some(names.iter().map(String::as_str).collect())
    }

    /// Prepares JSON `bytes` as this call needs them (see the module docs).
    ///
    /// # Errors
    ///
    /// Malformed input: a positioned parse error (with [`ParseOptions`]' defaults). JSON
    /// text kept as it is is validated by [`ToolCall::respond`].
    pub fn read<'d>(&self, bytes: &'d [u8]) -> Result<Input<'d>> {
        let plain = self.presenter.is_none()
            && self.names().is_none()
            && self.overrides.limit.is_none()
            && self.overrides.token_budget.is_none()
            && self.overrides.format != Some(Format::Auto)
            && bytes.trim_ascii_start().first() == Some(&b'[');
        if plain {
            // Needs no document up front: a large array is read window by window (the same
            // bytes out as through the parsed document).
            return Ok(Input(InputKind::Json(bytes, JsonInput::Heap)));
        }
        let limit = match self.effective_presenter() {
            Some(p) => p.limit(),
            None => self.overrides.limit,
        };
        let Some(keep) = limit else {
            return self.parse(bytes);
        };
        // The limit pushed down: the rows past it are validated and counted, never put on
        // the tape; the reply is the one of the whole document (a page standing for all its
        // rows, as `present_counted` counts them).
        let opts = ParseOptions::default();
        let (doc, total) = crate::json::parse_head(bytes, self.selector().as_ref(), &opts, keep)?;
        Ok(Input(match total {
            Some(total) => InputKind::Page { doc, total },
            None => InputKind::Doc(doc),
        }))
    }

    /// [`ToolCall::read`] for bytes that are not on the heap (a memory-mapped file): JSON text
    /// kept as it is may then use the heap contract's share for the input to be read once
    /// ([`wire::ResponseBuilder::input_off_heap`]). The same reply either way.
    ///
    /// # Errors
    ///
    /// See [`ToolCall::read`].
    pub fn read_off_heap<'d>(&self, bytes: &'d [u8]) -> Result<Input<'d>> {
        self.read_held(bytes, JsonInput::OffHeap)
    }

    /// [`ToolCall::read`] for bytes held as `held` says: JSON text kept as it is may then be
    /// read once within that holder's memory contract ([`JsonInput`]; a binding passes
    /// [`JsonInput::Binding`]). The same reply whatever `held` is.
    ///
    /// # Errors
    ///
    /// See [`ToolCall::read`].
    pub fn read_held<'d>(&self, bytes: &'d [u8], held: JsonInput) -> Result<Input<'d>> {
        Ok(match self.read(bytes)?.0 {
            InputKind::Json(bytes, _) => Input(InputKind::Json(bytes, held)),
            other => Input(other),
        })
    }

    /// Parses JSON `bytes` into a document, through the presenter's selector (or, without a
    /// presenter, the `_select` names): for a caller that responds to many calls from one
    /// input (a server's collection, `toolwire budget` timing every format), where reading
    /// the text again per call would cost more than holding the document.
    ///
    /// # Errors
    ///
    /// Malformed input: a positioned parse error (with [`ParseOptions`]' defaults).
    pub fn parse<'d>(&self, bytes: &'d [u8]) -> Result<Input<'d>> {
        let opts = ParseOptions::default();
        let doc = match &self.selector() {
            Some(sel) => crate::json::parse_selected(bytes, sel, &opts)?,
            None => crate::json::parse(bytes, &opts)?,
        };
        Ok(Input(InputKind::Doc(doc)))
    }

    /// The parser's selection for this call: the presenter's (with the `_select` names), or
    /// without a presenter the `_select` names themselves; `None`: the whole document.
    fn selector(&self) -> Option<Selector> {
        let names = self.names();
        match &self.presenter {
            Some(p) => p.selector(names.as_deref()),
            None => names.filter(|n| !n.is_empty()).map(Selector::new),
        }
    }

    /// Presents `input`: through the presenter (with `_select` and the overrides), or as it
    /// is — a root string is a text result, used verbatim in every format.
    ///
    /// A reply meant for a message cap comes from [`ToolCall::respond_within`]: of JSON
    /// bytes read window by window, this one leaves the data block's size bound uncomputed
    /// ([`wire::ResponseBuilder::size_bound`]), so a cap check of its response counts bytes.
    ///
    /// # Errors
    ///
    /// Malformed JSON text kept as it is by [`ToolCall::read`] (positioned; nothing is
    /// written before it is all validated). Otherwise only for data without a presenter
    /// that cannot become a response: a string result
    /// holding a lone surrogate (MCP text is Unicode and the handler's text is never
    /// altered), or data that cannot be encoded in the chosen format (nested deeper than the
    /// TOON encoder's limit). Under a presenter such problems are error responses.
    pub fn respond<'d>(&self, input: &'d Input<'_>) -> Result<Reply<'d>> {
        self.respond_bounded(input, false)
    }

    /// [`ToolCall::respond`], computing the data block's size bound of windowed JSON bytes
    /// when `size_bound` (for [`ToolCall::respond_within`]'s cap).
    pub(crate) fn respond_bounded<'d>(
        &self,
        input: &'d Input<'_>,
        size_bound: bool,
    ) -> Result<Reply<'d>> {
        let mut reply = self.respond_unfinished(input, size_bound)?;
        self.finish_response(input, &mut reply);
        Ok(reply)
    }

    fn respond_unfinished<'d>(&self, input: &'d Input<'_>, size_bound: bool) -> Result<Reply<'d>> {
        let (root, total) = match &input.0 {
            InputKind::Json(bytes, held) => {
                let format = self.overrides.format.unwrap_or_default();
                let response = wire::response(Data::Json(bytes))
                    .format(format)
                    .json_input(*held)
                    .size_bound(size_bound)
                    .build()?;
                return Ok(self.reply(response, None));
            }
            InputKind::Nothing => {
                let response = wire::response(Data::None).build()?;
                return Ok(self.reply(response, None));
            }
            InputKind::Doc(d) => (d.root(), None),
            InputKind::Value(v) => (*v, None),
            InputKind::Page { doc, total } => (doc.root(), Some(*total)),
        };
        let Some(presenter) = self.effective_presenter() else {
            return self.respond_plain(root, total);
        };
        if let Some(SelectArg::Invalid(problems)) = &self.select {
            if presenter.select_enabled() {
                let problem = Problem::Select(problems.clone());
                let response = wire::validation_error(&self.action_for(&presenter), problems);
                return Ok(self.reply(response, Some(problem)));
            }
        }
        let names = self.names();
        Ok(
            match presenter.present_counted(root, names.as_deref(), total) {
                Ok(r) => self.reply(r, None),
                Err(e) => {
                    let problem = problem_of(&e);
                    let response = e.into_response(&self.action_for(&presenter));
                    self.reply(response, Some(problem))
                }
            },
        )
    }

    /// Without a presenter: a root string is a text result; a limit or token budget goes
    /// through an anonymous presenter without schema (truncation and its notice only).
    fn respond_plain<'d>(&self, root: Value<'d>, total: Option<usize>) -> Result<Reply<'d>> {
        let format = self.overrides.format.unwrap_or_default();
        if let Some(s) = root.as_str() {
            let text = s.to_str().ok_or_else(|| {
                const MESSAGE: &str = "a string result cannot hold a lone surrogate";
                // Read from JSON text, the root string starts at its first non-blank byte:
                // the error names that line and column.
                let src = root.doc().src();
                match src.iter().position(|b| !b.is_ascii_whitespace()) {
                    Some(at) if src.get(at) == Some(&b'"') => {
                        Error::at(Category::Encode, MESSAGE, src, at)
                    }
                    _ => Error::new(Category::Encode, MESSAGE),
                }
            })?;
            let response = wire::response(Data::Text(text)).format(format).build()?;
            return Ok(self.reply(response, None));
        }
        if self.overrides.limit.is_none()
            && self.overrides.token_budget.is_none()
            && total.is_none()
        {
            let response = wire::response(Data::Value(root)).format(format).build()?;
            return Ok(self.reply(response, None));
        }
        let presenter = Presenter::builder("present")
            .build()
            .map_err(|e| Error::new(Category::Encode, e.to_string()))?
            .with_overrides(self.overrides);
        match presenter.present_counted(root, None, total) {
            Ok(r) => Ok(self.reply(r, None)),
            Err(PresentError::Encode(e)) => Err(e),
            Err(e) => {
                let action = self.action.as_deref().unwrap_or("present");
                let problem = problem_of(&e);
                Ok(self.reply(e.into_response(action), Some(problem)))
            }
        }
    }

    fn action_for(&self, presenter: &Presenter) -> String {
        self.action
            .clone()
            .unwrap_or_else(|| format!("{}/present", presenter.name()))
    }

    fn reply<'d>(&self, response: ToolResponse<'d>, problem: Option<Problem>) -> Reply<'d> {
        let select_ignored =
            self.select.is_some() && self.presenter.as_ref().is_some_and(|p| !p.select_enabled());
        Reply {
            response,
            problem,
            select_ignored,
            item_over: false,
        }
    }
}

fn problem_of(e: &PresentError) -> Problem {
    match e {
        PresentError::Select(p) => Problem::Select(p.clone()),
        PresentError::Output(_) => Problem::Output,
        PresentError::Encode(e) => Problem::Encode(e.message().to_owned()),
    }
}
