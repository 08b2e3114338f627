//! Engine output made JS strings: one-byte or UTF-16, external where Node has them and the
//! budget allows, else copied (long non-ASCII texts as ropes of parts).

use napi::bindgen_prelude::ToNapiValue;
use napi::{Env, Error, JsString, Result};

use crate::mark;
use crate::utf16::{self, utf16_of};

/// Text made a JS string without napi's UTF-8 string: ASCII by a plain copy into a one-byte
/// string, anything else decoded once here (`utf16_of`) and copied as UTF-16. napi's decodes
/// twice (the length, then the text): on 100k rows, pretty, 16% of `present`'s time.
///
/// A text of `EXTERNAL_FROM` bytes or more is an external string while the budget allows
/// (module `external`): neither copied nor faulted by V8.
///
/// Otherwise a text over `ROPE_PART` bytes that is not ASCII is made as V8's
/// `JSON.stringify` makes its own: parts of at most that many bytes, joined by
/// `String.prototype.concat` into one rope string. Each part is a regular young-generation
/// object, on pages V8 reuses; one string of the whole text is a large object on fresh pages
/// of its own, written through the kernel's page faults first (100k pretty rows with
/// non-ASCII names are 32 MB of UTF-16: that string and its UTF-16 copy here were 35% of
/// `make(buf).build()`; as parts, 10 ms less CPU). ASCII stays one string: half the size, a
/// plain copy, and measured faster so. A long text that cannot be external whole is made
/// in segments of `SEGMENT` bytes instead, converted at once on the engine's pool, each
/// external while the budget allows: 100k nested pretty rows with non-ASCII strings are
/// 90 MB of UTF-16, past the budget, and as parts they took 255/326 ms (min/median of 21)
/// to make, the scavenger copying the parts it holds; in segments 168/210, converted at
/// once 151/195 (against 151/212 one after another).
///
/// The bytes are the engine's UTF-8 (`ToolResponse::block_bytes`), checked here as they are
/// read (an ASCII scan or the UTF-16 decoder): a `String` of them was checked once more
/// first (3% of `present(rows)` of 100k non-ASCII rows).
pub struct JsText(pub(crate) Vec<u8>);

/// UTF-16 text made a JS string: an external string where Node has them and the budget
/// allows (module `external`), else copied into V8 (parts of `ROPE_PART` units joined into
/// a rope past that, as [`JsText`]'s).
pub struct JsUnits(pub(crate) Vec<u16>);

impl ToNapiValue for JsUnits {
    unsafe fn to_napi_value(raw: napi::sys::napi_env, val: Self) -> Result<napi::sys::napi_value> {
        let env = Env::from_raw(raw);
        let units = if val.0.len() * 2 >= EXTERNAL_FROM {
            // SAFETY: `raw` is the env of this call (napi hands it to `to_napi_value`).
            match unsafe { external::make(raw, val.0) }? {
                Ok(s) => return Ok(s),
                Err(units) => units,
            }
        } else {
            val.0
        };
        if units.len() <= ROPE_PART {
            let s = env.create_string_utf16(&units)?;
            // SAFETY: a string made just now in this call's env.
            return unsafe { JsString::to_napi_value(raw, s) };
        }
        let mut parts = Vec::with_capacity(units.len() / ROPE_PART + 1);
        for piece in units.chunks(ROPE_PART) {
            let s = env.create_string_utf16(piece)?;
            // SAFETY: a string made just now in this call's env.
            parts.push(unsafe { JsString::to_napi_value(raw, s) }?);
        }
        // Copied: the buffer is free for the next text.
        external::keep(units);
        // SAFETY: `raw` is this call's env and every part a live handle of it (two or more).
        unsafe { concat(raw, &parts) }
    }
}

/// Texts from this size on become external strings where Node has them ([`external`]).
const EXTERNAL_FROM: usize = 1 << 20;

