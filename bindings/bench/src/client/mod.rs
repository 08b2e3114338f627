//! A minimal MCP client that measures what it receives: `toolwire bench`'s side of the wire.
//!
//! It exists because a benchmark needs what an SDK client hides: the exact bytes of each
//! response message and the instant its first byte arrived (docs/DECISIONS.md, "toolwire
//! bench: its own MCP client"). Two transports:
//!
//! * [`stdio`]: a child process speaking newline-delimited JSON-RPC on stdin/stdout; requests
//!   may be in flight together, responses are matched by id.
//! * [`http`]: MCP streamable HTTP, one `POST` per request over a pooled HTTP/1 client;
//!   the response is an `application/json` body or a `text/event-stream` whose message event
//!   answers the request.
//!
//! Both protocol eras, whatever the server offers: first the stateless revision
//! (`server/discover`, `2026-07-28`); when the server does not answer it with that revision,
//! the `initialize` handshake (`2025-11-25`, accepting the revision the server picks).
//!
//! *Message bytes* are the bytes of the JSON-RPC message itself, without its framing (the
//! line's LF, the SSE `data:` prefix): the same figure on every transport.

pub mod http;
pub mod stdio;

use std::fmt;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The stateless revision.
pub const STATELESS: &str = "2026-07-28";
/// The revision the handshake asks for.
pub const HANDSHAKE: &str = "2025-11-25";
/// `_meta` key of the stateless revision's per-request protocol version.
const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// At most this many `tools/list` pages are followed.
const MAX_PAGES: usize = 100;

/// Where the server is.
#[derive(Clone, Debug)]
pub enum Target {
    /// A command line (split as a POSIX shell splits words, without expansions).
    Stdio(String),
    /// A streamable HTTP endpoint, `http://HOST:PORT/PATH`.
    Http(String),
}

impl Target {
    /// `stdio` or `http`.
    pub fn transport(&self) -> &'static str {
        match self {
            Target::Stdio(_) => "stdio",
            Target::Http(_) => "http",
        }
    }
}

/// Why a request got no response.
#[derive(Debug, Clone)]
pub enum ClientError {
    /// The server could not be started or reached, or it went away (the reason says which).
    Transport(String),
    /// No response within the timeout.
    Timeout(Duration),
    /// Something came back that is not an MCP response.
    Protocol(String),
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientError::Transport(s) | ClientError::Protocol(s) => f.write_str(s),
            ClientError::Timeout(d) => write!(f, "no response within {} s", d.as_secs_f64()),
        }
    }
}

/// One response, as measured.
#[derive(Debug)]
pub struct Received {
    /// The JSON-RPC message.
    pub message: Value,
    /// Its bytes (without framing).
    pub bytes: usize,
    /// From the request's first byte written to the response's first byte read.
    pub ttfb: Duration,
    /// From the request's first byte written to the response's last byte read.
    pub latency: Duration,
}

/// Timestamps of one response message, taken by a transport as its bytes arrive.
pub(crate) struct Arrival {
    pub(crate) message: Value,
    pub(crate) bytes: usize,
    pub(crate) first: Instant,
    pub(crate) last: Instant,
}

impl Arrival {
    fn received(self, sent: Instant) -> Received {
        Received {
            message: self.message,
            bytes: self.bytes,
            ttfb: self.first.saturating_duration_since(sent),
            latency: self.last.saturating_duration_since(sent),
        }
    }
}

/// The length of a message without its trailing line break.
pub(crate) fn unframed_len(b: &[u8]) -> usize {
    let mut n = b.len();
    while n > 0 && matches!(b[n - 1], b'\n' | b'\r') {
        n -= 1;
    }
    n
}

enum Transport {
    Stdio(stdio::Stdio),
    Http(http::Http),
}

/// A connected client.
pub struct Client {
    transport: Transport,
    /// The negotiated revision.
    protocol: String,
    stateless: bool,
    next_id: std::sync::atomic::AtomicU64,
    timeout: Duration,
}

/// How to connect.
#[derive(Debug, Clone)]
pub struct Options {
    /// Every request's bound.
    pub timeout: Duration,
    /// Ask for this revision (`2026-07-28` or later: stateless only; earlier: the handshake
    /// only) instead of the newest the server offers.
    pub protocol: Option<String>,
    /// HTTP: accept only `text/event-stream` responses, as some clients do.
    pub sse_only: bool,
}

