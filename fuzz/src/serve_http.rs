//! The `serve_http` oracle: arbitrary bytes as one client connection of `toolwire serve
//! --http` (`toolwire_mcp::fuzz_http`: hyper's HTTP/1 parser, the server's checks and time
//! limits, the dispatcher, streamed calls, on an in-memory pipe). Properties:
//!
//! * never a panic, never a hang (every input ends: the client shuts its side);
//! * the server writes a sequence of whole HTTP/1.1 responses (HTTP/1.0 to an HTTP/1.0
//!   request) and nothing else: a status line with a status the server sends, headers, a
//!   body framed by `Content-Length` or chunked (or none, for 202 and for hyper's own error
//!   replies; or, in HTTP/1.0, by the end of the connection);
//! * a 202 has an empty body; an `application/json` body is one JSON-RPC 2.0 message and
//!   its LF; a `text/event-stream` body is whole `event: message` events, each one JSON-RPC
//!   message.

use serde_json::Value;

/// The statuses the server sends: its own (200, 202, 400, 401, 403, 404, 405, 408, 413,
/// 503), hyper's `100 Continue` (to `Expect: 100-continue`, before the body is read) and
/// hyper's replies to heads it cannot parse (400, 414, 431, 501, 505).
const STATUSES: [u16; 15] = [
    100, 200, 202, 400, 401, 403, 404, 405, 408, 413, 414, 431, 501, 503, 505,
];

/// See the module docs.
pub fn serve_http(data: &[u8]) {
    let out = toolwire_mcp::fuzz_http(data);
    let mut rest = out.as_slice();
    while !rest.is_empty() {
        rest = check_response(rest, &out);
    }
}

/// Checks the response at the start of `at`; returns what follows it.
fn check_response<'a>(at: &'a [u8], all: &[u8]) -> &'a [u8] {
    let shown = || String::from_utf8_lossy(&all[..all.len().min(600)]).into_owned();
    let end = find(at, b"\r\n\r\n").unwrap_or_else(|| panic!("a whole head: {}", shown()));
    let head = std::str::from_utf8(&at[..end]).unwrap_or_else(|_| panic!("{}", shown()));
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or_default();
    // hyper answers an HTTP/1.0 request in HTTP/1.0.
    let http10 = status_line.starts_with("HTTP/1.0 ");
    let status: u16 = status_line
        .strip_prefix("HTTP/1.1 ")
        .or_else(|| status_line.strip_prefix("HTTP/1.0 "))
        .and_then(|s| s.get(..3))
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("a status line: {}", shown()));
    assert!(STATUSES.contains(&status), "status {status}: {}", shown());
    let (mut length, mut chunked, mut kind) = (None, false, String::new());
    for line in lines {
        let (name, value) = line
            .split_once(": ")
            .unwrap_or_else(|| panic!("a header line {line:?}: {}", shown()));
        match name.to_ascii_lowercase().as_str() {
            "content-length" => length = value.parse::<usize>().ok(),
            "transfer-encoding" => chunked = value == "chunked",
            "content-type" => kind = value.to_owned(),
            _ => {}
        }
    }
    let mut rest = &at[end + 4..];
    let body = if chunked {
        let mut body = Vec::new();
        loop {
            let eol = find(rest, b"\r\n").unwrap_or_else(|| panic!("a chunk size: {}", shown()));
            let size = std::str::from_utf8(&rest[..eol])
                .ok()
                .and_then(|s| usize::from_str_radix(s, 16).ok())
                .unwrap_or_else(|| panic!("a hex chunk size: {}", shown()));
            rest = &rest[eol + 2..];
            assert!(rest.len() >= size + 2, "a whole chunk: {}", shown());
            body.extend_from_slice(&rest[..size]);
            assert_eq!(&rest[size..size + 2], b"\r\n", "{}", shown());
            rest = &rest[size + 2..];
            if size == 0 {
                break body;
            }
        }
    } else if http10 && length.is_none() {
        // A streamed body without chunks: it ends when the connection does.
        let body = rest.to_vec();
        rest = &[];
        body
    } else {
        let n = length.unwrap_or(0);
        assert!(rest.len() >= n, "a whole body: {}", shown());
        let body = rest[..n].to_vec();
        rest = &rest[n..];
        body
    };
    if status == 202 {
        assert!(body.is_empty(), "202 has no body: {}", shown());
    }
    if kind == "application/json" {
        let line = body
            .strip_suffix(b"\n")
            .unwrap_or_else(|| panic!("a JSON body ends with LF: {}", shown()));
        check_message(line, &shown);
    } else if kind == "text/event-stream" {
        let text = std::str::from_utf8(&body).unwrap_or_else(|_| panic!("{}", shown()));
        let events = text
            .strip_suffix("\n\n")
            .unwrap_or_else(|| panic!("whole events: {}", shown()));
        for event in events.split("\n\n") {
            let data = event
                .strip_prefix("event: message\ndata: ")
                .unwrap_or_else(|| panic!("an event: {}", shown()));
            check_message(data.as_bytes(), &shown);
        }
    }
    rest
}

/// One JSON-RPC 2.0 message on one line.
fn check_message(line: &[u8], shown: &dyn Fn() -> String) {
    assert!(!line.contains(&b'\n'), "one line: {}", shown());
    let v: Value =
        serde_json::from_slice(line).unwrap_or_else(|e| panic!("JSON ({e}): {}", shown()));
    assert_eq!(v["jsonrpc"], "2.0", "{}", shown());
    let obj = v.as_object().unwrap_or_else(|| panic!("{}", shown()));
    assert!(
        obj.contains_key("method") || obj.contains_key("result") != obj.contains_key("error"),
        "a notification, a result or an error: {}",
        shown()
    );
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}
