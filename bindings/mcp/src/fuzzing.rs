//! The fuzzing entry point (`fuzz/fuzz_targets/serve_request.rs`): request lines into the
//! dispatcher as the stdio transport feeds them, pipelined calls bounded and cancelled
//! calls cut and closed as stdio does, every message collected whole.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use crate::ServeArgs;
use crate::collection::{MIN_CAP, Server};
use crate::cut::Closer;
use crate::respond::Outcome;
use crate::rpc::{self, CallJob, Context, Reply};
use crate::stdio::MAX_REQUEST_BYTES;
use crate::stream::Framing;

/// Rows of the built-in collection the fuzzed server serves.
const FUZZ_ROWS: usize = 300;

/// One loaded server per `(cap, structured)`, built on first use (loading is the slow part).
fn server(cap: usize, structured: bool) -> Arc<Server> {
    type Cache = Mutex<Vec<((usize, bool), Arc<Server>)>>;
    static SERVERS: OnceLock<Cache> = OnceLock::new();
    let cache = SERVERS.get_or_init(Mutex::default);
    let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, s)) = cache.iter().find(|(k, _)| *k == (cap, structured)) {
        return s.clone();
    }
    let args = ServeArgs {
        stdio: true,
        http: None,
        collections: Vec::new(),
        presenters: Vec::new(),
        rows: FUZZ_ROWS,
        max_message_bytes: cap,
        max_tokens: 25_000,
        cursor_key_env: None,
        allow_origins: Vec::new(),
        allow_remote: false,
        auth_token_env: None,
        structured,
        max_concurrent: 1,
        statement_timeout_ms: 10_000,
        count_timeout_ms: 500,
        db_statements: 0,
        limits: crate::HttpLimits::DEFAULT,
    };
    let Ok(s) = Server::load(&args) else {
        unreachable!("the built-in collection always loads")
    };
    let s = Arc::new(s);
    cache.push(((cap, structured), s.clone()));
    s
}

/// Calls in flight at once in the fuzzed server (`--max-concurrent`): small, so inputs reach
/// the bound.
const FUZZ_INFLIGHT: usize = 4;

/// Bytes per chunk of a fuzzed call's result (the smallest the chunked sink takes), so a
/// cancellation can cut a result of the small fuzzed collection mid-message.
const FUZZ_CHUNK: usize = 1024;

/// A message in stdout's order: a reply, or a call still to run.
enum Slot {
    Line(Vec<u8>),
    Call {
        job: Box<CallJob>,
        /// Cancelled by the client: cut after this many chunks went out.
        cut_after: Option<usize>,
    },
}

