//! The data block of JSON text read window by window ([`Data::Json`](super::Data::Json)).
//!
//! A root array larger than the plan's size ([`WindowPlan`]) is never parsed whole.
//! [`analyse`] reads it once, window by window (`json/windows/`): that validates every byte,
//! collects the document flags, the nesting depth, the size bound of the size cap and, for
//! TOON, the array's form and row count. When the windows' tapes fit in the plan's budget
//! they are kept and writing the block walks them: the input is read once. Otherwise
//! nothing is kept but the facts, and writing the block reads the input again the same way
//! and encodes each window as it is parsed (TOON with `toon::write_windows`, JSON with the
//! JSON writers). Both readings parse the next window on another thread while the current
//! one is analysed or encoded, and the first reading reads the array's second half on
//! another thread from a guessed row start, kept only when the reading of the first half
//! stops exactly there. The text is byte for byte what the whole document would give
//! (`tests/tests/windowed.rs`, the `json_windows` fuzz target), and the peak heap is the
//! input plus the kept tapes or a few windows' tapes and the encoder's buffers (8.5 MB at
//! 300k and at 1M rows read twice, `tests/tests/memory.rs`).

use std::sync::OnceLock;

use super::bounds::data_len_bound;
use super::format::Format;
use crate::doc::{Doc, DocBuilder};
use crate::error::Result;
use crate::json::{
    CompactFormatter, Facts, Formatter, Kept, ParseOptions, PrettyFormatter, Reading, WindowPlan,
    first_reading, parse, second_reading, write_elements,
};
use crate::sink::Sink;
use crate::toon::{EncodeOptions, RootForm, ToonFacts, write_windows};

/// An analysed root array, written window by window.
#[derive(Clone, Debug)]
pub(crate) struct WindowedBlock<'d> {
    src: &'d [u8],
    /// The format written (TOON fell back to compact JSON when the flags say so).
    format: Format,
    /// The TOON options when `format` is TOON.
    toon: EncodeOptions,
    /// The TOON form ([`RootForm::Empty`] for JSON).
    form: RootForm,
    rows: usize,
    /// The tape nodes of all windows (for [`WindowedBlock::likely_len`]).
    nodes: usize,
    len_bound: usize,
    /// How the input was read (the second reading reads it the same way).
    plan: WindowPlan,
    /// The windows of the first reading kept while they fit in the budget (all of them: the
    /// input is read once).
    kept: Option<Kept<'d>>,
    /// The side door's document, parsed whole on first use (tests). It owns its strings: a
    /// cell of a type with `'d` in it would make every response invariant in `'d`.
    side: OnceLock<Option<Doc<'static>>>,
}

/// Reads `src` window by window as `plan` says and decides how its data block is written in
/// `format` (pretty, compact or TOON; never `Auto`). `None` when `src` is not a JSON array:
/// the caller parses it whole. The windows are kept for writing while their tapes total at
/// most `plan.keep` bytes ([`first_reading`]). `bound`: the block's size bound is computed
/// (else it is `usize::MAX`, [`ResponseBuilder::size_bound`](super::ResponseBuilder::size_bound)).
///
/// # Errors
///
/// The first error of the input, exactly as [`parse`] reports it; then the TOON encoder's
/// depth error, as [`ResponseBuilder::build`](super::ResponseBuilder::build) gives it for a
/// parsed document.
pub(crate) fn analyse<'d>(
    src: &'d [u8],
    format: Format,
    plan: &WindowPlan,
    bound: bool,
) -> Result<Option<WindowedBlock<'d>>> {
    let toon = format.toon_options();
    let facts = |continuing| BlockFacts {
        tag: false,
        surrogate: false,
        nodes: 0,
        len_bound: bound.then_some(2),
        toon: toon.as_ref().map(|o| ToonFacts::new(o, continuing)),
    };
    let Some(Reading { facts, rows, kept }) =
        first_reading(src, plan, toon.is_some(), facts(false), facts(true))?
    else {
        return Ok(None);
    };
    let (format, form) = match (format, facts.toon) {
        // WIRE.md §2: TOON cannot neutralise a reserved tag; a lone surrogate is not UTF-8.
        (Format::Toon(_), _) if facts.tag || facts.surrogate => (Format::Compact, RootForm::Empty),
        (Format::Toon(_), Some(t)) => (format, t.form()?),
        _ => (format, RootForm::Empty),
    };
    Ok(Some(WindowedBlock {
        src,
        format,
        toon: toon.clone().unwrap_or_default(),
        form,
        rows,
        nodes: facts.nodes,
        len_bound: facts.len_bound.unwrap_or(usize::MAX),
        plan: *plan,
        kept,
        side: OnceLock::new(),
    }))
}

