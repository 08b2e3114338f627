//! The JSON-RPC dispatcher both transports share (SERVE.md §3).
//!
//! Requests are parsed with serde_json (they are small); every reply except a `tools/call`
//! result is a small serde_json line. A `tools/call` becomes a [`CallJob`] that the transport
//! runs on a blocking thread, writing its result through `respond` into the transport's sink.
//!
//! Revisions: `2025-06-18` and `2025-11-25` through the `initialize` handshake (the client's
//! revision when supported, else the newest), and the stateless `2026-07-28`: no handshake,
//! each request names its revision in `_meta["io.modelcontextprotocol/protocolVersion"]`,
//! `server/discover` describes the server, every result carries `resultType`.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use serde_json::value::RawValue;
use serde_json::{Value, json};
use toolwire::Sink;
use toolwire::frame::{Id, Protocol};

use crate::args::Sent;
use crate::collection::Server;
use crate::message::{self, Members, NotMembers};
use crate::respond::{self, Hooks, Outcome};

/// The revisions `initialize` negotiates, newest first.
pub(crate) const HANDSHAKE_REVISIONS: [&str; 2] = ["2025-11-25", "2025-06-18"];
/// The stateless revision.
pub(crate) const STATELESS_REVISION: &str = "2026-07-28";
/// Every supported revision, newest first (`server/discover`).
pub(crate) const SUPPORTED: [&str; 3] = [STATELESS_REVISION, "2025-11-25", "2025-06-18"];
/// The revision of a request that names none (stdio before `initialize`, HTTP without the
/// `MCP-Protocol-Version` header).
pub(crate) const DEFAULT_REVISION: &str = "2025-11-25";
/// `_meta` key of the stateless revision's per-request protocol version.
const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";

/// JSON-RPC error codes.
pub(crate) const PARSE_ERROR: i64 = -32700;
pub(crate) const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;
const INTERNAL_ERROR: i64 = -32603;
const HEADER_MISMATCH: i64 = -32020;
const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

/// What the transport knows about the request.
#[derive(Default)]
pub(crate) struct Context {
    /// stdio: the revision `initialize` negotiated.
    pub(crate) negotiated: Option<String>,
    /// HTTP: the `MCP-Protocol-Version` header.
    pub(crate) header_version: Option<String>,
}

/// What to do with one incoming message.
pub(crate) enum Reply {
    /// Nothing to send (a notification, or a response from the client).
    None,
    /// One complete message line; `status` is the HTTP status it goes with.
    Line { bytes: Vec<u8>, status: u16 },
    /// `notifications/cancelled` for the request with this id (its JSON text).
    Cancel(String),
    /// A `tools/call` to run on a blocking thread.
    Call(Box<CallJob>),
}

/// A `tools/call` ready to run.
pub(crate) struct CallJob {
    server: Arc<Server>,
    tool: usize,
    id: Id,
    /// The request id's JSON text, the key `notifications/cancelled` names.
    pub(crate) key: String,
    /// The request id as the client wrote it (a reply that is not the result echoes it).
    pub(crate) raw_id: Box<RawValue>,
    protocol: Protocol,
    arguments: Sent,
    /// `params._meta.progressToken`.
    pub(crate) progress_token: Option<Value>,
}

impl CallJob {
    /// Reads ahead on the server's runtime what the call needs from its database, when its
    /// client is asynchronous ([`respond::prefetch`]); `None`: the call reads on its blocking
    /// thread.
    pub(crate) async fn prefetch(&self) -> Option<respond::Prefetched> {
        let coll = &self.server.collections[self.tool];
        respond::prefetch(&self.server, coll, &self.id, self.protocol, &self.arguments).await
    }

