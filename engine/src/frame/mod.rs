//! JSON-RPC framing (WIRE.md §11): one tool response as one line of JSON-RPC 2.0.
//!
//! Block texts are written directly in their JSON-string-escaped form: each block is encoded
//! through an [`EscapingSink`] that escapes bytes on their way into the frame, so the TOON or
//! JSON text of a large collection never exists unescaped in memory.

mod stream;

pub use stream::{DEFAULT_MAX_MESSAGE_BYTES, check_size, frame_capped, framed_len_bound};
#[cfg(feature = "tokio")]
pub use stream::{FrameStream, StreamOptions, stream_frame};

use crate::escape::EscapingSink;
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
    /// An id given as text (the CLI's `--frame ID`, a log line): a JSON number when it matches
    /// `-?(0|[1-9][0-9]{0,17})`, otherwise a string.
    pub fn number_or_string(s: &str) -> Id {
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
    /// The protocol for a negotiated revision string `YYYY-MM-DD` (compared as dates); a
    /// string that is not a revision date is the default. See [`Protocol::parse`].
    pub fn from_revision(rev: &str) -> Protocol {
        Protocol::parse(rev).unwrap_or_default()
    }

    /// The protocol for an MCP revision: a calendar date written `YYYY-MM-DD` (MCP names its
    /// revisions so), compared as a date; `None` for anything else.
    ///
    /// ```
    /// use toolwire::frame::Protocol;
    /// assert_eq!(Protocol::parse("2025-11-25"), Some(Protocol::Before20260728));
    /// assert_eq!(Protocol::parse("2026-07-28"), Some(Protocol::Since20260728));
    /// assert_eq!(Protocol::parse("2027-01-01"), Some(Protocol::Since20260728));
    /// assert_eq!(Protocol::parse("garbage"), None);
    /// assert_eq!(Protocol::parse("2026-02-30"), None);
    /// ```
    pub fn parse(rev: &str) -> Option<Protocol> {
        let date = revision_date(rev)?;
        Some(if date >= (2026, 7, 28) {
            Protocol::Since20260728
        } else {
            Protocol::Before20260728
        })
    }
}

/// `(year, month, day)` of a `YYYY-MM-DD` calendar date.
fn revision_date(rev: &str) -> Option<(u32, u32, u32)> {
    let b = rev.as_bytes();
    let digits = |r: std::ops::Range<usize>| -> Option<u32> {
        let s = b.get(r)?;
        s.iter()
            .all(u8::is_ascii_digit)
            .then(|| s.iter().fold(0, |n, d| n * 10 + u32::from(d - b'0')))
    };
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let (y, m, d) = (digits(0..4)?, digits(5..7)?, digits(8..10)?);
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return None,
    };
    (1..=days).contains(&d).then_some((y, m, d))
}

/// Writes `response` as one JSON-RPC 2.0 response line (LF-terminated) into `out`.
pub fn write_frame<W: Sink + ?Sized>(
    id: &Id,
    response: &ToolResponse<'_>,
    protocol: Protocol,
    out: &mut W,
) {
    write_head(id, out);
    write_result(response, protocol, out);
    out.write(b"}\n");
}

/// `{"jsonrpc":"2.0","id":ID,"result":`.
fn write_head<W: Sink + ?Sized>(id: &Id, out: &mut W) {
    out.write(b"{\"jsonrpc\":\"2.0\",\"id\":");
    match id {
        Id::Number(n) => out.write(n.as_bytes()),
        Id::String(s) => crate::escape::write_json_string(out, s.as_bytes()),
    }
    out.write(b",\"result\":");
}

/// Writes the `CallToolResult` object alone (compact, keys `content`, `isError`,
/// `structuredContent`, `resultType` in that order, absent ones omitted).
pub fn write_result<W: Sink + ?Sized>(
    response: &ToolResponse<'_>,
    protocol: Protocol,
    out: &mut W,
) {
    out.write(b"{\"content\":[");
    write_blocks(response, 0, out);
    write_result_end(response, protocol, out);
}

/// The text blocks of `response` from `from` on, comma-separated.
fn write_blocks<W: Sink + ?Sized>(response: &ToolResponse<'_>, from: usize, out: &mut W) {
    for i in from..response.block_count() {
        if i > from {
            out.write_byte(b',');
        }
        out.write(b"{\"type\":\"text\",\"text\":\"");
        response.write_block(i, &mut EscapingSink::new(out));
        out.write(b"\"}");
    }
}

