//! TOON 4.4: encoder and decoder.

mod decode;
mod encode;

pub use decode::{DecodeOptions, decode};
pub(crate) use encode::{
    Cells, Item, RootForm, TableRows, ToonFacts, encode_list, encode_table, likely_len,
    string_cell, write_windows,
};
pub use encode::{
    DEFAULT_MAX_DEPTH, DEFAULT_PARALLEL_THRESHOLD, EncodeOptions, MAX_DEPTH_LIMIT, MAX_INDENT,
    WindowedEncoder, check, encode, prepare, to_string, to_vec,
};

// Where `encode_json`'s input is held (`EncodeOptions::json_input`), the JSON reader's type.
pub use crate::json::JsonInput;
use crate::json::WindowPlan;

/// Encodes JSON text as TOON into `out`: exactly what [`encode`](encode()) writes for the parsed
/// document (with [`ParseOptions`](crate::json::ParseOptions)' defaults), with the same errors
/// (the input's first, then those of [`check`]), without holding the document: a root array
/// over 8 MiB is validated and analysed window by window, then encoded a window at a time,
/// from the windows the first reading kept while their tapes fit in the memory
/// [`EncodeOptions::json_input`] allows, the other rows parsed again, as
/// [`Data::Json`](crate::wire::Data::Json) does. Nothing is written on error.
///
/// ```
/// use toolwire::toon::{EncodeOptions, JsonInput, encode_json};
/// let mut out = Vec::new();
/// encode_json(br#"[{"id":1,"tag":"<b>"},{"id":2,"tag":"x"}]"#, &EncodeOptions::new(), &mut out)?;
/// assert_eq!(out, b"[2]{id,tag}:\n  1,<b>\n  2,x");
///
/// // JSON text that is not on the heap (a memory-mapped file): more of it kept parsed.
/// let mut out = Vec::new();
/// encode_json(b"[1,2]", &EncodeOptions::new().json_input(JsonInput::OffHeap), &mut out)?;
/// assert_eq!(out, b"[2]: 1,2");
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
    let plan = WindowPlan::default().with_room(opts.get_json_input().room(json.len()));
    encode::encode_json_text(json, opts, &plan, out)
}

/// [`encode_json`] reading any input longer than `window` bytes in windows of `window` bytes,
/// keeping up to `keep` bytes of their tapes to read it once (`opts`' [`JsonInput`] is not
/// looked at): for tests (`test_hooks`).
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
