//! Framed responses (WIRE.md §11): JSON bytes → one JSON-RPC line, TOON and pretty JSON, against
//! the composition a user would write today (serde_json parse + toon-format encode / serde_json
//! pretty + serde_json framing). Also the framing overhead over the unframed text, and the time
//! to the first streamed chunk against the whole stream for 1M rows, from a parsed document
//! and from JSON bytes (read window by window, or parsed whole); and JSON bytes → framed TOON
//! and pretty on 10k/100k/1M flat and nested rows as the CLI and server run it (issue #12).
//! Outputs are verified (the anchor's frame parses to the same block text) before timing;
//! throughput is bytes of JSON input.

use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use toolwire::frame::{Id, Protocol, write_frame};
use toolwire::json::{ParseOptions, parse};
use toolwire::sink::ChunkedSink;
use toolwire::test_hooks::*;
use toolwire::toon::Delimiter;
use toolwire::wire::{self, Data, Format};
use toolwire_oracles::invoices::{self, Shape};

/// Bytes → framed line through the whole parsed document (`Data::Doc`).
fn ours(json: &[u8], format: Format) -> Vec<u8> {
    let doc = parse(json, &ParseOptions::default()).unwrap();
    let r = wire::response(doc.root()).format(format).build().unwrap();
    framed_line(json, &r)
}

/// Bytes → framed line read window by window (`Data::Json`).
fn ours_windowed(json: &[u8], format: Format) -> Vec<u8> {
    let r = wire::response(Data::Json(json))
        .format(format)
        .build()
        .unwrap();
    assert!(r.data_is_windowed());
    framed_line(json, &r)
}

fn framed_line(json: &[u8], r: &wire::ToolResponse<'_>) -> Vec<u8> {
    let mut out = Vec::with_capacity(json.len() + json.len() / 2);
    write_frame(&Id::Number("1".into()), r, Protocol::default(), &mut out);
    out
}

fn anchor_frame(text: String) -> Vec<u8> {
    let msg = serde_json::json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": text}]}});
    let mut v = serde_json::to_vec(&msg).unwrap();
    v.push(b'\n');
    v
}

/// The two anchors of a bytes → framed response group: serde_json + toon-format, and
/// serde_json's pretty printer, each with its serde_json framing.
fn bench_anchors(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    rows: usize,
    json: &[u8],
) {
    g.bench_function(BenchmarkId::new("serde_json+toon_format", rows), |b| {
        b.iter(|| anchor_toon(json))
    });
    g.bench_function(BenchmarkId::new("serde_json_pretty", rows), |b| {
        b.iter(|| anchor_pretty(json))
    });
}

fn anchor_toon(json: &[u8]) -> Vec<u8> {
    let value: serde_json::Value = serde_json::from_slice(json).unwrap();
    let opts = toon_format::EncodeOptions::new().with_delimiter(toon_format::Delimiter::Pipe);
    anchor_frame(toon_format::encode(&value, &opts).unwrap())
}

fn anchor_pretty(json: &[u8]) -> Vec<u8> {
    let value: serde_json::Value = serde_json::from_slice(json).unwrap();
    anchor_frame(serde_json::to_string_pretty(&value).unwrap())
}

