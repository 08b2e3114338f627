//! Python objects → a [`Doc`], with `toon_format` 1.2's normalisation (TOON mode) or JSON's
//! (the data of `toolwire.present`).
//!
//! The common types (exact `str`, `int`, `float`, `bool`, `None`, `dict`, `list`, `tuple`) are
//! walked here without calling Python code; every other value goes to the Python helper
//! `toolwire._convert.convert`, which says what the value stands for (a replacement value, a
//! mapping or sequence to walk, a decimal's canonical text, or `default(value)`) and raises
//! `TypeError` for what has no representation.
//!
//! The walk reads objects through the C API with borrowed references (no reference count
//! traffic per value, no method call per value: docs/DECISIONS.md "Python binding: where the
//! time goes"). What keeps a borrowed object alive: its container, which the walk holds a
//! strong reference to while it walks it ([`Walker::stack`]); before Python code runs (only
//! in [`Walker::other`]), the object it is about is held too.

use std::collections::HashSet;

use pyo3::Borrowed;
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt, PyString, PyTuple};
use std::cell::Cell;

use toolwire::doc::{HeapStr, KeysToken, Mark};
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

/// A list of at least `RESERVE_MIN` items has room made for all of them after its first
/// `RESERVE_AFTER` ([`DocBuilder::reserve`]; once a walk).
const RESERVE_AFTER: usize = 64;
const RESERVE_MIN: usize = 1024;

/// What `_convert.convert` answered (its first tuple element).
const K_VALUE: u8 = 0;
const K_DECIMAL: u8 = 1;
const K_MAPPING: u8 = 2;
const K_SEQUENCE: u8 = 3;
const K_CONVERTED: u8 = 4;

/// The message of a container that Python code run by the walk changed under it.
const CHANGED: &str = "a container changed while it was being encoded";

/// The walker's state for one call.
pub struct Walker<'py> {
    py: Python<'py>,
    b: DocBuilder<'static>,
    mode: Mode,
    default: Option<Bound<'py, PyAny>>,
    sort_keys: bool,
    convert: Option<Bound<'py, PyAny>>,
    /// The containers (and converted originals) being walked, outermost first, each held
    /// by a strong reference: Python code run by the walk cannot free one while it is
    /// walked, and a reference cycle shows as an object twice in it once the walk is
    /// [`MAX_DEPTH`] deep (so no set of the objects on the way is kept: a cycle always gets
    /// that deep).
    stack: Vec<Frame<'py>>,
    /// How many frames of `stack` are [`Frame::unchecked`].
    unchecked: usize,
    /// The frame a dict is walked again from, its keys converted ([`Walker::bad_frame`]).
    redo: Option<usize>,
    /// How many times the walk ran Python code: a container walked with the same count
    /// before and after was not changed by the walk.
    calls: u64,
    /// Per level of `stack`, the keys of the dicts walked there: the next dict at a level
    /// (the next row) usually has the very same key objects, whose text is then not read
    /// again.
    keys: Vec<LevelKeys<'py>>,
    /// The last [`KeysToken`] number given out.
    tokens: u64,
    /// Per type `other` met in this call (held, so its address is not reused), what the
    /// walk does with its objects itself (`_convert.plan`); `None`: `_convert.convert`.
    plans: Vec<(Bound<'py, PyAny>, Option<Plan<'py>>)>,
    /// `_convert.plan`, once imported.
    plan_fn: Option<Bound<'py, PyAny>>,
    /// How many pydantic models are being walked natively (see [`Walker::model`]): inside
    /// one, any value but a plain one abandons the outermost for `model_dump`.
    strict: u32,
    /// Set when a model walked natively is abandoned (the error unwinding to it).
    abort: bool,
    /// Whether room was made for a long list ([`RESERVE_MIN`]).
    reserved: bool,
    /// A model type met inside a model walked natively before its plan was known: planned
    /// once that model has been abandoned (no Python code runs inside one).
    pending: Option<Bound<'py, PyAny>>,
    /// Decimal lexemes that no f64 prints exactly: written as placeholder strings and
    /// substituted in the TOON text afterwards (see [`Walker::finish`]).
    pub lexemes: Vec<String>,
    nonce: u64,
    /// The error of the last scalar that failed ([`Scalar::Failed`]).
    failure: Option<PyErr>,
}

/// What [`Walker::scalar`] did with a value: a byte, where a `PyResult` is several words
/// that the loops over members copied for every value (perf: a fifth of `members`' samples
/// at that copy).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Scalar {
    /// Pushed.
    Pushed,
    /// Not a plain scalar: walked by [`Walker::value`].
    Other,
    /// Failed: the error is in [`Walker::failure`].
    Failed,
}

/// A container being walked.
struct Frame<'py> {
    obj: Bound<'py, PyAny>,
    /// A dict walked before all its keys were seen to be exact `str` without a lone
    /// surrogate: `toon_format` converts a dict's keys before it looks at any value (a bad
    /// key fails first; keys such as `1` are converted), so the keys of such a dict are
    /// checked before the walk runs Python code or fails ([`Walker::bad_frame`]); one that
    /// is not all plain `str` is then walked again from its start ([`Walker::pairs`]).
    /// Until then nothing the walk did could be seen, so walking again is exact; and a row
    /// is not read twice in the common case.
    unchecked: bool,
}

/// The keys of the dicts walked at a level of the stack.
#[derive(Default)]
struct LevelKeys<'py> {
    /// The keys met at each position (the first `len` of them: the last dict's).
    keys: Vec<CachedKey<'py>>,
    /// How many keys the last dict walked at this level had.
    len: usize,
    /// The [`KeysToken`] number of the last dict's keys: dicts closed with the same number
    /// have the same key objects in the same order (the engine then compares no key of
    /// theirs when it looks for a table).
    token: u64,
}

