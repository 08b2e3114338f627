//! TOON encoding: toolwire (1 and 2 threads) against toon-format 0.7 and serde_json's pretty
//! printer on the same values. Every contender's output is verified before it is timed;
//! throughput is bytes of JSON input per second. Every contender's output is dropped outside
//! the timed loop (`iter_with_large_drop`): freeing 60 MB of output is the allocator's work,
//! not the encoder's, and it is serial, so it would hide the two-thread speed-up.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use toolwire::json::{ParseOptions, parse};
use toolwire::toon::{EncodeOptions, to_vec};
use toolwire_oracles::invoices::{self, Shape};

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("thread pool")
}

fn encode_group(c: &mut Criterion, rows: usize, shape: Shape, competitors: bool) {
    let json = invoices::json(rows, shape);
    let doc = parse(&json, &ParseOptions::default()).expect("corpus parses");
    let value: serde_json::Value = serde_json::from_slice(&json).expect("corpus parses");
    let opts = EncodeOptions::default();
    let (one, two) = (pool(1), pool(2));

    // Verify first: every path gives the same TOON, and the competitor agrees byte for byte.
    let ours = to_vec(doc.root(), &opts).expect("encodes");
    assert_eq!(one.install(|| to_vec(doc.root(), &opts).unwrap()), ours);
    assert_eq!(two.install(|| to_vec(doc.root(), &opts).unwrap()), ours);
    if competitors {
        let theirs = toon_format::encode_default(&value).expect("toon-format encodes");
        assert_eq!(
            String::from_utf8(ours.clone()).unwrap(),
            theirs,
            "toon-format disagrees"
        );
    }

    let name = match shape {
        Shape::Flat => "flat",
        Shape::Nested => "nested",
    };
    let mut g = c.benchmark_group(format!("toon_encode/{name}"));
    g.sample_size(10);
    g.throughput(Throughput::Bytes(json.len() as u64));
    g.bench_function(BenchmarkId::new("toolwire_1_thread", rows), |b| {
        one.install(|| b.iter_with_large_drop(|| to_vec(doc.root(), &opts).unwrap()))
    });
    g.bench_function(BenchmarkId::new("toolwire_2_threads", rows), |b| {
        two.install(|| b.iter_with_large_drop(|| to_vec(doc.root(), &opts).unwrap()))
    });
    if competitors {
        g.bench_function(BenchmarkId::new("toon_format_0_7", rows), |b| {
            b.iter_with_large_drop(|| toon_format::encode_default(&value).unwrap())
        });
        g.bench_function(BenchmarkId::new("serde_json_pretty", rows), |b| {
            b.iter_with_large_drop(|| serde_json::to_vec_pretty(&value).unwrap())
        });
    }
    g.finish();
}

fn benches(c: &mut Criterion) {
    for rows in [10_000, 100_000] {
        encode_group(c, rows, Shape::Flat, true);
        encode_group(c, rows, Shape::Nested, true);
    }
    // 1M rows: the thread scaling figure (competitors take seconds per iteration here).
    encode_group(c, 1_000_000, Shape::Flat, false);
}

criterion_group!(toon, benches);
criterion_main!(toon);
