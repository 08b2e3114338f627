//! A long root array a window of rows at a time, with a thread beside the one holding the
//! GIL: `dumps` of a long list walks its windows on this thread while that one encodes them
//! ([`walk_and_encode`]); `loads` of a root array's TOON decodes its windows on that thread
//! while this one makes the Python objects of the windows decoded so far.
//!
//! `loads` takes only what gives exactly the whole reading's result: the windows are cut at
//! the lines of the array's elements (depth 1), each decoded as the array's own header with
//! its count; any window that fails, or counts that do not add up to the header's, and the
//! text is decoded whole again (its errors, with their positions, are the whole text's). No
//! hook: a hook would see rows before a later window's error.

use pyo3::exceptions::PyRuntimeError;
use pyo3::ffi;
use pyo3::prelude::*;
use toolwire::toon::DecodeOptions;

use crate::walk::Walker;

/// Text shorter than this is decoded whole (5,000 flat rows, 335 KiB: 4.3 ms whole, 2.7-3.7 in
/// windows).
pub const WINDOWED_BYTES: usize = 256 << 10;

/// How many windows a text is cut into (about).
const WINDOWS: usize = 16;

/// The windows of `text` when it is a root array's header line (`[N…]…:`) followed by its
/// N elements at depth 1 (`indent` spaces): each window's text (the header with the count
/// of its elements, then its lines) and N. `None` for anything else.
pub fn split_root_array(text: &[u8], indent: usize) -> Option<(usize, Vec<Vec<u8>>)> {
    let nl = memchr::memchr(b'\n', text)?;
    let header = &text[..nl];
    let digits = header
        .get(1..)?
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    if header.first() != Some(&b'[')
        || digits == 0
        || digits > 18
        || (digits > 1 && header[1] == b'0')
        || header.last() != Some(&b':')
    {
        // Not a root array's header, or a count the whole reading refuses (leading zeros).
        return None;
    }
    let declared: usize = std::str::from_utf8(&header[1..1 + digits])
        .ok()?
        .parse()
        .ok()?;
    let rest = &header[1 + digits..];
    let body = &text[nl + 1..];
    if memchr::memchr(b'\r', body).is_some() {
        // Line ends of two kinds: whole.
        return None;
    }
    // Line starts at depth 1: `indent` spaces, then neither a space nor a line's end.
    let starts_element = |at: usize| {
        body.get(at..at + indent)
            .is_some_and(|s| s.iter().all(|&b| b == b' '))
            && body
                .get(at + indent)
                .is_some_and(|&b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
    };
    if !starts_element(0) {
        return None;
    }
    let target = body.len() / WINDOWS + 1;
    let mut windows = Vec::with_capacity(WINDOWS + 1);
    let (mut from, mut elements, mut total) = (0, 0, 0);
    let mut line = 0;
    while line < body.len() {
        // A blank or comment line: whole (strict reading refuses a blank line inside the
        // array but not at a window's end; comments are the reading's to skip).
        match body[line..].iter().find(|&&b| b != b' ' && b != b'\t') {
            None | Some(b'\n' | b'#') => return None,
            Some(_) => {}
        }
        if starts_element(line) {
            if line - from >= target {
                // The window ends before this line's line feed.
                windows.push(window(rest, elements, &body[from..line - 1]));
                (from, elements) = (line, 0);
            }
            elements += 1;
            total += 1;
        }
        match memchr::memchr(b'\n', &body[line..]) {
            Some(i) => line += i + 1,
            None => break,
        }
    }
    windows.push(window(rest, elements, &body[from..]));
    // The header's count is only trusted once the lines agree (the list is made that long).
    (windows.len() > 1 && total == declared).then_some((declared, windows))
}

/// A window's text: `[` `n` the header's rest, a line feed, its lines.
fn window(rest: &[u8], n: usize, lines: &[u8]) -> Vec<u8> {
    let count = n.to_string();
    let mut w = Vec::with_capacity(2 + count.len() + rest.len() + lines.len());
    w.push(b'[');
    w.extend_from_slice(count.as_bytes());
    w.extend_from_slice(rest);
    w.push(b'\n');
    w.extend_from_slice(lines);
    w
}

/// `loads` of the windows of a root array of `declared` elements: decoded one after another
/// on a scoped thread while this one makes each decoded window's objects; `None` when a
/// window fails or the counts disagree (the caller decodes the text whole).
pub fn loads_windows<'py>(
    py: Python<'py>,
    windows: &[Vec<u8>],
    declared: usize,
    opts: &DecodeOptions,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let stop = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::channel();
        // Shared with the closures that wait with the GIL released (a receiver is not `Sync`).
        let rx = std::sync::Mutex::new(rx);
        let stop = &stop;
        // The thread reads only the windows' texts, owned by the caller for the whole call.
        let decoder = std::thread::Builder::new()
            .name("toolwire-loads".into())
            .spawn_scoped(s, move || {
                for w in windows {
                    if stop.load(std::sync::atomic::Ordering::Relaxed) {
                        return;
                    }
                    let doc = toolwire::toon::decode(w, opts).ok();
                    let failed = doc.is_none();
                    if tx.send(doc).is_err() || failed {
                        return;
                    }
                }
            });
        if decoder.is_err() {
            return Ok(None);
        }
        let give_up = || stop.store(true, std::sync::atomic::Ordering::Relaxed);
        // SAFETY: a new list of `declared` NULL items, or NULL with an error set.
        let all = unsafe {
            Bound::from_owned_ptr_or_err(py, ffi::PyList_New(declared as ffi::Py_ssize_t))?
        };
        let mut n = 0;
        for _ in windows {
            // Waiting for the next window with the GIL released.
            let doc = py.detach(|| rx.lock().ok().and_then(|rx| rx.recv().ok()).flatten());
            let Some((root, arr)) = doc
                .as_ref()
                .and_then(|d| Some((d.root(), d.root().as_array()?)))
            else {
                give_up();
                return Ok(None);
            };
            if n + arr.len() > declared {
                give_up();
                return Ok(None);
            }
            let part = crate::topy::to_py(py, root, &crate::topy::Hooks::none())?;
            for i in 0..arr.len() {
                // SAFETY: `part` is the list of `arr.len()` items just made and `all` a list
                // of `declared` items, slot `n` empty; `PyList_GetItem` borrows an item,
                // which gets a reference of its own for `PyList_SetItem` to steal.
                unsafe {
                    let item = ffi::PyList_GetItem(part.as_ptr(), i as ffi::Py_ssize_t);
                    ffi::Py_IncRef(item);
                    ffi::PyList_SetItem(all.as_ptr(), n as ffi::Py_ssize_t, item);
                }
                n += 1;
            }
        }
        Ok((n == declared).then_some(all))
    })
}