/// Strings whose characters stay in the addon's memory (V8's external strings):
/// `node_api_create_external_string_latin1` and `_utf16`, experimental in Node 20 and found
/// at run time (an addon linked against them would not load on a Node without them). A
/// text of 20 MB copied into a V8 string is a large object on fresh pages, each faulted as
/// the copy writes it; an external string is neither copied nor faulted by V8, and the
/// addon's buffer comes from the heap (or is advised for huge pages from 32 MiB on).
///
/// V8 frees an external string's characters when its collector finds the string dead, and
/// does not count them as a reason to collect: a synchronous loop of 150 calls of 20 MB
/// each held 2.9 GiB. So at most [`BUDGET`] bytes are external at once; past it a text is
/// copied into V8's heap as before (the same loop: a peak of 519 MiB against 497).
pub(crate) mod external {
    use std::ffi::{CStr, c_void};
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use napi::sys::{napi_env, napi_status, napi_value};

    /// The most bytes held by live external strings.
    const BUDGET: usize = 64 << 20;

    /// Bytes held by external strings V8 has not freed yet.
    static LIVE: AtomicUsize = AtomicUsize::new(0);

    type Finalize = unsafe extern "C" fn(napi_env, *mut c_void, *mut c_void);
    type Create<T> = unsafe extern "C" fn(
        napi_env,
        *const T,
        isize,
        Option<Finalize>,
        *mut c_void,
        *mut napi_value,
        *mut bool,
    ) -> napi_status;

