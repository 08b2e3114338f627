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

use serde_json::{Value, json};
use toolwire::Sink;
use toolwire::frame::{Id, Protocol};

use crate::collection::Server;
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
    protocol: Protocol,
    arguments: Option<Value>,
    /// `params._meta.progressToken`.
    pub(crate) progress_token: Option<Value>,
}

impl CallJob {
    /// Writes the result into `out` (nothing when cancelled before the first byte).
    pub(crate) fn run<'a, S: Sink + ?Sized>(
        &self,
        cancel: &'a Arc<AtomicBool>,
        progress: Option<&'a mut (dyn FnMut(u64, u64) + 'a)>,
        out: &mut S,
    ) -> Outcome {
        let coll = &self.server.collections[self.tool];
        let mut hooks = Hooks { progress, cancel };
        respond::tools_call(
            &self.server,
            coll,
            &self.id,
            self.protocol,
            self.arguments.as_ref(),
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

    /// The tool's name, for logs.
    pub(crate) fn tool_name(&self) -> &str {
        &self.server.collections[self.tool].name
    }
}

fn line(v: &Value) -> Vec<u8> {
    let mut b = serde_json::to_vec(v).unwrap_or_default();
    b.push(b'\n');
    b
}

/// A JSON-RPC error line.
pub(crate) fn error_line(id: &Value, code: i64, message: &str, data: Option<Value>) -> Vec<u8> {
    let mut err = json!({"code": code, "message": message});
    if let Some(d) = data {
        err["data"] = d;
    }
    line(&json!({"jsonrpc": "2.0", "id": id, "error": err}))
}

fn error(id: &Value, code: i64, message: &str) -> Reply {
    Reply::Line {
        bytes: error_line(id, code, message, None),
        status: 200,
    }
}

fn server_info() -> Value {
    json!({"name": "toolwire", "version": env!("CARGO_PKG_VERSION")})
}

const INSTRUCTIONS: &str = "Each tool is one collection. Call it with action 'list' (where, offset, limit, format, _select) to page through rows, or 'get' with an id for one row. When rows remain, the response says the exact next call.";

/// Handles one message.
pub(crate) fn handle(server: &Arc<Server>, msg: &[u8], ctx: &mut Context) -> Reply {
    let v: Value = match serde_json::from_slice(msg) {
        Ok(v) => v,
        Err(e) => return error(&Value::Null, PARSE_ERROR, &format!("Parse error: {e}")),
    };
    let Value::Object(obj) = &v else {
        let what = if v.is_array() {
            "Invalid Request: batches are not supported"
        } else {
            "Invalid Request: expected a JSON-RPC object"
        };
        return error(&Value::Null, INVALID_REQUEST, what);
    };
    let id = obj.get("id");
    let id_ok = matches!(id, None | Some(Value::String(_) | Value::Number(_)));
    let echo_id = if id_ok {
        id.cloned().unwrap_or(Value::Null)
    } else {
        Value::Null
    };
    if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") || !id_ok {
        return error(
            &echo_id,
            INVALID_REQUEST,
            "Invalid Request: expected jsonrpc \"2.0\" and a string or number id",
        );
    }
    let Some(method) = obj.get("method") else {
        if obj.contains_key("result") || obj.contains_key("error") {
            // A response from the client: this server sends no requests, nothing to match.
            return Reply::None;
        }
        return error(&echo_id, INVALID_REQUEST, "Invalid Request: no method");
    };
    let Some(method) = method.as_str() else {
        return error(
            &echo_id,
            INVALID_REQUEST,
            "Invalid Request: method must be a string",
        );
    };
    let params = obj.get("params");
    if params.is_some_and(|p| !p.is_object()) {
        return error(
            &echo_id,
            INVALID_PARAMS,
            "Invalid params: expected an object",
        );
    }
    let Some(id) = id else {
        // A notification: never answered.
        if method == "notifications/cancelled" {
            if let Some(r) = params.and_then(|p| p.get("requestId")) {
                return Reply::Cancel(r.to_string());
            }
        }
        return Reply::None;
    };
    // The request's revision: `_meta` (stateless), else the transport's.
    let meta = params.and_then(|p| p.get("_meta"));
    let meta_version = meta
        .and_then(|m| m.get(META_VERSION))
        .and_then(Value::as_str);
    if let (Some(m), Some(h)) = (meta_version, ctx.header_version.as_deref()) {
        if m != h {
            return Reply::Line {
                bytes: error_line(
                    id,
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
                        id,
                        UNSUPPORTED_PROTOCOL_VERSION,
                        &format!("Unsupported protocol version: {r}"),
                        Some(json!({"supported": SUPPORTED, "requested": r})),
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
            bytes: line(&json!({"jsonrpc": "2.0", "id": id, "result": r})),
            status: 200,
        }
    };
    match method {
        "initialize" => {
            let asked = params
                .and_then(|p| p.get("protocolVersion"))
                .and_then(Value::as_str)
                .unwrap_or(DEFAULT_REVISION);
            let chosen = HANDSHAKE_REVISIONS
                .iter()
                .copied()
                .find(|r| *r == asked)
                .unwrap_or(HANDSHAKE_REVISIONS[0]);
            ctx.negotiated = Some(chosen.to_owned());
            Reply::Line {
                bytes: line(&json!({"jsonrpc": "2.0", "id": id, "result": {
                    "protocolVersion": chosen,
                    "capabilities": {"tools": {"listChanged": false}},
                    "serverInfo": server_info(),
                    "instructions": INSTRUCTIONS,
                }})),
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
            let name = params.and_then(|p| p.get("name")).and_then(Value::as_str);
            let Some(name) = name else {
                return error(
                    id,
                    INVALID_PARAMS,
                    "Invalid params: tools/call needs a name",
                );
            };
            let Some(tool) = server.collections.iter().position(|c| c.name == name) else {
                let shown = toolwire::wire::you_sent_string(name);
                return error(id, INVALID_PARAMS, &format!("Unknown tool: {shown}"));
            };
            let job_id = match id {
                Value::Number(n) => Id::Number(n.to_string()),
                Value::String(s) => Id::String(s.clone()),
                _ => Id::Number("0".into()),
            };
            Reply::Call(Box::new(CallJob {
                server: server.clone(),
                tool,
                id: job_id,
                key: id.to_string(),
                protocol: Protocol::from_revision(&revision),
                arguments: params.and_then(|p| p.get("arguments")).cloned(),
                progress_token: meta.and_then(|m| m.get("progressToken")).cloned(),
            }))
        }
        _ => error(
            id,
            METHOD_NOT_FOUND,
            &format!("Method not found: {}", cut(method)),
        ),
    }
}

fn cut(s: &str) -> String {
    s.chars().take(64).collect()
}