/// What the walk does itself with the objects of a type (`_convert.plan`).
struct Plan<'py> {
    /// A pydantic model (its fields read from `__dict__`, values plain only), else a
    /// dataclass or attrs class (its fields read with `getattr`).
    model: bool,
    /// A dataclass or attrs class whose fields are read from the instance `__dict__` when
    /// they are all there (`getattr` would find them there: `_convert.plan`).
    in_dict: bool,
    /// The fields, in order.
    names: Vec<CachedKey<'py>>,
    /// The [`KeysToken`] number of its objects.
    token: u64,
}

/// What `_convert.plan` answers for a pydantic model (`FIELDS` is 0).
const PLAN_MODEL: u8 = 1;

/// What `_convert.plan` answers for a dataclass or attrs class whose fields `getattr` finds
/// in the instance `__dict__` whenever they are there.
const PLAN_DICT_FIELDS: u8 = 2;

/// The minter of the walk's [`KeysToken`]s: an address no other minter has.
static TOKEN_OWNER: u8 = 0;

/// A key of a dict walked at a level: its object (held, so its address is not
/// reused by another string while cached) and its UTF-8 (owned by the object).
struct CachedKey<'py> {
    obj: Bound<'py, PyAny>,
    ptr: *const u8,
    len: usize,
    /// Where the builder holds the key's bytes once pushed: pushed again without a copy.
    heap: Cell<Option<HeapStr>>,
    /// Whether the key holds a reserved tag sequence (JSON mode).
    tag: bool,
}

/// Pushes key `k` (and the flag of a reserved tag in it): its bytes the first time, a node
/// on the same bytes after.
#[inline(always)]
fn push_key(b: &mut DocBuilder<'static>, k: &CachedKey<'_>) {
    if k.tag {
        b.mark_reserved_tag();
    }
    match k.heap.get() {
        Some(h) => b.str_heap_again(h),
        None => {
            // SAFETY: the UTF-8 of the key object `k` holds (alive as long as `k`).
            let bytes = unsafe { std::slice::from_raw_parts(k.ptr, k.len) };
            k.heap.set(Some(b.str_heap_kept(bytes)));
        }
    }
}

/// The error that unwinds to the frame to walk again ([`Walker::redo`]).
fn redo_signal() -> PyErr {
    PyRuntimeError::new_err("toolwire: a dict is walked again")
}

/// The type of `obj`.
#[inline(always)]
fn type_of(obj: Borrowed<'_, '_, PyAny>) -> *mut ffi::PyTypeObject {
    // SAFETY: `obj` is a live object (a `Borrowed` is one); reading its type does not touch
    // its reference count.
    unsafe { ffi::Py_TYPE(obj.as_ptr()) }
}

/// Whether `t` is the exact type `ty` (a static type object of the interpreter).
macro_rules! is_type {
    ($t:expr, $ty:ident) => {
        // `&raw const` takes the address of the interpreter's type object without reading
        // it (no `unsafe` needed for that).
        std::ptr::eq($t.cast_const(), &raw const ffi::$ty)
    };
}

/// The UTF-8 of an exact `str`, borrowed from the object (CPython keeps it: zero-copy for an
/// ASCII string, computed once for others); `None` for a string with a lone surrogate (no
/// error is left set).
#[inline(always)]
pub fn utf8_of<'a>(s: Borrowed<'a, '_, PyAny>) -> Option<&'a [u8]> {
    let mut len: ffi::Py_ssize_t = 0;
    // SAFETY: `s` is a live `str` (the callers checked its type); the GIL is held (a
    // `Borrowed` carries the token). The result points into the object (or its UTF-8 cache),
    // valid for as long as the object lives and is not changed (a `str` never is), which is
    // `'a`.
    unsafe {
        let p = ffi::PyUnicode_AsUTF8AndSize(s.as_ptr(), &mut len);
        if p.is_null() {
            ffi::PyErr_Clear();
            return None;
        }
        Some(std::slice::from_raw_parts(p.cast::<u8>(), len as usize))
    }
}

/// The error of a `str` holding a lone surrogate, as `toon_format` raises it.
#[cold]
#[inline(never)]
fn surrogate_error(s: &Bound<'_, PyAny>) -> PyErr {
    match s.repr() {
        Ok(r) => PyValueError::new_err(format!(
            "String contains an unpaired surrogate: {}",
            r.to_str().unwrap_or("?")
        )),
        Err(e) => e,
    }
}

/// The next member of dict `d` at `pos`, as borrowed references.
#[inline(always)]
fn dict_next<'a, 'py>(
    d: Borrowed<'a, 'py, PyAny>,
    pos: &mut ffi::Py_ssize_t,
) -> Option<(Borrowed<'a, 'py, PyAny>, Borrowed<'a, 'py, PyAny>)> {
    let mut k = std::ptr::null_mut();
    let mut v = std::ptr::null_mut();
    // SAFETY: `d` is a live `dict`; `PyDict_Next` never raises and stays within the dict's
    // current table whatever happened to it since `pos` was last advanced.
    if unsafe { ffi::PyDict_Next(d.as_ptr(), pos, &mut k, &mut v) } == 0 {
        return None;
    }
    // SAFETY: both are borrowed references owned by the dict, alive while it holds them:
    // until Python code runs, and the walk holds each value (through `stack` or `other`'s
    // strong reference) before running any.
    unsafe { Some((Borrowed::from_ptr(d.py(), k), Borrowed::from_ptr(d.py(), v))) }
}

