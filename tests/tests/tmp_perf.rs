use std::time::Instant;
use toolwire::json::{ParseOptions, parse};
use toolwire::present::{Presenter, Schema};
use toolwire::wire::Format;
use toolwire_benches::{Shape, invoices_json};

#[test]
fn perf() {
    for shape in [Shape::Flat, Shape::Nested] {
        let bytes = invoices_json(200_000, shape);
        let doc = parse(&bytes, &ParseOptions::new()).unwrap();
        let mut s = Schema::object()
            .property("id", Schema::string())
            .property("customer", Schema::string())
            .property("amount_cents", Schema::integer())
            .property("currency", Schema::string())
            .property("paid", Schema::boolean())
            .property("issued_at", Schema::string());
        if shape == Shape::Nested {
            s = s.property(
                "lines",
                Schema::array(
                    Schema::object()
                        .property("sku", Schema::string())
                        .property("qty", Schema::integer())
                        .property("unit_cents", Schema::integer()),
                ),
            );
        }
        for fmt in [Format::Compact, Format::Pretty] {
            let p = Presenter::builder("I")
                .schema(s.clone())
                .redact(["customer"], None)
                .format(fmt)
                .build()
                .unwrap();
            let mut best_plain = f64::MAX;
            let mut best_pres = f64::MAX;
            let mut best_build = f64::MAX;
            for _ in 0..5 {
                let t = Instant::now();
                let mut out = Vec::new();
                let r = toolwire::wire::response(doc.root())
                    .format(fmt)
                    .build()
                    .unwrap();
                r.write_block(0, &mut out);
                best_plain = best_plain.min(t.elapsed().as_secs_f64());
                let t = Instant::now();
                let r = p.present(doc.root(), None).unwrap();
                best_build = best_build.min(t.elapsed().as_secs_f64());
                let mut out2 = Vec::new();
                r.write_block(0, &mut out2);
                best_pres = best_pres.min(t.elapsed().as_secs_f64());
                assert!(out2.len() > 0 && out.len() > 0);
            }
            println!(
                "{shape:?} {fmt:?}: plain {:.1} ms, presenter {:.1} ms (derive {:.1} ms), ratio {:.2}",
                best_plain * 1e3,
                best_pres * 1e3,
                best_build * 1e3,
                best_pres / best_plain
            );
        }
    }
}
