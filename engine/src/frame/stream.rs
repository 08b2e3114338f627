//! Streaming a framed response in chunks, and the message size cap (WIRE.md §11).
//!
//! The chunks come from [`ChunkedSink`](crate::sink::ChunkedSink), which freezes every full
//! buffer into a `Bytes` for a consumer while encoding continues.
//!
//! The size cap is checked before the first byte: first against a cheap upper bound of the
//! framed message (a walk over the tape, no encoding), and only when that bound exceeds the
//! cap, by framing into a counting sink. A message over the cap is rejected with an error;
//! it is never truncated.

use super::{Id, Protocol, write_frame};
use crate::error::{Category, Error, Result};
use crate::sink::{CountingSink, Sink};
use crate::wire::ToolResponse;

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
    write_frame(id, response, protocol, &mut counter);
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
    write_frame(id, response, protocol, out);
    Ok(())
}

/// An upper bound of the framed message size, computed without encoding.
pub fn framed_len_bound(id: &Id, response: &ToolResponse<'_>) -> usize {
    let id_len = match id {
        Id::Number(n) => n.len(),
        Id::String(s) => 7 * s.len() + 2,
    };
    // `{"jsonrpc":"2.0","id":…,"result":{"content":[…],"isError":false,"resultType":"complete"}}`
    // Saturating: a data block whose bound was not computed says `usize::MAX`
    // (`ResponseBuilder::size_bound`).
    let mut bound = 128 + id_len;
    for i in 0..response.block_count() {
        bound = bound
            .saturating_add(32)
            .saturating_add(response.block_len_bound(i));
    }
    if response.is_structured() {
        // structuredContent repeats the data (compact JSON, unescaped, maybe wrapped).
        bound = bound
            .saturating_add(32)
            .saturating_add(response.block_len_bound(0));
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

    use super::{DEFAULT_MAX_MESSAGE_BYTES, check_size};
    use crate::error::Result;
    use crate::frame::{Id, Protocol, write_frame};
    use crate::sink::ChunkedSink;
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
            write_frame(&id, &response, opts.protocol, &mut sink);
            sink.finish();
        });
        FrameStream { rx }
    }
}