fn text_of(frame: &[u8]) -> String {
    let v: serde_json::Value = serde_json::from_slice(frame).unwrap();
    v["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_owned()
}

fn framed(c: &mut Criterion, rows: usize, anchors: bool) {
    let json = invoices::json(rows, Shape::Flat);
    let toon = Format::Toon(Delimiter::Pipe);
    for format in [toon, Format::Pretty] {
        assert!(ours(&json, format) == ours_windowed(&json, format));
    }
    if anchors {
        assert_eq!(text_of(&ours(&json, toon)), text_of(&anchor_toon(&json)));
        assert_eq!(
            text_of(&ours(&json, Format::Pretty)),
            text_of(&anchor_pretty(&json))
        );
    }
    let mut g = c.benchmark_group("framed_response/flat");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(json.len() as u64));
    g.bench_function(BenchmarkId::new("toolwire_toon", rows), |b| {
        b.iter(|| ours(&json, toon))
    });
    g.bench_function(BenchmarkId::new("toolwire_pretty", rows), |b| {
        b.iter(|| ours(&json, Format::Pretty))
    });
    g.bench_function(BenchmarkId::new("toolwire_toon_windowed", rows), |b| {
        b.iter(|| ours_windowed(&json, toon))
    });
    g.bench_function(BenchmarkId::new("toolwire_pretty_windowed", rows), |b| {
        b.iter(|| ours_windowed(&json, Format::Pretty))
    });
    if anchors {
        bench_anchors(&mut g, rows, &json);
    }
    g.finish();

    // Framing overhead: the same response, unframed text vs framed line (document parsed
    // once), for TOON, pretty and compact JSON data blocks.
    let doc = parse(&json, &ParseOptions::default()).unwrap();
    let mut g = c.benchmark_group("framing_overhead/flat");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(json.len() as u64));
    for (name, format) in [
        ("toon", toon),
        ("pretty", Format::Pretty),
        ("compact", Format::Compact),
    ] {
        let r = wire::response(doc.root()).format(format).build().unwrap();
        // Each side writes into a buffer presized to its own output (the framed line is
        // longer: escaped quotes and line feeds), so neither pays for a reallocation.
        let write_unframed = |cap: usize| {
            let mut out = Vec::with_capacity(cap);
            r.write_block(0, &mut out);
            out
        };
        let write_framed = |cap: usize| {
            let mut out = Vec::with_capacity(cap);
            write_frame(&Id::Number("1".into()), &r, Protocol::default(), &mut out);
            out
        };
        let (text, line) = (write_unframed(0), write_framed(0));
        // The framed line carries exactly the unframed text.
        let v: serde_json::Value = serde_json::from_slice(&line).unwrap();
        assert_eq!(
            v["result"]["content"][0]["text"]
                .as_str()
                .unwrap()
                .as_bytes(),
            &text[..]
        );
        let (ulen, flen) = (text.len(), line.len());
        let unframed = || write_unframed(ulen);
        let framed = || write_framed(flen);
        g.bench_function(BenchmarkId::new(format!("{name}_unframed"), rows), |b| {
            b.iter(unframed)
        });
        g.bench_function(BenchmarkId::new(format!("{name}_framed"), rows), |b| {
            b.iter(framed)
        });
    }
    g.finish();
}

/// Streams `r` framed through 256 KiB chunks: the time since `start` to the first chunk
/// (`want_first`) or to the end.
fn stream_time(start: Instant, r: &wire::ToolResponse<'_>, want_first: bool) -> Duration {
    let mut first = None;
    let mut sink = ChunkedSink::new(256 << 10, |_chunk| {
        first.get_or_insert_with(|| start.elapsed());
        true
    });
    write_frame(&Id::Number("1".into()), r, Protocol::default(), &mut sink);
    sink.finish();
    let end = start.elapsed();
    if want_first {
        first.unwrap_or(end)
    } else {
        end
    }
}

/// Time to the first 256 KiB chunk and to the last, streaming a framed TOON response of a
/// parsed 1M-row document (what a server does after its handler returned).
fn first_chunk(c: &mut Criterion) {
    let json = invoices::json(1_000_000, Shape::Flat);
    let doc = parse(&json, &ParseOptions::default()).unwrap();
    let mut g = c.benchmark_group("stream_1m/flat");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(json.len() as u64));
    for (name, want_first) in [("time_to_first_chunk", true), ("time_to_last_chunk", false)] {
        g.bench_function(name, |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let start = Instant::now();
                    let r = wire::response(doc.root())
                        .format(Format::Toon(Delimiter::Pipe))
                        .build()
                        .unwrap();
                    total += stream_time(start, &r, want_first);
                }
                total
            })
        });
    }
    g.finish();
}

