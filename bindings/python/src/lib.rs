//! `toolwire._native`: the Python extension behind `toolwire`, `toolwire.toon` and
//! `toolwire.mcp` (BINDINGS.md, Python).
//!
//! Thin by contract: every decision (formats, presenter files, `auto`, overrides, size caps)
//! is the engine's, reached through its front door [`toolwire::call`]. This crate only moves
//! values between Python and the engine — Python objects into a [`toolwire::Doc`]
//! (`walk`), documents back into Python objects (`topy`) — and releases the GIL while
//! the engine works, so threads scale.
//!
//! Built by maturin (`pip install ./bindings/python`); the Python-facing API, its stubs and
//! its tests live beside this crate in `python/` and `tests/`.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyList, PyString};
use toolwire::call::{Framing, Input, ToolCall};
use toolwire::present::Overrides;
use toolwire::toon::{DecodeOptions, Delimiter, EncodeOptions};
use toolwire::wire::Format;

mod callbacks;
mod topy;
mod walk;
mod windows;

use walk::{Mode, Walker};

/// The exception class `name` of `toolwire._errors`, instantiated with `args`.
fn error_of<'py>(py: Python<'py>, name: &str, args: impl pyo3::call::PyCallArgs<'py>) -> PyErr {
    let made = py
        .import("toolwire._errors")
        .and_then(|m| m.getattr(name))
        .and_then(|cls| cls.call1(args));
    match made {
        Ok(e) => PyErr::from_value(e),
        Err(e) => e,
    }
}

/// An engine error as `toolwire.ToolwireError` (a `ValueError`) with its category and
/// position.
fn engine_error(py: Python<'_>, e: &toolwire::Error) -> PyErr {
    let pos = e.position();
    error_of(
        py,
        "ToolwireError",
        (
            e.message().to_owned(),
            format!("{:?}", e.classify()).to_lowercase(),
            pos.map(|p| p.line),
            pos.map(|p| p.column),
            pos.map(|p| p.offset),
        ),
    )
}

/// A `toolwire.toon.ToonDecodeError(msg, line, source)`.
pub(crate) fn decode_error(
    py: Python<'_>,
    msg: &str,
    line: Option<usize>,
    source: Option<String>,
) -> PyErr {
    error_of(py, "ToonDecodeError", (msg.to_owned(), line, source))
}

fn delimiter_of(d: &str) -> PyResult<Delimiter> {
    match d {
        "," => Ok(Delimiter::Comma),
        "\t" => Ok(Delimiter::Tab),
        "|" => Ok(Delimiter::Pipe),
        _ => Err(PyValueError::new_err(format!(
            "delimiter must be ',', '\\t', or '|', got {d:?}"
        ))),
    }
}

fn encode_options(indent_size: usize, delimiter: &str) -> PyResult<EncodeOptions> {
    if indent_size > toolwire::toon::MAX_INDENT {
        return Err(PyValueError::new_err(format!(
            "indent_size must be at most {}, got {indent_size}",
            toolwire::toon::MAX_INDENT
        )));
    }
    Ok(EncodeOptions::new()
        .delimiter(delimiter_of(delimiter)?)
        .indent(indent_size)
        .max_depth(walk::MAX_DEPTH))
}

/// UTF-8 bytes as a Python `str`, decoded (and so validated) once, by CPython: the engine's
/// output is UTF-8, and checking it in Rust first would read a large text twice.
fn py_str<'py>(py: Python<'py>, bytes: &[u8]) -> PyResult<Bound<'py, PyString>> {
    let len = pyo3::ffi::Py_ssize_t::try_from(bytes.len())
        .map_err(|_| PyValueError::new_err("output too large"))?;
    // SAFETY: the pointer and length describe `bytes`, alive for the call; the errors
    // argument is a NUL-terminated C string. The GIL is held (`py`). A non-NULL result is a
    // new reference to a `str` (so the unchecked cast holds); NULL means a
    // Python exception is set, which `from_owned_ptr_or_err` takes.
    unsafe {
        let ptr = pyo3::ffi::PyUnicode_DecodeUTF8(bytes.as_ptr().cast(), len, c"strict".as_ptr());
        Ok(Bound::from_owned_ptr_or_err(py, ptr)?.cast_into_unchecked::<PyString>())
    }
}

