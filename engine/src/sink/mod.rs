//! Byte sinks: where every encoder in the crate writes.
//!
//! A [`Sink`] is an infallible, append-only byte buffer in the spirit of `bytes::BufMut`:
//! encoders either append slices with [`Sink::write`], or reserve spare capacity with
//! [`Sink::spare`], fill it, and commit with [`Sink::advance`]. In-memory sinks never fail;
//! only adapters at the edge (`io::Write`, async writers) deal with I/O errors, after the
//! encoder has finished with a buffer.
//!
//! Sinks are generic parameters (`W: Sink + ?Sized`), never `dyn` in hot paths.

use std::mem::MaybeUninit;

use bytes::BytesMut;

mod chunked;
mod huge;
mod ordered;
mod pieces;

pub use chunked::{ChunkedSink, CountingSink};
pub use huge::{output_with_capacity, reserve_output};
pub(crate) use ordered::write_ordered;
pub(crate) use pieces::Pieces;

/// An infallible append-only byte buffer.
///
/// # Safety
///
/// Encoders write into the slices [`Sink::spare`] and [`Sink::spare_escaped`] return and then
/// commit with [`Sink::advance`] / [`Sink::advance_escaped`], trusting the sink as
/// `bytes::BufMut` trusts its implementors:
///
/// * `spare(n)` and `spare_escaped(n)` return at least `n` bytes of spare capacity;
/// * `advance(n)` and `advance_escaped(n)` with `n` bytes initialised at the start of that
///   slice commit exactly those bytes, and never read past them.
///
/// The engine also cuts every spare slice to the `n` bytes it asked for before writing
/// through a pointer, so a sink that breaks the first rule makes it panic, not write out of
/// bounds; the rules stay the implementor's to keep.
///
/// ```
/// use std::mem::MaybeUninit;
/// use toolwire::Sink;
///
/// /// Keeps the last byte written (for example).
/// struct Last(Vec<u8>);
///
/// // SAFETY: `spare` returns the vector's spare capacity after reserving `n` bytes, and
/// // `advance` commits exactly the initialised bytes (the vector's own guarantees).
/// unsafe impl Sink for Last {
///     fn write(&mut self, bytes: &[u8]) { self.0.extend_from_slice(bytes) }
///     fn spare(&mut self, n: usize) -> &mut [MaybeUninit<u8>] {
///         self.0.reserve(n);
///         self.0.spare_capacity_mut()
///     }
///     unsafe fn advance(&mut self, n: usize) {
///         // SAFETY: the caller initialised `n` bytes of the spare capacity.
///         unsafe { self.0.set_len(self.0.len() + n) }
///     }
///     fn written(&self) -> usize { self.0.len() }
/// }
/// let mut s = Last(Vec::new());
/// toolwire::json::write_compact(toolwire::json::parse(b"[1]", &Default::default())?.root(), &mut s);
/// assert_eq!(s.0, b"[1]");
/// # Ok::<(), toolwire::Error>(())
/// ```
///
/// A safe `impl` does not compile: the contract must be promised with `unsafe impl`.
///
/// ```compile_fail
/// use std::mem::MaybeUninit;
/// struct Short;
/// impl toolwire::Sink for Short {
///     fn write(&mut self, _: &[u8]) {}
///     fn spare(&mut self, _: usize) -> &mut [MaybeUninit<u8>] { &mut [] }
///     unsafe fn advance(&mut self, _: usize) {}
///     fn written(&self) -> usize { 0 }
/// }
/// ```
pub unsafe trait Sink {
    /// Appends `bytes`.
    fn write(&mut self, bytes: &[u8]);

    /// Appends one byte.
    #[inline]
    fn write_byte(&mut self, byte: u8) {
        self.write(&[byte]);
    }

    /// Returns at least `n` bytes of spare capacity to write into. Nothing is committed until
    /// [`Sink::advance`] is called.
    fn spare(&mut self, n: usize) -> &mut [MaybeUninit<u8>];

    /// Commits `n` bytes written at the start of the slice last returned by [`Sink::spare`].
    ///
    /// # Safety
    ///
    /// The first `n` bytes of the slice returned by the last call to `spare` must have been
    /// initialised, `n` must not exceed that slice's length, and no other method may have
    /// been called on the sink since that call to `spare`.
    unsafe fn advance(&mut self, n: usize);

    /// Bytes written so far (as seen by the consumer of this sink).
    fn written(&self) -> usize;

    /// Appends bytes that need no escaping inside a JSON string: no `"`, no `\\`, no byte
    /// below 0x20 (digits, unquoted TOON text, the clean runs of an escaped string). A sink
    /// that JSON-escapes what it receives (framing) copies them straight through; every other
    /// sink treats this as [`Sink::write`]. This is how escaping is fused into the encoders.
    #[inline]
    fn write_clean(&mut self, bytes: &[u8]) {
        self.write(bytes);
    }