/// Feeds `lines` (LF-separated JSON-RPC messages, as on stdin) to the dispatcher of a
/// server of the built-in `invoices` collection and returns every message it would write
/// to stdout, in order, each with its LF. `cap` is `--max-message-bytes` (0: no cap; other
/// values below the minimum are raised to it), `structured` is `--structured`.
///
/// Calls are pipelined as by a client that writes before it reads: they wait, in order,
/// until an empty line (the client reads stdout) or the end of the input, and past
/// [`FUZZ_INFLIGHT`] waiting calls one is answered busy, as stdio answers it. A
/// `notifications/cancelled` naming a waiting call cuts it after as many chunks of its
/// result as the notification's line length modulo 4: its line is closed by the stdio path
/// (`stream::run_closing`'s).
#[doc(hidden)]
pub fn fuzz_dispatch(lines: &[u8], cap: usize, structured: bool) -> Vec<Vec<u8>> {
    let cap = if cap == 0 { 0 } else { cap.max(MIN_CAP) };
    let server = server(cap, structured);
    let mut ctx = Context::default();
    let mut out = Vec::new();
    let mut waiting: Vec<Slot> = Vec::new();
    for line in lines.split(|&b| b == b'\n') {
        if line.is_empty() {
            run_waiting(&mut waiting, &mut out);
            continue;
        }
        if line.len() > MAX_REQUEST_BYTES {
            waiting.push(Slot::Line(rpc::error_line(
                None,
                rpc::INVALID_REQUEST,
                &format!("Invalid Request: a message is at most {MAX_REQUEST_BYTES} bytes"),
                None,
            )));
            continue;
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match rpc::handle(&server, line, &mut ctx) {
            Reply::None => {}
            Reply::Cancel(key) => {
                for slot in &mut waiting {
                    if let Slot::Call { job, cut_after } = slot {
                        if job.key == key && cut_after.is_none() {
                            *cut_after = Some(line.len() % 4);
                        }
                    }
                }
            }
            Reply::Line { bytes, .. } => waiting.push(Slot::Line(bytes)),
            Reply::Call(job) => {
                let calls = waiting
                    .iter()
                    .filter(|s| matches!(s, Slot::Call { .. }))
                    .count();
                if calls >= FUZZ_INFLIGHT {
                    waiting.push(Slot::Line(rpc::busy_line(&job, FUZZ_INFLIGHT)));
                } else {
                    waiting.push(Slot::Call {
                        job,
                        cut_after: None,
                    });
                }
            }
        }
    }
    run_waiting(&mut waiting, &mut out);
    out
}

/// Writes the waiting messages in order, running the calls (each message with its LF).
fn run_waiting(waiting: &mut Vec<Slot>, out: &mut Vec<Vec<u8>>) {
    for slot in waiting.drain(..) {
        match slot {
            Slot::Line(bytes) => out.push(bytes),
            Slot::Call { job, cut_after } => {
                let cancel = Arc::new(AtomicBool::new(false));
                let stream = std::cell::RefCell::new(Vec::new());
                let chunks = std::cell::Cell::new(0usize);
                let send = |b: bytes::Bytes| {
                    stream.borrow_mut().extend_from_slice(&b);
                    chunks.set(chunks.get() + 1);
                    if cut_after.is_some_and(|n| chunks.get() > n) {
                        cancel.store(true, Ordering::Relaxed);
                    }
                    true
                };
                let outcome = crate::stream::run_into(
                    &job,
                    None,
                    Framing::Line,
                    FUZZ_CHUNK,
                    &send,
                    &cancel,
                    Some(Closer::default()),
                );
                let stream = stream.into_inner();
                // Cancelled before its first byte: nothing goes out (the real server logs it).
                if outcome == Outcome::Cancelled && stream.is_empty() {
                    continue;
                }
                out.extend(stream.split_inclusive(|&b| b == b'\n').map(<[u8]>::to_vec));
            }
        }
    }
}

/// A server of one collection, `rows`, without a presenter: the `serve_budget` fuzz
/// target's, which checks every `list` page against the budget and the cap.
#[doc(hidden)]
pub struct FuzzList {
    server: Arc<Server>,
}

impl FuzzList {
    /// A server of the JSON array of objects `rows` as the tool `rows` under
    /// `--max-tokens max_tokens` and `--max-message-bytes cap` (0: none; others are raised
    /// to their minimum). `None` when `rows` is not a collection the server loads.
    pub fn new(rows: Vec<u8>, max_tokens: usize, cap: usize) -> Option<FuzzList> {
        let cap = if cap == 0 { 0 } else { cap.max(MIN_CAP) };
        let max_tokens = if max_tokens == 0 {
            0
        } else {
            max_tokens.max(crate::collection::MIN_TOKENS)
        };
        let coll =
            crate::collection::collection_from_bytes("rows".into(), "rows.json", rows, None, None)
                .ok()?;
        let server = Server {
            collections: vec![coll],
            cap: (cap != 0).then_some(cap),
            max_tokens: (max_tokens != 0).then_some(max_tokens),
            structured: false,
            count_timeout: std::time::Duration::from_millis(500),
        };
        Some(FuzzList {
            server: Arc::new(server),
        })
    }

    /// The reply line of `tools/call rows` with the JSON object `arguments`.
    pub fn call(&self, arguments: &[u8]) -> Vec<u8> {
        let mut line = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"rows","arguments":"#.to_vec();
        line.extend_from_slice(arguments);
        line.extend_from_slice(b"}}");
        let mut ctx = Context::default();
        match rpc::handle(&self.server, &line, &mut ctx) {
            Reply::Line { bytes, .. } => bytes,
            Reply::Call(job) => {
                let mut out = Vec::new();
                job.run(&Arc::new(AtomicBool::new(false)), None, None, &mut out);
                out
            }
            Reply::None | Reply::Cancel(_) => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    /// The harness itself: waiting calls run in order, the fifth is busy, a cancelled one is
    /// cut and closed, and replies follow in stdin's order.
    #[test]
    fn pipelined_and_cancelled_calls_come_out_in_order_each_whole() {
        let call = |id: &str, args: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"invoices","arguments":{args}}}}}"#
            )
        };
        let lines = [
            call("1", r#"{"action":"list","limit":300,"format":"pretty"}"#),
            call("2", r#"{"action":"list","limit":3}"#),
            // Line length 79 (% 4 = 3): cut after three chunks.
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#
                .to_owned(),
            call("3", r#"{"action":"get","id":"x"}"#),
            call("4", r#"{"action":"list","limit":1}"#),
            call("5", r#"{"action":"list","limit":1}"#),
            String::new(),
            r#"{"jsonrpc":"2.0","id":6,"method":"ping"}"#.to_owned(),
        ]
        .join("\n");
        let replies: Vec<Value> = super::fuzz_dispatch(lines.as_bytes(), 0, false)
            .iter()
            .map(|r| serde_json::from_slice(r).unwrap_or_else(|e| panic!("{e}")))
            .collect();
        let ids: Vec<&Value> = replies.iter().map(|r| &r["id"]).collect();
        assert_eq!(ids, [1, 2, 3, 4, 5, 6]);
        let cut = &replies[0]["result"];
        assert_eq!(cut["isError"], true);
        let blocks = cut["content"].as_array().map_or(0, Vec::len);
        let last = &cut["content"][blocks - 1]["text"];
        assert!(
            last.as_str().is_some_and(|t| t.contains("CANCELLED")),
            "{cut}"
        );
        assert!(replies[0].to_string().len() < 4 * super::FUZZ_CHUNK + 1024);
        assert_eq!(replies[1]["result"]["isError"], Value::Null);
        assert_eq!(replies[2]["result"]["isError"], true, "NOT_FOUND");
        assert_eq!(replies[4]["error"]["code"], -32000, "over the bound");
    }
}
