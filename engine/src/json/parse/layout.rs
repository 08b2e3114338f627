//! Row layouts: the pieces of an object as it stood in the input ([`Sep`]), and the parser's
//! memory of them per nesting level ([`RowState`]). The general walk records them; the
//! row-layout path (`rows.rs`) matches the next objects against them.

use super::swar::bytes_eq;
use crate::doc::DocBuilder;

/// Nesting levels (1 = the root) whose objects get a row layout.
pub(super) const ROW_LEVELS: usize = 8;

/// Objects with more members get no row layout (nor do their next ones).
pub(crate) const ROW_MEMBERS: usize = 256;

/// A piece of an object as it stood in the input: `src[at..at + len]`, the bytes from the end
/// of a member's value (for the first member, from the `{`) through the `:` after the next
/// key and the whitespace after it, whose key starts at offset `key` (for the closing piece,
/// the bytes from the end of the last value through the `}`; no key).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sep {
    /// The first 16 bytes (little-endian; zero past `len`) and the mask of the `len` of
    /// them that are the piece's: a piece of up to 16 bytes is matched with one load.
    head: u128,
    mask: u128,
    pub(super) at: u32,
    pub(super) len: u32,
    pub(super) key: u32,
    /// The key's tape head ([`DocBuilder::key_head`], which holds its length; for the
    /// closing piece an empty key's, never pushed).
    pub(super) key_head: u32,
}

impl Sep {
    /// The piece `src[at..end]` whose key is `key_len` bytes from offset `key`; `None` when
    /// that key is too long for a tape head.
    pub(crate) fn new(
        src: &[u8],
        at: usize,
        end: usize,
        key: usize,
        key_len: usize,
    ) -> Option<Sep> {
        let key_head = DocBuilder::key_head_of(key_len)?;
        let len = end - at;
        let n = len.min(16);
        let mut head = [0u8; 16];
        head[..n].copy_from_slice(&src[at..at + n]);
        Some(Sep {
            head: u128::from_le_bytes(head),
            mask: u128::MAX >> (8 * (16 - n)),
            at: at as u32,
            len: len as u32,
            key: key as u32,
            key_head,
        })
    }

    /// How many bytes the piece has.
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.len as usize
    }

    /// The key's tape head ([`DocBuilder::key_head`]).
    #[inline(always)]
    pub(crate) fn key_head(&self) -> u32 {
        self.key_head
    }

    /// Where the key is in a copy of the piece that starts at `pos`, and its length.
    #[inline(always)]
    pub(crate) fn key_at(&self, pos: usize) -> (usize, usize) {
        (
            pos + self.key as usize,
            DocBuilder::key_head_len(self.key_head),
        )
    }

    /// Whether `src[pos..]` starts with this piece's bytes (`src[at..at + len]`).
    #[inline(always)]
    pub(crate) fn matches(&self, src: &[u8], pos: usize) -> bool {
        let len = self.len as usize;
        if len <= 16 {
            if let Some(w) = src.get(pos..pos + 16) {
                let mut b = [0u8; 16];
                b.copy_from_slice(w);
                return (u128::from_le_bytes(b) ^ self.head) & self.mask == 0;
            }
        }
        let at = self.at as usize;
        match src.get(pos..pos + len) {
            Some(here) => bytes_eq(here, &src[at..at + len]),
            None => false,
        }
    }
}

/// The parser's memory of one nesting level for its row layouts.
#[derive(Default)]
pub(super) struct RowState {
    /// The pieces of the object being parsed at this level by the general loop, so far.
    pub(super) next: Vec<Sep>,
    /// `next` is complete so far (every key taken from the input as is, no more than
    /// [`ROW_MEMBERS`]).
    pub(super) next_ok: bool,
    /// Whether the layout's keys are the keys the builder remembers at this level, as of
    /// the builder's key generation `gen` (`checked`: known at all).
    pub(super) agree: bool,
    pub(super) checked: bool,
    pub(super) generation: u32,
}
