//! `toolwire bench`: what one MCP tool costs an agent, measured on the real server.
//!
//! Connects as a client ([`crate::client`]), calls the tool N times with C calls in flight
//! (each `--args` in turn), then once per value of the tool's `format` enum with the first
//! `--args`, and reports latency, time to first byte, message bytes, errors and tokens
//! (o200k_base and cl100k_base, each text block counted on its own, as `toolwire budget`
//! does) against the token and byte budgets: a table, `--json`, and an HTML report page.
//!
//! Exit codes: 0; 5 when a call failed (`isError`, a JSON-RPC error) or exceeded a budget
//! (the reason on stderr); 2 for usage (including a `--tool` the server does not offer);
//! 6 when the server could not be measured: it would not start or could not be reached, it
//! died, broke the protocol, or a call got no response within `--timeout`; 1 when writing
//! the output failed.

mod report;
mod stats;

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::Value;
use toolwire::tokens::{Vocabulary, count_blocks};

use crate::client::{Client, ClientError, Options, Received, Target, describe_error, one_line};
pub use stats::{Summary, summarize};

/// What to measure (the command line, parsed).
#[derive(Debug, Clone)]
pub struct Config {
    /// The server.
    pub target: Target,
    /// The tool's name.
    pub tool: String,
    /// The arguments of each call, used in turn (at least one; `{}` when none was given).
    pub args: Vec<Value>,
    /// Number of measured calls.
    pub calls: usize,
    /// Calls in flight at once.
    pub concurrency: usize,
    /// A call whose tokens (either vocabulary) exceed this is over budget.
    pub budget_tokens: usize,
    /// A call whose message exceeds this many bytes is over budget.
    pub budget_bytes: usize,
    /// Print one JSON object instead of the table.
    pub json: bool,
    /// Also write the HTML report here.
    pub report: Option<PathBuf>,
    /// Every request's bound.
    pub timeout: Duration,
    /// Ask for this protocol revision instead of the newest the server offers.
    pub protocol: Option<String>,
    /// HTTP: accept only `text/event-stream` responses.
    pub sse_only: bool,
}

/// One measured call.
#[derive(Debug, Clone)]
pub struct Call {
    /// Milliseconds from the request's first byte to the response's last.
    pub latency_ms: f64,
    /// Milliseconds to the response's first byte.
    pub ttfb_ms: f64,
    /// Bytes of the response message.
    pub bytes: usize,
    /// `isError: true`, or a JSON-RPC error (then `error` says which).
    pub is_error: bool,
    /// A JSON-RPC error, on one line.
    pub error: Option<String>,
    /// Index into [`Run::responses`].
    pub response: usize,
}

/// The text blocks of one distinct response and their token counts.
#[derive(Debug, Clone)]
pub struct Response {
    /// The text of each `text` content block, in order.
    pub blocks: Vec<String>,
    /// o200k_base tokens, each block counted on its own.
    pub o200k: usize,
    /// cl100k_base tokens.
    pub cl100k: usize,
}

/// One extra call per format.
#[derive(Debug, Clone)]
pub struct FormatCall {
    /// The `format` value.
    pub format: String,
    /// The call.
    pub call: Call,
}

/// Everything measured.
#[derive(Debug, Clone)]
pub struct Run {
    /// The settings.
    pub config: Config,
    /// The negotiated revision.
    pub protocol: String,
    /// The measured calls, in the order they were issued.
    pub calls: Vec<Call>,
    /// The per-format calls (empty when the tool offers no `format` enum).
    pub formats: Vec<FormatCall>,
    /// Distinct responses (identical ones are tokenized once).
    pub responses: Vec<Response>,
}

impl Run {
    /// The response of a call.
    pub fn response(&self, c: &Call) -> &Response {
        &self.responses[c.response]
    }
}

/// Why the bench stopped.
#[derive(Debug)]
pub enum Stop {
    /// A usage error (exit 2).
    Usage(String),
    /// The server could not be measured (exit 6).
    Server(String),
}

