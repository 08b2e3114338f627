//! JSON parse (full and with a 2-field select) and write (pretty, compact), toolwire against
//! serde_json (Value and typed), sonic-rs and simd-json in the same groups. Outputs are
//! verified before timing; throughput is bytes of JSON input per second.
//!
//! `json_parse_kernel/{flat,nested}`: the parser with each block kernel this CPU runs
//! (forced through `toolwire::test_hooks::with_kernel`; `bytewise` is the parser without
//! block masks, as it was before the kernels) and with select pushdown, beside serde_json and
//! sonic-rs.

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use serde::{Deserialize, Serialize};
use toolwire::json::{
    ParseOptions, Selector, parse, parse_selected, to_vec_compact, to_vec_pretty,
};
use toolwire::test_hooks::{Kernel, with_kernel};
use toolwire_oracles::invoices::{self, Shape};

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
    let json = invoices::json(rows, Shape::Flat);
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
    let json = invoices::json(rows, Shape::Flat);
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

fn kernel_group(c: &mut Criterion, rows: usize, shape: Shape) {
    let json = invoices::json(rows, shape);
    let opts = ParseOptions::default();
    let select = Selector::new(["id", "amount_cents"]);
    let name = |k: Option<Kernel>| match k {
        None => "bytewise".to_string(),
        Some(k) => format!("{k:?}").to_lowercase(),
    };
    let mut kernels = vec![None];
    kernels.extend(Kernel::available().into_iter().map(Some));

    // Verify: every kernel parses (and selects) exactly what the bytewise parser does, and
    // that is what serde_json reads.
    let want = with_kernel(None, || to_vec_compact(parse(&json, &opts).unwrap().root())).unwrap();
    let value: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert_eq!(want, serde_json::to_vec(&value).unwrap());
    let want_sel = with_kernel(None, || {
        to_vec_compact(parse_selected(&json, &select, &opts).unwrap().root())
    })
    .unwrap();
    for &k in &kernels {
        let got = with_kernel(k, || to_vec_compact(parse(&json, &opts).unwrap().root())).unwrap();
        assert_eq!(got, want, "{}", name(k));
        let got = with_kernel(k, || {
            to_vec_compact(parse_selected(&json, &select, &opts).unwrap().root())
        })
        .unwrap();
        assert_eq!(got, want_sel, "{} select", name(k));
    }

    let shape_name = if shape == Shape::Flat {
        "flat"
    } else {
        "nested"
    };
    let mut g = c.benchmark_group(format!("json_parse_kernel/{shape_name}"));
    g.sample_size(20);
    g.throughput(Throughput::Bytes(json.len() as u64));
    for &k in &kernels {
        g.bench_function(
            BenchmarkId::new(format!("toolwire_{}", name(k)), rows),
            |b| b.iter(|| with_kernel(k, || parse(&json, &opts).unwrap()).unwrap()),
        );
        g.bench_function(
            BenchmarkId::new(format!("toolwire_{}_select_2", name(k)), rows),
            |b| {
                b.iter(|| {
                    with_kernel(k, || parse_selected(&json, &select, &opts).unwrap()).unwrap()
                })
            },
        );
    }
    g.bench_function(BenchmarkId::new("serde_json_value", rows), |b| {
        b.iter(|| serde_json::from_slice::<serde_json::Value>(&json).unwrap())
    });
    g.bench_function(BenchmarkId::new("sonic_rs_value", rows), |b| {
        b.iter(|| sonic_rs::from_slice::<sonic_rs::Value>(&json).unwrap())
    });
    g.finish();
}

fn benches(c: &mut Criterion) {
    for rows in [10_000, 100_000] {
        parse_group(c, rows);
        write_group(c, rows);
    }
    for shape in [Shape::Flat, Shape::Nested] {
        kernel_group(c, 100_000, shape);
    }
}

criterion_group!(json, benches);
criterion_main!(json);