    /// A character unit of an external string: a Latin-1 byte or a UTF-16 unit.
    pub(crate) trait Unit: Copy + 'static {
        /// Node's function that makes the string (looked up on unix only).
        #[cfg_attr(not(unix), allow(dead_code))]
        const CREATE: &'static CStr;
        /// Where the function found at run time is kept.
        #[cfg_attr(not(unix), allow(dead_code))]
        fn cell() -> &'static OnceLock<Option<Create<Self>>>;
        /// True for UTF-16 units.
        const WIDE: bool;
        /// A buffer of these units as a kept one ([`Spare`]).
        fn spare(units: Vec<Self>) -> Spare;
        /// The buffer of a kept one of these units; `None` for the other unit.
        fn unspare(spare: Spare) -> Option<Vec<Self>>;
    }

    impl Unit for u8 {
        const CREATE: &'static CStr = c"node_api_create_external_string_latin1";
        const WIDE: bool = false;
        fn cell() -> &'static OnceLock<Option<Create<u8>>> {
            static CELL: OnceLock<Option<Create<u8>>> = OnceLock::new();
            &CELL
        }
        fn spare(units: Vec<u8>) -> Spare {
            Spare::Bytes(units)
        }
        fn unspare(spare: Spare) -> Option<Vec<u8>> {
            match spare {
                Spare::Bytes(units) => Some(units),
                Spare::Units(_) => None,
            }
        }
    }

    impl Unit for u16 {
        const CREATE: &'static CStr = c"node_api_create_external_string_utf16";
        const WIDE: bool = true;
        fn cell() -> &'static OnceLock<Option<Create<u16>>> {
            static CELL: OnceLock<Option<Create<u16>>> = OnceLock::new();
            &CELL
        }
        fn spare(units: Vec<u16>) -> Spare {
            Spare::Units(units)
        }
        fn unspare(spare: Spare) -> Option<Vec<u16>> {
            match spare {
                Spare::Units(units) => Some(units),
                Spare::Bytes(_) => None,
            }
        }
    }

    /// Elsewhere, no lookup: copied.
    #[cfg(not(unix))]
    fn create<T: Unit>() -> Option<Create<T>> {
        None
    }

    #[cfg(unix)]
    fn create<T: Unit>() -> Option<Create<T>> {
        *T::cell().get_or_init(|| {
            // SAFETY: dlsym with RTLD_DEFAULT and a NUL-terminated name only looks a symbol
            // up; the symbol, when Node exports it, has the signature `Create` declares
            // (js_native_api.h: `const char*` or `const char16_t*` characters).
            unsafe {
                let f = libc::dlsym(libc::RTLD_DEFAULT, T::CREATE.as_ptr());
                (!f.is_null()).then(|| std::mem::transmute::<*mut c_void, Create<T>>(f))
            }
        })
    }

    /// Bytes held by external strings V8 has not freed yet.
    pub(crate) fn live() -> usize {
        LIVE.load(Ordering::Relaxed)
    }

    /// True when Node makes external strings of `T` and `units` more of them fit in the
    /// budget now (a conversion made for one is then most likely not wasted).
    pub(crate) fn fits<T: Unit>(units: usize) -> bool {
        create::<T>().is_some()
            && LIVE
                .load(Ordering::Relaxed)
                .saturating_add(units.saturating_mul(size_of::<T>()))
                <= BUDGET
    }

    /// Frees the characters of an external string V8 collected: `data` is the vector's
    /// pointer, `hint` its capacity.
    unsafe extern "C" fn free<T: Unit>(_env: napi_env, data: *mut c_void, hint: *mut c_void) {
        // SAFETY: `make` forgot a `Vec<T>` of this pointer and capacity, and V8 calls this
        // once, after the string is gone.
        let units = unsafe { Vec::from_raw_parts(data.cast::<T>(), 0, hint as usize) };
        LIVE.fetch_sub(hint as usize * size_of::<T>(), Ordering::Relaxed);
        keep(units);
    }

    /// Buffers of external strings V8 collected, kept for the next long texts
    /// ([`buffer_for`]): glibc maps a freed large block afresh, and the kernel zeroes each
    /// page of it as the next text's conversion first writes it, 4 KiB at a time under
    /// 32 MiB (`encodeJson` of 100k nested non-ASCII rows: 13,293 page faults a call for
    /// its four segments of 16 MiB) or as huge pages from there (17% of the samples of
    /// `presentPlain` of 100k flat non-ASCII rows, a 20 MB reply). At most [`SPARE_BYTES`]
    /// in all, the oldest given up first for a newer one; resident, as the engine's spare
    /// tapes are: marked `MADV_FREE` for the kernel to take back, they cost the next call the
    /// marking and a first write to every page (encodeJson of those nested rows, one process
    /// alternating, min 67.0 against 71.8 ms, 69.3 against 74.9).
    static SPARES: std::sync::Mutex<Spares> = std::sync::Mutex::new(Spares {
        kept: std::collections::VecDeque::new(),
        bytes: 0,
    });

    /// Buffers from this many bytes are kept ([`SPARES`]): an external string's smallest.
    const SPARE_FROM: usize = super::EXTERNAL_FROM;

    /// The most bytes of buffers kept at once: as many as live external strings may hold,
    /// so a loop of calls that each fill the budget finds all its buffers kept.
    const SPARE_BYTES: usize = BUDGET;

    /// A kept buffer, empty: bytes or UTF-16 units.
    pub(crate) enum Spare {
        Bytes(Vec<u8>),
        Units(Vec<u16>),
    }

    impl Spare {
        /// True for UTF-16 units.
        fn wide(&self) -> bool {
            matches!(self, Spare::Units(_))
        }

        /// Its size in bytes.
        fn bytes(&self) -> usize {
            match self {
                Spare::Bytes(b) => b.capacity(),
                Spare::Units(u) => u.capacity() * 2,
            }
        }
    }

    /// The kept buffers, oldest first, and their bytes.
    struct Spares {
        kept: std::collections::VecDeque<Spare>,
        bytes: usize,
    }

    impl Spares {
        /// The oldest kept buffer of `T` that holds `units` and is at most twice as large.
        fn take<T: Unit>(&mut self, units: usize) -> Option<Vec<T>> {
            let want = units.checked_mul(size_of::<T>())?;
            let at = self.kept.iter().position(|s| {
                let bytes = s.bytes();
                s.wide() == T::WIDE && bytes >= want && bytes / 2 <= want
            })?;
            let spare = self.kept.remove(at)?;
            self.bytes -= spare.bytes();
            T::unspare(spare)
        }

        /// Keeps `spare` (empty, at most [`SPARE_BYTES`]), giving up the oldest kept buffers
        /// as it needs room.
        fn keep(&mut self, spare: Spare) {
            let bytes = spare.bytes();
            while self.bytes + bytes > SPARE_BYTES {
                let Some(old) = self.kept.pop_front() else {
                    return;
                };
                self.bytes -= old.bytes();
            }
            self.bytes += bytes;
            self.kept.push_back(spare);
        }
    }

    /// Room for `units` units of `T`: a kept buffer that holds them and is at most twice as
    /// large, else a new one (advised for huge pages when large).
    pub(crate) fn buffer_for<T: Unit>(units: usize) -> Vec<T> {
        let kept = SPARES.lock().ok().and_then(|mut s| s.take(units));
        kept.unwrap_or_else(|| {
            let mut v = Vec::new();
            toolwire::sink::reserve_output(&mut v, units);
            v
        })
    }

    /// Keeps `buffer` for a later text when its size is in the kept range ([`SPARES`]), else
    /// frees it.
    pub(crate) fn keep<T: Unit>(mut buffer: Vec<T>) {
        let bytes = buffer.capacity() * size_of::<T>();
        if !(SPARE_FROM..=SPARE_BYTES).contains(&bytes) {
            return;
        }
        buffer.clear();
        if let Ok(mut spares) = SPARES.lock() {
            spares.keep(T::spare(buffer));
        }
    }

    /// Bytes of the buffers kept for later texts.
    pub(crate) fn kept() -> usize {
        SPARES.lock().map(|s| s.bytes).unwrap_or(0)
    }

    /// `units` (not empty; Latin-1 bytes or UTF-16) as an external string; the units back
    /// when Node cannot make one or the budget is spent.
    ///
    /// # Safety
    ///
    /// `env` is the env of the running call.
    pub(crate) unsafe fn make<T: Unit>(
        env: napi_env,
        units: Vec<T>,
    ) -> napi::Result<Result<napi_value, Vec<T>>> {
        let Some(create) = create::<T>() else {
            return Ok(Err(units));
        };
        let held = units.capacity() * size_of::<T>();
        let taken = LIVE.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |live| {
            live.checked_add(held).filter(|&after| after <= BUDGET)
        });
        if units.is_empty() || taken.is_err() {
            return Ok(Err(units));
        }
        let mut units = std::mem::ManuallyDrop::new(units);
        let (ptr, len, cap) = (units.as_mut_ptr(), units.len(), units.capacity());
        let mut out = std::ptr::null_mut();
        let mut copied = false;
        // SAFETY: `ptr..ptr+len` is initialised and stays valid until `free` runs (the
        // vector is forgotten here); `env` is live (the caller's contract).
        let status = unsafe {
            create(
                env,
                ptr,
                len as isize,
                Some(free::<T>),
                cap as *mut c_void,
                &mut out,
                &mut copied,
            )
        };
        if status != napi::sys::Status::napi_ok || copied {
            // Not made, or V8 copied the text and will not call `free`.
            LIVE.fetch_sub(held, Ordering::Relaxed);
            // SAFETY: the vector forgotten above, still unfreed.
            drop(unsafe { Vec::from_raw_parts(ptr, len, cap) });
            napi::check_status!(status, "cannot make an external string")?;
        }
        Ok(Ok(out))
    }
}

