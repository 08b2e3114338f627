//! JSON text as the data block, read window by window ([`Data::Json`](super::Data::Json)).
//!
//! A root array larger than [`WINDOWED_ABOVE`] is never parsed whole. [`analyse`] reads it
//! once, window by window (a few MiB of tape, reused): that validates every byte, collects the
//! document flags, the nesting depth, the size bound of the size cap and, for TOON, the
//! array's form and row count; nothing is kept but those. Writing the block reads it again the
//! same way and encodes each window as it is parsed. Both readings parse the next window on
//! another thread while the current one is analysed or encoded, and the first reading reads
//! the array's second half on another thread from a guessed row start ([`split_point`]),
//! kept only when the reading of the first half stops exactly there. The text is byte for
//! byte what the whole document would give (`tests/tests/windowed.rs`, the `json_windows`
//! fuzz target), and the peak heap is the input plus a few windows' tapes and the encoder's
//! buffers, whatever the row count (8.5 MB at 300k and at 1M rows, `tests/tests/memory.rs`).

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use super::Format;
use super::response::data_len_bound;
use crate::doc::{Array, Doc, DocBuilder};
use crate::error::{Error, Result};
use crate::json::{
    CompactFormatter, Formatter, ParseOptions, PrettyFormatter, RowWindows, parse, write_with,
};
use crate::sink::Sink;
use crate::toon::{EncodeOptions, RootAnalysis, RootForm, write_root_header, write_root_window};

/// Input bytes per window by default: about 7,700 rows of a typical table, 1.5 MiB of tape.
pub(crate) const WINDOW_BYTES: usize = 1 << 20;

/// Inputs up to this size are parsed whole: reading twice costs a second parse (at 100k rows,
/// 13.5 MB, about 1.4x the time of the whole-document path in a steady loop), and the whole
/// tape of an input this small (1.6x its size) stays within 16 MiB, inside the memory
/// contract whatever the output. Larger inputs are read window by window.
pub(crate) const WINDOWED_ABOVE: usize = 8 << 20;

/// An analysed root array, written window by window.
#[derive(Clone, Debug)]
pub(crate) struct Windowed<'d> {
    src: &'d [u8],
    /// The format written (TOON fell back to compact JSON when the flags say so).
    format: Format,
    /// The TOON options when `format` is TOON.
    toon: EncodeOptions,
    /// The TOON form ([`RootForm::Empty`] for JSON).
    form: RootForm,
    rows: usize,
    len_bound: usize,
    window: usize,
    /// The side door's document, parsed whole on first use (tests). It owns its strings: a
    /// cell of a type with `'d` in it would make every response invariant in `'d`.
    side: OnceLock<Option<Doc<'static>>>,
}

/// Reads `src` window by window and decides how its data block is written in `format`
/// (pretty, compact or TOON; never `Auto`). `None` when `src` is not a JSON array: the caller
/// parses it whole.
///
/// # Errors
///
/// The first error of the input, exactly as [`parse`] reports it; then the TOON encoder's
/// depth error, as [`ResponseBuilder::build`](super::ResponseBuilder::build) gives it for a
/// parsed document.
pub(crate) fn analyse(src: &[u8], format: Format, window: usize) -> Result<Option<Windowed<'_>>> {
    let toon = match format {
        Format::Toon(d) => Some(EncodeOptions::new().delimiter(d)),
        _ => None,
    };
    let Some((facts, rows)) = read(src, toon.as_ref(), window)? else {
        return Ok(None);
    };
    let (format, form) = match format {
        // WIRE.md §2: TOON cannot neutralise a reserved tag; a lone surrogate is not UTF-8.
        Format::Toon(_) if facts.tag || facts.surrogate => (Format::Compact, RootForm::Empty),
        Format::Toon(_) => match facts.toon_error {
            Some(e) => return Err(e),
            None => (format, facts.analysis.form()),
        },
        _ => (format, RootForm::Empty),
    };
    Ok(Some(Windowed {
        src,
        format,
        toon: toon.unwrap_or_default(),
        form,
        rows,
        len_bound: facts.len_bound,
        window,
        side: OnceLock::new(),
    }))
}