/// TOON bytes as a `str`, with decimal placeholders replaced by their digits.
fn toon_text<'py>(
    py: Python<'py>,
    out: Vec<u8>,
    lexemes: &[String],
    nonce: u64,
) -> PyResult<Bound<'py, PyString>> {
    if lexemes.is_empty() {
        return py_str(py, &out);
    }
    let mut s = String::from_utf8(out).map_err(|e| PyValueError::new_err(e.to_string()))?;
    for (i, lexeme) in lexemes.iter().enumerate() {
        let quoted = format!("\"{}\"", walk::placeholder(nonce, i));
        s = s.replace(&quoted, lexeme);
    }
    Ok(PyString::new(py, &s))
}

/// `toolwire.toon.dumps` after its options were checked: Python object → TOON text.
#[pyfunction]
#[pyo3(signature = (obj, indent_size, delimiter, default, sort_keys))]
fn dumps<'py>(
    py: Python<'py>,
    obj: &Bound<'py, PyAny>,
    indent_size: usize,
    delimiter: &str,
    default: Option<Bound<'py, PyAny>>,
    sort_keys: bool,
) -> PyResult<Bound<'py, PyString>> {
    let opts = encode_options(indent_size, delimiter)?;
    let mut walker = Walker::new(py, Mode::Toon, default, sort_keys);
    if let Ok(list) = obj.cast_exact::<PyList>() {
        let rows = list.len();
        if rows >= windows::WINDOWED_ROWS {
            match windows::walk_and_encode(py, walker, list.as_any(), rows, &opts) {
                Ok(done) => {
                    let w = done?;
                    let out = w
                        .text
                        .map_err(|e| PyValueError::new_err(e.message().to_owned()))?;
                    return toon_text(py, out, &w.lexemes, w.nonce);
                }
                // No thread to spare: walked whole below.
                Err(w) => walker = *w,
            }
        }
    }
    let (doc, lexemes, nonce) = walker.walk(obj)?;
    let out = py
        .detach(|| toolwire::toon::to_vec(doc.root(), &opts))
        .map_err(|e| PyValueError::new_err(e.message().to_owned()))?;
    toon_text(py, out, &lexemes, nonce)
}

/// JSON text given as `bytes`, `bytearray`, `memoryview` or `str`, borrowed when immutable.
enum JsonText<'a> {
    Borrowed(&'a [u8]),
    Owned(Vec<u8>),
}

impl JsonText<'_> {
    fn bytes(&self) -> &[u8] {
        match self {
            JsonText::Borrowed(b) => b,
            JsonText::Owned(v) => v,
        }
    }
}

fn json_text<'a>(data: &'a Bound<'_, PyAny>) -> PyResult<JsonText<'a>> {
    if let Ok(b) = data.cast::<PyBytes>() {
        return Ok(JsonText::Borrowed(b.as_bytes()));
    }
    if let Ok(s) = data.cast::<PyString>() {
        return Ok(JsonText::Borrowed(walk::str_of(s)?.as_bytes()));
    }
    if let Ok(b) = data.cast::<PyByteArray>() {
        return Ok(JsonText::Owned(b.to_vec()));
    }
    if let Ok(v) = data.extract::<Vec<u8>>() {
        return Ok(JsonText::Owned(v));
    }
    Err(PyTypeError::new_err(format!(
        "JSON text must be bytes, bytearray, memoryview or str, not {}",
        data.get_type().name()?
    )))
}

/// `toolwire.toon.encode_json`: JSON text → TOON text, without Python objects, the GIL
/// released while the engine parses and encodes.
#[pyfunction]
#[pyo3(signature = (data, indent_size = 2, delimiter = ","))]
fn encode_json<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    indent_size: usize,
    delimiter: &str,
) -> PyResult<Bound<'py, PyString>> {
    let opts = encode_options(indent_size, delimiter)?;
    let text = json_text(data)?;
    let bytes = text.bytes();
    let out = py
        .detach(|| {
            // The engine's windowed reading with the bindings' room (`JsonInput::Binding`):
            // up to about 20 MB of rows read once, a larger input's tape never held whole.
            // Faster than a whole parse at every size measured (the same bytes, the engine
            // guarantees it): 100k flat rows 11.6 vs 16.3 ms, 300k 60.6 vs 78.6 ms, 100k
            // nested 77.4 vs 81.2 ms (docs/DECISIONS.md, "Read once in parallel").
            let mut out = toolwire::sink::output_with_capacity(bytes.len() / 2);
            let opts = opts.json_input(toolwire::toon::JsonInput::Binding);
            toolwire::toon::encode_json(bytes, &opts, &mut out).map(|()| out)
        })
        .map_err(|e| engine_error(py, &e))?;
    py_str(py, &out)
}