/// Bytes (ASCII) or UTF-16 units of one part of a long [`JsText`]: 64 KiB of two-byte text,
/// under V8's largest regular object (128 KiB).
const ROPE_PART: usize = 32 << 10;

impl ToNapiValue for JsText {
    unsafe fn to_napi_value(raw: napi::sys::napi_env, val: Self) -> Result<napi::sys::napi_value> {
        let env = Env::from_raw(raw);
        let ascii = val.0.is_ascii();
        let long = val.0.len() >= EXTERNAL_FROM;
        let text = if long && ascii {
            // SAFETY: `raw` is the env of this call (napi hands it to `to_napi_value`).
            match unsafe { external::make(raw, val.0) }? {
                Ok(s) => return Ok(s),
                Err(bytes) => bytes,
            }
        } else if long && external::fits::<u16>(val.0.len()) {
            // At most one unit a byte, in a buffer advised for huge pages when large; made a
            // string as converted text is (external, else copied from these units).
            let mut units = external::buffer_for(val.0.len());
            whole_utf16_of(&val.0, &mut units)?;
            // SAFETY: as above.
            return unsafe { JsUnits::to_napi_value(raw, JsUnits(units)) };
        } else {
            val.0
        };
        let bytes = &text[..];
        if ascii || bytes.len() <= ROPE_PART {
            let s = if ascii {
                env.create_string_latin1(bytes)?
            } else {
                let mut units = Vec::new();
                whole_utf16_of(bytes, &mut units)?;
                env.create_string_utf16(&units)?
            };
            // SAFETY: `raw` is the env of this call (napi hands it to `to_napi_value`), and
            // `s` a string made in it just now.
            return unsafe { JsString::to_napi_value(raw, s) };
        }
        if long {
            // SAFETY: as above.
            return unsafe { segments(raw, &env, bytes) };
        }
        let mut parts = Vec::with_capacity(bytes.len() / ROPE_PART + 1);
        let mut units = Vec::with_capacity(ROPE_PART + 1);
        let mut at = 0;
        while at < bytes.len() {
            let chunk = &bytes[at..bytes.len().min(at + ROPE_PART)];
            let s = if chunk.is_ascii() {
                at += chunk.len();
                env.create_string_latin1(chunk)?
            } else {
                units.clear();
                // Up to a character cut at the end of the chunk, read with the next one.
                let read = utf16_of(chunk, &mut units)
                    .filter(|&n| n > 0)
                    .ok_or_else(|| mark("encode", "output is not UTF-8", None))?;
                at += read;
                env.create_string_utf16(&units)?
            };
            // SAFETY: as above: a string made just now in this call's env.
            parts.push(unsafe { JsString::to_napi_value(raw, s) }?);
        }
        // SAFETY: `raw` is this call's env and every part a live handle of it.
        unsafe { concat(raw, &parts) }
    }
}

