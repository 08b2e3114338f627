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
use pyo3::prelude::*;
use toolwire::toon::DecodeOptions;

use crate::walk::Walker;

/// Text shorter than this is decoded whole (5,000 flat rows, 335 KiB: 4.3 ms whole, 2.7-3.7 in
/// windows).
pub const WINDOWED_BYTES: usize = 256 << 10;

/// How many windows a text is cut into (about): the longest window is this share of it.
const WINDOWS: usize = 16;

/// The first window is this share of the text, and each next one half as long again as the
/// last, up to [`WINDOWS`]'s: this thread waits for the first window's decoding only (a
/// sixteenth kept it waiting ~1.5 ms of 100k flat rows), and then finds the next one
/// decoded while it made the last one's objects (decoding takes ~2/3 of the making's time
/// on nested rows, so a window twice as long as the last kept it waiting).
const FIRST_WINDOW: usize = 128;

/// A root array's TOON as a header line (`[N…]…:`) followed by its N elements at depth 1
/// (`indent` spaces), cut into windows of whole elements as they are needed
/// ([`RootArray::next_window`]).
pub struct RootArray<'t> {
    /// The header after its count (`{fields}:` and the like).
    rest: &'t [u8],
    /// The lines after the header.
    body: &'t [u8],
    indent: usize,
    /// The header's count.
    pub declared: usize,
    /// Where the next window starts, and the next line to look at.
    from: usize,
    line: usize,
    /// The size the next window reaches before it ends at an element.
    target: usize,
}

/// Why a text is decoded whole rather than in windows ([`RootArray::next_window`]).
pub struct Whole;

impl<'t> RootArray<'t> {
    /// `text` as a root array's header and its first element's line; `None` for anything
    /// else (decoded whole). Only the header is read here: the lines are read as they are
    /// cut.
    pub fn new(text: &'t [u8], indent: usize) -> Option<RootArray<'t>> {
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
        let body = &text[nl + 1..];
        let array = RootArray {
            rest: &header[1 + digits..],
            body,
            indent,
            declared,
            from: 0,
            line: 0,
            target: body.len() / FIRST_WINDOW + 1,
        };
        array.starts_element(0).then_some(array)
    }

    /// Whether a line of an element at depth 1 starts at `at`: `indent` spaces, then neither
    /// a space nor a line's end.
    fn starts_element(&self, at: usize) -> bool {
        let body = self.body;
        body.get(at..at + self.indent)
            .is_some_and(|s| s.iter().all(|&b| b == b' '))
            && body
                .get(at + self.indent)
                .is_some_and(|&b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
    }

    /// The next window's lines (whole elements) and how many elements they hold, `None`
    /// past the last one; [`Whole`] at a blank or comment line (strict reading refuses a
    /// blank line inside the array but not at a window's end; comments are the reading's
    /// to skip) or a CR (line ends of two kinds).
    pub fn next_window(&mut self) -> Result<Option<(&'t [u8], usize)>, Whole> {
        let body = self.body;
        let from = self.from;
        if from >= body.len() {
            return Ok(None);
        }
        let mut elements = 0;
        while self.line < body.len() {
            let line = self.line;
            match body[line..].iter().find(|&&b| b != b' ' && b != b'\t') {
                None | Some(b'\n' | b'#') => return Err(Whole),
                Some(_) => {}
            }
            if self.starts_element(line) {
                if line - from >= self.target {
                    // The window ends before this line's line feed.
                    self.from = line;
                    self.target = (self.target * 3 / 2).min(body.len() / WINDOWS + 1);
                    return Ok(Some((&body[from..line - 1], elements)));
                }
                elements += 1;
            }
            match memchr::memchr2(b'\n', b'\r', &body[line..]) {
                Some(i) if body[line + i] == b'\r' => return Err(Whole),
                Some(i) => self.line = line + i + 1,
                None => self.line = body.len(),
            }
        }
        self.from = body.len();
        Ok(Some((&body[from..], elements)))
    }

    /// The bytes the windows' texts take at most, all together: the lines, and a header for
    /// each of at most `FIRST_WINDOW + 1` windows (every one but the last holds at least
    /// the first one's share of the lines).
    fn room(&self) -> usize {
        self.body.len() + (FIRST_WINDOW + 1) * (self.rest.len() + 24)
    }

    /// Writes the text of a window of `n` elements whose lines are `lines` at the start of
    /// `room` (`[`, `n`, the array header's rest, a line feed, the lines) and moves `room`
    /// past it: the text, `None` when it does not fit.
    fn write_window<'r>(
        &self,
        room: &mut &'r mut [u8],
        n: usize,
        lines: &[u8],
    ) -> Option<&'r [u8]> {
        let count = n.to_string();
        let parts = [&b"["[..], count.as_bytes(), self.rest, b"\n", lines];
        let len = parts.iter().map(|p| p.len()).sum();
        if len > room.len() {
            return None;
        }
        let (w, rest) = std::mem::take(room).split_at_mut(len);
        *room = rest;
        let mut at = 0;
        for p in parts {
            w[at..at + p.len()].copy_from_slice(p);
            at += p.len();
        }
        Some(w)
    }
}

/// `loads` of a root array cut into windows: each cut and decoded on a scoped thread while
/// this one makes the objects of the windows decoded so far; `None` when a window fails or
/// is not to be cut ([`Whole`]), or the elements do not add up to the header's count (the
/// caller decodes the text whole, for its errors and their positions).
pub fn loads_windows<'py>(
    py: Python<'py>,
    mut array: RootArray<'_>,
    opts: &DecodeOptions,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let declared = array.declared;
    let stop = std::sync::atomic::AtomicBool::new(false);
    // The windows' texts one after another, each borrowed by its document until the call
    // ends (calloc'd: pages past the texts are never touched).
    let mut texts = vec![0u8; array.room()];
    let mut room = &mut texts[..];
    std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::channel();
        // Shared with the closures that wait with the GIL released (a receiver is not `Sync`).
        let rx = std::sync::Mutex::new(rx);
        let stop = &stop;
        // The thread reads the text, which the caller's `str` holds for the whole call, writes
        // the windows' texts into `room`, and sends each window's document with the count of
        // its elements' lines, `None` for a failure, and nothing more after it.
        let decoder = std::thread::Builder::new()
            .name("toolwire-loads".into())
            .spawn_scoped(s, move || {
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let doc = match array.next_window() {
                        Ok(Some((lines, n))) => array
                            .write_window(&mut room, n, lines)
                            .and_then(|w| toolwire::toon::decode(w, opts).ok())
                            .zip(Some(n)),
                        Ok(None) => return,
                        Err(Whole) => None,
                    };
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
        // The elements are appended as they are made (the header's count is not trusted to
        // size the list before they add up to it).
        let all = pyo3::types::PyList::empty(py);
        let mut n = 0;
        loop {
            // Waiting for the next window with the GIL released.
            let Some(doc) = py.detach(|| rx.lock().ok().and_then(|rx| rx.recv().ok())) else {
                break;
            };
            // A window's array has as many elements as it has lines of them (a lenient reading
            // does not check its count).
            let Some(arr) = doc
                .as_ref()
                .and_then(|(d, lines)| d.root().as_array().filter(|a| a.len() == *lines))
            else {
                give_up();
                return Ok(None);
            };
            n += arr.len();
            if n > declared {
                give_up();
                return Ok(None);
            }
            crate::topy::extend_list(py, arr, &all)?;
        }
        if n != declared {
            return Ok(None);
        }
        Ok(Some(all.into_any()))
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