/// [`analyse`] for plain TOON text with `opts` (`toon::encode_json`): no fallback, a lone
/// surrogate is the encoder's error, as [`crate::toon::encode`] gives it for the document.
///
/// # Errors
///
/// The first error of the input as [`parse`] reports it; then the first error of
/// [`crate::toon::check`].
pub(crate) fn analyse_toon<'d>(
    src: &'d [u8],
    opts: &EncodeOptions,
    window: usize,
) -> Result<Option<Windowed<'d>>> {
    let Some((facts, rows)) = read(src, Some(opts), window)? else {
        return Ok(None);
    };
    if let Some(e) = facts.toon_error {
        return Err(e);
    }
    Ok(Some(Windowed {
        src,
        format: Format::Toon(opts.get_delimiter()),
        toon: opts.clone(),
        form: facts.analysis.form(),
        rows,
        len_bound: facts.len_bound,
        window,
        side: OnceLock::new(),
    }))
}

/// `toon::encode_json`: JSON text to TOON text, windowed when `json` is longer than `above`.
///
/// # Errors
///
/// Those of [`parse`], then those of [`crate::toon::check`]; nothing is written then.
pub(crate) fn encode_json<W: Sink + ?Sized>(
    json: &[u8],
    opts: &EncodeOptions,
    above: usize,
    window: usize,
    out: &mut W,
) -> Result<()> {
    if json.len() > above {
        if let Some(w) = analyse_toon(json, opts, window).map_err(|e| at_surrogate(e, json))? {
            w.write(w.format(), out);
            return Ok(());
        }
    }
    let doc = parse(json, &ParseOptions::default())?;
    crate::toon::encode(doc.root(), opts, out).map_err(|e| at_surrogate(e, json))
}

/// The encoder's lone-surrogate error (it has no position: the string was decoded from its
/// escapes) placed at the opening quote of the first string of the JSON text `json` that
/// escapes a lone surrogate. Other errors pass unchanged.
#[cold]
fn at_surrogate(e: Error, json: &[u8]) -> Error {
    if e.classify() != crate::Category::Encode
        || e.position().is_some()
        || !e.message().contains("lone surrogate")
    {
        return e;
    }
    match first_lone_surrogate_string(json) {
        Some(at) => Error::at(e.classify(), e.message().to_owned(), json, at),
        None => e,
    }
}

/// The offset of the opening quote of the first string (or key) of valid JSON text `json`
/// whose `\uXXXX` escapes leave a surrogate unpaired.
fn first_lone_surrogate_string(json: &[u8]) -> Option<usize> {
    let hex4 = |at: usize| -> Option<u16> {
        let h = json.get(at..at + 4)?;
        u16::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok()
    };
    let mut i = 0;
    while let Some(q) = memchr::memchr(b'"', &json[i..]) {
        let open = i + q;
        let mut j = open + 1;
        // A high surrogate escape waiting for its low half.
        let mut pending_high = false;
        let mut lone = false;
        while j < json.len() && json[j] != b'"' {
            if json[j] != b'\\' {
                lone |= pending_high;
                pending_high = false;
                j += 1;
                continue;
            }
            if json.get(j + 1) == Some(&b'u') {
                let u = hex4(j + 2).unwrap_or(0);
                match u {
                    0xD800..=0xDBFF => {
                        lone |= pending_high;
                        pending_high = true;
                    }
                    0xDC00..=0xDFFF => {
                        lone |= !pending_high;
                        pending_high = false;
                    }
                    _ => {
                        lone |= pending_high;
                        pending_high = false;
                    }
                }
                j += 6;
            } else {
                lone |= pending_high;
                pending_high = false;
                j += 2;
            }
        }
        if lone || pending_high {
            return Some(open);
        }
        i = j + 1;
        if i >= json.len() {
            break;
        }
    }
    None
}

