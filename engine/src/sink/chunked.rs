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