/// A long text that is not external whole as one rope of segments of up to [`SEGMENT`]
/// bytes, each cut before a character: their UTF-16 converted on the engine's pool at once
/// (they do not depend on each other), then each made a string on this thread as converted
/// text is (external while the budget allows, else parts); ASCII segments stay one byte a
/// char. The pool reads `bytes`, which this call owns until the strings are made; all of
/// the text's UTF-16 is held at once meanwhile (at most twice its bytes).
///
/// # Safety
///
/// `raw` is the env of the running call and `env` its wrapper.
unsafe fn segments(
    raw: napi::sys::napi_env,
    env: &Env,
    bytes: &[u8],
) -> Result<napi::sys::napi_value> {
    use rayon::prelude::*;
    let mut ranges = Vec::with_capacity(bytes.len() / SEGMENT + 1);
    let mut at = 0;
    while at < bytes.len() {
        let mut end = bytes.len().min(at + SEGMENT);
        // Back to a character's first byte (at most three continuations in UTF-8; text that
        // is not UTF-8 is refused by the conversion).
        for _ in 0..3 {
            if end < bytes.len() && bytes[end] & 0xC0 == 0x80 {
                end -= 1;
            }
        }
        ranges.push(at..end);
        at = end;
    }
    let convert = |range: &std::ops::Range<usize>| {
        let chunk = &bytes[range.clone()];
        if chunk.is_ascii() {
            return Some(None);
        }
        let mut units = external::buffer_for(chunk.len());
        (utf16_of(chunk, &mut units)? == chunk.len()).then_some(Some(units))
    };
    let converted: Vec<Option<Option<Vec<u16>>>> = if rayon::current_thread_index().is_none() {
        ranges.par_iter().map(convert).collect()
    } else {
        ranges.iter().map(convert).collect()
    };
    let mut parts = Vec::with_capacity(ranges.len());
    for (range, units) in ranges.into_iter().zip(converted) {
        let s = match units.ok_or_else(|| mark("encode", "output is not UTF-8", None))? {
            // SAFETY: `raw` is this call's env (the caller's contract).
            Some(units) => unsafe { JsUnits::to_napi_value(raw, JsUnits(units)) }?,
            None => {
                let chunk = &bytes[range];
                let external = if external::fits::<u8>(chunk.len()) {
                    // SAFETY: as above.
                    unsafe { external::make(raw, chunk.to_vec()) }?.ok()
                } else {
                    None
                };
                match external {
                    Some(s) => s,
                    None => {
                        let s = env.create_string_latin1(chunk)?;
                        // SAFETY: a string made just now in this call's env.
                        unsafe { JsString::to_napi_value(raw, s) }?
                    }
                }
            }
        };
        parts.push(s);
    }
    if parts.len() == 1 {
        return Ok(parts[0]);
    }
    // SAFETY: `raw` is this call's env and every part a live handle of it.
    unsafe { concat(raw, &parts) }
}

