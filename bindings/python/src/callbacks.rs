//! Presenter callbacks written in Python (`toolwire.Presenter`, WIRE.md §5 stages 4–6), and
//! the UI blocks they return (`toolwire.ui`, WIRE.md §3).
//!
//! The engine calls each callback with the item or the kept collection after truncation,
//! validation, stripping and redaction; here it becomes Python objects (`topy`), the Python
//! callable runs with the GIL taken back, and its answer — already normalised by
//! `toolwire/_presenter.py` into a list of `str`, of `(tool, reason)` pairs or of
//! [`PyUiBlock`]s — goes back to the engine, which escapes it like any other text of the
//! builder (WIRE.md §2): a callable cannot write a block tag.
//!
//! A callable that raises does not crash the call: [`guarded`] keeps the first failure of the
//! call it runs (the other callables of that call are skipped) and the caller turns the
//! response into the `INTERNAL_ERROR` envelope. The engine runs stages 4–7 on the calling
//! thread (`present::run::derive`), so the failure is kept per thread, in a stack for calls
//! made from inside a callable.

use std::cell::RefCell;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};
use toolwire::Value;
use toolwire::present::Callback;
use toolwire::wire::{Suggestion, UiBlock, UiMeta, Width, ui};

use crate::topy;
use crate::walk::{Mode, Walker};

/// The first callable of a call that raised: its exception and the message of the envelope.
pub(crate) struct Failure {
    pub(crate) err: PyErr,
    pub(crate) message: String,
}