/// `toolwire.toon.loads` after its options were checked: TOON text → Python objects.
#[pyfunction]
#[pyo3(signature = (s, strict, indent_size, parse_float, parse_int, object_hook, object_pairs_hook))]
#[allow(clippy::too_many_arguments)]
fn loads<'py>(
    py: Python<'py>,
    s: &Bound<'py, PyString>,
    strict: bool,
    indent_size: usize,
    parse_float: Option<Bound<'py, PyAny>>,
    parse_int: Option<Bound<'py, PyAny>>,
    object_hook: Option<Bound<'py, PyAny>>,
    object_pairs_hook: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let text = match s.to_str() {
        Ok(t) => t,
        Err(_) => {
            return Err(decode_error(
                py,
                "Unpaired surrogate in the document",
                None,
                None,
            ));
        }
    };
    let opts = DecodeOptions::new().strict(strict).indent(indent_size);
    let hooks = topy::Hooks {
        parse_int: parse_int.filter(|f| !f.is_none()),
        parse_float: parse_float.filter(|f| !f.is_none()),
        object_hook: object_hook.filter(|f| !f.is_none()),
        object_pairs_hook: object_pairs_hook.filter(|f| !f.is_none()),
    };
    if hooks.are_none() && text.len() >= windows::WINDOWED_BYTES {
        // A long root array: decoded a window at a time beside the making of its objects.
        if let Some(array) = windows::RootArray::new(text.as_bytes(), indent_size) {
            if let Some(v) = windows::loads_windows(py, array, &opts)? {
                return Ok(v);
            }
        }
    }
    let doc = py
        .detach(|| toolwire::toon::decode(text.as_bytes(), &opts))
        .map_err(|e| {
            let line = e.position().map(|p| p.line);
            let source = line.and_then(|l| {
                text.split('\n')
                    .nth(l - 1)
                    .map(|s| s.strip_suffix('\r').unwrap_or(s).to_owned())
            });
            decode_error(py, e.message(), line, source)
        })?;
    topy::to_py(py, doc.root(), &hooks)
}

/// A compiled presenter file (CLI.md "Presenter file"): read once, shared by every call.
#[pyclass(frozen, module = "toolwire._native", name = "Presenter")]
struct PyPresenter {
    inner: toolwire::present::Presenter,
}

#[pymethods]
impl PyPresenter {
    /// Reads a presenter file from its JSON text. With `callbacks` (`(kind, label, callable)`
    /// triples, kind `rules`, `ui` or `suggest`), its `{"callback": n}` entries are the
    /// Python callables (the `toolwire.Presenter` builder; `present::Presenter::from_doc_with`).
    #[new]
    #[pyo3(signature = (json, callbacks=None))]
    fn new(
        py: Python<'_>,
        json: &Bound<'_, PyAny>,
        callbacks: Option<Vec<(String, String, Py<PyAny>)>>,
    ) -> PyResult<Self> {
        let text = json_text(json)?;
        let read = match callbacks {
            None => toolwire::present::Presenter::from_json(text.bytes()),
            Some(list) => {
                let list = list
                    .into_iter()
                    .map(|(kind, label, f)| callbacks::callback(&kind, label, f))
                    .collect::<PyResult<Vec<_>>>()?;
                let doc = toolwire::json::parse(text.bytes(), &toolwire::json::ParseOptions::new())
                    .map_err(|e| engine_error(py, &e))?;
                toolwire::present::Presenter::from_doc_with(doc.root(), list)
            }
        };
        let inner = read.map_err(|e| {
            let pos = e.position();
            error_of(
                py,
                "PresenterError",
                (
                    e.to_string(),
                    e.path().to_owned(),
                    pos.map(|p| p.0),
                    pos.map(|p| p.1),
                ),
            )
        })?;
        Ok(PyPresenter { inner })
    }

    /// The presenter's name.
    #[getter]
    fn name(&self) -> &str {
        self.inner.name()
    }

    /// Whether the presenter enables `_select`.
    #[getter]
    fn select_enabled(&self) -> bool {
        self.inner.select_enabled()
    }

    /// The `_select` enum: the schema's root keys, sorted bytewise.
    fn select_names(&self) -> Vec<String> {
        self.inner
            .select_names()
            .into_iter()
            .map(str::to_owned)
            .collect()
    }

    /// The `_select` input-schema property (JSON text), `None` when select is off.
    fn input_schema_property(&self) -> Option<String> {
        self.inner.input_schema_property()
    }

