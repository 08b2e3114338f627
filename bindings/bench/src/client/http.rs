//! The streamable HTTP transport: one `POST` per message over a pooled HTTP/1 client.
//!
//! The body is read frame by frame as it arrives: an `application/json` body is the response
//! message (its first byte is the first body byte); a `text/event-stream` is parsed into
//! events, and the one that answers the request is the response (its first byte is the first
//! byte of that event). Plain `http://` only: the bench measures servers on this machine or
//! its network, where TLS would only add its own cost to every figure.

use std::sync::Mutex;
use std::time::Instant;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::header::{self, HeaderValue};
use hyper::{Method, Request, Uri};
use hyper_util::client::legacy::Client as Pool;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde_json::Value;

use super::{Arrival, ClientError, one_line, unframed_len};

/// The largest response body read (a server that streams forever is cut here).
const MAX_BODY: usize = 512 << 20;

pub(crate) struct Http {
    uri: Uri,
    pool: Pool<HttpConnector, Full<Bytes>>,
    protocol: Option<HeaderValue>,
    session: Mutex<Option<HeaderValue>>,
    accept: &'static str,
}

impl Http {
    pub(crate) fn new(url: &str, sse_only: bool) -> Result<Http, ClientError> {
        let uri: Uri = url
            .parse()
            .map_err(|e| ClientError::Transport(format!("--http {url:?}: not a URL ({e})")))?;
        if uri.scheme_str() != Some("http") || uri.host().is_none() {
            return Err(ClientError::Transport(format!(
                "--http {url:?}: expected http://HOST:PORT/PATH"
            )));
        }
        let mut connector = HttpConnector::new();
        connector.set_nodelay(true);
        let pool = Pool::builder(TokioExecutor::new()).build(connector);
        Ok(Http {
            uri,
            pool,
            protocol: None,
            session: Mutex::new(None),
            accept: if sse_only {
                "text/event-stream"
            } else {
                "application/json, text/event-stream"
            },
        })
    }

    /// The `MCP-Protocol-Version` header every later request carries.
    pub(crate) fn set_protocol(&mut self, v: Option<&str>) {
        self.protocol = v.and_then(|v| HeaderValue::from_str(v).ok());
    }

    /// Posts one message. For a request (`id`), returns its response as it arrived; for a
    /// notification, `None` once the server accepted it.
    pub(crate) async fn post(
        &self,
        body: Vec<u8>,
        id: Option<u64>,
    ) -> Result<Option<Arrival>, ClientError> {
        let mut req = Request::builder()
            .method(Method::POST)
            .uri(self.uri.clone())
            .header(header::CONTENT_TYPE, "application/json")
            .header(header::ACCEPT, self.accept);
        if let Some(v) = &self.protocol {
            req = req.header("mcp-protocol-version", v.clone());
        }
        if let Some(s) = self
            .session
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
        {
            req = req.header("mcp-session-id", s);
        }
        let req = req
            .body(Full::new(Bytes::from(body)))
            .map_err(|e| ClientError::Protocol(e.to_string()))?;
        let resp = self.pool.request(req).await.map_err(|e| {
            ClientError::Transport(format!("POST {}: {}", self.uri, error_chain(&e)))
        })?;
        if let Some(s) = resp.headers().get("mcp-session-id") {
            *self.session.lock().unwrap_or_else(|p| p.into_inner()) = Some(s.clone());
        }
        let status = resp.status();
        let sse = resp
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.trim_start().starts_with("text/event-stream"));
        let mut body = resp.into_body();
        let mut events = Sse::default();
        let mut whole: Vec<u8> = Vec::new();
        let mut first: Option<Instant> = None;
        loop {
            let frame = match body.frame().await {
                None => break,
                Some(Ok(f)) => f,
                Some(Err(e)) => {
                    return Err(ClientError::Transport(format!(
                        "POST {}: the response body broke off: {}",
                        self.uri,
                        error_chain(&e)
                    )));
                }
            };
            let Ok(data) = frame.into_data() else {
                continue;
            };
            let now = Instant::now();
            if sse && status.is_success() {
                if let Some(a) = events.feed(&data, now, id)? {
                    return Ok(Some(a));
                }
            } else {
                first.get_or_insert(now);
                whole.extend_from_slice(&data);
            }
            if whole.len() + events.buf.len() > MAX_BODY {
                return Err(ClientError::Protocol(format!(
                    "POST {}: a response body over {MAX_BODY} bytes",
                    self.uri
                )));
            }
        }
        let last = Instant::now();
        if id.is_none() {
            return if status.is_success() {
                Ok(None)
            } else {
                Err(ClientError::Protocol(format!(
                    "POST {}: HTTP {status} to a notification: {}",
                    self.uri,
                    one_line(&String::from_utf8_lossy(&whole), 200)
                )))
            };
        }
        if sse && status.is_success() {
            // The stream ended without the response.
            return Ok(None);
        }
        // A JSON-RPC message, even on an error status (some servers answer a bad request
        // with a JSON-RPC error and HTTP 400): that is the response.
        match serde_json::from_slice::<Value>(&whole) {
            Ok(message) if message.get("result").is_some() || message.get("error").is_some() => {
                Ok(Some(Arrival {
                    bytes: unframed_len(&whole),
                    message,
                    first: first.unwrap_or(last),
                    last,
                }))
            }
            _ => Err(ClientError::Protocol(format!(
                "POST {}: HTTP {status}: {}",
                self.uri,
                one_line(&String::from_utf8_lossy(&whole), 200)
            ))),
        }
    }
}

