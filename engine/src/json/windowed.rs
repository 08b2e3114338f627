//! Reading a root JSON array window by window: once to collect facts (validation and
//! whatever the caller needs before its first byte), then to hand each window's rows to a
//! writer. The first reading keeps its windows when their tapes fit in the caller's budget
//! ([`Reading::kept`]): the second then walks them instead of parsing the input again, so an
//! input whose tape fits in memory is read once. Otherwise the second reading parses the
//! input again window by window. Both readings parse the next window on another thread while
//! the current one is used ([`pipelined`]); the first reading also reads the array's second
//! half on another thread from a guessed row start ([`split_point`]), kept only when the
//! reading of the first half stops exactly there. The windows themselves are [`RowWindows`].
//!
//! Two callers: `toon::encode_json` (TOON text from JSON text) and the wire's `Data::Json`
//! (any format, with the size cap's bound and the document flags).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use super::{ParseOptions, RowWindows};
use crate::doc::{Array, Doc};
use crate::error::Result;
use crate::sink::Sink;

/// Input bytes per window by default: about 7,700 rows of a typical table, 1.5 MiB of tape.
pub(crate) const WINDOW_BYTES: usize = 1 << 20;

/// Inputs up to this size are parsed whole: the whole tape of an input this small (1.8x its
/// size for the flat invoices, 16 bytes per value or key) stays within 16 MiB, inside the
/// memory contract whatever the output. Larger inputs are read window by window, once when
/// their tape fits in [`KEEP_TAPE`], else twice.
pub(crate) const WINDOWED_ABOVE: usize = 8 << 20;

/// The tape bytes a first reading keeps by default for the second (docs/DECISIONS.md,
/// "Read once"): the contract's 16 MiB above input and output, less the two windows being
/// parsed while the kept ones are held (2 MiB of tape each at most) and the encoder's
/// buffers. A caller whose input is not on the heap (a mapped file) adds the input's size.
pub(crate) const KEEP_TAPE: usize = 11 << 20;

/// What a caller collects over the windows of the first reading.
pub(crate) trait Facts: Send {
    /// Takes one window into account.
    fn add(&mut self, doc: &Doc<'_>);
    /// These facts followed by those of the rest of the array (read on another thread).
    fn then(self, later: Self) -> Self;
}

/// The windows of a first reading, kept for the second: each window's document and whether
/// its first element is the array's first row repeated (skipped when writing).
#[derive(Clone, Debug, Default)]
pub(crate) struct Kept<'d> {
    windows: Vec<(Doc<'d>, bool)>,
}

/// The outcome of a first reading.
pub(crate) struct Reading<'d, F> {
    /// The facts over every window.
    pub(crate) facts: F,
    /// The array's element count.
    pub(crate) rows: usize,
    /// Every window, when their tapes fit in the budget (the input is then read once).
    pub(crate) kept: Option<Kept<'d>>,
}

/// The keeping budget, shared by the two threads of a first reading: all or nothing, the
/// first window over the budget drops what was kept.
struct Keeper {
    budget: usize,
    used: AtomicUsize,
    off: AtomicBool,
}

impl Keeper {
    /// Keeps `doc` (its first element a repeat of the array's first row when `repeats`) in
    /// `kept` while the budget allows; otherwise gives it back for recycling.
    fn take<'d>(
        &self,
        doc: Doc<'d>,
        repeats: bool,
        kept: &mut Vec<(Doc<'d>, bool)>,
    ) -> Option<Doc<'d>> {
        if self.off.load(Ordering::Relaxed) {
            kept.clear();
            return Some(doc);
        }
        let doc = doc.shrunk();
        let n = doc.held_bytes();
        if self.used.fetch_add(n, Ordering::Relaxed) + n > self.budget {
            self.stop();
            kept.clear();
            return Some(doc);
        }
        kept.push((doc, repeats));
        None
    }

    fn stop(&self) {
        self.off.store(true, Ordering::Relaxed);
    }

    fn on(&self) -> bool {
        !self.off.load(Ordering::Relaxed)
    }
}