    /// The tool's `outputSchema` (JSON text, WIRE.md §7).
    #[pyo3(signature = (protocol, collection))]
    fn output_schema(&self, protocol: &str, collection: bool) -> String {
        self.inner.output_schema(protocol, collection)
    }
}

/// What the data of a call is.
enum Data<'a> {
    /// JSON text.
    Json(JsonText<'a>),
    /// A document built from Python objects.
    Doc(&'a toolwire::Doc<'static>),
    /// `None`: "no value".
    Nothing,
}

/// `toolwire.present`: one tool call through the engine's front door. Returns the block
/// texts, `isError` (absent: `None`), the side door, and — when `line` — the exact
/// `CallToolResult` line the CLI prints.
#[pyfunction]
#[pyo3(signature = (data, presenter=None, *, select=None, format=None, limit=None, token_budget=None, action=None, line=false, structured=false))]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
fn present<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    presenter: Option<PyRef<'py, PyPresenter>>,
    select: Option<Bound<'py, PyAny>>,
    format: Option<&str>,
    limit: Option<usize>,
    token_budget: Option<usize>,
    action: Option<String>,
    line: bool,
    structured: bool,
) -> PyResult<(
    Vec<Bound<'py, PyString>>,
    Option<bool>,
    SideDoor,
    Option<Bound<'py, PyBytes>>,
    Option<PyErr>,
)> {
    let format = format
        .map(|f| f.parse::<Format>())
        .transpose()
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let mut call = ToolCall::new();
    if let Some(p) = &presenter {
        call = call.presenter(&p.inner);
    }
    if let Some(sel) = select.filter(|s| !s.is_none()) {
        let (doc, _, _) = Walker::new(py, Mode::Json, None, false).walk(&sel)?;
        call = call.select_value(doc.root());
    }
    call = call.overrides(Overrides {
        format,
        limit,
        token_budget,
    });
    // The `action` of a validation error, and the `[tool/action]` of a callable's failure.
    let tool_action = action
        .clone()
        .or_else(|| {
            presenter
                .as_ref()
                .map(|p| format!("{}/present", p.inner.name()))
        })
        .unwrap_or_else(|| "present".to_owned());
    if let Some(a) = action {
        call = call.action(a);
    }
    call = call.structured(structured);
    // A long list whose response the engine says is its TOON data block alone (no
    // presenter, `select`, limit, budget or structured content; and no line asked for):
    // walked and encoded a window at a time as `dumps` does; anything else (a tag, a lone
    // surrogate, an encoder error) presented whole by the engine from the same windows.
    let mut walked_doc = None;
    if let (false, Some(opts), Ok(list)) = (
        line,
        call.plain_format().and_then(Format::toon_options),
        data.cast_exact::<PyList>(),
    ) && list.len() >= windows::WINDOWED_ROWS
    {
        let walker = Walker::new(py, Mode::Json, None, false);
        if let Ok(walked) = windows::walk_and_encode(py, walker, list.as_any(), list.len(), &opts) {
            let walked = walked?;
            let flagged = walked
                .windows
                .iter()
                .any(|w| w.has_reserved_tag() || w.has_lone_surrogate());
            match walked.text {
                Ok(text) if !flagged && walked.lexemes.is_empty() => {
                    let side = SideDoor {
                        call,
                        input: SideInput::Windows(walked.windows),
                        tool_action,
                    };
                    return Ok((vec![py_str(py, &text)?], None, side, None, None));
                }
                _ => walked_doc = Some(windows::joined(&walked.windows)),
            }
        }
    }
    let owned_doc = if walked_doc.is_some() {
        walked_doc
    } else if data.is_none()
        || data.is_instance_of::<PyBytes>()
        || data.is_instance_of::<PyByteArray>()
        || data.is_instance_of::<pyo3::types::PyMemoryView>()
    {
        None
    } else {
        Some(Walker::new(py, Mode::Json, None, false).walk(data)?.0)
    };
    let (texts, is_error, bytes, failure, copied) = {
        let input_data = match &owned_doc {
            Some(d) => Data::Doc(d),
            None if data.is_none() => Data::Nothing,
            None => Data::Json(json_text(data)?),
        };
        let call = &call;
        let out = {
            let input_data = &input_data;
            let tool_action = &tool_action;
            py.detach(move || -> toolwire::Result<_> {
                let (out, failure) = callbacks::guarded(|| -> toolwire::Result<_> {
                    let input = input_data.input(call)?;
                    let reply = call.respond(&input)?;
                    let mut bytes = Vec::new();
                    if line {
                        reply.write(&Framing::result(), &mut bytes);
                    }
                    // Bytes, decoded (and so checked) once by CPython below.
                    let r = reply.response();
                    let texts: Vec<Vec<u8>> =
                        (0..r.block_count()).map(|i| r.block_bytes(i)).collect();
                    Ok((texts, r.is_error(), bytes))
                });
                match failure {
                    None => out.map(|(t, e, b)| (t, e, b, None)),
                    Some(f) => {
                        let (t, e, b) = failed_response(tool_action, &f.message, line);
                        let t = t.into_iter().map(String::into_bytes).collect();
                        Ok((t, e, b, Some(f.err)))
                    }
                }
            })
            .map_err(|e| engine_error(py, &e))?
        };
        // The copy of a mutable buffer that was presented: the side door keeps it.
        let copied = match input_data {
            Data::Json(JsonText::Owned(v)) => Some(v),
            _ => None,
        };
        (out.0, out.1, out.2, out.3, copied)
    };
    let texts = texts
        .iter()
        .map(|t| py_str(py, t))
        .collect::<PyResult<Vec<_>>>()?;
    let line = line.then(|| PyBytes::new(py, &bytes));
    let input = match (owned_doc, copied) {
        (Some(d), _) => SideInput::Doc(d),
        (None, Some(v)) => SideInput::Copied(v),
        (None, None) if data.is_none() => SideInput::Nothing,
        (None, None) => SideInput::Json(data.clone().unbind()),
    };
    // A callable that raised something other than an `Exception` (`KeyboardInterrupt`,
    // `SystemExit`) is not the call's failure to report: it goes on up.
    if let Some(err) = &failure {
        if !err.is_instance_of::<pyo3::exceptions::PyException>(py) {
            return Err(err.clone_ref(py));
        }
    }
    let side = SideDoor {
        call,
        input,
        tool_action,
    };
    Ok((texts, is_error, side, line, failure))
}