/// A `tools/call` response whose first block is written as it is made: a page read from a
/// database a batch of rows at a time goes out as it comes, and the blocks that depend on the
/// whole page (the truncation notice, the next call) are made once it has been read.
///
/// ```
/// use toolwire::frame::{Id, Protocol, StreamedResponse};
/// use toolwire::wire::{response, ui};
///
/// let mut out = Vec::new();
/// let mut s = StreamedResponse::open(&Id::Number("3".into()), &mut out);
/// s.text(b"[{\"id\":1},");
/// s.text(b"{\"id\":2}]");
/// // The blocks after the data: those of a response whose own data block stands in.
/// let rest = response(()).ui_block(ui::summary("2 shown")).build()?;
/// s.close(&rest, 1, Protocol::default());
/// let line = String::from_utf8(out)?;
/// assert!(line.starts_with(r#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"[{\"id\":1},{\"id\":2}]"},"#));
/// assert!(line.ends_with("2 shown\\n</ui_passthrough>\"}]}}\n"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct StreamedResponse<'a, W: Sink + ?Sized> {
    out: &'a mut W,
}

impl<'a, W: Sink + ?Sized> StreamedResponse<'a, W> {
    /// Writes the message up to the first block's text.
    pub fn open(id: &Id, out: &'a mut W) -> Self {
        write_head(id, out);
        out.write(b"{\"content\":[{\"type\":\"text\",\"text\":\"");
        StreamedResponse { out }
    }

    /// Appends `text` (UTF-8) to the first block, escaped into its JSON string. What the text
    /// says is the caller's: tag safety (WIRE.md §2) is the writer's that made it.
    pub fn text(&mut self, text: &[u8]) {
        EscapingSink::new(self.out).write(text);
    }

    /// Ends the first block and the message: `rest`'s blocks from `from` on follow it, then
    /// its `isError` and, from 2026-07-28, `resultType` (never `structuredContent`: a
    /// streamed block is not kept to be written twice).
    pub fn close(self, rest: &ToolResponse<'_>, from: usize, protocol: Protocol) {
        self.out.write(b"\"}");
        if from < rest.block_count() {
            self.out.write_byte(b',');
            write_blocks(rest, from, self.out);
        }
        self.out.write_byte(b']');
        write_is_error(rest, self.out);
        write_result_type(protocol, self.out);
        self.out.write(b"}}\n");
    }
}

/// `]`, `isError`, `structuredContent` and `resultType` of a result whose blocks are written,
/// and its closing brace.
fn write_result_end<W: Sink + ?Sized>(
    response: &ToolResponse<'_>,
    protocol: Protocol,
    out: &mut W,
) {
    out.write_byte(b']');
    write_is_error(response, out);
    if response.structured() == Some(crate::wire::Structured::Items) {
        if let Some(v) = response.data() {
            out.write(b",\"structuredContent\":{\"items\":");
            let one = v.as_array().is_none();
            if one {
                out.write_byte(b'[');
            }
            crate::json::write_compact(v, out);
            if one {
                out.write_byte(b']');
            }
            out.write_byte(b'}');
        }
    } else if response.is_structured() {
        if let Some(w) = response.windowed() {
            // A root array: wrapped as `{"items": [...]}` before 2026-07-28.
            out.write(b",\"structuredContent\":");
            let wrap = protocol != Protocol::Since20260728;
            if wrap {
                out.write(b"{\"items\":");
            }
            w.write(crate::wire::Format::Compact, out);
            if wrap {
                out.write_byte(b'}');
            }
        } else if let Some(v) = response.data() {
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
    write_result_type(protocol, out);
    out.write_byte(b'}');
}

fn write_is_error<W: Sink + ?Sized>(response: &ToolResponse<'_>, out: &mut W) {
    if let Some(e) = response.is_error() {
        out.write(if e {
            b",\"isError\":true"
        } else {
            b",\"isError\":false"
        });
    }
}

fn write_result_type<W: Sink + ?Sized>(protocol: Protocol, out: &mut W) {
    if protocol == Protocol::Since20260728 {
        out.write(b",\"resultType\":\"complete\"");
    }
}
