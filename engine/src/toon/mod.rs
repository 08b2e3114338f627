//! TOON 4.4: encoder and decoder.

mod decode;
mod encode;

pub use decode::{DecodeOptions, decode};
pub(crate) use encode::{
    Cells, Item, RootForm, TableRows, ToonFacts, encode_list, encode_table, string_cell,
    write_windows,
};
pub use encode::{
    DEFAULT_MAX_DEPTH, DEFAULT_PARALLEL_THRESHOLD, EncodeOptions, MAX_DEPTH_LIMIT, MAX_INDENT,
    check, encode, prepare, to_string, to_vec,
};

use crate::json::WindowPlan;

/// Encodes JSON text as TOON into `out`: exactly what [`encode`] writes for the parsed
/// document (with [`ParseOptions`](crate::json::ParseOptions)' defaults), with the same errors
/// (the input's first, then those of [`check`]), without holding the document: a root array
/// over 8 MiB is validated and analysed window by window, then parsed again and encoded a
/// window at a time, as [`Data::Json`](crate::wire::Data::Json) does. Nothing is written on
/// error.
///
/// ```
/// use toolwire::toon::{EncodeOptions, encode_json};
/// let mut out = Vec::new();
/// encode_json(br#"[{"id":1,"tag":"<b>"},{"id":2,"tag":"x"}]"#, &EncodeOptions::new(), &mut out)?;
/// assert_eq!(out, b"[2]{id,tag}:\n  1,<b>\n  2,x");
/// # Ok::<(), toolwire::Error>(())
/// ```
///
/// # Errors
///
/// A positioned parse error, or [`check`]'s.
pub fn encode_json<W: crate::Sink + ?Sized>(
    json: &[u8],
    opts: &EncodeOptions,
    out: &mut W,
) -> crate::Result<()> {
    encode::encode_json_text(json, opts, &WindowPlan::default(), out)
}

/// [`encode_json`] for JSON bytes that are not on the heap (a memory-mapped file): the heap
/// contract's share for the input (ARCHITECTURE.md: peak heap ≤ input + output + 16 MiB) is
/// free for the parsed windows, so an input whose tape fits in its size plus 11 MiB is read
/// once instead of twice. The same bytes and errors as [`encode_json`].
///
/// # Errors
///
/// See [`encode_json`].
pub fn encode_json_off_heap<W: crate::Sink + ?Sized>(
    json: &[u8],
    opts: &EncodeOptions,
    out: &mut W,
) -> crate::Result<()> {
    encode_json_with_room(json, opts, json.len(), out)
}

/// [`encode_json`] whose first reading of a large root array may hold `room` more bytes of
/// parsed windows than the engine's own budget (11 MiB of tape, inside the 16 MiB margin of
/// ARCHITECTURE.md's heap contract), so that an input whose tape fits is read once instead of
/// partly twice. A caller whose contract leaves more memory than the engine's passes the
/// difference: [`encode_json_off_heap`] passes the input's size, the Node and Python bindings
/// [`BINDING_ROOM`] at most. The same bytes and errors as [`encode_json`].
///
/// ```
/// use toolwire::toon::{EncodeOptions, encode_json_with_room};
/// let mut out = Vec::new();
/// encode_json_with_room(b"[1,2]", &EncodeOptions::new(), 16 << 20, &mut out)?;
/// assert_eq!(out, b"[2]: 1,2");
/// # Ok::<(), toolwire::Error>(())
/// ```
///
/// # Errors
///
/// See [`encode_json`].
pub fn encode_json_with_room<W: crate::Sink + ?Sized>(
    json: &[u8],
    opts: &EncodeOptions,
    room: usize,
    out: &mut W,
) -> crate::Result<()> {
    encode::encode_json_text(json, opts, &WindowPlan::default().with_room(room), out)
}

/// The most extra room ([`encode_json_with_room`]) the Node and Python bindings give the
/// reading of JSON text they hold on their heap: 16 MiB, so that up to about 30 MB of flat
/// rows (a tape of 0.9× the text) are read once, while a 100 MB input stays under the Node
/// binding's contract of a peak below twice the input (1.75× measured; docs/DECISIONS.md,
/// "Read once in parallel").
pub const BINDING_ROOM: usize = 16 << 20;

/// [`encode_json`] reading any input longer than `window` bytes in windows of `window` bytes,
/// keeping up to `keep` bytes of their tapes to read it once: for tests (`test_hooks`).
///
/// # Errors
///
/// See [`encode_json`].
pub(crate) fn encode_json_windows<W: crate::Sink + ?Sized>(
    json: &[u8],
    opts: &EncodeOptions,
    window: usize,
    keep: usize,
    out: &mut W,
) -> crate::Result<()> {
    encode::encode_json_text(json, opts, &WindowPlan::windows_of(window, keep), out)
}

/// The delimiter of TOON array rows and inline arrays (TOON spec §11). Declared in every
/// array header except for the default comma.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Delimiter {
    /// `,` (the TOON default).
    #[default]
    Comma,
    /// A tab character.
    Tab,
    /// `|`.
    Pipe,
}

impl Delimiter {
    /// The delimiter byte.
    #[inline]
    pub fn as_byte(self) -> u8 {
        match self {
            Delimiter::Comma => b',',
            Delimiter::Tab => b'\t',
            Delimiter::Pipe => b'|',
        }
    }
}