/// What the first reading collects for a data block, over one part of the array.
struct BlockFacts<'o> {
    tag: bool,
    surrogate: bool,
    /// Tape nodes so far.
    nodes: usize,
    /// The data block's size bound so far, when it is asked for.
    len_bound: Option<usize>,
    /// The TOON facts, when the format is TOON.
    toon: Option<ToonFacts<'o>>,
}

impl Facts for BlockFacts<'_> {
    fn add(&mut self, doc: &Doc<'_>) {
        self.tag |= doc.has_reserved_tag();
        self.surrogate |= doc.has_lone_surrogate();
        self.nodes += doc.nodes().len();
        if let Some(b) = &mut self.len_bound {
            *b += data_len_bound(doc.root());
        }
        if let Some(t) = &mut self.toon {
            t.add(doc);
        }
    }

    fn then(self, later: Self) -> Self {
        BlockFacts {
            tag: self.tag || later.tag,
            surrogate: self.surrogate || later.surrogate,
            nodes: self.nodes + later.nodes,
            len_bound: self.len_bound.zip(later.len_bound).map(|(a, b)| a + b),
            toon: match (self.toon, later.toon) {
                (Some(a), Some(b)) => Some(a.then(b)),
                (a, _) => a,
            },
        }
    }
}

impl<'d> WindowedBlock<'d> {
    /// The format the block is written in.
    pub(crate) fn format(&self) -> Format {
        self.format
    }

    /// The bytes the block most likely takes: the input and, per tape node, what pretty
    /// JSON adds to compact (its line breaks, indentation and `": "`: 3 a node for flat
    /// rows, 5 for rows nested four deep) or a byte. The room
    /// `ToolResponse::block_bytes` makes; a guess, never a bound.
    pub(crate) fn likely_len(&self) -> usize {
        let per_node = if self.format == Format::Pretty { 6 } else { 1 };
        self.src
            .len()
            .saturating_add(self.nodes.saturating_mul(per_node))
    }

    /// An upper bound of the block's framed length.
    pub(crate) fn len_bound(&self) -> usize {
        self.len_bound
    }

    /// True when the first reading kept every window (the input is read once).
    pub(crate) fn read_once(&self) -> bool {
        self.kept.as_ref().is_some_and(Kept::complete)
    }

    /// The input range of the rows of each window the first reading kept for the writing.
    pub(crate) fn kept_ranges(&self) -> Vec<(usize, usize)> {
        self.kept.as_ref().map_or_else(Vec::new, Kept::ranges)
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
                write_windows(
                    self.src,
                    self.kept.as_ref(),
                    &self.plan,
                    &self.form,
                    self.rows,
                    &self.toon,
                    out,
                );
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
        second_reading(self.src, self.kept.as_ref(), &self.plan, out, |run, out| {
            // One walk per window: a row with the previous row's keys copies their bytes.
            for &(arr, skip, _) in run {
                if arr.len() > skip {
                    write_elements(arr, skip, std::mem::take(&mut first), out, fmt);
                }
            }
        });
        fmt.end_array(out);
    }
}
