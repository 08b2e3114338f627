//! JSON-RPC framing (WIRE.md §11): one tool response as one line of JSON-RPC 2.0.
//!
//! Block texts are written directly in their JSON-string-escaped form: each block is encoded
//! through an [`EscapingSink`] that escapes bytes on their way into the frame, so the TOON or
//! JSON text of a large collection never exists unescaped in memory.

use std::mem::MaybeUninit;

mod stream;

pub use stream::{
    ChunkedSink, CountingSink, DEFAULT_MAX_MESSAGE_BYTES, check_size, frame_capped,
    framed_len_bound,
};
#[cfg(feature = "tokio")]
pub use stream::{FrameStream, StreamOptions, stream_frame};

use crate::sink::Sink;
use crate::wire::ToolResponse;

/// The JSON-RPC request id a response answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Id {
    /// A numeric id, kept as its integer lexeme.
    Number(String),
    /// A string id.
    String(String),
}

impl Id {
    /// The id as the CLI's `--frame ID` reads it: a JSON number when it matches
    /// `-?(0|[1-9][0-9]{0,17})`, otherwise a string.
    pub fn from_cli(s: &str) -> Id {
        let digits = s.strip_prefix('-').unwrap_or(s);
        let numeric = match digits.as_bytes() {
            [b'0'] => true,
            [b'1'..=b'9', rest @ ..] => rest.len() <= 17 && rest.iter().all(u8::is_ascii_digit),
            _ => false,
        };
        if numeric {
            Id::Number(s.to_owned())
        } else {
            Id::String(s.to_owned())
        }
    }
}

/// MCP protocol revisions that change the result's shape.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum Protocol {
    /// Before 2026-07-28 (the default, `2025-11-25`): no `resultType`.
    #[default]
    Before20260728,
    /// 2026-07-28 or later: `resultType: "complete"` is written.
    Since20260728,
}

impl Protocol {
    /// The protocol for a negotiated revision string `YYYY-MM-DD` (compared as dates).
    pub fn from_revision(rev: &str) -> Protocol {
        if rev >= "2026-07-28" {
            Protocol::Since20260728
        } else {
            Protocol::Before20260728
        }
    }
}

/// A sink adapter that writes everything it receives as the body of a JSON string (quotes
/// not included) into the inner sink.
///
/// Encoders write many small pieces (a cell, a delimiter); they are gathered into a 16 KiB
/// buffer and escaped in bulk, so the per-write cost of escaping is paid once per buffer.
/// The buffer is flushed when full and when the adapter is dropped.
pub struct EscapingSink<'a, S: Sink + ?Sized> {
    inner: &'a mut S,
    buf: Vec<u8>,
    written: usize,
}

const ESCAPE_BUFFER: usize = 16 << 10;

impl<'a, S: Sink + ?Sized> EscapingSink<'a, S> {
    /// Wraps `inner`.
    pub fn new(inner: &'a mut S) -> Self {
        EscapingSink {
            inner,
            buf: Vec::with_capacity(ESCAPE_BUFFER),
            written: 0,
        }
    }

    fn flush(&mut self) {
        if !self.buf.is_empty() {
            crate::json::escape::write_json_string_body_plain(self.inner, &self.buf);
            self.buf.clear();
        }
    }
}

impl<S: Sink + ?Sized> Drop for EscapingSink<'_, S> {
    fn drop(&mut self) {
        self.flush();
    }
}

impl<S: Sink + ?Sized> Sink for EscapingSink<'_, S> {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        self.written += bytes.len();
        if bytes.len() >= ESCAPE_BUFFER {
            self.flush();
            crate::json::escape::write_json_string_body_plain(self.inner, bytes);
            return;
        }
        if self.buf.len() + bytes.len() > ESCAPE_BUFFER {
            self.flush();
        }
        self.buf.extend_from_slice(bytes);
    }

    #[inline]
    fn write_byte(&mut self, byte: u8) {
        self.written += 1;
        if self.buf.len() >= ESCAPE_BUFFER {
            self.flush();
        }
        self.buf.push(byte);
    }

    fn spare(&mut self, n: usize) -> &mut [MaybeUninit<u8>] {
        if self.buf.len() + n > ESCAPE_BUFFER {
            self.flush();
        }
        self.buf.reserve(n);
        self.buf.spare_capacity_mut()
    }

    unsafe fn advance(&mut self, n: usize) {
        debug_assert!(self.buf.len() + n <= self.buf.capacity());
        // SAFETY: the caller initialised the first `n` bytes of the spare capacity `spare`
        // returned, which starts at the buffer's length.
        unsafe { self.buf.set_len(self.buf.len() + n) };
        self.written += n;
    }

    #[inline]
    fn written(&self) -> usize {
        self.written
    }

    #[inline]
    fn cancelled(&self) -> bool {
        self.inner.cancelled()
    }
}

/// Writes `response` as one JSON-RPC 2.0 response line (LF-terminated) into `out`.
pub fn frame<W: Sink + ?Sized>(
    id: &Id,
    response: &ToolResponse<'_>,
    protocol: Protocol,
    out: &mut W,
) {
    out.write(b"{\"jsonrpc\":\"2.0\",\"id\":");
    match id {
        Id::Number(n) => out.write(n.as_bytes()),
        Id::String(s) => crate::json::escape::write_json_string(out, s.as_bytes()),
    }
    out.write(b",\"result\":");
    write_result(response, protocol, out);
    out.write(b"}\n");
}

/// Writes the `CallToolResult` object alone (compact, keys `content`, `isError`,
/// `structuredContent`, `resultType` in that order, absent ones omitted).
pub fn write_result<W: Sink + ?Sized>(
    response: &ToolResponse<'_>,
    protocol: Protocol,
    out: &mut W,
) {
    out.write(b"{\"content\":[");
    for i in 0..response.block_count() {
        if i > 0 {
            out.write_byte(b',');
        }
        out.write(b"{\"type\":\"text\",\"text\":\"");
        response.write_block(i, &mut EscapingSink::new(out));
        out.write(b"\"}");
    }
    out.write_byte(b']');
    if let Some(e) = response.is_error() {
        out.write(if e {
            b",\"isError\":true"
        } else {
            b",\"isError\":false"
        });
    }
    if response.is_structured() {
        if let Some(v) = response.data() {
            out.write(b",\"structuredContent\":");
            // Before 2026-07-28 structuredContent must be an object.
            let wrap: Option<&[u8]> = match v.get() {
                crate::ValueRef::Object(_) => None,
                _ if protocol == Protocol::Since20260728 => None,
                crate::ValueRef::Array(_) => Some(b"{\"items\":"),
                _ => Some(b"{\"value\":"),
            };
            if let Some(w) = wrap {
                out.write(w);
            }
            crate::json::write_compact(v, out);
            if wrap.is_some() {
                out.write_byte(b'}');
            }
        }
    }
    if protocol == Protocol::Since20260728 {
        out.write(b",\"resultType\":\"complete\"");
    }
    out.write_byte(b'}');
}
