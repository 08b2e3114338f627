//! The presenter's token estimator against tiktoken's `o200k_base` on the invoice corpus
//! (WIRE.md §1.3, §5): within 10% for pretty JSON, compact JSON and TOON (comma and pipe),
//! flat and nested, 2,000 rows.

use toolwire::json::{ParseOptions, parse};
use toolwire::toon::{Delimiter, EncodeOptions};
use toolwire::wire::estimate_tokens;
use toolwire_oracles::invoices::{self, Shape};

fn encodings(shape: Shape) -> Vec<(&'static str, String)> {
    let bytes = invoices::json(2000, shape);
    let doc = parse(&bytes, &ParseOptions::new()).unwrap();
    let v = doc.root();
    let toon = |d| toolwire::toon::to_string(v, &EncodeOptions::new().delimiter(d)).unwrap();
    vec![
        ("pretty", toolwire::json::to_string_pretty(v)),
        ("compact", toolwire::json::to_string_compact(v)),
        ("toon-comma", toon(Delimiter::Comma)),
        ("toon-pipe", toon(Delimiter::Pipe)),
    ]
}

#[test]
fn estimator_within_ten_percent_of_o200k_on_invoices() {
    let bpe = tiktoken_rs::o200k_base().unwrap();
    let mut report = Vec::new();
    let mut worst: f64 = 0.0;
    for (shape, name) in [(Shape::Flat, "flat"), (Shape::Nested, "nested")] {
        for (format, text) in encodings(shape) {
            let exact = bpe.encode_ordinary(&text).len();
            let est = estimate_tokens(text.as_bytes());
            let err = (est as f64 - exact as f64) / exact as f64;
            worst = worst.max(err.abs());
            report.push(format!(
                "{name} {format}: tiktoken {exact}, estimate {est}, {:+.1}%",
                err * 100.0
            ));
        }
    }
    let report = report.join("\n");
    println!("{report}");
    assert!(worst <= 0.10, "estimator off by more than 10%:\n{report}");
}
