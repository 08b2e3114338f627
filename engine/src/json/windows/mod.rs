//! JSON text read window by window: a root array of any size validated, analysed and written
//! while only a few windows' tapes are held (docs/DECISIONS.md, "Read once").
//!
//! * `reader.rs`: [`RowWindows`](reader::RowWindows) cuts a root array into windows of
//!   rows, each parsed into a small [`Doc`](crate::Doc); together they are exactly the
//!   array [`parse`](super::parse()) returns.
//! * `readings.rs`: the [`first_reading`] validates every window and collects what a writer
//!   needs before its first byte ([`Facts`]), keeping windows while their tapes fit in the
//!   plan's budget ([`Kept`]); the [`second_reading`] hands each window's rows to the writer,
//!   the kept windows as they are and the other rows parsed again.
//! * [`WindowPlan`]: the three budgets of a reading.
//!
//! The writers: `toon::encode_json` (`toon/encode/from_json.rs`, which encodes each window
//! with `toon/encode/root_windows.rs`) and the wire's `Data::Json` data block
//! (`wire/windowed_block.rs`).

mod reader;
mod readings;

pub(crate) use readings::{Facts, Kept, Reading, WindowRun, first_reading, second_reading};

/// Inputs up to this size are parsed whole: the whole tape of an input this small (0.77x its
/// size for the CLI corpus's flat invoices, 0.9x for the Node corpus's; 8 bytes per value or
/// key) stays within 16 MiB, inside the memory contract whatever the output. Larger inputs
/// are read window by window, once when their tape fits in [`KEEP_TAPE`], else twice.
const WINDOWED_ABOVE: usize = 8 << 20;

/// Input bytes per window: about 7,700 rows of a typical table, 0.8 MiB of tape.
const WINDOW_BYTES: usize = 1 << 20;

/// The tape bytes a first reading keeps for the second (docs/DECISIONS.md, "Read once"):
/// the contract's 16 MiB above input and output, less the two windows being parsed while the
/// kept ones are held (about 0.8 MiB of tape each for rows like the invoices; a window of
/// dense numbers needs up to 4 MiB) and the encoder's buffers.
const KEEP_TAPE: usize = 11 << 20;

/// Where JSON text is held (the input of `toon::encode_json`, a tool call's bytes read as
/// they are), which sets how much of a large root array its reading may keep parsed
/// (docs/DECISIONS.md, "Read once"). Above 8 MiB a root array is read window by window; the
/// windows whose tapes fit in the budget are kept for the writing, and the rows of the
/// others are parsed a second time. The bytes written are the same whatever the choice.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum JsonInput {
    /// On the heap, inside the memory contract (ARCHITECTURE.md: peak heap ≤ input + output
    /// + 16 MiB): up to 11 MiB of tape kept.
    #[default]
    Heap,
    /// Not on the heap (a memory-mapped file): the input's share of the contract is free for
    /// the tapes, so an input whose tape fits in its size plus 11 MiB is read once.
    OffHeap,
    /// On the heap of a caller whose contract is a peak below twice the input (the Node and
    /// Python bindings): up to 16 MiB more than [`JsonInput::Heap`], at most the input's
    /// size, so that about 30 MB of flat rows (a tape of 0.9× the text) are read once while
    /// a 100 MB input stays under the contract (1.73× measured).
    Binding,
}

/// The most extra tape [`JsonInput::Binding`] keeps (docs/DECISIONS.md, "Read once in
/// parallel").
const BINDING_ROOM: usize = 16 << 20;

impl JsonInput {
    /// The tape bytes a reading of `len` input bytes held so may keep beyond the engine's
    /// own budget.
    pub(crate) fn room(self, len: usize) -> usize {
        match self {
            JsonInput::Heap => 0,
            JsonInput::OffHeap => len,
            JsonInput::Binding => len.min(BINDING_ROOM),
        }
    }
}

/// How JSON text is read: whole, or window by window and with how much of it kept parsed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct WindowPlan {
    /// Inputs longer than this are read window by window; the others are parsed whole.
    pub(crate) above: usize,
    /// Input bytes per window.
    pub(crate) window: usize,
    /// The tape bytes the first reading may keep for the second, which parses again only
    /// the rows not kept.
    pub(crate) keep: usize,
}

impl Default for WindowPlan {
    /// The engine's: windows of 1 MiB above 8 MiB, 11 MiB of tape kept.
    fn default() -> Self {
        WindowPlan {
            above: WINDOWED_ABOVE,
            window: WINDOW_BYTES,
            keep: KEEP_TAPE,
        }
    }
}

impl WindowPlan {
    /// Any input longer than `window` bytes read in windows of `window` bytes, keeping up to
    /// `keep` bytes of their tapes: for tests that cut small inputs into many windows.
    pub(crate) fn windows_of(window: usize, keep: usize) -> WindowPlan {
        let window = window.max(1);
        WindowPlan {
            above: window,
            window,
            keep,
        }
    }

    /// This plan keeping `room` more bytes of tape: what a caller whose memory contract
    /// leaves more than the engine's gives the reading (the input's size when it is not on
    /// the heap), so that an input whose tape fits is read once.
    #[must_use]
    pub(crate) fn with_room(self, room: usize) -> WindowPlan {
        WindowPlan {
            keep: self.keep.saturating_add(room),
            ..self
        }
    }

    /// True when an input of `len` bytes is read window by window.
    pub(crate) fn windowed(&self, len: usize) -> bool {
        len > self.above
    }
}
