//! Byte strings kept end to end in one buffer: the member prefixes and heads the writers
//! make once and copy into every row like the one they were made for.

/// Byte strings kept end to end in one buffer.
#[derive(Default)]
pub(crate) struct Pieces {
    /// The pieces' bytes; the one being made is written here, then ended by
    /// [`Pieces::end_piece`].
    pub(crate) bytes: Vec<u8>,
    /// The end of each piece in `bytes`.
    ends: Vec<usize>,
}

impl Pieces {
    /// No pieces.
    #[inline]
    pub(crate) fn clear(&mut self) {
        self.bytes.clear();
        self.ends.clear();
    }

    /// How many pieces there are.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    /// Ends the piece written into `bytes` since the last one.
    #[inline]
    pub(crate) fn end_piece(&mut self) {
        self.ends.push(self.bytes.len());
    }

    /// Piece `i`.
    ///
    /// # Panics
    ///
    /// When `i >= self.len()`.
    #[inline]
    pub(crate) fn get(&self, i: usize) -> &[u8] {
        let from = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.bytes[from..self.ends[i]]
    }

    /// Piece `i`, if there is one.
    #[inline]
    pub(crate) fn try_get(&self, i: usize) -> Option<&[u8]> {
        let to = *self.ends.get(i)?;
        let from = if i == 0 { 0 } else { self.ends[i - 1] };
        Some(&self.bytes[from..to])
    }
}