    /// Appends bytes already in this sink's output form: an escaping sink copies them through
    /// unescaped (they were escaped elsewhere, for example by a parallel worker writing into
    /// its own escaping buffer); every other sink treats this as [`Sink::write`]. Only
    /// meaningful together with [`Sink::escapes`].
    #[inline]
    fn write_escaped(&mut self, bytes: &[u8]) {
        self.write(bytes);
    }

    /// [`Sink::write`] of a finished buffer the sink may keep instead of copying: a sink that
    /// hands out chunks passes a large one on as it is. On return `part` holds no bytes (its
    /// capacity, possibly none, is the caller's to reuse).
    #[inline]
    fn write_owned(&mut self, part: &mut Vec<u8>) {
        self.write(part);
        part.clear();
    }

    /// [`Sink::write_escaped`] of a finished buffer, kept or copied as by
    /// [`Sink::write_owned`].
    #[inline]
    fn write_escaped_owned(&mut self, part: &mut Vec<u8>) {
        self.write_escaped(part);
        part.clear();
    }

    /// [`Sink::spare`] for bytes already in this sink's output form, committed with
    /// [`Sink::advance_escaped`]: an escaping sink hands out its inner sink's capacity (what
    /// is written there is copied through, as by [`Sink::write_escaped`]); every other sink
    /// treats this as [`Sink::spare`].
    #[inline]
    fn spare_escaped(&mut self, n: usize) -> &mut [MaybeUninit<u8>] {
        self.spare(n)
    }

    /// Commits `n` bytes written into [`Sink::spare_escaped`].
    ///
    /// # Safety
    ///
    /// As [`Sink::advance`], for the slice [`Sink::spare_escaped`] returned.
    #[inline]
    unsafe fn advance_escaped(&mut self, n: usize) {
        // SAFETY: forwarded under the same contract (`spare_escaped` is `spare` here).
        unsafe { self.advance(n) }
    }

    /// True when this sink JSON-escapes what it receives (the framing adapter). Encoders
    /// then prefer [`Sink::write_clean`] for clean runs over bulk writes of mixed bytes.
    #[inline]
    fn escapes(&self) -> bool {
        false
    }

    /// True when this sink is one growing in-memory buffer, where reserving a large piece
    /// costs no more than writing it (`Vec<u8>`, `BytesMut`). Streaming sinks say false: they
    /// keep their buffers small, so encoders append large outputs piece by piece there.
    #[inline]
    fn contiguous(&self) -> bool {
        false
    }

    /// True when nobody will read what comes next (a streamed response whose receiver was
    /// dropped). Encoders check it now and then (per batch of rows) and stop early; output
    /// after cancellation is meaningless. In-memory sinks never cancel.
    #[inline]
    fn cancelled(&self) -> bool {
        false
    }

    /// Appends `src` by copying it into spare capacity: the portable fast path for small,
    /// hot writes where the length is known up front.
    #[inline]
    fn write_via_spare(&mut self, src: &[u8]) {
        // Cut to the length asked for: a sink returning less makes this panic, not commit
        // bytes that were never written.
        let spare = &mut self.spare(src.len())[..src.len()];
        for (dst, &b) in spare.iter_mut().zip(src) {
            dst.write(b);
        }
        // SAFETY: `spare` has at least `src.len()` bytes and the loop initialised exactly the
        // first `src.len()` of them; nothing touched the sink in between.
        unsafe { self.advance(src.len()) };
    }
}

/// The longest write a growable sink copies inline ([`put_short`]).
const SHORT: usize = 16;

/// Copies `src` (at most [`SHORT`] bytes) to the start of `dst` (at least `SHORT` bytes) with
/// two overlapping fixed-size copies instead of a call to `memcpy`: a table cell, a
/// delimiter or a quote is that short, and the call (with the registers it clobbers) cost
/// more than the copy.
#[inline(always)]
fn put_short(dst: &mut [MaybeUninit<u8>], src: &[u8]) {
    #[inline(always)]
    fn put<const K: usize>(dst: &mut [MaybeUninit<u8>], at: usize, word: [u8; K]) {
        for (d, b) in dst[at..at + K].iter_mut().zip(word) {
            d.write(b);
        }
    }
    #[inline(always)]
    fn word<const K: usize>(src: &[u8], at: usize) -> [u8; K] {
        let mut w = [0u8; K];
        w.copy_from_slice(&src[at..at + K]);
        w
    }
    let n = src.len();
    debug_assert!(n <= SHORT && dst.len() >= SHORT);
    if n >= 8 {
        let (head, tail) = (word::<8>(src, 0), word::<8>(src, n - 8));
        put(dst, 0, head);
        put(dst, n - 8, tail);
    } else if n >= 4 {
        let (head, tail) = (word::<4>(src, 0), word::<4>(src, n - 4));
        put(dst, 0, head);
        put(dst, n - 4, tail);
    } else if n > 0 {
        let (a, b, c) = (src[0], src[n / 2], src[n - 1]);
        dst[0].write(a);
        dst[n / 2].write(b);
        dst[n - 1].write(c);
    }
}