    /// Writes the result into `out` (nothing when cancelled before the first byte), with
    /// what [`prefetch`](Self::prefetch) read, if it ran.
    pub(crate) fn run<'a, S: Sink + ?Sized>(
        &self,
        cancel: &'a Arc<AtomicBool>,
        progress: Option<&'a mut (dyn FnMut(u64, u64) + 'a)>,
        prefetched: Option<respond::Prefetched>,
        out: &mut S,
    ) -> Outcome {
        let coll = &self.server.collections[self.tool];
        let mut hooks = Hooks {
            progress,
            cancel,
            prefetched,
        };
        respond::tools_call(
            &self.server,
            coll,
            &self.id,
            self.protocol,
            &self.arguments,
            &mut hooks,
            out,
        )
    }

    /// The `notifications/progress` line for `done` of `total` rows.
    pub(crate) fn progress_line(&self, done: u64, total: u64) -> Option<Vec<u8>> {
        let token = self.progress_token.as_ref()?;
        let msg = json!({
            "jsonrpc": "2.0",
            "method": "notifications/progress",
            "params": {"progressToken": token, "progress": done, "total": total,
                       "message": format!("{done} of {total} rows")}
        });
        Some(line(&msg))
    }

    /// The server's message cap (`None`: none).
    pub(crate) fn cap(&self) -> Option<usize> {
        self.server.cap
    }

    /// The tool's name, for logs.
    pub(crate) fn tool_name(&self) -> &str {
        &self.server.collections[self.tool].name
    }
}

/// The members of `params` the server reads (besides `tools/call`'s `arguments`).
const USED_PARAMS: [&str; 4] = ["_meta", "name", "protocolVersion", "requestId"];

/// The longest request id answered as sent, in bytes of its JSON text: every error reply
/// echoing it stays far below the smallest message cap (`MIN_CAP`). A longer id is an
/// Invalid Request answered on `id: null`.
pub(crate) const MAX_ID_BYTES: usize = 1024;

/// One reply line: `{"jsonrpc":"2.0","id":ID,"KEY":BODY}` + LF, the id written as the
/// client sent it (its raw JSON text) or `null`.
fn envelope(id: Option<&RawValue>, key: &str, body: &Value) -> Vec<u8> {
    let body = serde_json::to_vec(body).unwrap_or_default();
    let id = id.map_or("null", RawValue::get);
    let mut b = Vec::with_capacity(40 + id.len() + key.len() + body.len());
    b.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    b.extend_from_slice(id.as_bytes());
    b.extend_from_slice(b",\"");
    b.extend_from_slice(key.as_bytes());
    b.extend_from_slice(b"\":");
    b.extend_from_slice(&body);
    b.extend_from_slice(b"}\n");
    b
}

fn line(v: &Value) -> Vec<u8> {
    let mut b = serde_json::to_vec(v).unwrap_or_default();
    b.push(b'\n');
    b
}

/// A JSON-RPC error line on `id` (`None`: `null`).
pub(crate) fn error_line(
    id: Option<&RawValue>,
    code: i64,
    message: &str,
    data: Option<Value>,
) -> Vec<u8> {
    let mut err = json!({"code": code, "message": message});
    if let Some(d) = data {
        err["data"] = d;
    }
    envelope(id, "error", &err)
}

/// The JSON-RPC error code of a call over the bound on calls in flight.
const BUSY: i64 = -32000;

/// The answer to a call over the bound of `max` calls in flight (stdio), on its id.
pub(crate) fn busy_line(job: &CallJob, max: usize) -> Vec<u8> {
    error_line(
        Some(&job.raw_id),
        BUSY,
        &format!("Server busy: {max} calls are in flight; call again once one has been answered"),
        None,
    )
}

fn error(id: Option<&RawValue>, code: i64, message: &str) -> Reply {
    Reply::Line {
        bytes: error_line(id, code, message, None),
        status: 200,
    }
}

fn server_info() -> Value {
    json!({"name": "toolwire", "version": env!("CARGO_PKG_VERSION")})
}