/// The error and its sources on one line (hyper's own message is terse).
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(c) = cur {
        s.push_str(": ");
        s.push_str(&c.to_string());
        cur = c.source();
    }
    one_line(&s, 300)
}

/// An incremental `text/event-stream` parser that times each event's first byte.
#[derive(Default)]
struct Sse {
    /// Bytes of the current, incomplete line.
    buf: Vec<u8>,
    /// The current event's `data` lines, joined by LF.
    data: Vec<u8>,
    has_data: bool,
    /// When the current event's first byte arrived.
    first: Option<Instant>,
}

impl Sse {
    fn feed(
        &mut self,
        mut chunk: &[u8],
        now: Instant,
        id: Option<u64>,
    ) -> Result<Option<Arrival>, ClientError> {
        while !chunk.is_empty() {
            if self.first.is_none() {
                self.first = Some(now);
            }
            let Some(i) = chunk.iter().position(|&b| b == b'\n') else {
                self.buf.extend_from_slice(chunk);
                break;
            };
            self.buf.extend_from_slice(&chunk[..i]);
            chunk = &chunk[i + 1..];
            let mut line = std::mem::take(&mut self.buf);
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            if line.is_empty() {
                // End of an event.
                let first = self.first.take().unwrap_or(now);
                if std::mem::take(&mut self.has_data) {
                    let data = std::mem::take(&mut self.data);
                    if let Some(a) = answer(data, id, first, now) {
                        return Ok(Some(a));
                    }
                }
                continue;
            }
            if let Some(rest) = line.strip_prefix(b"data:") {
                let rest = rest.strip_prefix(b" ").unwrap_or(rest);
                if self.has_data {
                    self.data.push(b'\n');
                }
                self.data.extend_from_slice(rest);
                self.has_data = true;
            }
            // `event:`, `id:`, `retry:` and comments carry nothing the bench measures.
        }
        Ok(None)
    }
}

/// The event's data as the response to `id`, when it is one.
fn answer(data: Vec<u8>, id: Option<u64>, first: Instant, last: Instant) -> Option<Arrival> {
    let message: Value = serde_json::from_slice(&data).ok()?;
    if message.get("method").is_some() {
        return None;
    }
    if id.is_some() && message.get("id").and_then(Value::as_u64) != id {
        return None;
    }
    Some(Arrival {
        bytes: unframed_len(&data),
        message,
        first,
        last,
    })
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::Sse;

    /// Feeds `chunks` (each arriving 1 s after the previous) and returns the answer to id 3:
    /// its bytes, its message, and which chunk its first byte came in.
    fn feed(chunks: &[&str]) -> Option<(usize, serde_json::Value, u64)> {
        let t0 = Instant::now();
        let mut sse = Sse::default();
        for (i, c) in chunks.iter().enumerate() {
            let now = t0 + Duration::from_secs(i as u64);
            if let Some(a) = sse.feed(c.as_bytes(), now, Some(3)).unwrap() {
                return Some((a.bytes, a.message, (a.first - t0).as_secs()));
            }
        }
        None
    }

    #[test]
    fn the_answering_event_is_found_and_timed_across_chunks() {
        let progress = "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n";
        let other = "data: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n\n";
        let (bytes, msg, first) = feed(&[
            progress,
            other,
            ": a comment\r\nevent: message\r\nda",
            "ta: {\"jsonrpc\":\"2.0\",\"id\":3,",
            "\"result\":{\"content\":[]}}\r\n\r\n",
        ])
        .unwrap();
        assert_eq!(msg["id"], 3);
        assert_eq!(
            bytes,
            r#"{"jsonrpc":"2.0","id":3,"result":{"content":[]}}"#.len()
        );
        // The event began in the third chunk (its comment line is part of it).
        assert_eq!(first, 2);
        // Several data lines join with LF; an event without the answer is not one.
        let (bytes, msg, _) = feed(&[
            "data: {\"jsonrpc\":\"2.0\",\n",
            "data: \"id\":3,\"result\":{}}\n\n",
        ])
        .unwrap();
        assert_eq!(msg["result"], serde_json::json!({}));
        assert_eq!(
            bytes,
            "{\"jsonrpc\":\"2.0\",\n\"id\":3,\"result\":{}}".len()
        );
        assert!(feed(&[progress, other]).is_none());
        // An unterminated event is not delivered.
        assert!(feed(&["data: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\n"]).is_none());
    }
}
