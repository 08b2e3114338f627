//! A [`Value`] of a document → Python objects, with `json.loads`-style hooks.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use toolwire::doc::Number;
use toolwire::{Value, ValueRef};

/// The hooks of `loads` (all optional).
#[derive(Default)]
pub struct Hooks<'py> {
    /// Called with the text of every integer.
    pub parse_int: Option<Bound<'py, PyAny>>,
    /// Called with the text of every other number.
    pub parse_float: Option<Bound<'py, PyAny>>,
    /// Called with every decoded `dict`.
    pub object_hook: Option<Bound<'py, PyAny>>,
    /// Called with every decoded object as a list of pairs (wins over `object_hook`).
    pub object_pairs_hook: Option<Bound<'py, PyAny>>,
}

/// Converts `v` (and everything under it) to Python objects.
pub fn to_py<'py>(
    py: Python<'py>,
    v: Value<'_>,
    hooks: &Hooks<'py>,
) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v.get() {
        ValueRef::Null => py.None().into_bound(py),
        ValueRef::Bool(b) => pyo3::types::PyBool::new(py, b).to_owned().into_any(),
        ValueRef::Number(Number::Int(lex)) => {
            // Lexemes are ASCII digits with an optional `-`.
            let text = std::str::from_utf8(lex).unwrap_or("0");
            match &hooks.parse_int {
                Some(f) => f.call1((text,)).map_err(|e| {
                    if e.is_instance_of::<PyValueError>(py) {
                        crate::decode_error(py, &e.value(py).to_string(), None, None)
                    } else {
                        e
                    }
                })?,
                None => int_of(py, text)?,
            }
        }
        ValueRef::Number(Number::Float(x)) => match &hooks.parse_float {
            Some(f) => {
                let mut buf = ryu_js::Buffer::new();
                f.call1((toolwire::json::format_f64(&mut buf, x),))?
            }
            // `-0` decodes to 0 (TOON §4).
            None => PyFloat::new(py, if x == 0.0 { 0.0 } else { x }).into_any(),
        },
        ValueRef::String(s) => {
            // Decoded TOON holds no lone surrogate (the decoder rejects surrogate escapes);
            // a document that does gets U+FFFD rather than a crash.
            PyString::new(py, &String::from_utf8_lossy(s.as_bytes())).into_any()
        }
        ValueRef::Array(a) => {
            let list = PyList::empty(py);
            for item in a.iter() {
                list.append(to_py(py, item, hooks)?)?;
            }
            list.into_any()
        }
        ValueRef::Object(o) => {
            if let Some(hook) = &hooks.object_pairs_hook {
                let pairs = PyList::empty(py);
                for (k, val) in o.iter() {
                    let key = PyString::new(py, &String::from_utf8_lossy(k.as_bytes()));
                    pairs.append(PyTuple::new(py, [key.into_any(), to_py(py, val, hooks)?])?)?;
                }
                return hook.call1((pairs,));
            }
            let dict = PyDict::new(py);
            for (k, val) in o.iter() {
                let key = PyString::new(py, &String::from_utf8_lossy(k.as_bytes()));
                dict.set_item(key, to_py(py, val, hooks)?)?;
            }
            match &hooks.object_hook {
                Some(hook) => hook.call1((dict,))?,
                None => dict.into_any(),
            }
        }
    })
}

/// An integer lexeme as a Python `int` of any size.
fn int_of<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    if text.len() <= 18 {
        if let Ok(x) = text.parse::<i64>() {
            return Ok(x.into_pyobject(py)?.into_any());
        }
    }
    // `int(text)`: beyond `sys.get_int_max_str_digits()` it raises ValueError, as
    // `toon_format` does (a decode error there, too).
    py.get_type::<PyInt>().call1((text,)).map_err(|e| {
        if e.is_instance_of::<PyValueError>(py) {
            crate::decode_error(py, &e.value(py).to_string(), None, None)
        } else {
            e
        }
    })
}
