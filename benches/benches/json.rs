//! JSON parse (full and with a 2-field select) and write (pretty, compact), toolwire against
//! serde_json (Value and typed), sonic-rs and simd-json in the same groups. Outputs are
//! verified before timing; throughput is bytes of JSON input per second.

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use serde::{Deserialize, Serialize};
use toolwire::json::{
    ParseOptions, Selector, parse, parse_selected, to_vec_compact, to_vec_pretty,
};
use toolwire_benches::{Shape, invoices_json};

#[derive(Serialize, Deserialize)]
struct Invoice {
    id: String,
    customer: String,
    amount_cents: u64,
    currency: String,
    paid: bool,
    issued_at: String,
}

fn parse_group(c: &mut Criterion, rows: usize) {
    let json = invoices_json(rows, Shape::Flat);
    let opts = ParseOptions::default();
    let select = Selector::new(["id", "amount_cents"]);

    // Verify: every parser reads the same rows; select equals full parse + projection.
    let doc = parse(&json, &opts).unwrap();
    let value: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert_eq!(
        to_vec_compact(doc.root()),
        serde_json::to_vec(&value).unwrap()
    );
    let typed: Vec<Invoice> = serde_json::from_slice(&json).unwrap();
    assert_eq!(typed.len(), rows);
    let sonic: sonic_rs::Value = sonic_rs::from_slice(&json).unwrap();
    assert_eq!(sonic_rs::to_vec(&sonic).unwrap(), json);
    let mut copy = json.clone();
    let simd = simd_json::to_owned_value(&mut copy).unwrap();
    assert_eq!(simd_json::to_vec(&simd).unwrap().len(), json.len());
    let selected = parse_selected(&json, &select, &opts).unwrap();
    let projected: Vec<serde_json::Value> = value
        .as_array()
        .unwrap()
        .iter()
        .map(|r| serde_json::json!({"id": r["id"], "amount_cents": r["amount_cents"]}))
        .collect();
    assert_eq!(
        to_vec_compact(selected.root()),
        serde_json::to_vec(&projected).unwrap()
    );

    let mut g = c.benchmark_group("json_parse/flat");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(json.len() as u64));
    g.bench_function(BenchmarkId::new("toolwire", rows), |b| {
        b.iter(|| parse(&json, &opts).unwrap())
    });
    g.bench_function(BenchmarkId::new("toolwire_select_2_of_6", rows), |b| {
        b.iter(|| parse_selected(&json, &select, &opts).unwrap())
    });
    g.bench_function(BenchmarkId::new("serde_json_value", rows), |b| {
        b.iter(|| serde_json::from_slice::<serde_json::Value>(&json).unwrap())
    });
    g.bench_function(BenchmarkId::new("serde_json_typed", rows), |b| {
        b.iter(|| serde_json::from_slice::<Vec<Invoice>>(&json).unwrap())
    });
    g.bench_function(BenchmarkId::new("sonic_rs_value", rows), |b| {
        b.iter(|| sonic_rs::from_slice::<sonic_rs::Value>(&json).unwrap())
    });
    g.bench_function(BenchmarkId::new("simd_json_owned", rows), |b| {
        b.iter_batched_ref(
            || json.clone(),
            |buf| simd_json::to_owned_value(buf).unwrap(),
            BatchSize::LargeInput,
        )
    });
    g.finish();
}

fn write_group(c: &mut Criterion, rows: usize) {
    let json = invoices_json(rows, Shape::Flat);
    let doc = parse(&json, &ParseOptions::default()).unwrap();
    let value: serde_json::Value = serde_json::from_slice(&json).unwrap();
    // Verify: on this corpus (no floats) JSON.stringify and serde_json agree byte for byte.
    assert_eq!(
        to_vec_pretty(doc.root()),
        serde_json::to_vec_pretty(&value).unwrap()
    );
    assert_eq!(
        to_vec_compact(doc.root()),
        serde_json::to_vec(&value).unwrap()
    );

    let mut g = c.benchmark_group("json_write/flat");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(json.len() as u64));
    g.bench_function(BenchmarkId::new("toolwire_pretty", rows), |b| {
        b.iter(|| to_vec_pretty(doc.root()))
    });
    g.bench_function(BenchmarkId::new("serde_json_pretty", rows), |b| {
        b.iter(|| serde_json::to_vec_pretty(&value).unwrap())
    });
    g.bench_function(BenchmarkId::new("toolwire_compact", rows), |b| {
        b.iter(|| to_vec_compact(doc.root()))
    });
    g.bench_function(BenchmarkId::new("serde_json_compact", rows), |b| {
        b.iter(|| serde_json::to_vec(&value).unwrap())
    });
    g.finish();

    // End to end, what a server does with a handler's bytes: bytes → pretty JSON.
    let mut g = c.benchmark_group("json_bytes_to_pretty/flat");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(json.len() as u64));
    g.bench_function(BenchmarkId::new("toolwire", rows), |b| {
        b.iter(|| to_vec_pretty(parse(&json, &ParseOptions::default()).unwrap().root()))
    });
    g.bench_function(BenchmarkId::new("serde_json", rows), |b| {
        b.iter(|| {
            serde_json::to_vec_pretty(&serde_json::from_slice::<serde_json::Value>(&json).unwrap())
                .unwrap()
        })
    });
    g.finish();
}

fn benches(c: &mut Criterion) {
    for rows in [10_000, 100_000] {
        parse_group(c, rows);
        write_group(c, rows);
    }
}

criterion_group!(json, benches);
criterion_main!(json);
