//! The fuzzing entry point (`fuzz/fuzz_targets/serve_request.rs`): request lines into the
//! dispatcher exactly as the stdio transport feeds them, each reply collected whole.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, OnceLock};

use crate::ServeArgs;
use crate::collection::{MIN_CAP, Server};
use crate::rpc::{self, Context, Reply};
use crate::stdio::MAX_REQUEST_BYTES;

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
        allow_origins: Vec::new(),
        allow_remote: false,
        auth_token_env: None,
        structured,
        max_concurrent: 1,
        limits: crate::HttpLimits::DEFAULT,
    };
    let Ok(s) = Server::load(&args) else {
        unreachable!("the built-in collection always loads")
    };
    let s = Arc::new(s);
    cache.push(((cap, structured), s.clone()));
    s
}

/// Feeds `lines` (LF-separated JSON-RPC messages, as on stdin) to the dispatcher of a
/// server of the built-in `invoices` collection and returns every message it would write
/// to stdout, in order, each with its LF. `cap` is `--max-message-bytes` (0: no cap; other
/// values below the minimum are raised to it), `structured` is `--structured`. Calls run
/// to completion on this thread; `notifications/cancelled` is accepted and ignored.
#[doc(hidden)]
pub fn fuzz_dispatch(lines: &[u8], cap: usize, structured: bool) -> Vec<Vec<u8>> {
    let cap = if cap == 0 { 0 } else { cap.max(MIN_CAP) };
    let server = server(cap, structured);
    let mut ctx = Context::default();
    let mut out = Vec::new();
    let never = Arc::new(AtomicBool::new(false));
    for line in lines.split(|&b| b == b'\n') {
        if line.len() > MAX_REQUEST_BYTES {
            out.push(rpc::error_line(
                &serde_json::Value::Null,
                rpc::INVALID_REQUEST,
                &format!("Invalid Request: a message is at most {MAX_REQUEST_BYTES} bytes"),
                None,
            ));
            continue;
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match rpc::handle(&server, line, &mut ctx) {
            Reply::None | Reply::Cancel(_) => {}
            Reply::Line { bytes, .. } => out.push(bytes),
            Reply::Call(job) => {
                let mut progress_lines = Vec::new();
                let mut progress = |done: u64, total: u64| {
                    if let Some(l) = job.progress_line(done, total) {
                        progress_lines.push(l);
                    }
                };
                let mut result = Vec::new();
                let with_progress = job.progress_token.is_some();
                job.run(
                    &never,
                    if with_progress {
                        Some(&mut progress)
                    } else {
                        None
                    },
                    &mut result,
                );
                out.append(&mut progress_lines);
                out.push(result);
            }
        }
    }
    out
}
