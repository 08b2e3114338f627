//! JSON text as the data block, read window by window ([`Data::Json`](super::Data::Json)).
//!
//! A root array larger than [`WINDOWED_ABOVE`] is never parsed whole. [`analyse`] reads it
//! once, window by window (a few MiB of tape, reused): that validates every byte, collects the
//! document flags, the nesting depth, the size bound of the size cap and, for TOON, the
//! array's form and row count; nothing is kept but those. Writing the block reads it again the
//! same way and encodes each window as it is parsed. Both readings parse the next window on
//! another thread while the current one is analysed or encoded. The text is byte for byte
//! what the whole document would give (`tests/tests/windowed.rs`, the `json_windows` fuzz
//! target), and the peak heap is the input plus three windows' tapes and the encoder's
//! buffers, whatever the row count (11 MB at 1M rows, `tests/tests/memory.rs`).

use std::sync::OnceLock;

use super::Format;
use super::response::data_len_bound;
use crate::doc::{Array, Doc, DocBuilder};
use crate::error::{Error, Result};
use crate::json::{
    CompactFormatter, Formatter, ParseOptions, PrettyFormatter, RowWindows, parse, write_with,
};
use crate::sink::Sink;
use crate::toon::{EncodeOptions, RootAnalysis, RootForm, write_root_header, write_root_window};

/// Input bytes per window by default: about 15,000 rows of a typical table, 3 MiB of tape.
pub(crate) const WINDOW_BYTES: usize = 2 << 20;

/// Inputs up to this size are parsed whole: reading twice costs a second parse (at 100k rows,
/// 13.5 MB, about 1.5x the time of the whole-document path in a steady loop), and the whole
/// tape of an input this small (1.6x its size) stays within 16 MiB, inside the memory
/// contract whatever the output. Larger inputs are read window by window.
pub(crate) const WINDOWED_ABOVE: usize = 8 << 20;

/// An analysed root array, written window by window.
#[derive(Clone, Debug)]
pub(crate) struct Windowed<'d> {
    src: &'d [u8],
    /// The format written (TOON fell back to compact JSON when the flags say so).
    format: Format,
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
    let opts = ParseOptions::default();
    let Some(mut windows) = RowWindows::new(src, &opts)? else {
        return Ok(None);
    };
    let toon = match format {
        Format::Toon(d) => Some(EncodeOptions::new().delimiter(d)),
        _ => None,
    };
    let mut analysis = RootAnalysis::new();
    let (mut tag, mut surrogate) = (false, false);
    let mut toon_error: Option<Error> = None;
    let mut len_bound = 2;
    pipelined(&mut windows, window, toon.is_some(), |doc| {
        tag |= doc.has_reserved_tag();
        surrogate |= doc.has_lone_surrogate();
        len_bound += data_len_bound(doc.root());
        if let (Some(eo), None) = (&toon, &toon_error) {
            match crate::toon::check(doc.root(), eo) {
                Ok(()) => {
                    if let Some(arr) = doc.root().as_array() {
                        analysis.add(arr, eo);
                    }
                }
                Err(e) => toon_error = Some(e),
            }
        }
        true
    })?;
    let (format, form) = match format {
        // WIRE.md §2: TOON cannot neutralise a reserved tag; a lone surrogate is not UTF-8.
        Format::Toon(_) if tag || surrogate => (Format::Compact, RootForm::Empty),
        Format::Toon(_) => match toon_error {
            Some(e) => return Err(e),
            None => (format, analysis.form()),
        },
        _ => (format, RootForm::Empty),
    };
    Ok(Some(Windowed {
        src,
        format,
        form,
        rows: windows.rows(),
        len_bound,
        window,
        side: OnceLock::new(),
    }))
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
            Format::Toon(d) => {
                let eo = EncodeOptions::new().delimiter(d);
                write_root_header(&self.form, self.rows, &eo, out);
                let mut written = 0;
                self.each_window(out, |arr, out| {
                    write_root_window(&self.form, arr, written, &eo, out);
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
