//! The two readings of a root JSON array over its windows ([`RowWindows`]): the
//! [`first_reading`] collects facts (validation and whatever the caller needs before its
//! first byte), the [`second_reading`] hands each window's rows to a writer. The first
//! reading keeps its windows while their tapes fit in the plan's budget ([`Reading::kept`]):
//! the second walks the kept ones and parses again only the rows between and after them, so
//! an input whose tape fits in memory is read once, and one whose tape is larger is parsed a
//! second time only for the share over the budget. Both readings parse the next window on
//! another thread while the current one is used ([`pipelined`]); the first reading also
//! reads the array's second half on another thread from a guessed row start
//! ([`split_point`]), kept only when the reading of the first half stops exactly there.
//!
//! Two callers: `toon::encode_json` (TOON text from JSON text) and the wire's `Data::Json`
//! (any format, with the size cap's bound and the document flags).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use super::WindowPlan;
use super::reader::RowWindows;
use crate::doc::{Array, Doc};
use crate::error::Result;
use crate::json::ParseOptions;
use crate::sink::Sink;

/// What a caller collects over the windows of the first reading.
pub(crate) trait Facts: Send {
    /// Takes one window into account.
    fn add(&mut self, doc: &Doc<'_>);
    /// These facts followed by those of the rest of the array (read on another thread).
    fn then(self, later: Self) -> Self;
}

/// One window of a first reading kept for the second.
#[derive(Clone, Debug)]
struct KeptWindow<'d> {
    doc: Doc<'d>,
    /// Its first element is the array's first row repeated (skipped when writing).
    repeats: bool,
    /// Where its own rows start in the input (just past a comma, or the array's first element).
    start: usize,
    /// Just past its last row's comma, or past the closing bracket when `last`.
    end: usize,
    /// It holds the array's last row.
    last: bool,
}

/// The windows of a first reading kept for the second, in array order, up to the budget:
/// all of them (the input is read once), or some, with gaps the second reading parses again.
#[derive(Clone, Debug, Default)]
pub(crate) struct Kept<'d> {
    windows: Vec<KeptWindow<'d>>,
    /// Every window was kept: the second reading parses nothing.
    complete: bool,
}

impl Kept<'_> {
    /// True when every window was kept (the input is read once).
    pub(crate) fn complete(&self) -> bool {
        self.complete
    }

    /// The input range of each kept window's rows, in array order.
    pub(crate) fn ranges(&self) -> Vec<(usize, usize)> {
        self.windows.iter().map(|w| (w.start, w.end)).collect()
    }
}

/// A window and the input range of its own rows (see [`KeptWindow`]).
struct Window<'d> {
    doc: Doc<'d>,
    start: usize,
    end: usize,
    last: bool,
}

/// The outcome of a first reading.
pub(crate) struct Reading<'d, F> {
    /// The facts over every window.
    pub(crate) facts: F,
    /// The array's element count.
    pub(crate) rows: usize,
    /// The windows kept while their tapes fit in the budget; `None` when none was.
    pub(crate) kept: Option<Kept<'d>>,
}

/// The keeping budget, shared by the two threads of a first reading. Each keeps its windows
/// in order until the first window over the budget, which stops all keeping. What was kept
/// then shrinks to leave room for the rest of the reading, which parses windows ahead and
/// lends them for reuse (up to three per reader, [`READING_WINDOWS`] in all), and for the
/// second reading, which parses the rows not kept again: each thread drops its last kept
/// windows until the kept tape is at most the budget less that many windows' tape.
struct Keeper {
    budget: usize,
    /// The budget leaves room for the reading's other windows already (the input's tape was
    /// predicted not to fit): what was kept stays when keeping stops.
    reserved: bool,
    used: AtomicUsize,
    off: AtomicBool,
    /// The kept tape once keeping stopped (set before `off`).
    floor: AtomicUsize,
}

/// The windows a reading holds besides the kept ones: two readers, each with the window it
/// works on, the one parsed ahead and the one lent for reuse (measured: 8 MiB of 1 MiB
/// windows of flat invoices, `tests/tests/memory.rs`).
const READING_WINDOWS: usize = 6;

impl Keeper {
    fn new(budget: usize, reserved: bool) -> Keeper {
        Keeper {
            budget,
            reserved,
            used: AtomicUsize::new(0),
            off: AtomicBool::new(false),
            floor: AtomicUsize::new(0),
        }
    }