/// `Vec<u8>` and `BytesMut` share one implementation: both are a length within a capacity.
macro_rules! growable_sink {
    ($t:ty) => {
        // SAFETY: `spare` reserves `n` bytes and returns the whole spare capacity (at least
        // `n`); `advance` only extends the length over bytes the caller initialised.
        unsafe impl Sink for $t {
            // Always inlined where optimised (the TOON row loops are too large for the
            // inliner to take it on its own; a call per cell), not in debug builds, whose
            // frames of the recursive encoders it would grow past the test threads' stacks.
            #[cfg_attr(debug_assertions, inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn write(&mut self, bytes: &[u8]) {
                let n = bytes.len();
                if n <= SHORT && self.capacity() - self.len() >= SHORT {
                    put_short(self.spare_capacity_mut(), bytes);
                    // SAFETY: `put_short` initialised the first `n` bytes of the spare
                    // capacity (it has at least `SHORT >= n`).
                    unsafe { self.set_len(self.len() + n) };
                    return;
                }
                self.extend_from_slice(bytes);
            }

            #[inline]
            fn spare(&mut self, n: usize) -> &mut [MaybeUninit<u8>] {
                self.reserve(n);
                self.spare_capacity_mut()
            }

            #[inline]
            unsafe fn advance(&mut self, n: usize) {
                debug_assert!(self.len() + n <= self.capacity());
                // SAFETY: the caller guarantees the next `n` bytes after `len` were initialised
                // through the slice returned by `spare`, which lies within the capacity.
                unsafe { self.set_len(self.len() + n) };
            }

            #[inline]
            fn written(&self) -> usize {
                self.len()
            }

            #[inline]
            fn contiguous(&self) -> bool {
                true
            }
        }
    };
}

growable_sink!(Vec<u8>);
growable_sink!(BytesMut);

// SAFETY: every method forwards to the inner sink, which keeps the contract.
unsafe impl<S: Sink + ?Sized> Sink for &mut S {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        (**self).write(bytes);
    }

    #[inline]
    fn write_byte(&mut self, byte: u8) {
        (**self).write_byte(byte);
    }

    #[inline]
    fn spare(&mut self, n: usize) -> &mut [MaybeUninit<u8>] {
        (**self).spare(n)
    }

    #[inline]
    unsafe fn advance(&mut self, n: usize) {
        // SAFETY: forwarded; the caller upholds the contract for the inner sink.
        unsafe { (**self).advance(n) }
    }

    #[inline]
    fn written(&self) -> usize {
        (**self).written()
    }

    #[inline]
    fn cancelled(&self) -> bool {
        (**self).cancelled()
    }

    #[inline]
    fn write_clean(&mut self, bytes: &[u8]) {
        (**self).write_clean(bytes);
    }

    #[inline]
    fn escapes(&self) -> bool {
        (**self).escapes()
    }

    #[inline]
    fn write_escaped(&mut self, bytes: &[u8]) {
        (**self).write_escaped(bytes);
    }

    #[inline]
    fn spare_escaped(&mut self, n: usize) -> &mut [MaybeUninit<u8>] {
        (**self).spare_escaped(n)
    }

    #[inline]
    fn write_owned(&mut self, part: &mut Vec<u8>) {
        (**self).write_owned(part);
    }

    #[inline]
    fn write_escaped_owned(&mut self, part: &mut Vec<u8>) {
        (**self).write_escaped_owned(part);
    }

    #[inline]
    fn contiguous(&self) -> bool {
        (**self).contiguous()
    }

    #[inline]
    unsafe fn advance_escaped(&mut self, n: usize) {
        // SAFETY: forwarded; the caller upholds the contract for the inner sink.
        unsafe { (**self).advance_escaped(n) }
    }
}

/// The most spaces one static write of [`write_line_start`] covers.
const LINE_SPACES: usize = 512;

/// LF followed by spaces.
static NL_SPACES: [u8; LINE_SPACES + 1] = {
    let mut t = [b' '; LINE_SPACES + 1];
    t[0] = b'\n';
    t
};

/// The JSON-string form of [`NL_SPACES`]: `\n` followed by spaces.
static ESCAPED_NL_SPACES: [u8; LINE_SPACES + 2] = {
    let mut t = [b' '; LINE_SPACES + 2];
    t[0] = b'\\';
    t[1] = b'n';
    t
};

