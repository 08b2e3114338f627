//! Running a `tools/call` on a blocking thread, its result streamed as chunks into a channel
//! the transport drains (stdout, or an HTTP body).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use bytes::Bytes;
use tokio::sync::mpsc;
use toolwire::sink::ChunkedSink;

use crate::cut::Closer;
use crate::respond::Outcome;
use crate::rpc::CallJob;

/// Bytes per chunk handed to the transport.
pub(crate) const CHUNK: usize = 64 * 1024;

/// How a message is wrapped on its transport.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Framing {
    /// One line (stdio, or an `application/json` HTTP body).
    Line,
    /// One server-sent event per message (`text/event-stream`).
    Sse,
}

const SSE_PREFIX: &[u8] = b"event: message\ndata: ";

/// Runs `job` (with what its [`prefetch`](CallJob::prefetch) read, if it ran), sending its
/// progress notifications and then its result into `tx`. Returns
/// how it ended. A call cancelled after its first byte went out is cut: on a line framing
/// the line is ended so the next message starts on a line of its own (HTTP: the connection
/// that cancelled it is gone with the cut line).
pub(crate) fn run(
    job: &CallJob,
    prefetched: Option<crate::respond::Prefetched>,
    framing: Framing,
    tx: &mpsc::Sender<Bytes>,
    cancel: &Arc<AtomicBool>,
) -> Outcome {
    let send = |b: Bytes| tx.blocking_send(b).is_ok();
    run_into(job, prefetched, framing, CHUNK, &send, cancel, None)
}

/// [`run`] for a stream that goes on after a cut (stdio): a result cut by a cancellation is
/// closed into one valid JSON-RPC message ([`Closer`]).
pub(crate) fn run_closing(
    job: &CallJob,
    tx: &mpsc::Sender<Bytes>,
    cancel: &Arc<AtomicBool>,
) -> Outcome {
    let send = |b: Bytes| tx.blocking_send(b).is_ok();
    run_into(
        job,
        None,
        Framing::Line,
        CHUNK,
        &send,
        cancel,
        Some(Closer::default()),
    )
}

/// The text block that ends a result cut in its `content`, as a JSON string.
fn cancelled_block() -> String {
    let text = toolwire::wire::error_with_code(
        "CANCELLED",
        "The client cancelled this call while its result was being sent: the blocks above are cut and incomplete.",
    )
    .block_text(0);
    serde_json::to_string(&text).unwrap_or_default()
}

/// Runs `job` (with what its [`prefetch`](CallJob::prefetch) read, if it ran) into `send`
/// (`false`: nobody reads any more) in chunks of about `chunk` bytes. With a `closer`, a result cut after its first byte is closed into valid JSON: with
/// a `CANCELLED` block and `isError` when the cut fell in its `content` and that fits the
/// server's message cap, else with the shortest ending (never longer than the rest of the
/// message it replaces, so the cap holds).
pub(crate) fn run_into(
    job: &CallJob,
    prefetched: Option<crate::respond::Prefetched>,
    framing: Framing,
    chunk: usize,
    send: &dyn Fn(Bytes) -> bool,
    cancel: &Arc<AtomicBool>,
    closer: Option<Closer>,
) -> Outcome {
    let started = std::cell::Cell::new(false);
    let sent = std::cell::Cell::new(0usize);
    let closer_cell = std::cell::RefCell::new(closer);
    let mut sink = ChunkedSink::new(chunk, |chunk: Bytes| {
        if cancel.load(Ordering::Relaxed) {
            return false;
        }
        if !started.replace(true)
            && framing == Framing::Sse
            && !send(Bytes::from_static(SSE_PREFIX))
        {
            return false;
        }
        if let Some(c) = closer_cell.borrow_mut().as_mut() {
            c.feed(&chunk);
        }
        sent.set(sent.get() + chunk.len());
        if !send(chunk) {
            cancel.store(true, Ordering::Relaxed);
            return false;
        }
        true
    });
    let mut progress = |done: u64, total: u64| {
        if let Some(line) = job.progress_line(done, total) {
            let bytes = match framing {
                Framing::Line => line,
                Framing::Sse => [SSE_PREFIX, &line, b"\n"].concat(),
            };
            if !send(Bytes::from(bytes)) {
                cancel.store(true, Ordering::Relaxed);
            }
        }
    };
    let has_progress = job.progress_token.is_some();
    let outcome = job.run(
        cancel,
        if has_progress {
            Some(&mut progress)
        } else {
            None
        },
        prefetched,
        &mut sink,
    );
    let complete = sink.finish();
    match outcome {
        Outcome::Written { .. } if complete => {
            if framing == Framing::Sse {
                let _ = send(Bytes::from_static(b"\n"));
            }
            outcome
        }
        Outcome::Written { .. } => {
            if started.get() && framing == Framing::Line {
                let mut end = match closer_cell.into_inner() {
                    Some(c) if !c.is_whole() => {
                        let marked = c.ending(Some(&cancelled_block()));
                        let fits = job.cap().is_none_or(|cap| sent.get() + marked.len() < cap);
                        if fits { marked } else { c.ending(None) }
                    }
                    _ => Vec::new(),
                };
                end.push(b'\n');
                let _ = send(Bytes::from(end));
            }
            Outcome::Cancelled
        }
        Outcome::Cancelled => Outcome::Cancelled,
    }
}
