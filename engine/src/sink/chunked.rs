//! Streaming sinks: [`ChunkedSink`] hands out full chunks as frozen [`Bytes`] while encoding
//! continues (the consumer returning `false` cancels the work: encoders check
//! [`Sink::cancelled`] per batch of rows and stop); [`CountingSink`] counts bytes and keeps
//! none, for the exact size of a message without holding it.

use std::mem::MaybeUninit;

use bytes::{Bytes, BytesMut};

use super::Sink;

/// A sink that hands out full chunks as frozen [`Bytes`] while encoding continues.
pub struct ChunkedSink<F: FnMut(Bytes) -> bool> {
    buf: BytesMut,
    chunk: usize,
    consumer: F,
    written: usize,
    cancelled: bool,
}

impl<F: FnMut(Bytes) -> bool> ChunkedSink<F> {
    /// Chunks of about `chunk` bytes (at least 1 KiB) go to `consumer`, which returns `false`
    /// when nobody reads them any more.
    pub fn new(chunk: usize, consumer: F) -> Self {
        let chunk = chunk.max(1024);
        ChunkedSink {
            buf: BytesMut::with_capacity(chunk + chunk / 4),
            chunk,
            consumer,
            written: 0,
            cancelled: false,
        }
    }

    #[inline]
    fn maybe_flush(&mut self) {
        if self.buf.len() >= self.chunk {
            self.flush();
        }
    }

    fn flush(&mut self) {
        if self.buf.is_empty() {
            return;
        }
        let full = self.buf.split().freeze();
        if !self.cancelled && !(self.consumer)(full) {
            self.cancelled = true;
        }
        if self.buf.capacity() < self.chunk {
            self.buf.reserve(self.chunk + self.chunk / 4);
        }
    }

    /// Hands out what is left. Returns `false` when the consumer went away at any point.
    pub fn finish(mut self) -> bool {
        self.flush();
        !self.cancelled
    }
}

// SAFETY: `spare` reserves `n` bytes of the chunk buffer and returns its spare capacity;
// `advance` extends the buffer over exactly the bytes the caller initialised.
unsafe impl<F: FnMut(Bytes) -> bool> Sink for ChunkedSink<F> {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        if self.cancelled {
            return;
        }
        self.written += bytes.len();
        self.buf.extend_from_slice(bytes);
        self.maybe_flush();
    }

    /// A part of at least half a chunk is handed out as it is, after what the buffer holds:
    /// copying each part of a parallel table into the chunks cost 3.5% of a framed TOON
    /// response's instructions. When the consumer let go of it (a writer that wrote it),
    /// `part` gets its buffer back for the next part.
    fn write_owned(&mut self, part: &mut Vec<u8>) {
        if self.cancelled {
            part.clear();
            return;
        }
        if part.len() < self.chunk / 2 {
            self.write(part);
            part.clear();
            return;
        }
        self.flush();
        self.written += part.len();
        let whole = Bytes::from(std::mem::take(part));
        let back = whole.clone();
        if !(self.consumer)(whole) {
            self.cancelled = true;
        }
        if let Ok(mut reused) = back.try_into_mut() {
            reused.clear();
            *part = Vec::from(reused);
        }
    }

    fn spare(&mut self, n: usize) -> &mut [MaybeUninit<u8>] {
        self.buf.reserve(n);
        self.buf.spare_capacity_mut()
    }

    unsafe fn advance(&mut self, n: usize) {
        debug_assert!(self.buf.len() + n <= self.buf.capacity());
        // SAFETY: the caller initialised `n` bytes of the spare capacity `spare` returned.
        unsafe { self.buf.set_len(self.buf.len() + n) };
        self.written += n;
        if self.cancelled {
            self.buf.clear();
        } else {
            self.maybe_flush();
        }
    }

    #[inline]
    fn written(&self) -> usize {
        self.written
    }

    #[inline]
    fn cancelled(&self) -> bool {
        self.cancelled
    }
}

/// Counts bytes and keeps none: the exact size of a message without holding it.
pub struct CountingSink {
    n: usize,
    scratch: Vec<u8>,
    /// Past this many bytes the sink reports itself cancelled (encoders stop early).
    limit: usize,
}

impl Default for CountingSink {
    fn default() -> Self {
        CountingSink {
            n: 0,
            scratch: Vec::new(),
            limit: usize::MAX,
        }
    }
}

impl CountingSink {
    /// A sink that has counted nothing.
    pub fn new() -> Self {
        CountingSink::default()
    }

    /// A sink that only needs to know whether a message is over `limit` bytes: once past
    /// it, [`Sink::cancelled`] says so and encoders stop (the count is then some number over
    /// `limit`, not the message's size).
    pub fn up_to(limit: usize) -> Self {
        CountingSink {
            limit,
            ..CountingSink::default()
        }
    }
}

// SAFETY: `spare` returns at least `n` bytes of scratch; `advance` only counts.
unsafe impl Sink for CountingSink {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        self.n += bytes.len();
    }

    fn spare(&mut self, n: usize) -> &mut [MaybeUninit<u8>] {
        self.scratch.clear();
        self.scratch.reserve(n);
        self.scratch.spare_capacity_mut()
    }

    unsafe fn advance(&mut self, n: usize) {
        self.n += n;
    }

    #[inline]
    fn written(&self) -> usize {
        self.n
    }

    #[inline]
    fn cancelled(&self) -> bool {
        self.n > self.limit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A large part goes out whole, after what came before, and its buffer comes back when
    /// the consumer let go of it; a small part is copied into the chunk buffer.
    #[test]
    fn parts_pass_whole_in_order() {
        let mut out: Vec<Vec<u8>> = Vec::new();
        let mut sink = ChunkedSink::new(1024, |c: Bytes| {
            out.push(c.to_vec());
            true
        });
        sink.write(b"ab");
        let mut big = vec![b'x'; 600];
        let cap = big.capacity();
        sink.write_owned(&mut big);
        assert!(big.is_empty());
        assert_eq!(big.capacity(), cap, "the buffer is reused");
        let mut small = vec![b'y'; 100];
        sink.write_owned(&mut small);
        assert!(small.is_empty());
        assert_eq!(sink.written(), 702);
        assert!(sink.finish());
        assert_eq!(out, [b"ab".to_vec(), vec![b'x'; 600], vec![b'y'; 100]]);
    }

    /// A consumer that keeps the chunk keeps the part's bytes; the caller gets a new buffer.
    #[test]
    fn a_kept_part_is_not_reused() {
        let mut kept: Vec<Bytes> = Vec::new();
        let mut sink = ChunkedSink::new(1024, |c: Bytes| {
            kept.push(c);
            true
        });
        let mut big = vec![b'z'; 700];
        sink.write_owned(&mut big);
        big.extend_from_slice(b"new");
        assert!(sink.finish());
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0], vec![b'z'; 700]);
        assert_eq!(big, b"new");
    }

    /// A consumer that went away stops the parts too.
    #[test]
    fn parts_after_cancel_are_dropped() {
        let mut calls = 0;
        let mut sink = ChunkedSink::new(1024, |_| {
            calls += 1;
            false
        });
        sink.write_owned(&mut vec![b'a'; 600]);
        assert!(sink.cancelled());
        sink.write_owned(&mut vec![b'b'; 600]);
        assert!(!sink.finish());
        assert_eq!(calls, 1);
    }
}