/// What [`walk_and_encode`] made of a list: the encoder's result, the decimal lexemes and the
/// nonce of their placeholders, and the windows walked (each after the first with the first
/// row in front, as [`toolwire::toon::WindowedEncoder`] takes them).
pub struct Walked {
    pub text: toolwire::Result<Vec<u8>>,
    pub lexemes: Vec<String>,
    pub nonce: u64,
    pub windows: Vec<toolwire::Doc<'static>>,
}

/// A list of at least this many rows is walked and encoded at once ([`walk_and_encode`]).
pub const WINDOWED_ROWS: usize = 2048;

/// A long list walked a window of rows at a time on this thread (the GIL held), each window
/// encoded on another thread meanwhile ([`toolwire::toon::WindowedEncoder`]): the same text
/// as walking it whole and then encoding it, and the windows (`dumps`, and `present` of a
/// list whose response is its TOON). The walk's error (a Python exception) as the whole walk
/// raises it; the encoder's as it is. Without a thread to spare, the walker comes back
/// unused.
pub fn walk_and_encode<'py>(
    py: Python<'py>,
    walker: Walker<'py>,
    list: &Bound<'py, PyAny>,
    rows: usize,
    opts: &toolwire::toon::EncodeOptions,
) -> Result<PyResult<Walked>, Box<Walker<'py>>> {
    // Windows of a sixteenth of the rows, 512 to 4096: the last one, encoded after the walk,
    // is a small part of the work.
    let per = (rows / 16).clamp(512, 4096);
    let (tx, rx) = std::sync::mpsc::channel::<toolwire::Doc<'static>>();
    let done = std::thread::scope(|s| {
        // The thread owns every window it is sent (documents of copied bytes, no Python
        // object), so the GIL is never needed there.
        let encoder = std::thread::Builder::new()
            .name("toolwire-dumps".into())
            .spawn_scoped(s, move || {
                // One thread beside the walk: a window's rows not cut for the pool, which
                // would take the walking thread's core (100k flat rows: 17.6-18.2 ms against
                // 19.3-20.3 with the pool, interleaved runs).
                let serial = opts.clone().parallel(false);
                let mut windows = toolwire::toon::WindowedEncoder::new(rows, &serial);
                for w in rx {
                    windows.push(w);
                }
                windows.finish_keeping()
            });
        let Ok(encoder) = encoder else {
            return Err(Box::new(walker));
        };
        let walked = walker.walk_windows(list, per, &mut |doc| {
            // The encoder only stops once every sender is gone.
            let _ = tx.send(doc);
        });
        drop(tx);
        Ok((walked, py.detach(|| encoder.join())))
    });
    let (walked, encoded) = done?;
    Ok(walked.and_then(|(lexemes, nonce)| {
        let (text, windows) =
            encoded.map_err(|_| PyRuntimeError::new_err("toolwire: the TOON encoder failed"))?;
        Ok(Walked {
            text,
            lexemes,
            nonce,
            windows,
        })
    }))
}

/// One document of the rows of `windows` (each after the first with the first row in
/// front, not taken again), copied: what walking the list whole gives, for the engine to
/// present.
pub fn joined(windows: &[toolwire::Doc<'static>]) -> toolwire::Doc<'static> {
    let mut b = toolwire::DocBuilder::new(b"");
    let m = b.begin_array();
    let mut n = 0;
    for (i, w) in windows.iter().enumerate() {
        if let Some(rows) = w.root().as_array() {
            for row in rows.iter().skip(usize::from(i > 0)) {
                b.copy_value(row);
                n += 1;
            }
        }
    }
    b.end_array(m, n);
    b.finish()
}
