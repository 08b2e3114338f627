//! TOON 4.4: encoder and decoder.

mod decode;
mod decode_scan;
mod encode;

pub use decode::{DecodeOptions, decode};
pub(crate) use encode::{
    Cells, Item, RootAnalysis, RootForm, TableRows, encode_list, encode_table, string_cell,
    write_root_header, write_root_window,
};
pub use encode::{
    DEFAULT_MAX_DEPTH, DEFAULT_PARALLEL_THRESHOLD, EncodeOptions, MAX_DEPTH_LIMIT, MAX_INDENT,
    check, encode, to_string, to_vec,
};

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
