//! The serving path (issue #13): a 100k-row `tools/call` response of `toolwire serve`'s
//! built-in invoices (the Invoice presenter without its limit, TOON), written as one JSON-RPC
//! message two ways, in the same group:
//!
//! * `toolwire_fast_path`: the engine's framer writes the message in 256 KiB chunks into the
//!   transport as it encodes (here `io::sink()`, as `toolwire serve` hands chunks to stdout or
//!   an HTTP body), never holding it whole.
//! * `rmcp_compat_path`: the same response converted by `toolwire-rmcp` into rmcp's
//!   `CallToolResult` (every block a `String`) and serialised by `serde_json` into one buffer,
//!   exactly as rmcp's stdio codec encodes a message (`serde_json::to_writer` + LF).
//!
//! Both write the same presented reply (presented once, held: its data block is a row view
//! of the parsed collection, encoded as it is written; the UI table is a prebuilt block), so
//! the pair measures the transport path alone; `present` times the presenting both share. The
//! messages are checked equal as JSON first; the peak heap of each path above the held reply
//! (the counting allocator of `toolwire-oracles`) is printed before timing.
//!
//! `serve_path_uncapped` is issue #13's 1M-row uncapped response as `toolwire serve
//! --collection invoices=FILE --max-message-bytes 0` answers `{"action": "list", "limit":
//! 1000000, "format": "toon"}`: the collection's anonymous presenter (no schema, no UI), the
//! TOON shape kept with the collection at load (`toon::prepare`), the held rows encoded in
//! place, both paths in the same group.

use std::io::Write;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use rmcp::model::{NumberOrString, ServerJsonRpcMessage, ServerResult};
use toolwire::call::{Framing, Input, Reply, ToolCall};
use toolwire::frame::{Id, Protocol};
use toolwire::json::ParseOptions;
use toolwire::toon::Delimiter;
use toolwire::wire::Format;

#[global_allocator]
static GLOBAL: toolwire_oracles::alloc::Counting = toolwire_oracles::alloc::Counting;

const ROWS: usize = 100_000;

fn shape() -> Framing {
    Framing::Frame {
        id: Id::Number("1".into()),
        protocol: Protocol::Before20260728,
    }
}

/// The fast path: chunks to the transport as they fill; returns the bytes written.
fn fast(reply: &Reply<'_>) -> usize {
    let mut counter = Counter(0);
    reply.write_io(&shape(), &mut counter).expect("sink");
    counter.0
}

/// The compat path: rmcp's model of the result, serialised whole as rmcp's codec does.
fn compat(reply: &Reply<'_>) -> Vec<u8> {
    let result = toolwire_rmcp::to_call_tool_result_for(reply.response(), Protocol::Before20260728);
    let msg = ServerJsonRpcMessage::response(
        ServerResult::CallToolResult(result),
        NumberOrString::Number(1),
    );
    let mut buf = Vec::new();
    serde_json::to_writer(&mut buf, &msg).expect("serialises");
    buf.push(b'\n');
    buf
}

/// An `io::Write` that counts and drops (the transport).
struct Counter(usize);

impl Write for Counter {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0 += b.len();
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn mib(n: usize) -> f64 {
    n as f64 / (1024.0 * 1024.0)
}

/// Times the fast path against the compat path on `reply` (a page of `rows` rows) in the
/// group `group`, after checking that both write the same message (as JSON: rmcp orders keys
/// its own way) holding a header line and every row, and printing each path's peak heap.
/// Returns the message's bytes.
fn fast_against_compat(c: &mut Criterion, group: &str, reply: &Reply<'_>, rows: usize) -> usize {
    let mut framed = Vec::new();
    reply.write_io(&shape(), &mut framed).unwrap();
    let via_rmcp = compat(reply);
    let a: serde_json::Value = serde_json::from_slice(&framed).unwrap();
    let b: serde_json::Value = serde_json::from_slice(&via_rmcp).unwrap();
    assert_eq!(a, b, "the fast and compat paths write the same message");
    let rows_in = a["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .lines()
        .count();
    assert_eq!(rows_in, rows + 1, "a header line and every row");
    let bytes = framed.len();
    drop((framed, via_rmcp, a, b));

    let (fast_peak, n) = toolwire_oracles::alloc::peak_above(|| fast(reply));
    assert_eq!(n, bytes);
    let (compat_peak, m) = toolwire_oracles::alloc::peak_above(|| compat(reply).len());
    assert_eq!(m, bytes);
    eprintln!(
        "{group}/{rows}: message {:.1} MiB; peak heap fast path {:.2} MiB, rmcp compat path {:.2} MiB ({:.1}x)",
        mib(bytes),
        mib(fast_peak),
        mib(compat_peak),
        compat_peak as f64 / fast_peak.max(1) as f64
    );

    let mut g = c.benchmark_group(group);
    g.sample_size(10);
    g.throughput(Throughput::Bytes(bytes as u64));
    g.bench_function(BenchmarkId::new("toolwire_fast_path", rows), |b| {
        b.iter(|| fast(reply))
    });
    g.bench_function(BenchmarkId::new("rmcp_compat_path", rows), |b| {
        b.iter(|| compat(reply).len())
    });
    g.finish();
    bytes
}

fn serve_paths(c: &mut Criterion) {
    let json = toolwire_mcp::demo::invoices(ROWS);
    let doc = toolwire::json::parse(&json, &ParseOptions::default()).expect("valid");
    let presenter = toolwire_mcp::demo::invoice_presenter(None, Format::Toon(Delimiter::Pipe))
        .expect("valid presenter");
    let call = ToolCall::new().presenter(&presenter);
    let input = Input::value(doc.root());

    let reply = call.respond(&input).expect("presents");
    let bytes = fast_against_compat(c, "serve_path", &reply, ROWS);

    // What both share: presenting the page (schema, redaction, the embedded client, the
    // 100k-row UI table), before any byte is written.
    let mut g = c.benchmark_group("serve_present");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(bytes as u64));
    g.bench_function(BenchmarkId::new("present", ROWS), |b| {
        b.iter(|| {
            call.respond(&input)
                .expect("presents")
                .response()
                .block_count()
        })
    });
    g.finish();
}

/// The rows of the uncapped response (issue #13's target: 1M).
const UNCAPPED_ROWS: usize = 1_000_000;

fn serve_uncapped(c: &mut Criterion) {
    let json = toolwire_mcp::demo::invoices(UNCAPPED_ROWS);
    let doc = toolwire::json::parse(&json, &ParseOptions::default()).expect("valid");
    // As `toolwire serve` loads a collection: its TOON shape kept with it.
    toolwire::toon::prepare(&doc);
    let presenter = toolwire::present::Presenter::builder("invoices")
        .build()
        .expect("valid presenter");
    let call = ToolCall::new()
        .presenter(&presenter)
        .format(Format::Toon(Delimiter::Comma));
    let input = Input::value(doc.root());
    let reply = call.respond(&input).expect("presents");
    fast_against_compat(c, "serve_path_uncapped", &reply, UNCAPPED_ROWS);
}

criterion_group!(serve, serve_paths, serve_uncapped);
criterion_main!(serve);
