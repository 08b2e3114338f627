//! Reading a root JSON array window by window, twice: once to collect facts (validation and
//! whatever the caller needs before its first byte), once to hand each window's rows to a
//! writer. Both readings parse the next window on another thread while the current one is
//! used ([`pipelined`]); the first reading also reads the array's second half on another
//! thread from a guessed row start ([`split_point`]), kept only when the reading of the first
//! half stops exactly there. The windows themselves are [`RowWindows`].
//!
//! Two callers: `toon::encode_json` (TOON text from JSON text) and the wire's `Data::Json`
//! (any format, with the size cap's bound and the document flags).

use std::sync::atomic::{AtomicBool, Ordering};

use super::{ParseOptions, RowWindows};
use crate::doc::{Array, Doc};
use crate::error::Result;
use crate::sink::Sink;

/// Input bytes per window by default: about 7,700 rows of a typical table, 1.5 MiB of tape.
pub(crate) const WINDOW_BYTES: usize = 1 << 20;

/// Inputs up to this size are parsed whole: reading twice costs a second parse (at 100k rows,
/// 13.5 MB, about 1.4x the time of the whole-document path in a steady loop), and the whole
/// tape of an input this small (1.6x its size) stays within 16 MiB, inside the memory
/// contract whatever the output. Larger inputs are read window by window.
pub(crate) const WINDOWED_ABOVE: usize = 8 << 20;

/// What a caller collects over the windows of the first reading.
pub(crate) trait Facts: Send {
    /// Takes one window into account.
    fn add(&mut self, doc: &Doc<'_>);
    /// These facts followed by those of the rest of the array (read on another thread).
    fn then(self, later: Self) -> Self;
}

/// The first reading: `src` window by window, every byte validated, `first` collecting the
/// facts (`later` starts empty for a second half read on another thread). `repeat_first`:
/// every window after the first begins with the array's first row again (for analyses that
/// compare rows with it). `None` when `src` is not a JSON array; otherwise the facts and the
/// row count.
///
/// # Errors
///
/// The first error of the input, exactly as [`parse`](super::parse) reports it.
pub(crate) fn read<F: Facts>(
    src: &[u8],
    window: usize,
    repeat_first: bool,
    mut first: F,
    mut later: F,
) -> Result<Option<(F, usize)>> {
    let opts = ParseOptions::default();
    let Some(mut windows) = RowWindows::new(src, &opts)? else {
        return Ok(None);
    };
    if let Some(doc) = windows.next_window(None, window, repeat_first)? {
        first.add(&doc);
    }
    let split = (rayon::current_num_threads() > 1 && !windows.done())
        .then(|| split_point(src, windows.pos(), window))
        .flatten();
    let rows = match split {
        None => {
            pipelined(&mut windows, window, repeat_first, |doc| {
                first.add(doc);
                true
            })?;
            windows.rows()
        }
        Some(mid) => {
            // The second half is read on another thread from a guessed element start; it
            // counts only if the first half's reading stops exactly there (then `mid` is an
            // element's start, and the second half was parsed as the whole array would be).
            windows.stop_at(mid);
            let mut rest = RowWindows::resume_at(src, &opts, mid, windows.first());
            let abandoned = AtomicBool::new(false);
            let (head, tail) = rayon::join(
                || {
                    let r = pipelined(&mut windows, window, repeat_first, |doc| {
                        first.add(doc);
                        true
                    });
                    if !windows.stopped() {
                        abandoned.store(true, Ordering::Relaxed);
                    }
                    r
                },
                || {
                    pipelined(&mut rest, window, repeat_first, |doc| {
                        later.add(doc);
                        !abandoned.load(Ordering::Relaxed)
                    })
                },
            );
            head?;
            if windows.stopped() {
                tail?;
                first = first.then(later);
                windows.rows() + rest.rows()
            } else {
                windows.rows()
            }
        }
    };
    Ok(Some((first, rows)))
}

/// The second reading: parses `src` (a root array the first reading accepted) again window by
/// window, handing each window's rows to `f`; stops when `out` is cancelled.
pub(crate) fn each_window<W: Sink + ?Sized>(
    src: &[u8],
    window: usize,
    out: &mut W,
    mut f: impl FnMut(Array<'_>, &mut W),
) {
    let opts = ParseOptions::default();
    // The first reading read the same input with the same options without an error.
    let Ok(Some(mut windows)) = RowWindows::new(src, &opts) else {
        debug_assert!(false, "the windowed input changed its mind");
        return;
    };
    let done = pipelined(&mut windows, window, false, |doc| {
        if let Some(arr) = doc.root().as_array() {
            f(arr, out);
        }
        !out.cancelled()
    });
    debug_assert!(done.is_ok(), "the windowed input changed its mind");
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
