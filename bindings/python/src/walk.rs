//! Python objects → a [`Doc`], with `toon_format` 1.2's normalisation (TOON mode) or JSON's
//! (the data of `toolwire.present`).
//!
//! The common types (exact `str`, `int`, `float`, `bool`, `None`, `dict`, `list`, `tuple`) are
//! walked here without calling Python code; every other value goes to the Python helper
//! `toolwire._convert.convert`, which says what the value stands for (a replacement value, a
//! mapping or sequence to walk, a decimal's canonical text, or `default(value)`) and raises
//! `TypeError` for what has no representation.

use std::collections::HashSet;

use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use toolwire::{Doc, DocBuilder};

/// Nesting beyond this many containers is refused (`toon_format` meets Python's recursion
/// limit much earlier; the engine's TOON encoder accepts at most 1000 levels).
pub const MAX_DEPTH: usize = 1000;

/// How numbers and strings are normalised.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `toon_format` 1.2: integral floats below 1e21 print every digit (they decode as `int`),
    /// `nan`/`inf` become `null`, decimals keep every digit.
    Toon,
    /// JSON data (`toolwire.present`): floats are the engine's f64 (printed as JavaScript
    /// does), `nan`/`inf` become `null` (as `JSON.stringify`), decimals become the nearest
    /// f64 unless integral; strings are scanned for reserved tags (WIRE.md §2).
    Json,
}

/// What `_convert.convert` answered (its first tuple element).
const K_VALUE: u8 = 0;
const K_DECIMAL: u8 = 1;
const K_MAPPING: u8 = 2;
const K_SEQUENCE: u8 = 3;
const K_CONVERTED: u8 = 4;

/// The walker's state for one call.
pub struct Walker<'py> {
    py: Python<'py>,
    b: DocBuilder<'static>,
    mode: Mode,
    default: Option<Bound<'py, PyAny>>,
    sort_keys: bool,
    convert: Option<Bound<'py, PyAny>>,
    /// `id()` of the containers (and converted originals) being walked: a cycle is an error.
    active: HashSet<usize>,
    depth: usize,
    /// Decimal lexemes that no f64 prints exactly: written as placeholder strings and
    /// substituted in the TOON text afterwards (see [`Walker::finish`]).
    pub lexemes: Vec<String>,
    nonce: u64,
}