    /// Keeps `w` (its first element a repeat of the array's first row when `repeats`) in
    /// `kept` while the budget allows; otherwise gives its document back for recycling.
    fn take<'d>(
        &self,
        w: Window<'d>,
        repeats: bool,
        kept: &mut Vec<KeptWindow<'d>>,
    ) -> Option<Doc<'d>> {
        if self.off.load(Ordering::Acquire) {
            self.trim(kept);
            return Some(w.doc);
        }
        let doc = w.doc.shrunk();
        let n = doc.held_bytes();
        if self.used.fetch_add(n, Ordering::Relaxed) + n > self.budget {
            self.used.fetch_sub(n, Ordering::Relaxed);
            let reading = if self.reserved {
                0
            } else {
                n.saturating_mul(READING_WINDOWS)
            };
            self.floor
                .fetch_max(self.budget.saturating_sub(reading), Ordering::Relaxed);
            self.off.store(true, Ordering::Release);
            self.trim(kept);
            return Some(doc);
        }
        kept.push(KeptWindow {
            doc,
            repeats,
            start: w.start,
            end: w.end,
            last: w.last,
        });
        None
    }

    /// Once keeping stopped, drops the last windows of `kept` while the kept tape is above
    /// the floor (the rows are parsed again by the second reading).
    fn trim(&self, kept: &mut Vec<KeptWindow<'_>>) {
        let floor = self.floor.load(Ordering::Relaxed);
        while self.used.load(Ordering::Relaxed) > floor {
            let Some(w) = kept.pop() else { break };
            self.used.fetch_sub(w.doc.held_bytes(), Ordering::Relaxed);
        }
    }

    fn on(&self) -> bool {
        !self.off.load(Ordering::Acquire)
    }
}

/// The first reading: `src` window by window (of `plan.window` bytes), every byte validated,
/// `first` collecting the facts (`later` starts empty for a second half read on another
/// thread). `repeat_first`: every window after the first begins with the array's first row
/// again (for analyses that compare rows with it). The windows are kept for the second
/// reading while their tapes total at most `plan.keep` bytes ([`Kept`]). `None` when `src`
/// is not a JSON array.
///
/// # Errors
///
/// The first error of the input, exactly as [`parse`](crate::json::parse()) reports it.
pub(crate) fn first_reading<'d, F: Facts>(
    src: &'d [u8],
    plan: &WindowPlan,
    repeat_first: bool,
    mut first: F,
    mut later: F,
) -> Result<Option<Reading<'d, F>>> {
    let WindowPlan { window, keep, .. } = *plan;
    let opts = ParseOptions::default();
    let Some(mut windows) = RowWindows::new(src, &opts)? else {
        return Ok(None);
    };
    let (mut head, mut tail) = (Vec::new(), Vec::new());
    let mut keeper = Keeper::new(keep, false);
    if let Some(w) = next(&mut windows, None, window, repeat_first)? {
        first.add(&w.doc);
        let doc = w.doc.shrunk();
        // The tape of the whole input, predicted from this window's tape per input byte.
        // When it will not all fit, keeping stops short of the budget by the tape of the
        // windows the reading holds besides (see [`Keeper`]), so the kept ones and those
        // stay within the budget together.
        let n = doc.held_bytes();
        let predicted = (n as u128 * src.len() as u128) / windows.pos().max(1) as u128;
        if predicted > keep as u128 {
            keeper = Keeper::new(keep.saturating_sub(n.saturating_mul(READING_WINDOWS)), true);
        }
        drop(keeper.take(Window { doc, ..w }, false, &mut head));
    }
    let split = (rayon::current_num_threads() > 1 && !windows.done())
        .then(|| split_point(src, windows.pos(), window, windows.first()))
        .flatten();
    let rows = match split {
        None => {
            pipelined(&mut windows, window, repeat_first, |w| {
                first.add(&w.doc);
                (true, keeper.take(w, repeat_first, &mut head))
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
                    let r = pipelined(&mut windows, window, repeat_first, |w| {
                        first.add(&w.doc);
                        (true, keeper.take(w, repeat_first, &mut head))
                    });
                    if !windows.stopped() {
                        abandoned.store(true, Ordering::Relaxed);
                    }
                    r
                },
                || {
                    pipelined(&mut rest, window, repeat_first, |w| {
                        later.add(&w.doc);
                        let go = !abandoned.load(Ordering::Relaxed);
                        (go, keeper.take(w, repeat_first, &mut tail))
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
                for w in tail.drain(..) {
                    keeper.used.fetch_sub(w.doc.held_bytes(), Ordering::Relaxed);
                }
                windows.rows()
            }
        }
    };
    if !keeper.on() {
        // A window the other thread kept just as keeping stopped.
        keeper.trim(&mut head);
    }
    // An empty array keeps no window yet is read once: nothing is left to parse again.
    let kept = (keeper.on() || !head.is_empty()).then(|| Kept {
        complete: keeper.on(),
        windows: head,
    });
    Ok(Some(Reading {
        facts: first,
        rows,
        kept,
    }))
}

/// Windows of a second reading handed out together, in array order: each window's array,
/// how many of its first elements repeat an earlier row (to be skipped), and the input bytes
/// of its own rows.
pub(crate) type WindowRun<'r, 'd> = &'r [(Array<'d>, usize, usize)];