/// Runs `toolwire bench` and returns its exit code.
pub fn run(config: Config) -> ExitCode {
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => return fail(1, &format!("cannot start the runtime: {e}")),
    };
    let measured = rt.block_on(measure(config));
    rt.shutdown_timeout(Duration::from_secs(1));
    let run = match measured {
        Ok(run) => run,
        Err(Stop::Usage(m)) => return fail(2, &m),
        Err(Stop::Server(m)) => return fail(6, &m),
    };
    let summary = summarize(&run);
    let out = if run.config.json {
        let mut s = serde_json::to_string(&stats::to_json(&run, &summary)).unwrap_or_default();
        s.push('\n');
        s
    } else {
        stats::table(&run, &summary)
    };
    if let Some(path) = &run.config.report {
        let html = report::html(&run, &summary);
        if let Err(e) = std::fs::write(path, html) {
            return fail(1, &format!("--report {}: {e}", path.display()));
        }
    }
    let mut stdout = std::io::stdout().lock();
    if stdout
        .write_all(out.as_bytes())
        .and_then(|()| stdout.flush())
        .is_err()
    {
        return fail(1, "cannot write stdout");
    }
    let reasons = stats::reasons(&run, &summary);
    if reasons.is_empty() {
        ExitCode::SUCCESS
    } else {
        fail(5, &reasons.join("; "))
    }
}

fn fail(code: u8, line: &str) -> ExitCode {
    let _ = writeln!(std::io::stderr(), "toolwire: bench: {line}");
    ExitCode::from(code)
}

fn server_error(phase: &str, e: &ClientError) -> Stop {
    Stop::Server(format!("{phase}: {e}"))
}

async fn measure(config: Config) -> Result<Run, Stop> {
    let options = Options {
        timeout: config.timeout,
        protocol: config.protocol.clone(),
        sse_only: config.sse_only,
    };
    let client = Client::connect(&config.target, &options)
        .await
        .map_err(|e| server_error("the server did not start or answer", &e))?;
    let result = measure_with(&client, config).await;
    client.close().await;
    result
}

async fn measure_with(client: &Client, config: Config) -> Result<Run, Stop> {
    let tools = client
        .tools()
        .await
        .map_err(|e| server_error("tools/list", &e))?;
    let Some(tool) = tools.iter().find(|t| t.name == config.tool) else {
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).take(20).collect();
        return Err(Stop::Usage(format!(
            "--tool {}: the server has no such tool (it offers: {})",
            one_line(&config.tool, 100),
            one_line(&names.join(", "), 400)
        )));
    };
    let formats = tool.formats();
    let progress = progress_bar((config.calls + formats.len()) as u64);

    // The measured calls: C workers take the next call number until N are issued.
    let next = Arc::new(AtomicUsize::new(0));
    let mut slots: Vec<Option<Received>> = Vec::with_capacity(config.calls);
    slots.resize_with(config.calls, || None);
    let results = {
        let workers = (0..config.concurrency.clamp(1, config.calls.max(1))).map(|_| {
            let next = next.clone();
            let config = &config;
            let progress = &progress;
            async move {
                let mut got = Vec::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= config.calls {
                        return Ok(got);
                    }
                    let args = &config.args[i % config.args.len()];
                    match client.call(&config.tool, args).await {
                        Ok(r) => got.push((i, r)),
                        Err(e) => {
                            // Stop the other workers at their next call.
                            next.store(config.calls, Ordering::Relaxed);
                            return Err(server_error(
                                &format!("call {} of {}", i + 1, config.calls),
                                &e,
                            ));
                        }
                    }
                    progress.inc(1);
                }
            }
        });
        join_all(workers.collect()).await
    };
    for r in results {
        for (i, rec) in r? {
            slots[i] = Some(rec);
        }
    }
    // One call per format, with the first arguments and that format.
    let mut format_results = Vec::with_capacity(formats.len());
    for f in &formats {
        let mut args = config.args[0].clone();
        if let Some(o) = args.as_object_mut() {
            o.insert("format".into(), Value::String(f.clone()));
        }
        let r = client
            .call(&config.tool, &args)
            .await
            .map_err(|e| server_error(&format!("the call with format {f}"), &e))?;
        progress.inc(1);
        format_results.push((f.clone(), r));
    }
    progress.finish_and_clear();

    // Tokens, after every timing (counting would compete with the server for the CPU).
    let mut responses: Vec<Response> = Vec::new();
    let mut calls = Vec::with_capacity(config.calls);
    for r in slots.into_iter().flatten() {
        calls.push(record(r, &mut responses));
    }
    let formats = format_results
        .into_iter()
        .map(|(format, r)| FormatCall {
            format,
            call: record(r, &mut responses),
        })
        .collect();
    Ok(Run {
        protocol: client.protocol().to_owned(),
        config,
        calls,
        formats,
        responses,
    })
}