impl<'py> Walker<'py> {
    /// A walker for one value.
    pub fn new(
        py: Python<'py>,
        mode: Mode,
        default: Option<Bound<'py, PyAny>>,
        sort_keys: bool,
    ) -> Walker<'py> {
        Walker {
            py,
            b: DocBuilder::new(b""),
            mode,
            default: default.filter(|d| !d.is_none()),
            sort_keys,
            convert: None,
            active: HashSet::new(),
            depth: 0,
            lexemes: Vec::new(),
            nonce: 0,
        }
    }

    /// Walks `obj` into the document. Python code run by the walk (a `default`, a mapping's
    /// `items`) may resize a dict being iterated: that is an error, never a crash.
    pub fn walk(mut self, obj: &Bound<'py, PyAny>) -> PyResult<(Doc<'static>, Vec<String>, u64)> {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.value(obj)));
        match r {
            Ok(Ok(())) => Ok((self.b.finish(), self.lexemes, self.nonce)),
            Ok(Err(e)) => Err(e),
            Err(_) => Err(PyRuntimeError::new_err(
                "a container changed while it was being encoded",
            )),
        }
    }

    fn value(&mut self, obj: &Bound<'py, PyAny>) -> PyResult<()> {
        if let Ok(s) = obj.cast_exact::<PyString>() {
            return self.string(s);
        }
        if obj.is_none() {
            self.b.null();
            return Ok(());
        }
        if let Ok(b) = obj.cast_exact::<PyBool>() {
            self.b.bool(b.is_true());
            return Ok(());
        }
        if let Ok(i) = obj.cast_exact::<PyInt>() {
            return self.int(i);
        }
        if let Ok(f) = obj.cast_exact::<PyFloat>() {
            self.float(f.value());
            return Ok(());
        }
        if let Ok(d) = obj.cast_exact::<PyDict>() {
            return self.enter(obj, |w| w.dict(d));
        }
        if let Ok(l) = obj.cast_exact::<PyList>() {
            return self.enter(obj, |w| w.list(l));
        }
        if let Ok(t) = obj.cast_exact::<PyTuple>() {
            return self.enter(obj, |w| w.tuple(t));
        }
        self.other(obj)
    }

    /// Walks a container: refuses cycles and excessive depth.
    fn enter(
        &mut self,
        marker: &Bound<'py, PyAny>,
        f: impl FnOnce(&mut Self) -> PyResult<()>,
    ) -> PyResult<()> {
        let id = marker.as_ptr() as usize;
        if !self.active.insert(id) {
            return Err(PyValueError::new_err("Circular reference detected"));
        }
        self.depth += 1;
        let r = if self.depth > MAX_DEPTH {
            Err(PyValueError::new_err(
                "Object is nested too deeply to encode",
            ))
        } else {
            f(self)
        };
        self.depth -= 1;
        self.active.remove(&id);
        r
    }

    fn string(&mut self, s: &Bound<'py, PyString>) -> PyResult<()> {
        let text = str_of(s)?;
        match self.mode {
            Mode::Toon => self.b.str_heap(text.as_bytes()),
            Mode::Json => self.b.string(text.as_bytes()),
        }
        Ok(())
    }

    fn int(&mut self, i: &Bound<'py, PyInt>) -> PyResult<()> {
        if let Ok(x) = i.extract::<i64>() {
            self.b.i64(x);
        } else {
            // `str()` of an int beyond `sys.get_int_max_str_digits()` raises ValueError, as
            // `toon_format` does.
            let s = i.str()?;
            self.b.int_lexeme(s.to_str()?.as_bytes());
        }
        Ok(())
    }

    fn float(&mut self, x: f64) {
        if !x.is_finite() {
            self.b.null();
        } else if self.mode == Mode::Toon && x.fract() == 0.0 && x.abs() < 1e21 {
            // Exact digits (`str(int(x))`): they decode as the same integral value.
            let mut buf = itoa::Buffer::new();
            self.b.int_lexeme(buf.format(x as i128).as_bytes());
        } else {
            self.b.float(x);
        }
    }

    fn dict(&mut self, d: &Bound<'py, PyDict>) -> PyResult<()> {
        let all_str = d.iter().all(|(k, _)| k.is_exact_instance_of::<PyString>());
        if all_str && !self.sort_keys {
            let m = self.b.begin_object();
            let mut n = 0;
            for (k, v) in d.iter() {
                // Exact `str` keys (checked above).
                let k = k.cast_into_exact::<PyString>().map_err(PyErr::from)?;
                self.key(str_of(&k)?);
                self.value(&v)?;
                n += 1;
            }
            self.b.end_object_unique(m, n);
            return Ok(());
        }
        let pairs: Vec<(Bound<'py, PyAny>, Bound<'py, PyAny>)> = d.iter().collect();
        self.pairs(pairs)
    }

    /// A mapping whose keys need converting or sorting: all keys are converted first (a bad
    /// key is a `TypeError` before any value is looked at), then sorted, then the values
    /// walked; two keys that convert to the same text are an error.
    fn pairs(&mut self, pairs: Vec<(Bound<'py, PyAny>, Bound<'py, PyAny>)>) -> PyResult<()> {
        let mut conv: Vec<(String, Bound<'py, PyAny>)> = Vec::with_capacity(pairs.len());
        for (k, v) in pairs {
            conv.push((self.convert_key(&k)?, v));
        }
        if self.sort_keys {
            // Byte order of UTF-8 is code point order, Python's `str` order.
            conv.sort_by(|a, b| a.0.cmp(&b.0));
        }
        let mut seen: HashSet<&str> = HashSet::with_capacity(conv.len());
        let m = self.b.begin_object();
        for (k, v) in &conv {
            if !seen.insert(k.as_str()) {
                let r = PyString::new(self.py, k).repr()?;
                return Err(PyValueError::new_err(format!(
                    "Duplicate key after conversion: {}",
                    r.to_str()?
                )));
            }
            self.key(k);
            self.value(v)?;
        }
        self.b.end_object_unique(m, conv.len());
        Ok(())
    }

    fn key(&mut self, k: &str) {
        match self.mode {
            Mode::Toon => self.b.str_heap(k.as_bytes()),
            Mode::Json => self.b.string(k.as_bytes()),
        }
    }

    /// A mapping key as text, as `json.dumps` converts keys.
    fn convert_key(&mut self, k: &Bound<'py, PyAny>) -> PyResult<String> {
        if let Ok(s) = k.cast::<PyString>() {
            return Ok(str_of(s)?.to_owned());
        }
        if k.is_none() {
            return Ok("null".into());
        }
        if let Ok(b) = k.cast::<PyBool>() {
            return Ok(if b.is_true() { "true" } else { "false" }.into());
        }
        if let Ok(i) = k.cast::<PyInt>() {
            // `str(int(key))`: an int subclass's own `__str__` is not used.
            let plain = self.py.get_type::<PyInt>().call1((i,))?;
            return Ok(plain.str()?.to_str()?.to_owned());
        }
        if let Ok(f) = k.cast::<PyFloat>() {
            let x = f.value();
            if x.is_nan() {
                return Ok("NaN".into());
            }
            if x.is_infinite() {
                return Ok(if x > 0.0 { "Infinity" } else { "-Infinity" }.into());
            }
            return Ok(format_float_key(x));
        }
        Err(PyTypeError::new_err(format!(
            "Keys must be str, int, float, bool or None, not {}",
            k.get_type().name()?
        )))
    }

    fn list(&mut self, l: &Bound<'py, PyList>) -> PyResult<()> {
        let m = self.b.begin_array();
        let mut n = 0;
        // Index-based: a list that shrinks while walked stops early, never reads past its end.
        while n < l.len() {
            let item = l.get_item(n)?;
            self.value(&item)?;
            n += 1;
        }
        self.b.end_array(m, n);
        Ok(())
    }

    fn tuple(&mut self, t: &Bound<'py, PyTuple>) -> PyResult<()> {
        let m = self.b.begin_array();
        for item in t.iter() {
            self.value(&item)?;
        }
        self.b.end_array(m, t.len());
        Ok(())
    }

    /// Anything but the common types: asks `_convert.convert`.
    fn other(&mut self, obj: &Bound<'py, PyAny>) -> PyResult<()> {
        let convert = match &self.convert {
            Some(c) => c.clone(),
            None => {
                let c = self.py.import("toolwire._convert")?.getattr("convert")?;
                self.convert = Some(c.clone());
                c
            }
        };
        let default = self.default.clone();
        let answer = convert.call1((obj, default))?;
        let answer = answer.cast_into::<PyTuple>().map_err(PyErr::from)?;
        let kind: u8 = answer.get_item(0)?.extract()?;
        let payload = answer.get_item(1)?;
        match kind {
            K_VALUE => self.value(&payload),
            K_DECIMAL => self.decimal(&payload),
            K_MAPPING => self.enter(obj, |w| {
                let items = payload.call_method0("items")?;
                let mut pairs = Vec::new();
                for kv in items.try_iter()? {
                    let kv = kv?;
                    pairs.push((kv.get_item(0)?, kv.get_item(1)?));
                }
                w.pairs(pairs)
            }),
            K_SEQUENCE => self.enter(obj, |w| {
                let m = w.b.begin_array();
                let mut n = 0;
                for item in payload.try_iter()? {
                    w.value(&item?)?;
                    n += 1;
                }
                w.b.end_array(m, n);
                Ok(())
            }),
            K_CONVERTED => self.enter(obj, |w| w.value(&payload)),
            _ => Err(PyRuntimeError::new_err("toolwire._convert: unknown answer")),
        }
    }

    /// A finite decimal, given as its canonical TOON text (`None` for a non-finite one).
    fn decimal(&mut self, text: &Bound<'py, PyAny>) -> PyResult<()> {
        if text.is_none() {
            self.b.null();
            return Ok(());
        }
        let text: String = text.extract()?;
        if toolwire::json::is_int_lexeme(text.as_bytes()) {
            self.b.int_lexeme(text.as_bytes());
            return Ok(());
        }
        let x: f64 = text
            .parse()
            .map_err(|_| PyValueError::new_err(format!("not a number: {text}")))?;
        let mut buf = ryu_js::Buffer::new();
        if self.mode == Mode::Json || toolwire::json::format_f64(&mut buf, x) == text {
            self.float(x);
            return Ok(());
        }
        // More digits than any f64 prints: a placeholder string, replaced afterwards.
        if self.nonce == 0 {
            self.nonce = nonce();
        }
        let placeholder = placeholder(self.nonce, self.lexemes.len());
        self.b.str_heap(placeholder.as_bytes());
        self.lexemes.push(text);
        Ok(())
    }
}