/// The second reading: hands the windows of `src` (a root array the first reading accepted
/// with `plan`) to `f` in array order, each with how many leading elements to skip (a repeat
/// of the first row): each run of windows the first reading kept one after the other as one
/// [`WindowRun`] (a writer can spread a run over the pool), and each window of the rows
/// before, between and after them, parsed again, as a run of its own (written while the next
/// one is parsed); stops when `out` is cancelled.
pub(crate) fn second_reading<W: Sink + ?Sized>(
    src: &[u8],
    kept: Option<&Kept<'_>>,
    plan: &WindowPlan,
    out: &mut W,
    mut f: impl FnMut(WindowRun<'_, '_>, &mut W),
) {
    let window = plan.window;
    let opts = ParseOptions::default();
    // The first reading read the same input with the same options without an error.
    let Ok(Some(windows)) = RowWindows::new(src, &opts) else {
        debug_assert!(false, "the windowed input changed its mind");
        return;
    };
    if windows.done() {
        return;
    }
    // Parses the rows from `from` up to `to` (the end of the array when `None`) again; false
    // when `out` was cancelled.
    let again = |from: usize,
                 to: Option<usize>,
                 out: &mut W,
                 f: &mut dyn FnMut(WindowRun<'_, '_>, &mut W)|
     -> bool {
        let mut rows = RowWindows::resume_at(src, &opts, from, None);
        if let Some(to) = to {
            rows.stop_at(to);
        }
        let done = pipelined(&mut rows, window, false, |w| {
            if let Some(arr) = w.doc.root().as_array() {
                f(&[(arr, 0, w.end - w.start)], out);
            }
            (!out.cancelled(), Some(w.doc))
        });
        debug_assert!(done.is_ok(), "the windowed input changed its mind");
        debug_assert!(
            out.cancelled() || to.is_none_or(|_| rows.stopped()),
            "a kept window starts where no row does"
        );
        !out.cancelled()
    };
    let mut pos = windows.pos();
    let mut ended = false;
    let mut rest = kept.map_or(&[][..], |k| &k.windows[..]);
    while let Some(first) = rest.first() {
        if out.cancelled() || (first.start > pos && !again(pos, Some(first.start), out, &mut f)) {
            return;
        }
        // The kept windows from `first` on that follow one another with no row between.
        let n = 1 + rest
            .windows(2)
            .take_while(|pair| pair[1].start == pair[0].end)
            .count();
        let run: Vec<_> = rest[..n]
            .iter()
            .filter_map(|w| {
                let arr = w.doc.root().as_array()?;
                Some((arr, usize::from(w.repeats), w.end - w.start))
            })
            .collect();
        f(&run, out);
        pos = rest[n - 1].end;
        ended = rest[n - 1].last;
        rest = &rest[n..];
    }
    if !ended && !out.cancelled() {
        again(pos, None, out, &mut f);
    }
}

/// Where a second reading may start, guessed: just past the first comma at or after the middle
/// of what is left from `from` (the two threads read as much; at least a window after `from`)
/// that sits between a closing and an opening bracket, as between two rows of a table, and,
/// when the array's first element (`first`, its byte range) is an object, is followed by that
/// object's bytes up to its first key's colon: rows of nested arrays of objects have such
/// commas inside them too (between the objects of an invoice's lines), where a reading cannot
/// start. Only a guess (the comma may be inside a string, or a later row may start
/// otherwise); the first reading confirms it. `None` when nothing looks like it nearby.
fn split_point(
    src: &[u8],
    from: usize,
    window: usize,
    first: Option<(usize, usize)>,
) -> Option<usize> {
    let start = (from + src.len().saturating_sub(from) / 2).max(from.saturating_add(window));
    let end = src.len().min(start.saturating_add(1 << 16));
    let region = src.get(start..end)?;
    let is_ws = |b: &u8| matches!(b, b' ' | b'\n' | b'\r' | b'\t');
    let after = |comma: usize| {
        let n = src[comma + 1..].iter().take_while(|b| is_ws(b)).count();
        comma + 1 + n
    };
    let between_rows = |comma: usize| {
        let before = src[..comma].iter().rev().find(|b| !is_ws(b));
        matches!(before, Some(b'}' | b']')) && matches!(src.get(after(comma)), Some(b'{' | b'['))
    };
    let commas = || {
        memchr::memchr_iter(b',', region)
            .map(|i| start + i)
            .filter(|&comma| between_rows(comma))
    };
    // The first row's opening through its first key's colon (a short key), as rows that
    // share their keys' order all start.
    let head = first.and_then(|(at, end)| {
        let row = &src[at..end];
        let colon = memchr::memchr(b':', row.get(..64).unwrap_or(row))?;
        (row.first() == Some(&b'{')).then(|| &row[..=colon])
    });
    head.and_then(|head| commas().find(|&comma| src[after(comma)..].starts_with(head)))
        .or_else(|| commas().next())
        .map(|comma| comma + 1)
}