const INSTRUCTIONS: &str = "Each tool is one collection. Call it with action 'list' (where, limit, format, _select) to page through rows, or 'get' with an id for one row. Every result fits your token budget: when rows remain, the response names the exact next call, with a cursor.";

/// A request id as sent: its raw text (echoed as is) and the key `notifications/cancelled`
/// names it by.
struct RequestId<'a> {
    raw: &'a RawValue,
    /// A string id decoded, `None` for a number.
    text: Option<String>,
}

impl RequestId<'_> {
    /// The id's canonical JSON text (what a `requestId` equal to it is written as).
    fn key(&self) -> String {
        match &self.text {
            Some(s) => Value::String(s.clone()).to_string(),
            None => self.raw.get().to_owned(),
        }
    }
}

/// Checks a request's `id`: a string (valid Unicode) or a number, at most [`MAX_ID_BYTES`].
/// `Err` is the Invalid Request reply, on the id when it can be echoed.
fn request_id(raw: &RawValue) -> Result<RequestId<'_>, Reply> {
    let text = raw.get();
    let invalid = |id: Option<&RawValue>, why: &str| {
        error(id, INVALID_REQUEST, &format!("Invalid Request: {why}"))
    };
    if text.len() > MAX_ID_BYTES {
        return Err(invalid(
            None,
            &format!(
                "the id is {} bytes of JSON; at most {MAX_ID_BYTES}",
                text.len()
            ),
        ));
    }
    match text.as_bytes()[0] {
        b'"' => match serde_json::from_str::<String>(text) {
            Ok(s) => Ok(RequestId { raw, text: Some(s) }),
            Err(_) => Err(invalid(Some(raw), "the id must be valid Unicode")),
        },
        b'-' | b'0'..=b'9' => Ok(RequestId { raw, text: None }),
        _ => Err(invalid(
            None,
            "expected jsonrpc \"2.0\" and a string or number id",
        )),
    }
}

/// Handles one message. No reply line is longer than the server's message cap.
pub(crate) fn handle(server: &Arc<Server>, msg: &[u8], ctx: &mut Context) -> Reply {
    let (reply, id) = dispatch(server, msg, ctx);
    match (reply, server.cap) {
        (Reply::Line { bytes, status }, Some(cap)) if bytes.len() > cap => {
            let message = format!(
                "Internal error: the reply is {} bytes, over this server's message cap of {cap} bytes",
                bytes.len()
            );
            let mut bytes = error_line(id.as_deref(), INTERNAL_ERROR, &message, None);
            if bytes.len() > cap {
                bytes = error_line(None, INTERNAL_ERROR, &message, None);
            }
            Reply::Line { bytes, status }
        }
        (reply, _) => reply,
    }
}

/// [`handle`] without the cap, with the request's id (when one was read) for the reply that
/// replaces a line over the cap.
fn dispatch(server: &Arc<Server>, msg: &[u8], ctx: &mut Context) -> (Reply, Option<Box<RawValue>>) {
    let Ok(text) = std::str::from_utf8(msg) else {
        let reply = error(None, PARSE_ERROR, "Parse error: the message is not UTF-8");
        return (reply, None);
    };
    let obj = match message::members(text) {
        Ok(m) => m,
        Err(NotMembers::NotObject { array }) => {
            let what = if array {
                "Invalid Request: batches are not supported"
            } else {
                "Invalid Request: expected a JSON-RPC object"
            };
            return (error(None, INVALID_REQUEST, what), None);
        }
        Err(NotMembers::Syntax { reason, id }) => {
            // Answer on the id when it was read before the error and is one.
            let id = id.filter(|raw| request_id(raw).is_ok());
            let reply = error(
                id.as_deref(),
                PARSE_ERROR,
                &format!("Parse error: {reason}"),
            );
            return (reply, id);
        }
    };
    let id = match obj.get("id").map(request_id) {
        None => None,
        Some(Ok(id)) => Some(id),
        Some(Err(reply)) => return (reply, None),
    };
    let reply = request(server, &obj, id.as_ref(), ctx);
    (reply, id.map(|i| i.raw.to_owned()))
}

