//! Newline-delimited JSON-RPC on stdin/stdout (SERVE.md §1): stdout carries nothing but MCP
//! messages (one writer task writes them whole, in the order their requests arrived), logs
//! go to stderr, EOF on stdin ends the server.

use std::collections::HashMap;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};

use crate::collection::Server;
use crate::respond::Outcome;
use crate::rpc::{self, Context, Reply};
use crate::stream;

/// The longest request line (as HTTP's body limit); longer ones get -32600 and are skipped.
pub(crate) const MAX_REQUEST_BYTES: usize = 4 << 20;

/// How long in-flight calls may finish after stdin closes before they are cancelled.
const EOF_GRACE: Duration = Duration::from_millis(100);

/// Messages waiting for stdout (answered or still being encoded). Past this many, stdin is
/// not read until the client reads stdout: a client that writes requests and never reads
/// the answers holds this much, not more.
const MAX_QUEUED: usize = 1024;

type InFlight = Arc<Mutex<HashMap<String, Arc<AtomicBool>>>>;

/// Reads one line of at most `max` bytes (without its LF) into `buf`. `Ok(false)` at EOF;
/// `Ok(true)` with `*too_long` set when the line was longer (the rest is skipped).
async fn read_line<R: tokio::io::AsyncBufRead + Unpin>(
    r: &mut R,
    buf: &mut Vec<u8>,
    max: usize,
    too_long: &mut bool,
) -> io::Result<bool> {
    buf.clear();
    *too_long = false;
    let mut any = false;
    loop {
        let avail = r.fill_buf().await?;
        if avail.is_empty() {
            return Ok(any);
        }
        any = true;
        let (take, done) = match memchr_lf(avail) {
            Some(i) => (i + 1, true),
            None => (avail.len(), false),
        };
        let piece = &avail[..if done { take - 1 } else { take }];
        if !*too_long {
            if buf.len() + piece.len() > max {
                *too_long = true;
                buf.clear();
            } else {
                buf.extend_from_slice(piece);
            }
        }
        r.consume(take);
        if done {
            return Ok(true);
        }
    }
}

fn memchr_lf(b: &[u8]) -> Option<usize> {
    b.iter().position(|&c| c == b'\n')
}

/// Serves until stdin closes. At most `max_calls` calls are in flight (being encoded, or
/// encoded and waiting for stdout); a call over the bound is answered at once with a
/// JSON-RPC error on its id.
pub(crate) async fn serve(server: Arc<Server>, max_calls: usize) -> io::Result<()> {
    let names: Vec<&str> = server.collections.iter().map(|c| c.name.as_str()).collect();
    eprintln!("toolwire serve: tools {} on stdio", names.join(", "));
    // One receiver per message, in request order; the writer drains each whole.
    // A call's permit travels with its receiver and is let go once its message is written:
    // a call counts against the bound until then, whether encoding or waiting for stdout.
    let (queue, mut queued) =
        mpsc::channel::<(mpsc::Receiver<Bytes>, Option<OwnedSemaphorePermit>)>(MAX_QUEUED);
    let permits = Arc::new(Semaphore::new(max_calls.max(1)));
    let writer = tokio::spawn(async move {
        let mut out = tokio::io::stdout();
        while let Some((mut rx, permit)) = queued.recv().await {
            while let Some(chunk) = rx.recv().await {
                out.write_all(&chunk).await?;
            }
            out.flush().await?;
            drop(permit);
        }
        Ok::<(), io::Error>(())
    });
    let inflight: InFlight = Arc::default();
    let mut stdin = BufReader::with_capacity(1 << 16, tokio::io::stdin());
    let mut ctx = Context::default();
    let mut buf = Vec::new();
    let mut too_long = false;
    let line_rx = |bytes: Vec<u8>| {
        let (tx, rx) = mpsc::channel(1);
        let _ = tx.try_send(Bytes::from(bytes));
        (rx, None)
    };
    while read_line(&mut stdin, &mut buf, MAX_REQUEST_BYTES, &mut too_long).await? {
        if too_long {
            let _ = queue
                .send(line_rx(rpc::error_line(
                    None,
                    rpc::INVALID_REQUEST,
                    &format!("Invalid Request: a message is at most {MAX_REQUEST_BYTES} bytes"),
                    None,
                )))
                .await;
            continue;
        }
        if buf.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match rpc::handle(&server, &buf, &mut ctx) {
            Reply::None => {}
            Reply::Line { bytes, .. } => {
                let _ = queue.send(line_rx(bytes)).await;
            }
            Reply::Cancel(key) => {
                if let Some(flag) = inflight.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
                    flag.store(true, Ordering::Relaxed);
                }
            }
            Reply::Call(job) => {
                let Ok(permit) = permits.clone().try_acquire_owned() else {
                    let _ = queue.send(line_rx(rpc::busy_line(&job, max_calls))).await;
                    continue;
                };
                let (tx, rx) = mpsc::channel::<Bytes>(8);
                let _ = queue.send((rx, Some(permit))).await;
                let cancel = Arc::new(AtomicBool::new(false));
                inflight
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(job.key.clone(), cancel.clone());
                let inflight = inflight.clone();
                tokio::task::spawn_blocking(move || {
                    let outcome = stream::run_closing(&job, &tx, &cancel);
                    if outcome == Outcome::Cancelled {
                        eprintln!(
                            "toolwire serve: call {} of {} cancelled",
                            job.key,
                            job.tool_name()
                        );
                    }
                    let mut map = inflight.lock().unwrap_or_else(|e| e.into_inner());
                    if map.get(&job.key).is_some_and(|f| Arc::ptr_eq(f, &cancel)) {
                        map.remove(&job.key);
                    }
                });
            }
        }
    }
    // EOF: calls still running get a short grace, then stop.
    let deadline = tokio::time::Instant::now() + EOF_GRACE;
    while tokio::time::Instant::now() < deadline
        && !inflight
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_empty()
    {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    for flag in inflight.lock().unwrap_or_else(|e| e.into_inner()).values() {
        flag.store(true, Ordering::Relaxed);
    }
    drop(queue);
    match tokio::time::timeout(Duration::from_secs(2), writer).await {
        Ok(Ok(Err(e))) if e.kind() != io::ErrorKind::BrokenPipe => Err(e),
        _ => Ok(()),
    }
}
