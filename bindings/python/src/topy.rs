//! A [`Value`] of a document → Python objects, with `json.loads`-style hooks.
//!
//! Without hooks, [`Builder`] makes the objects through the C API (docs/DECISIONS.md
//! "Python binding: where the time goes"): one `str` per distinct key, reused by every
//! object that has it; an object with the keys of the one before it at its depth made as a
//! copy of a dict of those keys (no growing of its table); short strings that repeat made
//! once, except in a column of an object's values where they keep not repeating (ids,
//! names: [`Column`]); integers without going through text; lists made at their length.
//! The cyclic garbage collector is paused while they are made: a tree of new objects holds
//! no cycle, and with it running, making 100k rows ran its collections again and again over
//! the objects already made. With hooks (Python code per value), the general path below.

use pyo3::exceptions::PyValueError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use toolwire::doc::{Number, Object};
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

impl Hooks<'_> {
    /// Whether no hook is set (objects are then made by the [`Builder`]).
    pub fn are_none(&self) -> bool {
        self.parse_int.is_none()
            && self.parse_float.is_none()
            && self.object_hook.is_none()
            && self.object_pairs_hook.is_none()
    }
}

/// Converts `v` (and everything under it) to Python objects.
pub fn to_py<'py>(
    py: Python<'py>,
    v: Value<'_>,
    hooks: &Hooks<'py>,
) -> PyResult<Bound<'py, PyAny>> {
    if hooks.are_none() {
        return Builder::new(py).build(v);
    }
    to_py_hooked(py, v, hooks)
}

/// The elements of the root array `a` made as [`to_py`] makes them (without hooks) and
/// appended to `list` one by one, each while it is still in the CPU's cache.
pub fn extend_list<'py>(
    py: Python<'py>,
    a: toolwire::doc::Array<'_>,
    list: &Bound<'py, PyList>,
) -> PyResult<()> {
    Builder::new(py).paused(|b| a.iter().try_for_each(|item| list.append(b.value(item, 1)?)))
}

/// [`to_py`] with hooks.
fn to_py_hooked<'py>(
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
                list.append(to_py_hooked(py, item, hooks)?)?;
            }
            list.into_any()
        }
        ValueRef::Object(o) => {
            if let Some(hook) = &hooks.object_pairs_hook {
                let pairs = PyList::empty(py);
                for (k, val) in o.iter() {
                    let key = PyString::new(py, &String::from_utf8_lossy(k.as_bytes()));
                    pairs.append(PyTuple::new(
                        py,
                        [key.into_any(), to_py_hooked(py, val, hooks)?],
                    )?)?;
                }
                return hook.call1((pairs,));
            }
            let dict = PyDict::new(py);
            for (k, val) in o.iter() {
                let key = PyString::new(py, &String::from_utf8_lossy(k.as_bytes()));
                dict.set_item(key, to_py_hooked(py, val, hooks)?)?;
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

/// Strings up to this many bytes are looked up in [`Builder::strs`] before one is made.
const SHORT_STR: usize = 24;

/// Slots of [`Builder::strs`] (a power of two).
const STR_SLOTS: usize = 4096;

/// Short strings of one column (the values at one position of the objects at one depth) are
/// looked up in [`Builder::strs`] until this many in a row were not there: then the next
/// [`COLUMN_REST`] are made without a look.
const COLUMN_MISSES: u8 = 8;

/// See [`COLUMN_MISSES`].
const COLUMN_REST: u16 = 248;

/// Whether the short strings of a column are looked up ([`COLUMN_MISSES`]).
#[derive(Clone, Copy, Default)]
struct Column {
    /// Lookups in a row that missed.
    misses: u8,
    /// Values still to be made without a look.
    rest: u16,
}

impl Column {
    /// Whether the next short string of this column is looked up.
    #[inline(always)]
    fn looks(&mut self) -> bool {
        if self.rest == 0 {
            return true;
        }
        self.rest -= 1;
        false
    }

    /// A lookup's outcome.
    #[inline(always)]
    fn found(&mut self, hit: bool) {
        if hit {
            self.misses = 0;
        } else {
            self.misses += 1;
            if self.misses == COLUMN_MISSES {
                self.misses = 0;
                self.rest = COLUMN_REST;
            }
        }
    }
}

/// The keys met at one depth: the last object's, in order.
#[derive(Default)]
struct DepthKeys<'d, 'py> {
    /// The key text and its `str`, per position.
    keys: Vec<(&'d [u8], Bound<'py, PyString>)>,
    /// Per position, whether its short strings are looked up.
    columns: Vec<Column>,
    /// How many keys the last object at this depth had (`usize::MAX` while one is made).
    len: usize,
    /// A dict of exactly the last object's keys (all values `None`), copied for the next
    /// object with the same keys.
    template: Option<Bound<'py, PyAny>>,
    /// The values of the object being made at this depth (room reused).
    values: Vec<Value<'d>>,
}

/// Makes the Python objects of a document without hooks (see the module docs).
pub struct Builder<'d, 'py> {
    py: Python<'py>,
    /// Per depth of objects, the keys met there.
    depths: Vec<DepthKeys<'d, 'py>>,
    /// Every key text met, with its `str`: a key that moves (keyed rows, other shapes) is
    /// still made once.
    keys: std::collections::HashMap<&'d [u8], Bound<'py, PyString>>,
    /// Short strings made so far, by a hash of their text (one per slot, the last made).
    strs: Vec<Option<(&'d [u8], Bound<'py, PyAny>)>>,
}

/// A new reference as a `Bound`, or the Python error that is set.
///
/// # Safety
///
/// `ptr` is the result of a C API call returning a new reference (NULL with an error set).
#[inline(always)]
unsafe fn owned<'py>(py: Python<'py>, ptr: *mut ffi::PyObject) -> PyResult<Bound<'py, PyAny>> {
    // SAFETY: the caller's contract.
    unsafe { Bound::from_owned_ptr_or_err(py, ptr) }
}