/// The placeholder of decimal `i`: numeric-looking, so the TOON encoder always quotes it and
/// never escapes anything in it.
pub fn placeholder(nonce: u64, i: usize) -> String {
    format!("9{nonce:020}{i:010}")
}

/// A per-call random number (placeholders of different calls never meet, and no string of
/// the data is one except by a 1-in-2^64 chance).
fn nonce() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    h.finish() | 1
}

/// The UTF-8 of a `str`; an unpaired surrogate is a `ValueError`, as in `toon_format`.
pub fn str_of<'a>(s: &'a Bound<'_, PyString>) -> PyResult<&'a str> {
    match s.to_str() {
        Ok(t) => Ok(t),
        Err(_) => {
            let r = s.repr()?;
            Err(PyValueError::new_err(format!(
                "String contains an unpaired surrogate: {}",
                r.to_str().unwrap_or("?")
            )))
        }
    }
}

/// A finite float key as `toon_format` writes a float: exact digits when integral below 1e21,
/// else the shortest round-trip form (JavaScript's, which is also Python's digits).
fn format_float_key(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e21 {
        let mut buf = itoa::Buffer::new();
        return buf.format(x as i128).to_owned();
    }
    let mut buf = ryu_js::Buffer::new();
    toolwire::json::format_f64(&mut buf, x).to_owned()
}