/// Awaits every future, in order (the workers run concurrently on the runtime).
async fn join_all<F, T>(futs: Vec<F>) -> Vec<T>
where
    F: std::future::Future<Output = T>,
{
    let mut futs: Vec<std::pin::Pin<Box<F>>> = futs.into_iter().map(Box::pin).collect();
    let mut out: Vec<Option<T>> = (0..futs.len()).map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut done = true;
        for (i, f) in futs.iter_mut().enumerate() {
            if out[i].is_none() {
                match f.as_mut().poll(cx) {
                    std::task::Poll::Ready(v) => out[i] = Some(v),
                    std::task::Poll::Pending => done = false,
                }
            }
        }
        if done {
            std::task::Poll::Ready(())
        } else {
            std::task::Poll::Pending
        }
    })
    .await;
    out.into_iter().flatten().collect()
}

fn progress_bar(len: u64) -> indicatif::ProgressBar {
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let pb = indicatif::ProgressBar::with_draw_target(
        Some(len),
        indicatif::ProgressDrawTarget::stderr(),
    );
    if let Ok(style) =
        indicatif::ProgressStyle::with_template("{spinner} calls {pos}/{len} {wide_bar} {elapsed}")
    {
        pb.set_style(style);
    }
    // Redrawn while a slow call is in flight, not only when one completes.
    pb.enable_steady_tick(Duration::from_millis(100));
    pb
}

/// A received message as a measured call; its text blocks join `responses` unless an
/// identical response is already there.
fn record(r: Received, responses: &mut Vec<Response>) -> Call {
    let (blocks, is_error, error) = match r.message.get("result") {
        Some(result) => {
            let blocks: Vec<String> = result
                .get("content")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|b| b.get("text").and_then(Value::as_str).map(str::to_owned))
                .collect();
            let is_error = result.get("isError").and_then(Value::as_bool) == Some(true);
            (blocks, is_error, None)
        }
        None => (Vec::new(), true, Some(describe_error(&r.message))),
    };
    let response = match responses.iter().position(|x| x.blocks == blocks) {
        Some(i) => i,
        None => {
            let o200k = count_blocks(Vocabulary::O200k, blocks.iter().map(String::as_str));
            let cl100k = count_blocks(Vocabulary::Cl100k, blocks.iter().map(String::as_str));
            responses.push(Response {
                blocks,
                o200k,
                cl100k,
            });
            responses.len() - 1
        }
    };
    Call {
        latency_ms: r.latency.as_secs_f64() * 1e3,
        ttfb_ms: r.ttfb.as_secs_f64() * 1e3,
        bytes: r.bytes,
        is_error,
        error,
        response,
    }
}

/// The arguments of a call, echoed in the report (one line, bounded).
pub(crate) fn args_text(v: &Value) -> String {
    one_line(&serde_json::to_string(v).unwrap_or_default(), 500)
}