/// A message whose members are read and whose id (if any) is valid.
fn request(
    server: &Arc<Server>,
    obj: &Members<'_>,
    id_read: Option<&RequestId<'_>>,
    ctx: &mut Context,
) -> Reply {
    let echo = id_read.map(|i| i.raw);
    if obj.get("jsonrpc").map(RawValue::get) != Some("\"2.0\"") {
        return error(
            echo,
            INVALID_REQUEST,
            "Invalid Request: expected jsonrpc \"2.0\" and a string or number id",
        );
    }
    let Some(method) = obj.get("method") else {
        if obj.get("result").is_some() || obj.get("error").is_some() {
            // A response from the client: this server sends no requests, nothing to match.
            return Reply::None;
        }
        return error(echo, INVALID_REQUEST, "Invalid Request: no method");
    };
    let Ok(method) = serde_json::from_str::<String>(method.get()) else {
        return error(
            echo,
            INVALID_REQUEST,
            "Invalid Request: method must be a string",
        );
    };
    let method = method.as_str();
    // `params`: each member decoded on its own, so one that cannot be (a lone surrogate, too
    // deep) is named instead of losing the reply.
    let (params, bad_params) = match obj.get("params") {
        None => (None, Vec::new()),
        Some(raw) if raw.get().starts_with('{') => {
            // `arguments` is checked member by member below, into validation problems; of
            // the others, only a member the server reads is an error when it cannot be.
            let mut d = message::decode_members(raw, "", Some("arguments"));
            d.bad.retain(|(name, _)| {
                let top = name.split('.').next().unwrap_or("");
                USED_PARAMS.contains(&top)
            });
            (Some((d.good, d.skipped)), d.bad)
        }
        Some(_) => {
            return error(echo, INVALID_PARAMS, "Invalid params: expected an object");
        }
    };
    let param = |k: &str| params.as_ref().and_then(|(p, _)| p.get(k));
    let Some(id_read) = id_read else {
        // A notification: never answered.
        if method == "notifications/cancelled" {
            if let Some(r) = param("requestId") {
                return Reply::Cancel(r.to_string());
            }
        }
        return Reply::None;
    };
    let id = id_read.raw;
    if let Some((name, why)) = bad_params.first() {
        return error(
            Some(id),
            INVALID_PARAMS,
            &format!("Invalid params: {}: {why}", cut(name)),
        );
    }
    // The request's revision: `_meta` (stateless), else the transport's.
    let meta = param("_meta");
    let meta_version = meta
        .and_then(|m| m.get(META_VERSION))
        .and_then(Value::as_str);
    if let (Some(m), Some(h)) = (meta_version, ctx.header_version.as_deref()) {
        if m != h {
            return Reply::Line {
                bytes: error_line(
                    Some(id),
                    HEADER_MISMATCH,
                    "the MCP-Protocol-Version header does not match _meta's protocolVersion",
                    None,
                ),
                status: 400,
            };
        }
    }
    let revision = meta_version
        .map(str::to_owned)
        .or_else(|| ctx.header_version.clone())
        .or_else(|| ctx.negotiated.clone());
    if method != "initialize" {
        if let Some(r) = &revision {
            if !SUPPORTED.contains(&r.as_str()) {
                return Reply::Line {
                    bytes: error_line(
                        Some(id),
                        UNSUPPORTED_PROTOCOL_VERSION,
                        &format!("Unsupported protocol version: {}", cut(r)),
                        Some(json!({"supported": SUPPORTED, "requested": cut(r)})),
                    ),
                    status: 400,
                };
            }
        }
    }
    let revision = revision.unwrap_or_else(|| DEFAULT_REVISION.to_owned());
    let stateless = revision.as_str() >= STATELESS_REVISION;
    let result = |mut r: Value| {
        if stateless {
            r["resultType"] = "complete".into();
        }
        Reply::Line {
            bytes: envelope(Some(id), "result", &r),
            status: 200,
        }
    };
    match method {
        "initialize" => {
            let asked = param("protocolVersion")
                .and_then(Value::as_str)
                .unwrap_or(DEFAULT_REVISION);
            let chosen = HANDSHAKE_REVISIONS
                .iter()
                .copied()
                .find(|r| *r == asked)
                .unwrap_or(HANDSHAKE_REVISIONS[0]);
            ctx.negotiated = Some(chosen.to_owned());
            Reply::Line {
                bytes: envelope(
                    Some(id),
                    "result",
                    &json!({
                        "protocolVersion": chosen,
                        "capabilities": {"tools": {"listChanged": false}},
                        "serverInfo": server_info(),
                        "instructions": INSTRUCTIONS,
                    }),
                ),
                status: 200,
            }
        }
        "server/discover" => result(json!({
            "supportedVersions": SUPPORTED,
            "capabilities": {"tools": {"listChanged": false}},
            "instructions": INSTRUCTIONS,
            "ttlMs": 3_600_000,
            "cacheScope": "private",
            "_meta": {"io.modelcontextprotocol/serverInfo": server_info()},
        })),
        "ping" => result(json!({})),
        "tools/list" => {
            let tools: Vec<Value> = server
                .collections
                .iter()
                .map(|c| {
                    serde_json::from_str(&respond::tool_json(c, server.structured))
                        .unwrap_or(Value::Null)
                })
                .collect();
            let mut r = json!({ "tools": tools });
            if stateless {
                r["ttlMs"] = 3_600_000.into();
                r["cacheScope"] = "private".into();
            }
            result(r)
        }
        "tools/call" => {
            let Some(name) = param("name").and_then(Value::as_str) else {
                return error(
                    Some(id),
                    INVALID_PARAMS,
                    "Invalid params: tools/call needs a name",
                );
            };
            let Some(tool) = server.collections.iter().position(|c| c.name == name) else {
                let shown = toolwire::wire::you_sent_string(name);
                return error(Some(id), INVALID_PARAMS, &format!("Unknown tool: {shown}"));
            };
            let progress_token = meta.and_then(|m| m.get("progressToken")).cloned();
            if let Some(t) = &progress_token {
                let len = t.to_string().len();
                if !(t.is_string() || t.is_number()) || len > MAX_ID_BYTES {
                    return error(
                        Some(id),
                        INVALID_PARAMS,
                        &format!(
                            "Invalid params: _meta.progressToken must be a string or a number of at most {MAX_ID_BYTES} bytes"
                        ),
                    );
                }
            }
            let job_id = match &id_read.text {
                Some(s) => Id::String(s.clone()),
                None => Id::Number(id.get().to_owned()),
            };
            let arguments = match params.as_ref().and_then(|(_, a)| *a) {
                None => Sent::default(),
                Some(raw) if raw.get().starts_with('{') => {
                    let d = message::decode_members(raw, "", None);
                    Sent {
                        values: Some(Value::Object(d.good)),
                        unreadable: d.bad,
                    }
                }
                Some(raw) => match message::decode(raw) {
                    Ok(v) => Sent {
                        values: Some(v),
                        unreadable: Vec::new(),
                    },
                    Err(why) => Sent {
                        values: None,
                        unreadable: vec![("arguments".to_owned(), why)],
                    },
                },
            };
            Reply::Call(Box::new(CallJob {
                server: server.clone(),
                tool,
                id: job_id,
                key: id_read.key(),
                raw_id: id.to_owned(),
                protocol: Protocol::from_revision(&revision),
                arguments,
                progress_token,
            }))
        }
        _ => error(
            Some(id),
            METHOD_NOT_FOUND,
            &format!("Method not found: {}", cut(method)),
        ),
    }
}

fn cut(s: &str) -> String {
    s.chars().take(64).collect()
}