/// A hash of a short string's bytes (FxHash-like over 8-byte words).
#[inline(always)]
fn short_hash(b: &[u8]) -> usize {
    let mut h: u64 = b.len() as u64;
    let mut chunks = b.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        h = (h.rotate_left(5) ^ w).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    let mut tail = 0u64;
    for (i, &x) in chunks.remainder().iter().enumerate() {
        tail |= u64::from(x) << (8 * i);
    }
    h = (h.rotate_left(5) ^ tail).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    (h >> 32) as usize
}

impl<'d, 'py> Builder<'d, 'py> {
    fn new(py: Python<'py>) -> Self {
        Builder {
            py,
            depths: Vec::new(),
            keys: std::collections::HashMap::new(),
            strs: Vec::new(),
        }
    }

    /// The objects of `v`, the garbage collector paused meanwhile.
    fn build(self, v: Value<'d>) -> PyResult<Bound<'py, PyAny>> {
        self.paused(|b| b.value(v, 0))
    }

    /// `make` run with the garbage collector paused.
    fn paused<T>(mut self, make: impl FnOnce(&mut Self) -> PyResult<T>) -> PyResult<T> {
        // SAFETY: the GIL is held (`self.py`); `PyGC_Disable` returns whether it was on.
        let was_on = unsafe { ffi::PyGC_Disable() } != 0;
        let r = make(&mut self);
        if was_on {
            // SAFETY: as above; it was on before this call.
            unsafe { ffi::PyGC_Enable() };
        }
        r
    }

    fn value(&mut self, v: Value<'d>, depth: usize) -> PyResult<Bound<'py, PyAny>> {
        self.value_of(v.get(), depth)
    }

    #[inline(always)]
    fn value_of(&mut self, v: ValueRef<'d>, depth: usize) -> PyResult<Bound<'py, PyAny>> {
        let py = self.py;
        match v {
            ValueRef::String(s) => self.string(s.as_bytes()),
            ValueRef::Number(Number::Int(lex)) => int_of_lexeme(py, lex),
            ValueRef::Object(o) => self.object(o, depth),
            ValueRef::Null => Ok(py.None().into_bound(py)),
            ValueRef::Bool(b) => Ok(pyo3::types::PyBool::new(py, b).to_owned().into_any()),
            // `-0` decodes to 0 (TOON §4).
            // SAFETY: `PyFloat_FromDouble` returns a new reference or NULL with an error.
            ValueRef::Number(Number::Float(x)) => unsafe {
                owned(py, ffi::PyFloat_FromDouble(if x == 0.0 { 0.0 } else { x }))
            },
            ValueRef::Array(a) => {
                // SAFETY: a new list of `a.len()` NULL items, or NULL with an error.
                let list = unsafe { owned(py, ffi::PyList_New(a.len() as ffi::Py_ssize_t))? };
                for (i, item) in a.iter().enumerate() {
                    let item = self.value(item, depth + 1)?;
                    // SAFETY: `i` is below the list's length; `PyList_SetItem` steals the
                    // new reference `into_ptr` gives up (and fills a NULL slot).
                    unsafe {
                        ffi::PyList_SetItem(list.as_ptr(), i as ffi::Py_ssize_t, item.into_ptr())
                    };
                }
                Ok(list)
            }
        }
    }

    /// A `str` of valid UTF-8 (a decoded document holds no lone surrogate; one that does
    /// gets U+FFFD rather than an error).
    fn string(&mut self, b: &'d [u8]) -> PyResult<Bound<'py, PyAny>> {
        if b.len() > SHORT_STR {
            return new_str(self.py, b);
        }
        self.short_string(b).map(|(s, _)| s)
    }

    /// A short `str` looked up in [`Builder::strs`] (made and kept there when it is not),
    /// and whether it was there.
    #[inline(always)]
    fn short_string(&mut self, b: &'d [u8]) -> PyResult<(Bound<'py, PyAny>, bool)> {
        if self.strs.is_empty() {
            self.strs.resize_with(STR_SLOTS, || None);
        }
        let slot = short_hash(b) & (STR_SLOTS - 1);
        if let Some((t, s)) = &self.strs[slot] {
            if *t == b {
                return Ok((s.clone(), true));
            }
        }
        let s = new_str(self.py, b)?;
        self.strs[slot] = Some((b, s.clone()));
        Ok((s, false))
    }

    /// The value of member `i` of an object at `depth`: a short string is looked up as its
    /// column says ([`Column`]; a column of distinct values, ids or names, is mostly made
    /// without a look, each of which missed the cache's memory).
    #[inline(always)]
    fn member(&mut self, v: Value<'d>, depth: usize, i: usize) -> PyResult<Bound<'py, PyAny>> {
        match v.get() {
            ValueRef::String(s) if s.as_bytes().len() <= SHORT_STR => {
                let b = s.as_bytes();
                let column = &mut self.depths[depth].columns[i];
                if !column.looks() {
                    return new_str(self.py, b);
                }
                let (s, hit) = self.short_string(b)?;
                self.depths[depth].columns[i].found(hit);
                Ok(s)
            }
            r => self.value_of(r, depth + 1),
        }
    }

    /// The `str` of key `b`, the `i`-th of an object at `depth`: the last object's key at
    /// that place when the texts are equal (a table's rows), else one made once per text.
    #[inline]
    fn key(&mut self, depth: usize, i: usize, b: &'d [u8]) -> PyResult<bool> {
        let keys = &mut self.depths[depth].keys;
        if let Some((t, _)) = keys.get(i) {
            // The same span of the document (a table's header) or the same text.
            if std::ptr::eq(t.as_ptr(), b.as_ptr()) && t.len() == b.len() || *t == b {
                return Ok(true);
            }
        }
        let s = match self.keys.get(b) {
            Some(s) => s.clone(),
            None => {
                let made = new_str(self.py, b)?;
                let mut ptr = made.into_ptr();
                // SAFETY: `ptr` is a new reference to an exact `str`, which
                // `PyUnicode_InternInPlace` may replace by the interned one (its reference
                // given to us in exchange).
                let s = unsafe {
                    ffi::PyUnicode_InternInPlace(&mut ptr);
                    Bound::from_owned_ptr(self.py, ptr).cast_into_unchecked::<PyString>()
                };
                self.keys.insert(b, s.clone());
                s
            }
        };
        let keys = &mut self.depths[depth].keys;
        if i < keys.len() {
            keys[i] = (b, s);
        } else {
            keys.push((b, s));
        }
        Ok(false)
    }

    fn object(&mut self, o: Object<'d>, depth: usize) -> PyResult<Bound<'py, PyAny>> {
        let py = self.py;
        if self.depths.len() <= depth {
            self.depths.resize_with(depth + 1, DepthKeys::default);
        }
        let n = o.len();
        let last_len = std::mem::replace(&mut self.depths[depth].len, usize::MAX);
        let mut same = n == last_len;
        // The members read once: keys checked, values kept for after the dict is made.
        let mut values = std::mem::take(&mut self.depths[depth].values);
        values.clear();
        for (i, (k, v)) in o.iter().enumerate() {
            same &= self.key(depth, i, k.as_bytes())?;
            values.push(v);
        }
        let template = if same {
            self.depths[depth].template.as_ref()
        } else {
            self.depths[depth].template = None;
            None
        };
        let dict = match template {
            // SAFETY: `t` is a dict; `PyDict_Copy` returns a new reference or NULL with an
            // error set.
            Some(t) => unsafe { owned(py, ffi::PyDict_Copy(t.as_ptr()))? },
            // SAFETY: a new empty dict, or NULL with an error set.
            None => unsafe { owned(py, ffi::PyDict_New())? },
        };
        if self.depths[depth].columns.len() < n {
            self.depths[depth].columns.resize(n, Column::default());
        }
        for (i, &v) in values.iter().enumerate() {
            let value = self.member(v, depth, i)?;
            let key = &self.depths[depth].keys[i].1;
            // SAFETY: `dict` is a dict, `key` an exact `str` (hashable: no Python code
            // runs), `value` a live object; `PyDict_SetItem` takes its own references.
            if unsafe { ffi::PyDict_SetItem(dict.as_ptr(), key.as_ptr(), value.as_ptr()) } != 0 {
                return Err(PyErr::fetch(py));
            }
        }
        let here = &mut self.depths[depth];
        here.values = values;
        here.len = n;
        if same && here.template.is_none() && n > 1 {
            // The second object with these keys: a template for the next ones.
            // SAFETY: a new empty dict, or NULL with an error set.
            let t = unsafe { owned(py, ffi::PyDict_New())? };
            for (_, key) in &here.keys[..n] {
                // SAFETY: `t` is a dict, `key` an exact `str`, `None` a live object.
                if unsafe { ffi::PyDict_SetItem(t.as_ptr(), key.as_ptr(), ffi::Py_None()) } != 0 {
                    return Err(PyErr::fetch(py));
                }
            }
            here.template = Some(t);
        }
        Ok(dict)
    }
}

/// A `str` of UTF-8 bytes (invalid sequences, never in a decoded document, as U+FFFD).
#[inline]
fn new_str<'py>(py: Python<'py>, b: &[u8]) -> PyResult<Bound<'py, PyAny>> {
    // SAFETY: the pointer and length describe `b`; the error handler name is a C string;
    // the result is a new reference or NULL with an error set.
    unsafe {
        owned(
            py,
            ffi::PyUnicode_DecodeUTF8(
                b.as_ptr().cast(),
                b.len() as ffi::Py_ssize_t,
                c"replace".as_ptr(),
            ),
        )
    }
}

/// An integer lexeme `-?(0|[1-9][0-9]*)` as an `int` of any size.
#[inline]
fn int_of_lexeme<'py>(py: Python<'py>, lex: &[u8]) -> PyResult<Bound<'py, PyAny>> {
    if lex.len() <= 18 {
        let (neg, digits) = match lex.split_first() {
            Some((b'-', rest)) => (true, rest),
            _ => (false, lex),
        };
        let mut x: i64 = 0;
        for &d in digits {
            x = x * 10 + i64::from(d.wrapping_sub(b'0'));
        }
        // SAFETY: `PyLong_FromLongLong` returns a new reference or NULL with an error set.
        return unsafe { owned(py, ffi::PyLong_FromLongLong(if neg { -x } else { x })) };
    }
    // Lexemes are ASCII digits with an optional `-`.
    int_of(py, std::str::from_utf8(lex).unwrap_or("0"))
}