/// The response of a call whose presenter callable raised: the `INTERNAL_ERROR` envelope
/// (WIRE.md §8) naming it, as texts, `isError` and (when `line`) the `CallToolResult` line.
fn failed_response(
    tool_action: &str,
    message: &str,
    line: bool,
) -> (Vec<String>, Option<bool>, Vec<u8>) {
    let r = toolwire::wire::handler_error(tool_action, message);
    let mut bytes = Vec::new();
    if line {
        // As `Reply::write` with `Framing::result()`: the object on one line ending with LF.
        toolwire::frame::write_result(&r, toolwire::frame::Protocol::default(), &mut bytes);
        bytes.push(b'\n');
    }
    (r.texts(), r.is_error(), bytes)
}

impl Data<'_> {
    fn input<'s>(&'s self, call: &ToolCall) -> toolwire::Result<Input<'s>> {
        match self {
            // The bindings' contract (a peak under twice the input) lets a large array be
            // read once.
            Data::Json(t) => call.read_held(t.bytes(), toolwire::toon::JsonInput::Binding),
            Data::Doc(d) => Ok(Input::value(d.root())),
            Data::Nothing => Ok(Input::nothing()),
        }
    }
}

/// What the side door keeps of a call's input: what was presented, never memory the caller
/// can still change.
enum SideInput {
    /// An immutable `bytes` or `str` (read again: it cannot have changed).
    Json(Py<PyAny>),
    /// The copy the call made of a mutable buffer (`bytearray`, `memoryview`): the caller
    /// may rewrite, resize or release its buffer after the call.
    Copied(Vec<u8>),
    /// The document walked from Python objects.
    Doc(toolwire::Doc<'static>),
    /// The windows of a long list walked and encoded at once (`windows::walk_and_encode`):
    /// joined into its document only when the side door is read.
    Windows(Vec<toolwire::Doc<'static>>),
    /// `None`.
    Nothing,
}

/// The testing side door (WIRE.md §10) of one response, built only when asked for: it keeps
/// the call and its input and presents them again (the same response, deterministically),
/// so no call pays for a side door nobody reads (a copy of 100k rows, then their Python
/// objects).
#[pyclass(frozen, module = "toolwire._native")]
struct SideDoor {
    call: ToolCall,
    input: SideInput,
    /// The `[tool/action]` of a callable's failure.
    tool_action: String,
}

#[pymethods]
impl SideDoor {
    /// `{"data", "rules", "ui_blocks", "hints", "suggestions", "format"}`.
    fn as_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let bound;
        let joined;
        let data = match &self.input {
            SideInput::Json(obj) => {
                bound = obj.bind(py).clone();
                Data::Json(json_text(&bound)?)
            }
            SideInput::Copied(v) => Data::Json(JsonText::Borrowed(v)),
            SideInput::Doc(d) => Data::Doc(d),
            SideInput::Windows(w) => {
                joined = windows::joined(w);
                Data::Doc(&joined)
            }
            SideInput::Nothing => Data::Nothing,
        };
        // Presenting again runs the presenter's callables again: one that raises gives the
        // side door of the failure's envelope, as the call did.
        let (out, failure) = callbacks::guarded(|| -> PyResult<_> {
            let input = data.input(&self.call).map_err(|e| engine_error(py, &e))?;
            let reply = self
                .call
                .respond(&input)
                .map_err(|e| engine_error(py, &e))?;
            meta_dict(py, reply.response().data(), reply.response().meta())
        });
        match failure {
            None => out,
            Some(f) => {
                let r = toolwire::wire::handler_error(&self.tool_action, &f.message);
                meta_dict(py, r.data(), r.meta())
            }
        }
    }
}

/// The side door (WIRE.md §10) as a `dict`: `data`, `rules`, `ui_blocks`, `hints`,
/// `suggestions`, `format`.
fn meta_dict<'py>(
    py: Python<'py>,
    data: Option<toolwire::Value<'_>>,
    meta: &toolwire::wire::Meta,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let data = match data {
        Some(v) => topy::to_py(py, v, &topy::Hooks::default())?,
        None => py.None().into_bound(py),
    };
    d.set_item("data", data)?;
    d.set_item("rules", PyList::new(py, &meta.rules)?)?;
    let ui = PyList::empty(py);
    for b in &meta.ui_blocks {
        let u = PyDict::new(py);
        u.set_item("type", b.kind())?;
        u.set_item("content", b.content())?;
        u.set_item("title", b.meta().title.as_deref())?;
        u.set_item("width", b.meta().width.map(|w| w.as_str()))?;
        u.set_item("priority", b.meta().priority)?;
        ui.append(u)?;
    }
    d.set_item("ui_blocks", ui)?;
    d.set_item("hints", PyList::new(py, &meta.hints)?)?;
    let sug = PyList::empty(py);
    for s in &meta.suggestions {
        let u = PyDict::new(py);
        u.set_item("tool", &s.tool)?;
        u.set_item("reason", &s.reason)?;
        sug.append(u)?;
    }
    d.set_item("suggestions", sug)?;
    d.set_item("format", meta.format.to_string())?;
    Ok(d)
}