/// The next window of `windows` and the input range of its rows.
fn next<'d>(
    windows: &mut RowWindows<'d, '_>,
    recycled: Option<Doc<'d>>,
    bytes: usize,
    repeat_first: bool,
) -> Result<Option<Window<'d>>> {
    let start = windows.pos();
    Ok(windows
        .next_window(recycled, bytes, repeat_first)?
        .map(|doc| Window {
            doc,
            start,
            end: windows.pos(),
            last: windows.done(),
        }))
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
    mut f: impl FnMut(Window<'d>) -> (bool, Option<Doc<'d>>),
) -> Result<()> {
    let mut current = next(windows, None, bytes, repeat_first)?;
    let mut spare = None;
    while let Some(w) = current.take() {
        let mut ahead = Ok(None);
        let mut go = true;
        let mut given = None;
        rayon::in_place_scope(|s| {
            s.spawn(|_| ahead = next(windows, spare.take(), bytes, repeat_first));
            (go, given) = f(w);
        });
        if !go {
            return Ok(());
        }
        spare = given;
        current = ahead?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{parse, to_string_compact};

    /// The rows the second reading hands out, as compact JSON texts (skipped ones left out),
    /// and how many windows each run of more than one held.
    fn rows_read_again(
        src: &[u8],
        kept: Option<&Kept<'_>>,
        window: usize,
    ) -> (Vec<String>, Vec<usize>) {
        let (mut rows, mut runs) = (Vec::new(), Vec::new());
        let mut sink = Vec::new();
        let plan = WindowPlan::windows_of(window, 0);
        second_reading(src, kept, &plan, &mut sink, |run, _| {
            if run.len() > 1 {
                runs.push(run.len());
            }
            for &(arr, skip, _) in run {
                rows.extend(arr.iter().skip(skip).map(to_string_compact));
            }
        });
        (rows, runs)
    }

    /// The lengths of the runs of two or more set bits among the low `n` bits of `mask`.
    fn runs_of(mask: u32, n: usize) -> Vec<usize> {
        let mut runs = Vec::new();
        let mut len = 0;
        for i in 0..=n {
            if i < n && mask & (1 << i) != 0 {
                len += 1;
                continue;
            }
            if len > 1 {
                runs.push(len);
            }
            len = 0;
        }
        runs
    }

    /// Every window of `src` in windows of `window` bytes, the first row repeated in all but
    /// the first when `repeat`.
    fn all_windows(src: &[u8], window: usize, repeat: bool) -> Vec<Window<'_>> {
        let opts = ParseOptions::default();
        let mut rows = RowWindows::new(src, &opts).unwrap().unwrap();
        let mut out = Vec::new();
        while let Some(w) = next(&mut rows, None, window, repeat && !out.is_empty()).unwrap() {
            out.push(w);
        }
        out
    }

    /// The second reading walks the kept windows and parses every row it did not keep again,
    /// before, between and after them: whichever windows were kept, every row once, in order,
    /// kept windows that follow one another handed out as one run.
    #[test]
    fn the_second_reading_parses_again_exactly_the_rows_not_kept() {
        let src = br#" [ {"a":1}, [2,[3]] ,"four",5.5 , {"b":[6,7]},null,true,{"c":"x,y"} ,9 ] "#;
        let doc = parse(src, &ParseOptions::default()).unwrap();
        let expect: Vec<String> = doc
            .root()
            .as_array()
            .unwrap()
            .iter()
            .map(to_string_compact)
            .collect();
        for window in [1, 6, 12, 30] {
            for repeat in [false, true] {
                let n = all_windows(src, window, repeat).len();
                assert!(n > 1 || window == 30);
                // Every subset of the windows kept (the bits of `mask`).
                for mask in 0u32..(1 << n.min(10)) {
                    let windows = all_windows(src, window, repeat);
                    let kept = Kept {
                        complete: mask.count_ones() as usize == n,
                        windows: windows
                            .into_iter()
                            .enumerate()
                            .filter(|(i, _)| mask & (1 << i) != 0)
                            .map(|(i, w)| KeptWindow {
                                doc: w.doc,
                                repeats: repeat && i > 0,
                                start: w.start,
                                end: w.end,
                                last: w.last,
                            })
                            .collect(),
                    };
                    let (rows, runs) = rows_read_again(src, Some(&kept), 7);
                    let case = format!("windows of {window} bytes, kept {mask:b}, repeat {repeat}");
                    assert_eq!(rows, expect, "{case}");
                    assert_eq!(runs, runs_of(mask, n), "{case}");
                }
            }
        }
        assert_eq!(rows_read_again(src, None, 7), (expect, vec![]));
        assert!(rows_read_again(b"[]", None, 7).0.is_empty());
    }

    /// The second half's start is guessed at a row: not at a comma between the objects of a
    /// row's nested array (a reading from there fails and the first thread reads alone), but
    /// at one followed by the first row's opening; without one, at the first comma between
    /// brackets.
    #[test]
    fn the_split_is_guessed_at_a_row_not_inside_one() {
        let row = |i: usize| {
            format!(r#"{{"id":{i},"lines":[{{"sku":"a","qty":1}},{{"sku":"b","qty":2}}]}}"#)
        };
        let rows: Vec<String> = (0..300).map(row).collect();
        let src = format!("[{}]", rows.join(","));
        let starts: Vec<usize> = rows
            .iter()
            .scan(1, |at, r| {
                let start = *at;
                *at += r.len() + 1;
                Some(start)
            })
            .collect();
        let first = Some((1, 1 + rows[0].len()));
        for from in [0, 100, src.len() / 2, src.len() * 3 / 4] {
            let at = split_point(src.as_bytes(), from, 64, first).expect("a split");
            assert!(
                starts.contains(&at),
                "from {from}: {at} is not a row's start"
            );
            assert!(at >= from + (src.len() - from) / 2 && at >= from + 64);
        }
        // The first row's opening nowhere after the middle (its first key is its own): the
        // first comma between brackets, here inside a row.
        let odd = format!("[{{\"first\":0}},{}]", rows[1..].join(","));
        let first = Some((1, 1 + br#"{"first":0}"#.len()));
        let at = split_point(odd.as_bytes(), 0, 64, first).unwrap();
        assert_eq!(at, split_point(odd.as_bytes(), 0, 64, None).unwrap());
        assert!(odd.as_bytes()[at..].starts_with(br#"{"sku":"#));
        // Not an object: the first comma between brackets too.
        let arrays = format!("[{}]", vec!["[[1],[2]]"; 300].join(","));
        let at = split_point(arrays.as_bytes(), 0, 64, Some((1, 10))).unwrap();
        assert_eq!(&arrays.as_bytes()[at - 2..=at], b"],[");
    }

    /// Keeping stops at the first window over the budget; what was kept then shrinks to the
    /// floor that leaves room for the rest of the reading, unless the budget left that room
    /// from the start.
    #[test]
    fn keeping_stops_at_the_budget_and_trims_to_the_floor() {
        let src = format!(
            "[{}]",
            (0..400)
                .map(|i| format!(r#"{{"i":{i}}}"#))
                .collect::<Vec<_>>()
                .join(",")
        );
        let windows = all_windows(src.as_bytes(), 200, false);
        let n = windows[0].doc.clone().shrunk().held_bytes();
        for reserved in [false, true] {
            let keeper = Keeper::new(10 * n, reserved);
            let mut kept = Vec::new();
            let mut refused = 0;
            for w in all_windows(src.as_bytes(), 200, false) {
                refused += usize::from(keeper.take(w, false, &mut kept).is_some());
            }
            assert!(!keeper.on() && refused > 0);
            let used: usize = kept.iter().map(|w| w.doc.held_bytes()).sum();
            assert_eq!(used, keeper.used.load(Ordering::Relaxed));
            let floor = if reserved {
                10 * n
            } else {
                10 * n - READING_WINDOWS * n
            };
            assert!(used <= floor, "reserved {reserved}: {used} > {floor}");
            assert!(used + 2 * n > floor, "reserved {reserved}: trimmed too far");
            // The kept windows are the array's first ones, one after the other.
            assert!(kept.windows(2).all(|w| w[0].end == w[1].start));
            assert_eq!(kept[0].start, windows[0].start);
        }
    }
}