/// Bytes of one segment of a long non-ASCII [`JsText`] that is not external whole: its
/// UTF-16, in a buffer of 32 MiB advised for huge pages, an external string while the
/// budget allows, else parts. Segments of 8 MiB (16 MiB buffers, faulted a 4 KiB page at a
/// time) took 191/247 ms (min/median of 21) where these take 168/210.
const SEGMENT: usize = 16 << 20;

/// `parts[0].concat(...parts[1..])`: one string of `parts` (a rope of them, in V8).
///
/// # Safety
///
/// `env` is the env of the running call and `parts` (not empty) are string handles of it.
unsafe fn concat(
    env: napi::sys::napi_env,
    parts: &[napi::sys::napi_value],
) -> Result<napi::sys::napi_value> {
    use napi::sys;
    let get = |object: sys::napi_value, name: &std::ffi::CStr| -> Result<sys::napi_value> {
        let mut out = std::ptr::null_mut();
        // SAFETY: `object` is a live handle of `env` and `name` a NUL-terminated string.
        let status = unsafe { sys::napi_get_named_property(env, object, name.as_ptr(), &mut out) };
        napi::check_status!(status, "cannot read String.prototype.concat")?;
        Ok(out)
    };
    let mut global = std::ptr::null_mut();
    // SAFETY: `env` is live (the caller's contract).
    napi::check_status!(unsafe { sys::napi_get_global(env, &mut global) })?;
    let concat = get(get(get(global, c"String")?, c"prototype")?, c"concat")?;
    let mut out = std::ptr::null_mut();
    // SAFETY: `concat` is a function handle of `env`, `parts[0]` its receiver and the rest
    // its arguments, all live handles of this call.
    let status = unsafe {
        sys::napi_call_function(
            env,
            parts[0],
            concat,
            parts.len() - 1,
            parts[1..].as_ptr(),
            &mut out,
        )
    };
    napi::check_status!(status, "cannot join a text's parts")?;
    Ok(out)
}

/// The error of engine output that is not UTF-8 (never expected: the encoders write UTF-8).
pub(crate) fn not_utf8(_: utf16::NotUtf8) -> Error {
    mark("encode", "output is not UTF-8", None)
}

/// [`utf16_of`] of the whole of `bytes`: an error unless they are UTF-8 to the end.
fn whole_utf16_of(bytes: &[u8], out: &mut Vec<u16>) -> Result<()> {
    match utf16_of(bytes, out) {
        Some(n) if n == bytes.len() => Ok(()),
        _ => Err(mark("encode", "output is not UTF-8", None)),
    }
}