thread_local! {
    /// One entry per [`guarded`] call running on this thread, innermost last.
    static CALLS: RefCell<Vec<Option<Failure>>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` (an engine call that may run presenter callbacks on this thread) and returns its
/// result with the first callback failure, if any.
pub(crate) fn guarded<T>(f: impl FnOnce() -> T) -> (T, Option<Failure>) {
    struct Frame;
    impl Drop for Frame {
        fn drop(&mut self) {
            CALLS.with(|c| c.borrow_mut().pop());
        }
    }
    CALLS.with(|c| c.borrow_mut().push(None));
    let frame = Frame;
    let out = f();
    let failure = CALLS.with(|c| c.borrow_mut().last_mut().and_then(Option::take));
    drop(frame);
    (out, failure)
}

/// Whether the innermost guarded call of this thread already failed (`None`: not in one).
fn failed() -> Option<bool> {
    CALLS.with(|c| c.borrow().last().map(Option::is_some))
}

fn record(py: Python<'_>, label: &str, err: PyErr) {
    let kind = err
        .get_type(py)
        .name()
        .map_or_else(|_| "Exception".to_owned(), |n| n.to_string());
    let text = err
        .value(py)
        .str()
        .map_or_else(|_| String::new(), |s| s.to_string());
    let message = if text.is_empty() {
        format!("{label} raised {kind}")
    } else {
        format!("{label} raised {kind}: {text}")
    };
    let kept = CALLS.with(|c| match c.borrow_mut().last_mut() {
        Some(slot) => {
            slot.get_or_insert(Failure { err, message });
            None
        }
        None => Some(err),
    });
    // Outside a guarded call (the engine would have moved stages 4–6 to another thread):
    // nobody can answer for the failure, so Python reports it as unraisable.
    if let Some(err) = kept {
        err.write_unraisable(py, None);
    }
}

/// Calls `f` with `v` as Python objects and converts its (normalised) answer.
fn call<T>(
    label: &str,
    f: &Py<PyAny>,
    v: Value<'_>,
    convert: impl FnOnce(&Bound<'_, PyAny>) -> PyResult<Vec<T>>,
) -> Vec<T> {
    if failed() == Some(true) {
        return Vec::new();
    }
    Python::attach(|py| {
        let out = topy::to_py(py, v, &topy::Hooks::default())
            .and_then(|arg| f.bind(py).call1((arg,)))
            .and_then(|r| convert(&r));
        out.unwrap_or_else(|err| {
            record(py, label, err);
            Vec::new()
        })
    })
}

fn list<'a, 'py>(r: &'a Bound<'py, PyAny>) -> PyResult<&'a Bound<'py, PyList>> {
    r.cast::<PyList>()
        .map_err(|_| PyTypeError::new_err("a presenter callable's answer must be a list"))
}

fn rules(r: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    list(r)?.iter().map(|s| s.extract::<String>()).collect()
}

fn censor(r: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    match r.extract::<String>() {
        Ok(s) => Ok(vec![s]),
        Err(_) => Err(PyTypeError::new_err(format!(
            "a censor must return a str, not {}",
            r.get_type().name()?
        ))),
    }
}

fn suggestions(r: &Bound<'_, PyAny>) -> PyResult<Vec<Suggestion>> {
    list(r)?
        .iter()
        .map(|s| {
            let (tool, reason) = s.extract::<(String, String)>()?;
            Ok(Suggestion { tool, reason })
        })
        .collect()
}

fn blocks(r: &Bound<'_, PyAny>) -> PyResult<Vec<UiBlock>> {
    list(r)?
        .iter()
        .map(|b| Ok(b.cast::<PyUiBlock>()?.get().inner.clone()))
        .collect()
}

/// The engine callback of one Python callable: `kind` is `rules`, `ui`, `suggest` or `censor`, `label`
/// names it in the envelope of its failure.
pub(crate) fn callback(kind: &str, label: String, f: Py<PyAny>) -> PyResult<Callback> {
    Ok(match kind {
        "rules" => Callback::Rules(Box::new(move |v| call(&label, &f, v, rules))),
        "ui" => Callback::Ui(Box::new(move |v| call(&label, &f, v, blocks))),
        "suggest" => Callback::Suggest(Box::new(move |v| call(&label, &f, v, suggestions))),
        // Nothing when the call failed, which then fails the presenting call.
        "censor" => Callback::Censor(Box::new(move |v| {
            call(&label, &f, v, censor).pop().unwrap_or_default()
        })),
        _ => {
            return Err(PyValueError::new_err(format!(
                "unknown callback kind {kind:?}"
            )));
        }
    })
}

/// A UI block (WIRE.md §3) made by one of the engine's helpers: `toolwire.ui.*` return these,
/// and presenter UI callables return them. Immutable.
#[pyclass(frozen, eq, module = "toolwire._native", name = "UiBlock")]
#[derive(PartialEq)]
pub(crate) struct PyUiBlock {
    inner: UiBlock,
}

fn block(
    b: UiBlock,
    title: Option<String>,
    width: Option<&str>,
    priority: Option<i64>,
) -> PyResult<PyUiBlock> {
    let width = width
        .map(Width::parse)
        .transpose()
        .map_err(|e| PyValueError::new_err(e.message().to_owned()))?;
    Ok(PyUiBlock {
        inner: b.with_meta(UiMeta {
            title,
            width,
            priority,
        }),
    })
}

/// A Python value as an engine document (the walker `present` uses).
fn document(py: Python<'_>, v: &Bound<'_, PyAny>) -> PyResult<toolwire::Doc<'static>> {
    Ok(Walker::new(py, Mode::Json, None, false).walk(v)?.0)
}

/// A table cell: a `str` verbatim, `None` empty, anything else its compact JSON (as the
/// presenter file's table cells).
fn cell(py: Python<'_>, v: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(s) = v.cast::<PyString>() {
        return Ok(s.to_str()?.to_owned());
    }
    if v.is_none() {
        return Ok(String::new());
    }
    Ok(toolwire::json::to_string_compact(document(py, v)?.root()))
}

#[pymethods]
impl PyUiBlock {
    /// `markdown(text)`: the text verbatim.
    #[staticmethod]
    #[pyo3(signature = (text, title=None, width=None, priority=None))]
    fn markdown(
        text: &str,
        title: Option<String>,
        width: Option<&str>,
        priority: Option<i64>,
    ) -> PyResult<Self> {
        block(ui::markdown(text), title, width, priority)
    }

    /// `summary(text)`: `📊 **Summary**: ` + text.
    #[staticmethod]
    #[pyo3(signature = (text, title=None, width=None, priority=None))]
    fn summary(
        text: &str,
        title: Option<String>,
        width: Option<&str>,
        priority: Option<i64>,
    ) -> PyResult<Self> {
        block(ui::summary(text), title, width, priority)
    }

    /// `mermaid(diagram)`: fenced.
    #[staticmethod]
    #[pyo3(signature = (diagram, title=None, width=None, priority=None))]
    fn mermaid(
        diagram: &str,
        title: Option<String>,
        width: Option<&str>,
        priority: Option<i64>,
    ) -> PyResult<Self> {
        block(ui::mermaid(diagram), title, width, priority)
    }

    /// `code_block(lang, code)`: type `lang`, the code fenced.
    #[staticmethod]
    #[pyo3(signature = (lang, code, title=None, width=None, priority=None))]
    fn code_block(
        lang: &str,
        code: &str,
        title: Option<String>,
        width: Option<&str>,
        priority: Option<i64>,
    ) -> PyResult<Self> {
        block(ui::code_block(lang, code), title, width, priority)
    }

    /// `list(items)`: `- item` lines.
    #[staticmethod]
    #[pyo3(signature = (items, title=None, width=None, priority=None))]
    fn list(
        items: Vec<String>,
        title: Option<String>,
        width: Option<&str>,
        priority: Option<i64>,
    ) -> PyResult<Self> {
        block(ui::list(items), title, width, priority)
    }

    /// `table(headers, rows)`: a markdown table; cells as [`cell`] writes them.
    #[staticmethod]
    #[pyo3(signature = (headers, rows, title=None, width=None, priority=None))]
    fn table(
        py: Python<'_>,
        headers: Vec<String>,
        rows: Vec<Vec<Bound<'_, PyAny>>>,
        title: Option<String>,
        width: Option<&str>,
        priority: Option<i64>,
    ) -> PyResult<Self> {
        let rows = rows
            .iter()
            .map(|r| {
                r.iter()
                    .map(|c| cell(py, c))
                    .collect::<PyResult<Vec<String>>>()
            })
            .collect::<PyResult<Vec<_>>>()?;
        let b =
            ui::table(&headers, rows).map_err(|e| PyValueError::new_err(e.message().to_owned()))?;
        block(b, title, width, priority)
    }

    /// `json(value)`: its pretty JSON, fenced.
    #[staticmethod]
    #[pyo3(signature = (value, title=None, width=None, priority=None))]
    fn json(
        py: Python<'_>,
        value: &Bound<'_, PyAny>,
        title: Option<String>,
        width: Option<&str>,
        priority: Option<i64>,
    ) -> PyResult<Self> {
        block(
            ui::json(document(py, value)?.root()),
            title,
            width,
            priority,
        )
    }

    /// `echarts(config)`: its pretty JSON, fenced.
    #[staticmethod]
    #[pyo3(signature = (config, title=None, width=None, priority=None))]
    fn echarts(
        py: Python<'_>,
        config: &Bound<'_, PyAny>,
        title: Option<String>,
        width: Option<&str>,
        priority: Option<i64>,
    ) -> PyResult<Self> {
        block(
            ui::echarts(document(py, config)?.root()),
            title,
            width,
            priority,
        )
    }

    /// The block's type.
    #[getter(r#type)]
    fn kind(&self) -> &str {
        self.inner.kind()
    }

    /// The content, before escaping.
    #[getter]
    fn content(&self) -> &str {
        self.inner.content()
    }

    /// The `title` attribute.
    #[getter]
    fn title(&self) -> Option<&str> {
        self.inner.meta().title.as_deref()
    }

    /// The `width` attribute.
    #[getter]
    fn width(&self) -> Option<&'static str> {
        self.inner.meta().width.map(Width::as_str)
    }

    /// The `priority` attribute.
    #[getter]
    fn priority(&self) -> Option<i64> {
        self.inner.meta().priority
    }

    /// The block as the agent reads it: `<ui_passthrough …>` LF content LF
    /// `</ui_passthrough>`, reserved tags in the content neutralised.
    fn text(&self) -> String {
        let mut out = Vec::new();
        self.inner.write(&mut out);
        String::from_utf8_lossy(&out).into_owned()
    }

    fn __repr__(&self) -> String {
        format!(
            "UiBlock(type={:?}, content={:?})",
            self.inner.kind(),
            self.inner.content()
        )
    }
}