/// The first reading: `src` window by window (see the module documentation), with the TOON
/// analysis when `toon` is given. `None` when `src` is not a JSON array.
fn read(src: &[u8], toon: Option<&EncodeOptions>, window: usize) -> Result<Option<(Facts, usize)>> {
    let opts = ParseOptions::default();
    let Some(mut windows) = RowWindows::new(src, &opts)? else {
        return Ok(None);
    };
    let repeat = toon.is_some();
    let mut acc = Facts::new(RootAnalysis::new());
    if let Some(doc) = windows.next_window(None, window, repeat)? {
        acc.add(&doc, toon);
    }
    let split = (rayon::current_num_threads() > 1 && !windows.done())
        .then(|| split_point(src, windows.pos(), window))
        .flatten();
    let rows = match split {
        None => {
            pipelined(&mut windows, window, repeat, |doc| acc.add(doc, toon))?;
            windows.rows()
        }
        Some(mid) => {
            // The second half is read on another thread from a guessed element start; it
            // counts only if the first half's reading stops exactly there (then `mid` is an
            // element's start, and the second half was parsed as the whole array would be).
            windows.stop_at(mid);
            let mut rest = RowWindows::resume_at(src, &opts, mid, windows.first());
            let mut later = Facts::new(RootAnalysis::continuing());
            let abandoned = AtomicBool::new(false);
            let (head, tail) = rayon::join(
                || {
                    let r = pipelined(&mut windows, window, repeat, |doc| acc.add(doc, toon));
                    if !windows.stopped() {
                        abandoned.store(true, Ordering::Relaxed);
                    }
                    r
                },
                || {
                    pipelined(&mut rest, window, repeat, |doc| {
                        later.add(doc, toon);
                        !abandoned.load(Ordering::Relaxed)
                    })
                },
            );
            head?;
            if windows.stopped() {
                tail?;
                acc = acc.then(later);
                windows.rows() + rest.rows()
            } else {
                windows.rows()
            }
        }
    };
    Ok(Some((acc, rows)))
}

/// What the first reading collects, over one part of the array.
struct Facts {
    tag: bool,
    surrogate: bool,
    /// The first TOON check error, in window order.
    toon_error: Option<Error>,
    len_bound: usize,
    analysis: RootAnalysis,
}

impl Facts {
    fn new(analysis: RootAnalysis) -> Facts {
        Facts {
            tag: false,
            surrogate: false,
            toon_error: None,
            len_bound: 2,
            analysis,
        }
    }

    /// Takes one window into account (`toon`: the TOON options, when the format is TOON).
    /// Returns `true`: go on.
    fn add(&mut self, doc: &Doc<'_>, toon: Option<&EncodeOptions>) -> bool {
        self.tag |= doc.has_reserved_tag();
        self.surrogate |= doc.has_lone_surrogate();
        self.len_bound += data_len_bound(doc.root());
        if let (Some(eo), None) = (toon, &self.toon_error) {
            match crate::toon::check(doc.root(), eo) {
                Ok(()) => {
                    if let Some(arr) = doc.root().as_array() {
                        self.analysis.add(arr, eo);
                    }
                }
                Err(e) => self.toon_error = Some(e),
            }
        }
        true
    }

    /// These facts followed by those of the rest of the array.
    fn then(self, later: Facts) -> Facts {
        Facts {
            tag: self.tag || later.tag,
            surrogate: self.surrogate || later.surrogate,
            toon_error: self.toon_error.or(later.toon_error),
            len_bound: self.len_bound + later.len_bound,
            analysis: self.analysis.then(later.analysis),
        }
    }
}

/// Where a second reading may start, guessed: just past the first comma at or after the middle
/// of `src` (and at least a window after `from`) that sits between a closing and an opening
/// bracket, as between two rows of a table. Only a guess (the comma may be inside a string or
/// a nested array); the first reading confirms it. `None` when nothing looks like it nearby.
fn split_point(src: &[u8], from: usize, window: usize) -> Option<usize> {
    let start = (src.len() / 2).max(from.saturating_add(window));
    let end = src.len().min(start.saturating_add(1 << 16));
    let region = src.get(start..end)?;
    let is_ws = |b: &u8| matches!(b, b' ' | b'\n' | b'\r' | b'\t');
    memchr::memchr_iter(b',', region)
        .map(|i| start + i)
        .find(|&comma| {
            let before = src[..comma].iter().rev().find(|b| !is_ws(b));
            let after = src[comma + 1..].iter().find(|b| !is_ws(b));
            matches!(before, Some(b'}' | b']')) && matches!(after, Some(b'{' | b'['))
        })
        .map(|comma| comma + 1)
}