/// A tool as `tools/list` describes it.
#[derive(Debug, Clone)]
pub struct Tool {
    /// Its name.
    pub name: String,
    /// Its `inputSchema` (`null` when absent).
    pub input_schema: Value,
}

impl Tool {
    /// The values of the `format` enum its input schema offers (empty when none).
    pub fn formats(&self) -> Vec<String> {
        self.input_schema
            .pointer("/properties/format/enum")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    }
}

impl Client {
    /// Starts or reaches the server and negotiates a revision; every request is bounded by
    /// `timeout`.
    pub async fn connect(target: &Target, options: &Options) -> Result<Client, ClientError> {
        let timeout = options.timeout;
        let transport = match target {
            Target::Stdio(cmd) => Transport::Stdio(stdio::Stdio::spawn(cmd)?),
            Target::Http(url) => Transport::Http(http::Http::new(url, options.sse_only)?),
        };
        let mut client = Client {
            transport,
            protocol: STATELESS.to_owned(),
            stateless: true,
            next_id: std::sync::atomic::AtomicU64::new(1),
            timeout,
        };
        let asked = options.protocol.as_deref();
        let try_stateless = asked.is_none_or(|r| r >= STATELESS);
        if let Some(r) = asked.filter(|_| try_stateless) {
            client.protocol = r.to_owned();
        }
        client.set_header_version(Some(&client.protocol.clone()));
        let discover = if try_stateless {
            client.request("server/discover", json!({})).await
        } else {
            Err(ClientError::Protocol("the handshake was asked for".into()))
        };
        let offered = match &discover {
            Ok(r) => r
                .message
                .pointer("/result/supportedVersions")
                .and_then(Value::as_array)
                .is_some_and(|v| v.iter().any(|x| x.as_str() == Some(STATELESS))),
            // Gone, or never there: say so now rather than after a second timeout.
            Err(e @ ClientError::Transport(_)) => return Err(e.clone()),
            Err(_) => false,
        };
        if offered {
            return Ok(client);
        }
        if asked.is_some() && try_stateless {
            return Err(ClientError::Protocol(format!(
                "the server does not offer revision {} (server/discover: {})",
                client.protocol,
                match &discover {
                    Ok(r) => one_line(&r.message.to_string(), 200),
                    Err(e) => e.to_string(),
                }
            )));
        }
        // The handshake era.
        client.stateless = false;
        client.protocol = asked.unwrap_or(HANDSHAKE).to_owned();
        client.set_header_version(None);
        let r = client
            .request(
                "initialize",
                json!({
                    "protocolVersion": client.protocol,
                    "capabilities": {},
                    "clientInfo": {"name": "toolwire-bench", "version": env!("CARGO_PKG_VERSION")},
                }),
            )
            .await?;
        let Some(version) = r
            .message
            .pointer("/result/protocolVersion")
            .and_then(Value::as_str)
        else {
            return Err(ClientError::Protocol(format!(
                "initialize failed: {}",
                describe_error(&r.message)
            )));
        };
        client.protocol = version.to_owned();
        client.set_header_version(Some(version));
        client
            .notify("notifications/initialized", json!({}))
            .await?;
        Ok(client)
    }

    /// The negotiated revision.
    pub fn protocol(&self) -> &str {
        &self.protocol
    }

    fn set_header_version(&mut self, v: Option<&str>) {
        if let Transport::Http(h) = &mut self.transport {
            h.set_protocol(v);
        }
    }