/// The values of the fields `names` (exact `str`s) in dict `d` (an instance `__dict__`), in
/// field order, borrowed from the dict, and whether its members were exactly those fields in
/// that order; `None` when one is missing (no error left set).
///
/// A dataclass's `__init__` and a pydantic model's validation set the fields in order, with
/// the interned names the plan holds: when the dict's members are exactly those key objects
/// in that order, each is one step of the dict instead of a lookup, and the order is known
/// without a check of its own. Any other dict is read by a lookup of each field (its order
/// is [`fields_in_order`]'s to tell).
fn fields_of_dict<'a, 'py>(
    d: Borrowed<'a, 'py, PyAny>,
    names: &[CachedKey<'py>],
) -> Option<(Vec<Borrowed<'a, 'py, PyAny>>, bool)> {
    let mut values = Vec::with_capacity(names.len());
    // SAFETY: `d` is a live dict; `PyDict_Size` never raises for one.
    if usize::try_from(unsafe { ffi::PyDict_Size(d.as_ptr()) }) == Ok(names.len()) {
        let mut pos = 0;
        while let Some(name) = names.get(values.len()) {
            match dict_next(d, &mut pos) {
                Some((k, v)) if std::ptr::eq(k.as_ptr(), name.obj.as_ptr()) => values.push(v),
                _ => break,
            }
        }
        if values.len() == names.len() {
            return Some((values, true));
        }
        values.clear();
    }
    for name in names {
        // SAFETY: `d` is a live dict, `name` an exact `str` (its hash and equality run no
        // Python code); the result is borrowed from the dict.
        let v = unsafe { ffi::PyDict_GetItemWithError(d.as_ptr(), name.obj.as_ptr()) };
        if v.is_null() {
            // SAFETY: the GIL is held; the caller meets a failing lookup's error again.
            unsafe { ffi::PyErr_Clear() };
            return None;
        }
        // SAFETY: a live object borrowed from the dict (see above).
        values.push(unsafe { Borrowed::from_ptr(d.py(), v) });
    }
    Some((values, false))
}

/// Whether the fields `names` come in that order among the members of dict `d` (every field
/// is there). Keys are compared as text: an exact `str` equal to a field's name is that
/// field, whichever object it is; any other key is not a field.
#[cold]
fn fields_in_order(d: Borrowed<'_, '_, PyAny>, names: &[CachedKey<'_>]) -> bool {
    // SAFETY: the UTF-8 each cached key holds, alive as long as the key.
    let text = |k: &CachedKey<'_>| unsafe { std::slice::from_raw_parts(k.ptr, k.len) };
    let mut pos = 0;
    let mut next = 0;
    while let Some((k, _)) = dict_next(d, &mut pos) {
        let field = if is_type!(type_of(k), PyUnicode_Type) {
            utf8_of(k).and_then(|t| names.iter().position(|n| text(n) == t))
        } else {
            None
        };
        match field {
            Some(f) if f == next => next += 1,
            Some(_) => return false,
            None => {}
        }
    }
    true
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
            stack: Vec::new(),
            unchecked: 0,
            redo: None,
            calls: 0,
            keys: Vec::new(),
            tokens: 0,
            plans: Vec::new(),
            plan_fn: None,
            strict: 0,
            abort: false,
            reserved: false,
            pending: None,
            lexemes: Vec::new(),
            nonce: 0,
            failure: None,
        }
    }

    /// Walks `obj` into the document. Python code run by the walk (a `default`, a mapping's
    /// `items`) may change a container being walked: that is an error, never a crash.
    pub fn walk(mut self, obj: &Bound<'py, PyAny>) -> PyResult<(Doc<'static>, Vec<String>, u64)> {
        self.value(obj.as_borrowed())?;
        debug_assert!(self.redo.is_none() && self.stack.is_empty());
        Ok((self.b.finish(), self.lexemes, self.nonce))
    }

    /// Walks the exact `list` `l` a window of `per` rows at a time, each window an array
    /// document handed to `window` as soon as it is walked: the first with the list's first
    /// rows, every later one with a copy of the first row in front (the windows of
    /// [`toolwire::toon::WindowedEncoder`], which encodes them on another thread meanwhile).
    /// Returns the decimal lexemes and the nonce of their placeholders.
    pub fn walk_windows(
        mut self,
        l: &Bound<'py, PyAny>,
        per: usize,
        window: &mut dyn FnMut(Doc<'static>),
    ) -> PyResult<(Vec<String>, u64)> {
        let l = l.as_borrowed();
        debug_assert!(is_type!(type_of(l), PyList_Type) && per > 0);
        self.enter(l, |w| w.windows(l, per, window))?;
        Ok((self.lexemes, self.nonce))
    }

    fn windows(
        &mut self,
        l: Borrowed<'_, 'py, PyAny>,
        per: usize,
        window: &mut dyn FnMut(Doc<'static>),
    ) -> PyResult<()> {
        let mut first_row: Option<Doc<'static>> = None;
        let mut n = 0;
        let mut room = (0, 0);
        loop {
            // A builder per window, with the room the last one took; the key spans cached
            // for the last one name its heap.
            self.b = DocBuilder::with_capacity(b"", room.0, room.1);
            self.forget_key_spans();
            let m = self.b.begin_array();
            let mut k = 0;
            if let Some(row) = first_row.as_ref().map(|d| d.root()) {
                self.b.copy_value(row);
                k = 1;
            }
            let from = n;
            n = match self.list_items(l, n, per - k, |_, _| {}) {
                Ok(n) => n,
                Err(e) => return Err(self.failed(m, e)),
            };
            k += n - from;
            self.b.end_array(m, k);
            let doc = std::mem::replace(&mut self.b, DocBuilder::new(b"")).finish();
            room = (doc.node_count(), doc.heap_len());
            if first_row.is_none() {
                let mut b = DocBuilder::new(b"");
                if let Some(row) = doc.root().as_array().and_then(|a| a.iter().next()) {
                    b.copy_value(row);
                }
                first_row = Some(b.finish());
            }
            window(doc);
            // SAFETY: `l` is a live `list` (held on the stack).
            if n as ffi::Py_ssize_t >= unsafe { ffi::PyList_Size(l.as_ptr()) } {
                return Ok(());
            }
        }
    }

    /// Forgets where the builder held the cached keys' bytes (a new builder).
    fn forget_key_spans(&self) {
        for level in &self.keys {
            for k in &level.keys {
                k.heap.set(None);
            }
        }
        for plan in self.plans.iter().filter_map(|(_, p)| p.as_ref()) {
            for k in &plan.names {
                k.heap.set(None);
            }
        }
    }

    fn value(&mut self, obj: Borrowed<'_, 'py, PyAny>) -> PyResult<()> {
        let t = type_of(obj);
        match self.scalar(obj, t) {
            Scalar::Pushed => return Ok(()),
            Scalar::Failed => return Err(self.scalar_error()),
            Scalar::Other => {}
        }
        if is_type!(t, PyDict_Type) {
            return self.enter(obj, |w| w.dict(obj));
        }
        if is_type!(t, PyList_Type) {
            return self.enter(obj, |w| w.list(obj));
        }
        if is_type!(t, PyTuple_Type) {
            return self.enter(obj, |w| w.tuple(obj));
        }
        self.other(obj)
    }

    /// `obj` (of type `t`) when it is an exact `str`, `int`, `float`, `bool` or `None`: one
    /// string, number or literal pushed.
    #[inline(always)]
    fn scalar(&mut self, obj: Borrowed<'_, 'py, PyAny>, t: *mut ffi::PyTypeObject) -> Scalar {
        if is_type!(t, PyUnicode_Type) {
            return self.string(obj);
        }
        if is_type!(t, PyLong_Type) {
            return self.int(obj);
        }
        if is_type!(t, PyFloat_Type) {
            // SAFETY: an exact `float`: `PyFloat_AsDouble` reads its value, never raises.
            self.float(unsafe { ffi::PyFloat_AsDouble(obj.as_ptr()) });
            return Scalar::Pushed;
        }
        if is_type!(t, PyBool_Type) {
            // SAFETY: `Py_True` is the address of the interpreter's `True`.
            let is_true = std::ptr::eq(obj.as_ptr(), unsafe { ffi::Py_True() });
            self.b.bool(is_true);
            return Scalar::Pushed;
        }
        // SAFETY: `Py_None` is the address of the interpreter's `None`.
        if std::ptr::eq(obj.as_ptr(), unsafe { ffi::Py_None() }) {
            self.b.null();
            return Scalar::Pushed;
        }
        Scalar::Other
    }

    /// Keeps the error of a scalar that failed, for [`Walker::scalar_error`].
    #[cold]
    #[inline(never)]
    fn scalar_failed(&mut self, e: PyErr) -> Scalar {
        self.failure = Some(e);
        Scalar::Failed
    }

    /// The error of the scalar that failed last.
    #[cold]
    #[inline(never)]
    fn scalar_error(&mut self) -> PyErr {
        self.failure
            .take()
            .unwrap_or_else(|| PyRuntimeError::new_err("toolwire: a value failed without an error"))
    }

    /// Walks a container (or what a converted object stands for) with a strong reference to
    /// `marker` on the stack; refuses excessive depth, and names a reference cycle.
    fn enter(
        &mut self,
        marker: Borrowed<'_, 'py, PyAny>,
        f: impl FnOnce(&mut Self) -> PyResult<()>,
    ) -> PyResult<()> {
        if self.stack.len() >= MAX_DEPTH {
            return Err(self.too_deep(marker));
        }
        self.stack.push(Frame {
            obj: marker.to_owned(),
            unchecked: false,
        });
        let r = f(self);
        if let Some(frame) = self.stack.pop() {
            if frame.unchecked {
                self.unchecked -= 1;
            }
        }
        r
    }

    /// The outermost frame of a dict walked unchecked whose keys are not all exact `str`
    /// without a lone surrogate; the frames found plain on the way are marked checked.
    #[cold]
    fn bad_frame(&mut self) -> Option<usize> {
        for i in 0..self.stack.len() {
            if self.unchecked == 0 {
                return None;
            }
            let frame = &mut self.stack[i];
            if frame.unchecked {
                if !plain_keys(frame.obj.as_borrowed()) {
                    return Some(i);
                }
                frame.unchecked = false;
                self.unchecked -= 1;
            }
        }
        None
    }

    /// Called before the walk runs Python code: the keys of every dict walked unchecked
    /// are checked first; a dict with other keys is walked again (an error that unwinds to
    /// its frame).
    #[inline]
    fn before_python(&mut self) -> PyResult<()> {
        if self.unchecked > 0 {
            if let Some(t) = self.bad_frame() {
                self.redo = Some(t);
                return Err(redo_signal());
            }
        }
        self.calls += 1;
        Ok(())
    }

    /// What a container opened at `m` does with an error `e` of its walk: it is closed (as an
    /// empty array: it is dropped, and the builder's depth stays right), and a dict walked
    /// unchecked whose keys are bad is walked again from its frame: the error becomes the
    /// signal that unwinds to it.
    #[cold]
    fn failed(&mut self, m: Mark, e: PyErr) -> PyErr {
        self.b.end_array(m, 0);
        if self.redo.is_some() || self.abort {
            return redo_signal();
        }
        if self.strict > 0 {
            // Inside a model walked natively, whatever fails abandons it: `model_dump`
            // decides (no Python code has run since it began).
            self.abort = true;
            return redo_signal();
        }
        if self.unchecked > 0 {
            if let Some(t) = self.bad_frame() {
                self.redo = Some(t);
                return redo_signal();
            }
        }
        e
    }

    /// The error at [`MAX_DEPTH`]: a cycle when an object is on the stack twice (or `marker`
    /// is on it), else nesting too deep.
    #[cold]
    fn too_deep(&self, marker: Borrowed<'_, 'py, PyAny>) -> PyErr {
        let mut seen: HashSet<usize> = HashSet::with_capacity(self.stack.len() + 1);
        let cycle = self
            .stack
            .iter()
            .map(|f| f.obj.as_ptr() as usize)
            .chain(std::iter::once(marker.as_ptr() as usize))
            .any(|p| !seen.insert(p));
        if cycle {
            PyValueError::new_err("Circular reference detected")
        } else {
            PyValueError::new_err("Object is nested too deeply to encode")
        }
    }

    // Inlined, as `int`: called for most values, their error paths out of line (their frames
    // with them).
    #[inline(always)]
    fn string(&mut self, s: Borrowed<'_, 'py, PyAny>) -> Scalar {
        let Some(text) = utf8_of(s) else {
            return self.scalar_failed(surrogate_error(&s));
        };
        self.text(text);
        Scalar::Pushed
    }

    /// A string or key, valid UTF-8 (so free of lone surrogates).
    #[inline(always)]
    fn text(&mut self, text: &[u8]) {
        if self.mode == Mode::Json
            && text.contains(&b'<')
            && toolwire::wire::contains_reserved_tag(text)
        {
            self.b.mark_reserved_tag();
        }
        self.b.str_heap(text);
    }

    #[inline(always)]
    fn int(&mut self, i: Borrowed<'_, 'py, PyAny>) -> Scalar {
        let mut overflow = 0;
        // SAFETY: an exact `int`: `PyLong_AsLongLongAndOverflow` reports a value beyond i64
        // through `overflow` (and returns -1) without raising.
        let x = unsafe { ffi::PyLong_AsLongLongAndOverflow(i.as_ptr(), &mut overflow) };
        if overflow == 0 {
            self.b.i64(x);
            return Scalar::Pushed;
        }
        match self.big_int(i) {
            Ok(()) => Scalar::Pushed,
            Err(e) => self.scalar_failed(e),
        }
    }

    /// An `int` beyond i64, by its digits.
    #[cold]
    #[inline(never)]
    fn big_int(&mut self, i: Borrowed<'_, 'py, PyAny>) -> PyResult<()> {
        // `str()` of an int beyond `sys.get_int_max_str_digits()` raises ValueError, as
        // `toon_format` does.
        let s = i.str()?;
        self.b.int_lexeme(s.to_str()?.as_bytes());
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

    fn dict(&mut self, d: Borrowed<'_, 'py, PyAny>) -> PyResult<()> {
        if self.sort_keys {
            return self.dict_pairs(d);
        }
        let level = self.stack.len() - 1;
        let m = self.b.begin_object();
        let Err(e) = self.members(d, level, m) else {
            return Ok(());
        };
        let e = self.failed(m, e);
        if self.redo == Some(level) {
            self.redo = None;
            self.b.truncate_to(m);
            // Its keys are converted now: no longer unchecked.
            if std::mem::take(&mut self.stack[level].unchecked) {
                self.unchecked -= 1;
            }
            return self.dict_pairs(d);
        }
        Err(e)
    }

    /// The members of dict `d` (at `level` of the stack, opened at `m`), walked as they
    /// come, its keys unchecked (see [`Frame::unchecked`]); closes the object.
    fn members(&mut self, d: Borrowed<'_, 'py, PyAny>, level: usize, m: Mark) -> PyResult<()> {
        self.stack[level].unchecked = true;
        self.unchecked += 1;
        if self.keys.len() <= level {
            self.keys.resize_with(level + 1, LevelKeys::default);
        }
        // SAFETY: `d` is a live `dict`.
        let len = unsafe { ffi::PyDict_Size(d.as_ptr()) };
        let calls = self.calls;
        let mut n = 0;
        let mut pos = 0;
        // Until this dict is walked to its end, no dict at this level has the token's keys
        // (the cache may hold some of this dict's keys and some of the last one's).
        let last_len = std::mem::replace(&mut self.keys[level].len, usize::MAX);
        // The keys are the last dict's at this level, so far; every value a scalar.
        let mut same = true;
        let mut flat = true;
        while let Some((k, v)) = dict_next(d, &mut pos) {
            // SAFETY: `d` is a live `dict` (held on the stack).
            if self.calls != calls && unsafe { ffi::PyDict_Size(d.as_ptr()) } != len {
                // Python code run by the walk changed the dict.
                return Err(PyRuntimeError::new_err(CHANGED));
            }
            let hit = self.keys[level]
                .keys
                .get(n)
                .is_some_and(|c| std::ptr::eq(c.obj.as_ptr(), k.as_ptr()));
            if !hit {
                let Some(c) = self.cache_key(k) else {
                    if self.strict > 0 {
                        // Not a plain dict of a model: pydantic serializes it.
                        self.abort = true;
                        return Err(redo_signal());
                    }
                    if self.stack[level].unchecked {
                        // Walked again from the outermost dict with a bad key.
                        self.redo = self.bad_frame();
                        return Err(redo_signal());
                    }
                    // Its keys were all plain when checked: the dict changed.
                    return Err(PyRuntimeError::new_err(CHANGED));
                };
                same = false;
                let cache = &mut self.keys[level].keys;
                if n < cache.len() {
                    cache[n] = c;
                } else {
                    cache.push(c);
                }
            }
            push_key(&mut self.b, &self.keys[level].keys[n]);
            match self.scalar(v, type_of(v)) {
                Scalar::Pushed => {}
                Scalar::Failed => return Err(self.scalar_error()),
                Scalar::Other => {
                    flat = false;
                    self.value(v)?;
                }
            }
            n += 1;
        }
        let level_keys = &mut self.keys[level];
        level_keys.len = n;
        if !same || n != last_len {
            self.tokens += 1;
            level_keys.token = self.tokens;
        }
        let token = KeysToken::new(&raw const TOKEN_OWNER as usize, level_keys.token);
        if self.calls == calls {
            // Distinct keys (they were a dict's, unchanged), named by the token.
            self.b.end_object_keyed_as(m, n, token, flat);
        } else {
            // SAFETY: `d` is a live `dict` (held on the stack).
            if unsafe { ffi::PyDict_Size(d.as_ptr()) } != len {
                return Err(PyRuntimeError::new_err(CHANGED));
            }
            // Changed and changed back: the same key may have been read twice.
            self.b.end_object(m, n);
        }
        Ok(())
    }

    /// A cache entry for key `k` when it is an exact `str` without a lone surrogate.
    fn cache_key(&self, k: Borrowed<'_, 'py, PyAny>) -> Option<CachedKey<'py>> {
        if !is_type!(type_of(k), PyUnicode_Type) {
            return None;
        }
        let text = utf8_of(k)?;
        Some(CachedKey {
            obj: k.to_owned(),
            ptr: text.as_ptr(),
            len: text.len(),
            heap: Cell::new(None),
            tag: self.mode == Mode::Json
                && text.contains(&b'<')
                && toolwire::wire::contains_reserved_tag(text),
        })
    }

    /// A dict walked through [`Walker::pairs`]: its keys converted (and sorted).
    fn dict_pairs(&mut self, d: Borrowed<'_, 'py, PyAny>) -> PyResult<()> {
        let mut pairs = Vec::new();
        let mut pos = 0;
        while let Some((k, v)) = dict_next(d, &mut pos) {
            pairs.push((k.to_owned(), v.to_owned()));
        }
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
        let m = self.b.begin_object();
        match self.pair_members(&conv) {
            Ok(()) => {
                self.b.end_object_unique(m, conv.len());
                Ok(())
            }
            Err(e) => Err(self.failed(m, e)),
        }
    }

    fn pair_members(&mut self, conv: &[(String, Bound<'py, PyAny>)]) -> PyResult<()> {
        let mut seen: HashSet<&str> = HashSet::with_capacity(conv.len());
        for (k, v) in conv {
            if !seen.insert(k.as_str()) {
                let r = PyString::new(self.py, k).repr()?;
                return Err(PyValueError::new_err(format!(
                    "Duplicate key after conversion: {}",
                    r.to_str()?
                )));
            }
            self.text(k.as_bytes());
            self.value(v.as_borrowed())?;
        }
        Ok(())
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
            self.before_python()?;
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

    fn list(&mut self, l: Borrowed<'_, 'py, PyAny>) -> PyResult<()> {
        let m = self.b.begin_array();
        // SAFETY: `l` is a live `list` (held on the stack).
        let len = unsafe { ffi::PyList_Size(l.as_ptr()) } as usize;
        let (nodes0, heap0) = (self.b.node_count(), self.b.heap_len());
        let walked = self.list_items(l, 0, usize::MAX, |w, n| {
            if n == RESERVE_AFTER && len >= RESERVE_MIN && !w.reserved {
                // The rest of a long list is likely to take what its first items took: room
                // for it now, rather than the tape and heap growing (and copying) all along.
                w.reserved = true;
                let per = |used: usize| used / RESERVE_AFTER * len.saturating_sub(n) / 8 * 9;
                let (nodes, heap) = (w.b.node_count() - nodes0, w.b.heap_len() - heap0);
                w.b.reserve(per(nodes), per(heap));
            }
        });
        match walked {
            Ok(n) => {
                self.b.end_array(m, n);
                Ok(())
            }
            Err(e) => Err(self.failed(m, e)),
        }
    }

    /// Walks the items of the exact `list` `l` from index `from` until `max` were walked or
    /// the list ends, calling `each` with the index after each item walked; returns that
    /// index after the last. Index-based, the length read again each time: a list that
    /// shrinks while walked stops early, never reads past its end. The error is the item's,
    /// the array left to the caller to close ([`Walker::failed`]).
    fn list_items(
        &mut self,
        l: Borrowed<'_, 'py, PyAny>,
        from: usize,
        max: usize,
        mut each: impl FnMut(&mut Self, usize),
    ) -> PyResult<usize> {
        let mut n = from;
        // SAFETY: `l` is a live `list` (held on the stack).
        while n - from < max && (n as ffi::Py_ssize_t) < unsafe { ffi::PyList_Size(l.as_ptr()) } {
            // SAFETY: `n` is below the list's current length, so `PyList_GetItem` returns a
            // borrowed reference (never NULL); the list holds it until Python code runs, and
            // `other` holds it before running any.
            let item =
                unsafe { Borrowed::from_ptr(self.py, ffi::PyList_GetItem(l.as_ptr(), n as _)) };
            self.value(item)?;
            n += 1;
            each(self, n);
        }
        Ok(n)
    }

    fn tuple(&mut self, t: Borrowed<'_, 'py, PyAny>) -> PyResult<()> {
        // SAFETY: `t` is a live `tuple`: its length never changes.
        let len = unsafe { ffi::PyTuple_Size(t.as_ptr()) } as usize;
        let m = self.b.begin_array();
        for i in 0..len {
            // SAFETY: `i` is below the tuple's length: a borrowed reference the tuple holds
            // as long as it lives (held on the stack).
            let item =
                unsafe { Borrowed::from_ptr(self.py, ffi::PyTuple_GetItem(t.as_ptr(), i as _)) };
            if let Err(e) = self.value(item) {
                return Err(self.failed(m, e));
            }
        }
        self.b.end_array(m, len);
        Ok(())
    }

    /// Anything but the common types: what its type's plan says, else `_convert.convert`.
    fn other(&mut self, obj: Borrowed<'_, 'py, PyAny>) -> PyResult<()> {
        let t = type_of(obj);
        let known = self
            .plans
            .iter()
            .position(|(ty, _)| std::ptr::eq(ty.as_ptr(), t.cast()));
        if self.strict > 0 {
            // Inside a model walked natively: only a model of a known plan goes on.
            match known {
                Some(i) if self.plans[i].1.as_ref().is_some_and(|p| p.model) => {
                    if self.model(obj, i)? {
                        return Ok(());
                    }
                }
                Some(_) => {}
                None => {
                    // SAFETY: `t` is the type of a live object (so a live type object).
                    self.pending = Some(unsafe { Bound::from_borrowed_ptr(self.py, t.cast()) });
                }
            }
            self.abort = true;
            return Err(redo_signal());
        }
        if !self.sort_keys {
            let i = match known {
                Some(i) => i,
                // SAFETY: as above.
                None => self.make_plan(unsafe { Bound::from_borrowed_ptr(self.py, t.cast()) })?,
            };
            match self.plans[i].1.as_ref().map(|p| p.model) {
                Some(true) if self.model(obj, i)? => return Ok(()),
                Some(false) => return self.fields(obj, i),
                _ => {}
            }
        }
        self.convert(obj)
    }

    /// Asks `_convert.plan` what to do with the objects of type `ty`; its index in `plans`.
    #[cold]
    fn make_plan(&mut self, ty: Bound<'py, PyAny>) -> PyResult<usize> {
        self.before_python()?;
        let f = match &self.plan_fn {
            Some(f) => f.clone(),
            None => {
                let f = self.py.import("toolwire._convert")?.getattr("plan")?;
                self.plan_fn = Some(f.clone());
                f
            }
        };
        let answer = f.call1((&ty,))?;
        let plan = if answer.is_none() {
            None
        } else {
            let (kind, names): (u8, Vec<Bound<'py, PyString>>) = answer.extract()?;
            let mut keys = Vec::with_capacity(names.len());
            for name in names {
                // A field name with a lone surrogate: `convert` decides.
                let Some(key) = self.cache_key(name.as_any().as_borrowed()) else {
                    keys.clear();
                    break;
                };
                keys.push(key);
            }
            self.tokens += 1;
            (!keys.is_empty()).then_some(Plan {
                model: kind == PLAN_MODEL,
                in_dict: kind == PLAN_DICT_FIELDS,
                names: keys,
                token: self.tokens,
            })
        };
        self.plans.push((ty, plan));
        Ok(self.plans.len() - 1)
    }

    /// A dataclass or attrs object of plan `i`: every field read with `getattr` first (as
    /// `toon_format` builds its dict before it looks at a value), then walked as an object.
    fn fields(&mut self, obj: Borrowed<'_, 'py, PyAny>, i: usize) -> PyResult<()> {
        let values = match self.fields_in_dict(obj, i) {
            Some(values) => values,
            None => self.fields_by_getattr(obj, i)?,
        };
        self.enter(obj, |w| {
            let m = w.b.begin_object();
            match w.planned_members(i, &values) {
                Ok(flat) => Ok(flat),
                Err(e) => Err(w.failed(m, e)),
            }
            .map(|flat| {
                let token = w.plans[i].1.as_ref().map_or(0, |p| p.token);
                let token = KeysToken::new(&raw const TOKEN_OWNER as usize, token);
                w.b.end_object_keyed_as(m, values.len(), token, flat);
            })
        })
    }

    /// The fields of an object of plan `i` read from its `__dict__` without running Python
    /// code, when the plan allows it and every field is there (the values `getattr` gives:
    /// `_convert.plan`); else `None`.
    fn fields_in_dict(
        &mut self,
        obj: Borrowed<'_, 'py, PyAny>,
        i: usize,
    ) -> Option<Vec<Bound<'py, PyAny>>> {
        let plan = self.plans[i].1.as_ref()?;
        if !plan.in_dict {
            return None;
        }
        // SAFETY: `obj` is live; `PyObject_GenericGetDict` returns a new reference to its
        // `__dict__` or NULL with an error set (no Python code runs for an instance dict).
        let dict = unsafe {
            Bound::from_owned_ptr_or_err(
                self.py,
                ffi::PyObject_GenericGetDict(obj.as_ptr(), std::ptr::null_mut()),
            )
        };
        let Ok(dict) = dict else {
            // No `__dict__`: `getattr` decides (and raises what it raises).
            return None;
        };
        // A reference of its own is taken to each value at once: walking an earlier value
        // may run Python code that changes the dict. A missing field leaves no error, and a
        // failing lookup's is `getattr`'s to meet again.
        let (values, _) = fields_of_dict(dict.as_borrowed(), &plan.names)?;
        Some(values.into_iter().map(Borrowed::to_owned).collect())
    }

    /// The fields of an object of plan `i`, each read with `getattr` (Python code may run).
    fn fields_by_getattr(
        &mut self,
        obj: Borrowed<'_, 'py, PyAny>,
        i: usize,
    ) -> PyResult<Vec<Bound<'py, PyAny>>> {
        self.before_python()?;
        let n = self.plans[i].1.as_ref().map_or(0, |p| p.names.len());
        let mut values = Vec::with_capacity(n);
        for j in 0..n {
            let name = &self.plans[i].1.as_ref().expect("a plan").names[j];
            // SAFETY: `obj` and `name` are live; `PyObject_GetAttr` returns a new
            // reference or NULL with an error set.
            values.push(unsafe {
                Bound::from_owned_ptr_or_err(
                    self.py,
                    ffi::PyObject_GetAttr(obj.as_ptr(), name.obj.as_ptr()),
                )?
            });
        }
        Ok(values)
    }

    /// The members of an object of plan `i` whose values (in field order) are `values`;
    /// whether every value was a scalar.
    fn planned_members(&mut self, i: usize, values: &[Bound<'py, PyAny>]) -> PyResult<bool> {
        let mut flat = true;
        for (j, v) in values.iter().enumerate() {
            push_key(
                &mut self.b,
                &self.plans[i].1.as_ref().expect("a plan").names[j],
            );
            let v = v.as_borrowed();
            match self.scalar(v, type_of(v)) {
                Scalar::Pushed => {}
                Scalar::Failed => return Err(self.scalar_error()),
                Scalar::Other => {
                    flat = false;
                    self.value(v)?;
                }
            }
        }
        Ok(flat)
    }

    /// A pydantic model of plan `i` walked natively: its fields from `obj.__dict__`, every
    /// value (and everything in it) a plain `str`, `int`, `float`, `bool`, `None`, list,
    /// tuple, dict of `str` keys or a model of such a plan. No Python code runs meanwhile, so
    /// when a value is anything else (or anything fails), what was pushed is dropped and
    /// `false` returned: `model_dump` decides, as before.
    fn model(&mut self, obj: Borrowed<'_, 'py, PyAny>, i: usize) -> PyResult<bool> {
        // SAFETY: `obj` is live; `PyObject_GenericGetDict` returns a new reference to its
        // `__dict__` or NULL with an error set (no Python code runs for a model's dict).
        let dict = unsafe {
            Bound::from_owned_ptr_or_err(
                self.py,
                ffi::PyObject_GenericGetDict(obj.as_ptr(), std::ptr::null_mut()),
            )
        };
        let Ok(dict) = dict else {
            if self.strict > 0 {
                self.abort = true;
                return Err(redo_signal());
            }
            return Ok(false);
        };
        // Borrowed from the dict, alive while it holds them: no Python code runs until the
        // values are walked. A missing field leaves no error, a failing lookup one that
        // `model_dump` will meet again; `model_dump` writes the fields in the dict's order,
        // so a dict that holds them in another order is its to write too.
        let names = self.plans[i].1.as_ref().map_or(&[][..], |p| &p.names[..]);
        let read = fields_of_dict(dict.as_borrowed(), names)
            .filter(|(_, exact)| *exact || fields_in_order(dict.as_borrowed(), names));
        let Some((values, _)) = read else {
            if self.strict > 0 {
                self.abort = true;
                return Err(redo_signal());
            }
            return Ok(false);
        };
        let outer = self.strict == 0;
        self.strict += 1;
        let mut mark = None;
        let r = self.enter(obj, |w| {
            let m = w.b.begin_object();
            mark = Some(m);
            let mut flat = true;
            for (j, v) in values.iter().enumerate() {
                push_key(&mut w.b, &w.plans[i].1.as_ref().expect("a plan").names[j]);
                let r = match w.scalar(*v, type_of(*v)) {
                    Scalar::Pushed => Ok(()),
                    Scalar::Failed => Err(w.scalar_error()),
                    Scalar::Other => {
                        flat = false;
                        w.value(*v)
                    }
                };
                if let Err(e) = r {
                    return Err(w.failed(m, e));
                }
            }
            let token = w.plans[i].1.as_ref().map_or(0, |p| p.token);
            let token = KeysToken::new(&raw const TOKEN_OWNER as usize, token);
            w.b.end_object_keyed_as(m, values.len(), token, flat);
            Ok(())
        });
        self.strict -= 1;
        let Err(e) = r else {
            return Ok(true);
        };
        if !outer || self.redo.is_some() {
            // An enclosing model is abandoned, or a dict outside is walked again.
            if !outer {
                self.abort = true;
            }
            return Err(e);
        }
        // Abandoned (an error too: `model_dump` meets it again, or not, as before).
        self.abort = false;
        if let Some(m) = mark {
            self.b.truncate_to(m);
        }
        if let Some(ty) = self.pending.take() {
            if !self.plans.iter().any(|(t, _)| t.is(&ty)) {
                self.make_plan(ty)?;
            }
        }
        Ok(false)
    }

    /// `_convert.convert`'s answer for `obj`, walked.
    fn convert(&mut self, obj: Borrowed<'_, 'py, PyAny>) -> PyResult<()> {
        self.before_python()?;
        // Held from here on: the Python code below may drop every other reference to it.
        let obj = obj.to_owned();
        let convert = match &self.convert {
            Some(c) => c.clone(),
            None => {
                let c = self.py.import("toolwire._convert")?.getattr("convert")?;
                self.convert = Some(c.clone());
                c
            }
        };
        let default = self.default.clone();
        let answer = convert.call1((&obj, default))?;
        let answer = answer.cast_into::<PyTuple>().map_err(PyErr::from)?;
        let kind: u8 = answer.get_item(0)?.extract()?;
        let payload = answer.get_item(1)?;
        let marker = obj.as_borrowed();
        match kind {
            K_VALUE => self.value(payload.as_borrowed()),
            K_DECIMAL => self.decimal(&payload),
            K_MAPPING => self.enter(marker, |w| {
                let items = payload.call_method0("items")?;
                let mut pairs = Vec::new();
                for kv in items.try_iter()? {
                    let kv = kv?;
                    pairs.push((kv.get_item(0)?, kv.get_item(1)?));
                }
                w.pairs(pairs)
            }),
            K_SEQUENCE => self.enter(marker, |w| {
                let m = w.b.begin_array();
                let mut n = 0;
                let r = payload.try_iter().and_then(|items| {
                    for item in items {
                        w.value(item?.as_borrowed())?;
                        n += 1;
                    }
                    Ok(())
                });
                match r {
                    Ok(()) => {
                        w.b.end_array(m, n);
                        Ok(())
                    }
                    Err(e) => Err(w.failed(m, e)),
                }
            }),
            K_CONVERTED => self.enter(marker, |w| w.value(payload.as_borrowed())),
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

/// Whether every key of dict `d` is an exact `str` without a lone surrogate (no Python code
/// runs).
fn plain_keys(d: Borrowed<'_, '_, PyAny>) -> bool {
    let mut pos = 0;
    while let Some((k, _)) = dict_next(d, &mut pos) {
        if !is_type!(type_of(k), PyUnicode_Type) || utf8_of(k).is_none() {
            return false;
        }
    }
    true
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
        Err(_) => Err(surrogate_error(s.as_any())),
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