impl<'d> Windowed<'d> {
    /// The format the block is written in.
    pub(crate) fn format(&self) -> Format {
        self.format
    }

    /// An upper bound of the block's framed length.
    pub(crate) fn len_bound(&self) -> usize {
        self.len_bound
    }

    /// The whole document, parsed on first use (the side door).
    pub(crate) fn doc(&self) -> Option<&Doc<'static>> {
        self.side
            .get_or_init(|| {
                let doc = parse(self.src, &ParseOptions::default()).ok()?;
                let mut b = DocBuilder::new(b"");
                b.copy_from(&doc, 0);
                if doc.has_reserved_tag() {
                    b.mark_reserved_tag();
                }
                if doc.has_lone_surrogate() {
                    b.mark_lone_surrogate();
                }
                Some(b.finish())
            })
            .as_ref()
    }

    /// Writes the block: `format` is this block's, or compact JSON for `structuredContent`.
    pub(crate) fn write<W: Sink + ?Sized>(&self, format: Format, out: &mut W) {
        match format {
            Format::Toon(_) => {
                let eo = &self.toon;
                write_root_header(&self.form, self.rows, eo, out);
                let mut written = 0;
                self.each_window(out, |arr, out| {
                    write_root_window(&self.form, arr, written, eo, out);
                    written += arr.len();
                });
            }
            Format::Pretty => self.json(&mut PrettyFormatter::new(), out),
            Format::Compact | Format::Auto => self.json(&mut CompactFormatter, out),
        }
    }

    /// The array as JSON through `fmt`.
    fn json<F: Formatter, W: Sink + ?Sized>(&self, fmt: &mut F, out: &mut W) {
        if self.rows == 0 {
            fmt.write_empty_array(out);
            return;
        }
        fmt.begin_array(out);
        let mut first = true;
        self.each_window(out, |arr, out| {
            for v in arr {
                fmt.begin_array_value(out, std::mem::take(&mut first));
                write_with(v, out, fmt);
            }
        });
        fmt.end_array(out);
    }

    /// Parses the input again window by window, handing each window's rows to `f`; stops
    /// when `out` is cancelled.
    fn each_window<W: Sink + ?Sized>(&self, out: &mut W, mut f: impl FnMut(Array<'_>, &mut W)) {
        let opts = ParseOptions::default();
        // `analyse` read the same input with the same options without an error.
        let Ok(Some(mut windows)) = RowWindows::new(self.src, &opts) else {
            debug_assert!(false, "the windowed input changed its mind");
            return;
        };
        let done = pipelined(&mut windows, self.window, false, |doc| {
            if let Some(arr) = doc.root().as_array() {
                f(arr, out);
            }
            !out.cancelled()
        });
        debug_assert!(done.is_ok(), "the windowed input changed its mind");
    }
}

/// Hands every window of `windows` to `f` (until it returns `false`), parsing the next window
/// on another thread while `f` works on this one: the two passes cost about the larger of
/// parsing and `f`, not their sum. Two windows are alive at a time, and a third lends its
/// allocations to the next.
///
/// # Errors
///
/// The first error of the input.
fn pipelined<'d>(
    windows: &mut RowWindows<'d, '_>,
    bytes: usize,
    repeat_first: bool,
    mut f: impl FnMut(&Doc<'d>) -> bool,
) -> Result<()> {
    let mut current = windows.next_window(None, bytes, repeat_first)?;
    let mut spare = None;
    while let Some(doc) = current.take() {
        let mut next = Ok(None);
        let mut go = true;
        rayon::in_place_scope(|s| {
            s.spawn(|_| next = windows.next_window(spare.take(), bytes, repeat_first));
            go = f(&doc);
        });
        if !go {
            return Ok(());
        }
        spare = Some(doc);
        current = next?;
    }
    Ok(())
}