    /// Sends one request and waits (at most the timeout) for its response.
    pub async fn request(&self, method: &str, mut params: Value) -> Result<Received, ClientError> {
        let id = self
            .next_id
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if self.stateless {
            if let Some(p) = params.as_object_mut() {
                let meta = p.entry("_meta").or_insert_with(|| json!({}));
                if let Some(m) = meta.as_object_mut() {
                    m.insert(META_VERSION.into(), STATELESS.into());
                }
            }
        }
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let mut line =
            serde_json::to_vec(&msg).map_err(|e| ClientError::Protocol(e.to_string()))?;
        let timeout = self.timeout;
        match &self.transport {
            Transport::Stdio(s) => {
                line.push(b'\n');
                let rx = s.register(id);
                let sent = Instant::now();
                s.send(&line).await?;
                match tokio::time::timeout(timeout, rx).await {
                    Ok(Ok(Ok(a))) => Ok(a.received(sent)),
                    Ok(Ok(Err(e))) => Err(e),
                    Ok(Err(_)) => Err(s.gone().await),
                    Err(_) => {
                        s.forget(id);
                        let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                                            "params": {"requestId": id, "reason": "timeout"}});
                        let mut c = serde_json::to_vec(&cancel).unwrap_or_default();
                        c.push(b'\n');
                        let _ = s.send(&c).await;
                        Err(ClientError::Timeout(timeout))
                    }
                }
            }
            Transport::Http(h) => {
                let sent = Instant::now();
                match tokio::time::timeout(timeout, h.post(line, Some(id))).await {
                    Ok(Ok(Some(a))) => Ok(a.received(sent)),
                    Ok(Ok(None)) => Err(ClientError::Protocol(format!(
                        "the response to {method} carried no JSON-RPC response"
                    ))),
                    Ok(Err(e)) => Err(e),
                    Err(_) => Err(ClientError::Timeout(timeout)),
                }
            }
        }
    }

    /// Sends a notification.
    pub async fn notify(&self, method: &str, params: Value) -> Result<(), ClientError> {
        let msg = json!({"jsonrpc": "2.0", "method": method, "params": params});
        let mut line =
            serde_json::to_vec(&msg).map_err(|e| ClientError::Protocol(e.to_string()))?;
        match &self.transport {
            Transport::Stdio(s) => {
                line.push(b'\n');
                s.send(&line).await
            }
            Transport::Http(h) => {
                match tokio::time::timeout(self.timeout, h.post(line, None)).await {
                    Ok(r) => r.map(|_| ()),
                    Err(_) => Err(ClientError::Timeout(self.timeout)),
                }
            }
        }
    }

    /// Every tool (`tools/list`, following `nextCursor`).
    pub async fn tools(&self) -> Result<Vec<Tool>, ClientError> {
        let mut tools = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let params = match &cursor {
                Some(c) => json!({"cursor": c}),
                None => json!({}),
            };
            let r = self.request("tools/list", params).await?;
            let Some(result) = r.message.get("result") else {
                return Err(ClientError::Protocol(format!(
                    "tools/list failed: {}",
                    describe_error(&r.message)
                )));
            };
            for t in result
                .get("tools")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if let Some(name) = t.get("name").and_then(Value::as_str) {
                    tools.push(Tool {
                        name: name.to_owned(),
                        input_schema: t.get("inputSchema").cloned().unwrap_or(Value::Null),
                    });
                }
            }
            cursor = result
                .get("nextCursor")
                .and_then(Value::as_str)
                .map(str::to_owned);
            if cursor.is_none() {
                break;
            }
        }
        Ok(tools)
    }

    /// `tools/call` of `name` with `arguments`.
    pub async fn call(&self, name: &str, arguments: &Value) -> Result<Received, ClientError> {
        self.request("tools/call", json!({"name": name, "arguments": arguments}))
            .await
    }

    /// Ends the session: closes the child's stdin and waits for it briefly (then kills it).
    pub async fn close(self) {
        if let Transport::Stdio(s) = self.transport {
            s.close().await;
        }
    }
}

/// `error.message` (and code) of a JSON-RPC error response, on one line.
pub fn describe_error(message: &Value) -> String {
    match message.get("error") {
        Some(e) => {
            let code = e.get("code").map(Value::to_string).unwrap_or_default();
            let text = e.get("message").and_then(Value::as_str).unwrap_or("");
            one_line(&format!("JSON-RPC error {code}: {text}"), 300)
        }
        None => "not a JSON-RPC response".to_owned(),
    }
}

/// `s` on one line (control characters as spaces), at most `max` characters.
pub fn one_line(s: &str, max: usize) -> String {
    let mut out: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(max)
        .collect();
    if s.chars().count() > max {
        out.push('…');
    }
    out
}
