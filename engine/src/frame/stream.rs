//! Streaming a framed response in chunks, and the message size cap (WIRE.md §11).
//!
//! [`ChunkedSink`] freezes every full buffer into a [`Bytes`] and hands it to a consumer while
//! encoding continues; the consumer returning `false` (its receiver is gone) cancels the
//! work: encoders check [`Sink::cancelled`] per batch of rows and stop.
//!
//! The size cap is checked before the first byte: first against a cheap upper bound of the
//! framed message (a walk over the tape, no encoding), and only when that bound exceeds the
//! cap, by framing into a counting sink. A message over the cap is rejected with an error;
//! it is never truncated.

use std::mem::MaybeUninit;

use bytes::{Bytes, BytesMut};

use super::{Id, Protocol, frame};
use crate::error::{Category, Error, Result};
use crate::sink::Sink;
use crate::wire::ToolResponse;

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
#[derive(Default)]
pub struct CountingSink {
    n: usize,
    scratch: Vec<u8>,
}

impl CountingSink {
    /// A sink that has counted nothing.
    pub fn new() -> Self {
        CountingSink::default()
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
}

/// The default cap: clients commonly reject messages over 16 MiB.
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 16 << 20;

/// Checks `response` framed with `id` against `cap` bytes, before anything is written.
/// Returns the exact size when it had to be computed, `None` when the cheap bound sufficed.
///
/// # Errors
///
/// `Category::Limit` when the framed message is larger than `cap`.
pub fn check_size(
    id: &Id,
    response: &ToolResponse<'_>,
    protocol: Protocol,
    cap: usize,
) -> Result<Option<usize>> {
    if framed_len_bound(id, response) <= cap {
        return Ok(None);
    }
    let mut counter = CountingSink::new();
    frame(id, response, protocol, &mut counter);
    let exact = counter.written();
    if exact > cap {
        return Err(Error::new(
            Category::Limit,
            format!("the framed response is {exact} bytes, over the cap of {cap} bytes"),
        ));
    }
    Ok(Some(exact))
}

/// Writes the framed response into `out` only if it fits in `cap` bytes.
///
/// # Errors
///
/// See [`check_size`]; nothing is written then.
pub fn frame_capped<W: Sink + ?Sized>(
    id: &Id,
    response: &ToolResponse<'_>,
    protocol: Protocol,
    cap: usize,
    out: &mut W,
) -> Result<()> {
    check_size(id, response, protocol, cap)?;
    frame(id, response, protocol, out);
    Ok(())
}

/// An upper bound of the framed message size, computed without encoding.
pub fn framed_len_bound(id: &Id, response: &ToolResponse<'_>) -> usize {
    let id_len = match id {
        Id::Number(n) => n.len(),
        Id::String(s) => 7 * s.len() + 2,
    };
    // `{"jsonrpc":"2.0","id":…,"result":{"content":[…],"isError":false,"resultType":"complete"}}`
    let mut bound = 128 + id_len;
    for i in 0..response.block_count() {
        bound += 32 + response.block_len_bound(i);
    }
    if response.is_structured() {
        // structuredContent repeats the data (compact JSON, unescaped, maybe wrapped).
        bound += 32 + response.block_len_bound(0);
    }
    bound
}

#[cfg(feature = "tokio")]
pub use self::tokio_stream::{FrameStream, StreamOptions, stream_frame};

#[cfg(feature = "tokio")]
mod tokio_stream {
    use std::pin::Pin;
    use std::task::{Context, Poll};

    use bytes::Bytes;
    use tokio::sync::mpsc;

    use super::{ChunkedSink, DEFAULT_MAX_MESSAGE_BYTES, check_size};
    use crate::error::Result;
    use crate::frame::{Id, Protocol, frame};
    use crate::wire::ToolResponse;

    /// Options of [`stream_frame`].
    #[derive(Clone, Debug)]
    pub struct StreamOptions {
        /// Bytes per chunk (default 256 KiB).
        pub chunk_bytes: usize,
        /// Chunks buffered ahead of the reader (default 4): bounds memory when it is slow.
        pub chunks_ahead: usize,
        /// The message size cap (default 16 MiB); `usize::MAX` for none.
        pub max_message_bytes: usize,
        /// The negotiated protocol.
        pub protocol: Protocol,
    }

    impl Default for StreamOptions {
        fn default() -> Self {
            StreamOptions {
                chunk_bytes: 256 << 10,
                chunks_ahead: 4,
                max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
                protocol: Protocol::default(),
            }
        }
    }

    /// The chunks of one framed response, in order. An `Err` can only come first (validation
    /// and the size cap run before the first byte); dropping the stream stops the encoder.
    pub struct FrameStream {
        rx: mpsc::Receiver<Result<Bytes>>,
    }

    impl futures_core::Stream for FrameStream {
        type Item = Result<Bytes>;

        fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
            self.rx.poll_recv(cx)
        }
    }

    /// Builds and frames a response on a blocking thread, streaming it in chunks.
    ///
    /// `build` gets the input bytes and returns the response (usually parsing them and
    /// handing the document to the response as [`Data::Doc`](crate::wire::Data::Doc)).
    /// Everything that can fail — `build` itself and the size cap — happens before the first
    /// chunk; a failure is the stream's only item.
    pub fn stream_frame<F>(input: Bytes, id: Id, opts: StreamOptions, build: F) -> FrameStream
    where
        F: for<'a> FnOnce(&'a [u8]) -> Result<ToolResponse<'a>> + Send + 'static,
    {
        let (tx, rx) = mpsc::channel(opts.chunks_ahead.max(1));
        tokio::task::spawn_blocking(move || {
            let response = match build(&input)
                .and_then(|r| check_size(&id, &r, opts.protocol, opts.max_message_bytes).map(|_| r))
            {
                Ok(r) => r,
                Err(e) => {
                    let _ = tx.blocking_send(Err(e));
                    return;
                }
            };
            let mut sink = ChunkedSink::new(opts.chunk_bytes, |chunk| {
                tx.blocking_send(Ok(chunk)).is_ok()
            });
            frame(&id, &response, opts.protocol, &mut sink);
            sink.finish();
        });
        FrameStream { rx }
    }
}