/// The bytes that start a line of `spaces` spaces in `w`'s output form (the pre-escaped
/// `\n` of an escaping sink), when the static buffers hold them (up to 512 spaces): for a
/// loop that starts many lines alike, with [`write_line_bytes`].
#[inline]
pub(crate) fn line_start_bytes<W: Sink + ?Sized>(w: &W, spaces: usize) -> Option<&'static [u8]> {
    if w.escapes() {
        ESCAPED_NL_SPACES.get(..2 + spaces)
    } else {
        NL_SPACES.get(..1 + spaces)
    }
}

/// Writes bytes from [`line_start_bytes`] of `w`.
#[inline(always)]
pub(crate) fn write_line_bytes<W: Sink + ?Sized>(w: &mut W, bytes: &[u8]) {
    if w.escapes() {
        w.write_escaped(bytes);
    } else {
        w.write(bytes);
    }
}

/// Starts a line: LF and `spaces` spaces, one write up to 512 spaces of indentation (static
/// buffers, no allocation). An escaping sink (framing) gets the pre-escaped `\n` through
/// [`Sink::write_escaped`], so line breaks cost a copy there too, not an escaping pass.
#[inline]
pub(crate) fn write_line_start<W: Sink + ?Sized>(w: &mut W, spaces: usize) {
    let k = spaces.min(LINE_SPACES);
    // `k` is within the buffers, so the bytes are always there.
    write_line_bytes(w, line_start_bytes(w, k).unwrap_or_default());
    // Deeper than the buffers (rare): the rest, out of line.
    if spaces > k {
        write_spaces(w, spaces - k);
    }
}

/// `n` spaces, in static slices.
#[inline]
pub(crate) fn write_spaces<W: Sink + ?Sized>(w: &mut W, mut n: usize) {
    while n > 0 {
        let k = n.min(LINE_SPACES);
        w.write_clean(&NL_SPACES[1..=k]);
        n -= k;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every length up to and past the inline copy's, into a buffer with and without the
    /// spare capacity it needs: the bytes land exactly, in order, and nothing else changes.
    #[test]
    fn short_writes_copy_exactly() {
        let src: Vec<u8> = (1..=40).collect();
        for n in 0..=SHORT + 2 {
            for cap in [0, n, SHORT, 64] {
                let mut v: Vec<u8> = Vec::with_capacity(cap);
                v.extend_from_slice(b"xy");
                v.write(&src[..n]);
                v.write(&src[..n]);
                let mut want = b"xy".to_vec();
                want.extend_from_slice(&src[..n]);
                want.extend_from_slice(&src[..n]);
                assert_eq!(v, want, "{n} bytes, capacity {cap}");
                let mut m = BytesMut::with_capacity(cap);
                m.write(&src[..n]);
                assert_eq!(&m[..], &src[..n], "{n} bytes into BytesMut, capacity {cap}");
            }
        }
    }

    fn exercise<S: Sink>(s: &mut S) {
        s.write(b"ab");
        s.write_byte(b'c');
        s.write_via_spare(b"def");
        s.write_via_spare(b"");
        let spare = s.spare(2);
        assert!(spare.len() >= 2);
        spare[0].write(b'g');
        // SAFETY: one byte initialised just above.
        unsafe { s.advance(1) };
        assert_eq!(s.written(), 7);
    }

    #[test]
    fn vec_and_bytes_agree() {
        let mut v = Vec::new();
        exercise(&mut v);
        assert_eq!(v, b"abcdefg");
        let mut b = BytesMut::new();
        exercise(&mut b);
        assert_eq!(&b[..], b"abcdefg");
        let mut v2 = Vec::new();
        exercise(&mut &mut v2);
        assert_eq!(v2, b"abcdefg");
    }

    #[test]
    fn line_starts_plain_and_escaped() {
        for spaces in [0, 1, 7, 511, 512, 513, 1100] {
            let want = format!("\n{}", " ".repeat(spaces));
            let mut plain = Vec::new();
            write_line_start(&mut plain, spaces);
            assert_eq!(plain, want.as_bytes(), "{spaces}");
            // Through the framing adapter: the JSON-string form of the same text.
            let mut framed = Vec::new();
            write_line_start(&mut crate::escape::EscapingSink::new(&mut framed), spaces);
            assert_eq!(
                framed,
                format!("\\n{}", " ".repeat(spaces)).as_bytes(),
                "{spaces}"
            );
            let mut only = Vec::new();
            write_spaces(&mut only, spaces);
            assert_eq!(only, &want.as_bytes()[1..], "{spaces}");
        }
    }
}