/// Time to the first 256 KiB chunk and to the last, from 1M rows of JSON bytes to a streamed
/// framed TOON response: read window by window (`Data::Json`: validation first, then parsing
/// and encoding a window at a time) and through the whole parsed document.
fn first_chunk_from_bytes(c: &mut Criterion) {
    let json = invoices::json(1_000_000, Shape::Flat);
    let toon = Format::Toon(Delimiter::Pipe);
    assert!(ours(&json, toon) == ours_windowed(&json, toon));
    let mut g = c.benchmark_group("stream_1m_from_bytes/flat");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(json.len() as u64));
    for windowed in [true, false] {
        for (name, want_first) in [("first_chunk", true), ("last_chunk", false)] {
            let path = if windowed { "windowed" } else { "whole_doc" };
            g.bench_function(format!("{path}_{name}"), |b| {
                b.iter_custom(|iters| {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        let start = Instant::now();
                        let doc;
                        let r = if windowed {
                            wire::response(Data::Json(&json)).format(toon).build()
                        } else {
                            doc = parse(&json, &ParseOptions::default()).unwrap();
                            wire::response(doc.root()).format(toon).build()
                        }
                        .unwrap();
                        total += stream_time(start, &r, want_first);
                    }
                    total
                })
            });
        }
    }
    g.finish();
}

/// Bytes → framed line as the CLI and the server run it (`Data::Json`, the default budget:
/// read once when the window tapes fit, else twice), and off the heap as the CLI's mapped
/// files (`input_off_heap`: the input's size added to the budget).
fn ours_json(json: &[u8], format: Format, off_heap: bool) -> Vec<u8> {
    let r = wire::response(Data::Json(json))
        .format(format)
        .input_off_heap(off_heap)
        .build()
        .unwrap();
    framed_line(json, &r)
}

/// The issue #12 groups: JSON bytes → framed TOON and framed pretty JSON on 10k, 100k and 1M
/// flat and nested rows, against serde_json + toon-format / serde_json pretty (up to 100k
/// rows: the anchors take seconds at 1M). Outputs verified first: the same bytes as through
/// the whole parsed document, the same block text as the anchor's frame.
fn bytes_to_framed(c: &mut Criterion) {
    let toon = Format::Toon(Delimiter::Pipe);
    for shape in [Shape::Flat, Shape::Nested] {
        let name = if shape == Shape::Flat {
            "flat"
        } else {
            "nested"
        };
        let mut g = c.benchmark_group(format!("bytes_to_framed/{name}"));
        g.sample_size(10);
        for rows in [10_000, 100_000, 1_000_000] {
            let json = invoices::json(rows, shape);
            let anchors = rows <= 100_000;
            for format in [toon, Format::Pretty] {
                let expect = ours(&json, format);
                assert!(ours_json(&json, format, false) == expect, "{name} {rows}");
                assert!(ours_json(&json, format, true) == expect, "{name} {rows}");
            }
            if anchors {
                assert_eq!(text_of(&ours(&json, toon)), text_of(&anchor_toon(&json)));
                assert_eq!(
                    text_of(&ours(&json, Format::Pretty)),
                    text_of(&anchor_pretty(&json))
                );
            }
            g.throughput(Throughput::Bytes(json.len() as u64));
            for (label, format) in [("toon", toon), ("pretty", Format::Pretty)] {
                g.bench_function(BenchmarkId::new(format!("toolwire_{label}"), rows), |b| {
                    b.iter(|| ours_json(&json, format, false))
                });
                g.bench_function(
                    BenchmarkId::new(format!("toolwire_{label}_off_heap"), rows),
                    |b| b.iter(|| ours_json(&json, format, true)),
                );
            }
            if anchors {
                bench_anchors(&mut g, rows, &json);
            }
        }
        g.finish();
    }
}

fn benches(c: &mut Criterion) {
    bytes_to_framed(c);
    framed(c, 100_000, true);
    framed(c, 1_000_000, false);
    first_chunk(c);
    first_chunk_from_bytes(c);
}

criterion_group!(wire_benches, benches);
criterion_main!(wire_benches);