/// The first reading: `src` window by window, every byte validated, `first` collecting the
/// facts (`later` starts empty for a second half read on another thread). `repeat_first`:
/// every window after the first begins with the array's first row again (for analyses that
/// compare rows with it). The windows are kept for the second reading while their tapes
/// total at most `keep` bytes, and that is decided from the first window: when its tape per
/// input byte predicts more than `keep` for the whole input, nothing is kept. `None` when
/// `src` is not a JSON array.
///
/// # Errors
///
/// The first error of the input, exactly as [`parse`](super::parse) reports it.
pub(crate) fn read<'d, F: Facts>(
    src: &'d [u8],
    window: usize,
    repeat_first: bool,
    mut first: F,
    mut later: F,
    keep: usize,
) -> Result<Option<Reading<'d, F>>> {
    let opts = ParseOptions::default();
    let Some(mut windows) = RowWindows::new(src, &opts)? else {
        return Ok(None);
    };
    let keeper = Keeper {
        budget: keep,
        used: AtomicUsize::new(0),
        off: AtomicBool::new(false),
    };
    let (mut head, mut tail) = (Vec::new(), Vec::new());
    if let Some(doc) = windows.next_window(None, window, repeat_first)? {
        first.add(&doc);
        let doc = doc.shrunk();
        // The tape of the whole input, predicted from this window's tape per input byte.
        let predicted =
            (doc.held_bytes() as u128 * src.len() as u128) / windows.pos().max(1) as u128;
        if predicted > keep as u128 {
            keeper.stop();
        }
        drop(keeper.take(doc, false, &mut head));
    }
    let split = (rayon::current_num_threads() > 1 && !windows.done())
        .then(|| split_point(src, windows.pos(), window))
        .flatten();
    let rows = match split {
        None => {
            pipelined(&mut windows, window, repeat_first, |doc| {
                first.add(&doc);
                (true, keeper.take(doc, repeat_first, &mut head))
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
            let (r_head, r_tail) = rayon::join(
                || {
                    let r = pipelined(&mut windows, window, repeat_first, |doc| {
                        first.add(&doc);
                        (true, keeper.take(doc, repeat_first, &mut head))
                    });
                    if !windows.stopped() {
                        abandoned.store(true, Ordering::Relaxed);
                    }
                    r
                },
                || {
                    pipelined(&mut rest, window, repeat_first, |doc| {
                        later.add(&doc);
                        let go = !abandoned.load(Ordering::Relaxed);
                        (go, keeper.take(doc, repeat_first, &mut tail))
                    })
                },
            );
            r_head?;
            if windows.stopped() {
                r_tail?;
                first = first.then(later);
                head.append(&mut tail);
                windows.rows() + rest.rows()
            } else {
                // The whole array was read by the first thread: what the other kept is not
                // part of it.
                windows.rows()
            }
        }
    };
    let kept = keeper.on().then_some(Kept { windows: head });
    Ok(Some(Reading {
        facts: first,
        rows,
        kept,
    }))
}

/// The second reading: hands each window's rows of `src` (a root array the first reading
/// accepted) to `f` with how many leading elements to skip (a repeat of the first row),
/// from the windows the first reading kept or by parsing `src` again; stops when `out` is
/// cancelled.
pub(crate) fn each_window<W: Sink + ?Sized>(
    src: &[u8],
    kept: Option<&Kept<'_>>,
    window: usize,
    out: &mut W,
    mut f: impl FnMut(Array<'_>, usize, &mut W),
) {
    if let Some(kept) = kept {
        for (doc, repeats) in &kept.windows {
            if out.cancelled() {
                return;
            }
            if let Some(arr) = doc.root().as_array() {
                f(arr, usize::from(*repeats), out);
            }
        }
        return;
    }
    let opts = ParseOptions::default();
    // The first reading read the same input with the same options without an error.
    let Ok(Some(mut windows)) = RowWindows::new(src, &opts) else {
        debug_assert!(false, "the windowed input changed its mind");
        return;
    };
    let done = pipelined(&mut windows, window, false, |doc| {
        if let Some(arr) = doc.root().as_array() {
            f(arr, 0, out);
        }
        (!out.cancelled(), Some(doc))
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
/// parsing and `f`, not their sum. `f` takes the window and may give it back (or another it
/// is done with) to lend its allocations to the next one.
///
/// # Errors
///
/// The first error of the input.
fn pipelined<'d>(
    windows: &mut RowWindows<'d, '_>,
    bytes: usize,
    repeat_first: bool,
    mut f: impl FnMut(Doc<'d>) -> (bool, Option<Doc<'d>>),
) -> Result<()> {
    let mut current = windows.next_window(None, bytes, repeat_first)?;
    let mut spare = None;
    while let Some(doc) = current.take() {
        let mut next = Ok(None);
        let mut go = true;
        let mut given = None;
        rayon::in_place_scope(|s| {
            s.spawn(|_| next = windows.next_window(spare.take(), bytes, repeat_first));
            (go, given) = f(doc);
        });
        if !go {
            return Ok(());
        }
        spare = given;
        current = next?;
    }
    Ok(())
}
