//! The cost of fitting a token budget (docs/DECISIONS.md "token budget"): 25,000 o200k
//! tokens on the 100k-row invoice corpus, in every format, against `limit` of the same rows,
//! and what `Format::Auto` costs alone. Best of 7 in one process:
//!
//! ```text
//! cargo run --release -p toolwire-benches --example budget_cost
//! ```
//!
//! Each budgeted block is checked first: within the budget, and the same rows as `limit`.

use std::time::Instant;

use toolwire::json::{ParseOptions, parse};
use toolwire::present::Presenter;
use toolwire::tokens::{Vocabulary, count, preload};
use toolwire::toon::Delimiter;
use toolwire::wire::Format;
use toolwire_oracles::invoices::{self, Shape};

const BUDGET: usize = 25_000;

fn best(runs: usize, mut f: impl FnMut()) -> f64 {
    (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64() * 1e3
        })
        .fold(f64::MAX, f64::min)
}

fn main() {
    let json = invoices::json(100_000, Shape::Flat);
    let doc = parse(&json, &ParseOptions::new()).expect("the corpus parses");
    preload(Vocabulary::O200k);
    let formats = Format::ALL;
    for f in formats {
        let p = Presenter::builder("T")
            .format(f)
            .token_budget(BUDGET)
            .build()
            .expect("builds");
        let r = p.present(doc.root(), None).expect("presents");
        let kept = r.data().and_then(|d| d.as_array()).map_or(0, |a| a.len());
        let tokens = count(Vocabulary::O200k, &r.block_text(0));
        assert!(tokens <= BUDGET, "{f:?}: {tokens} tokens over the budget");
        let q = Presenter::builder("T")
            .format(r.meta().format)
            .limit(kept)
            .build()
            .expect("builds");
        assert_eq!(
            q.present(doc.root(), None).expect("presents").block_text(0),
            r.block_text(0)
        );
        let write = |p: &Presenter| {
            let r = p.present(doc.root(), None).expect("presents");
            let mut out = Vec::new();
            r.write_block(0, &mut out);
        };
        println!(
            "{f:?}: {kept} rows, {tokens} tokens; budget {:.1} ms, limit {kept} {:.1} ms",
            best(7, || write(&p)),
            best(7, || write(&q))
        );
    }
    let whole = |f: Format| {
        let p = Presenter::builder("T").format(f).build().expect("builds");
        best(5, || {
            let r = p.present(doc.root(), None).expect("presents");
            assert_ne!(r.meta().format, Format::Auto);
            let mut out = Vec::new();
            r.write_block(0, &mut out);
        })
    };
    println!(
        "no budget, 100k rows: Auto {:.1} ms, TOON comma {:.1} ms",
        whole(Format::Auto),
        whole(Format::Toon(Delimiter::Comma))
    );
}