/// The TOON tool description of WIRE.md §6 for a tool with actions
/// `(name, description, required, destructive)`.
#[pyfunction]
fn toon_description(
    tool_name: &str,
    description: &str,
    discriminator: &str,
    actions: Vec<(String, String, Vec<String>, bool)>,
) -> String {
    let actions: Vec<toolwire::present::ActionDescription> = actions
        .into_iter()
        .map(
            |(name, description, required, destructive)| toolwire::present::ActionDescription {
                name,
                description,
                required,
                destructive,
            },
        )
        .collect();
    toolwire::present::toon_description(tool_name, description, discriminator, &actions)
}

/// The `INTERNAL_ERROR` envelope of a failed handler (WIRE.md §8): `(text, isError)`.
#[pyfunction]
fn handler_error(tool_action: &str, message: &str) -> (String, Option<bool>) {
    let r = toolwire::wire::handler_error(tool_action, message);
    (r.texts().concat(), r.is_error())
}

/// The names `toolwire` accepts for `format` (the engine's, in its order).
#[pyfunction]
fn format_names() -> Vec<&'static str> {
    Format::NAMES.to_vec()
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(dumps, m)?)?;
    m.add_function(wrap_pyfunction!(encode_json, m)?)?;
    m.add_function(wrap_pyfunction!(loads, m)?)?;
    m.add_function(wrap_pyfunction!(present, m)?)?;
    m.add_function(wrap_pyfunction!(toon_description, m)?)?;
    m.add_function(wrap_pyfunction!(format_names, m)?)?;
    m.add_function(wrap_pyfunction!(handler_error, m)?)?;
    m.add_class::<PyPresenter>()?;
    m.add_class::<callbacks::PyUiBlock>()?;
    m.add_class::<SideDoor>()?;
    Ok(())
}
