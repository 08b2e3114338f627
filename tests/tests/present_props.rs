//! Properties of presenters: `_select` output equals projecting the full output (WIRE.md §4),
//! and no redacted value appears anywhere in any block (WIRE.md §5 stage 3).

use proptest::prelude::*;
use serde_json::{Map, Value as J, json};
use toolwire::present::{Presenter, Schema};
use toolwire::wire::{Suggestion, ui};
use toolwire_oracles::values::{Json, Values};
use toolwire_tests::{doc_from_serde, doc_to_serde, project};

const KEYS: [&str; 5] = ["a", "b", "c", "d", "e"];

/// The generator's options here: keys from [`KEYS`] (so that `_select` names and the schema's
/// properties hit), values at most two containers deep and small, so that 256 cases of
/// presenting stay quick.
fn values() -> Values {
    Values::new().keys(&KEYS).depth(2).size(12)
}

/// A row: an object of [`KEYS`].
fn row() -> impl Strategy<Value = J> {
    prop::collection::vec((values().key(), values().json()), 0..6)
        .prop_map(|m| Json::Object(m).to_value())
}

/// A collection of rows, or one row.
fn data() -> impl Strategy<Value = J> {
    prop_oneof![prop::collection::vec(row(), 0..6).prop_map(J::Array), row()]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn select_equals_projection_of_the_full_output(
        d in data(),
        names in prop::collection::vec(prop::sample::select(&KEYS[..]), 1..6),
        with_schema in any::<bool>(),
        limit in 0usize..8,
    ) {
        let mut b = Presenter::builder("P").select(true).limit(limit).redact(["b.a"], None);
        if with_schema {
            b = b.schema(
                Schema::object()
                    .property("e", Schema::any())
                    .property("a", Schema::any())
                    .property("c", Schema::any())
                    .property("b", Schema::any())
                    .property("d", Schema::any()),
            );
        }
        let p = b.build().unwrap();
        let doc = doc_from_serde(&d);
        let full = p.present(doc.root(), None).unwrap();
        let sel = p.present(doc.root(), Some(&names)).unwrap();
        let expected = doc_to_serde(project(full.data().unwrap(), &names).root());
        prop_assert_eq!(doc_to_serde(sel.data().unwrap()), expected);
        // Everything but the data block is the same.
        prop_assert_eq!(&full.texts()[1..], &sel.texts()[1..]);
        // The side door shows exactly what is encoded.
        prop_assert_eq!(
            sel.block_text(0),
            toolwire::json::to_string_pretty(sel.data().unwrap())
        );
    }
}

fn secret() -> impl Strategy<Value = String> {
    "[A-Z]{4}[0-9]{6}[a-z]{4}".prop_map(|s| format!("S3CR{s}"))
}

/// A secret-bearing value of any type: the string, or an object/array holding it.
fn secret_value() -> impl Strategy<Value = (J, String)> {
    secret().prop_flat_map(|s| {
        let a = s.clone();
        let b = s.clone();
        let c = s.clone();
        prop_oneof![
            Just((J::String(a.clone()), a)),
            Just((json!({ "inner": b.clone(), "n": 1 }), b)),
            Just((json!([1, c.clone(), { "x": c.clone() }]), c)),
        ]
    })
}

fn secret_row() -> impl Strategy<Value = (J, Vec<String>)> {
    (
        secret_value(),
        secret_value(),
        prop::collection::vec(secret_value(), 0..3),
        secret_value(),
        "[a-z]{1,6}",
    )
        .prop_map(|((ssn, s1), (num, s2), pins, (tok, s4), name)| {
            let mut secrets = vec![s1, s2, s4];
            let rows: Vec<J> = pins
                .into_iter()
                .map(|(v, s)| {
                    secrets.push(s);
                    json!({ "pin": v, "ok": 1 })
                })
                .collect();
            (
                json!({
                    "name": name,
                    "ssn": ssn,
                    "card": { "number": num, "brand": "visa" },
                    "rows": rows,
                    "client": { "token": tok, "name": "c" },
                }),
                secrets,
            )
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn no_redacted_value_appears_in_any_block(
        rows in prop::collection::vec(secret_row(), 0..5),
        single in any::<bool>(),
        toon in any::<bool>(),
    ) {
        let child = Presenter::builder("Client")
            .redact(["token"], None)
            .rules(["child rule"])
            .item_ui(|c| vec![ui::json(c)])
            .item_rules(|c| vec![toolwire::json::to_string_compact(c)])
            .build()
            .unwrap();
        let dump = |v: toolwire::Value<'_>| toolwire::json::to_string_compact(v);
        let mut b = Presenter::builder("P")
            .redact(["ssn", "card.number", "rows[*].pin"], Some("***"))
            .item_ui(move |v| vec![ui::markdown(&dump(v)), ui::json(v)])
            .collection_ui(move |v| vec![ui::markdown(&dump(v))])
            .item_rules(move |v| vec![dump(v)])
            .collection_rules(move |v| vec![dump(v)])
            .item_suggestions(move |v| vec![Suggestion { tool: "t".into(), reason: dump(v) }])
            .embed("client", child);
        if toon {
            b = b.format(toolwire::wire::Format::Toon(toolwire::toon::Delimiter::Pipe));
        }
        let p = b.build().unwrap();
        let secrets: Vec<String> = rows.iter().flat_map(|(_, s)| s.clone()).collect();
        let input = if single && !rows.is_empty() {
            rows[0].0.clone()
        } else {
            J::Array(rows.iter().map(|(r, _)| r.clone()).collect())
        };
        let doc = doc_from_serde(&input);
        let r = p.present(doc.root(), None).unwrap();
        let all = r.texts().join("\n");
        let side = format!("{:?}{:?}", r.meta(), r.data());
        let limit_secrets = if single && !rows.is_empty() { &rows[0].1[..] } else { &secrets[..] };
        for s in limit_secrets {
            prop_assert!(!all.contains(s.as_str()), "secret {} leaked:\n{}", s, all);
            prop_assert!(!side.contains(s.as_str()), "secret {} leaked in the side door", s);
        }
        prop_assert!(all.contains("***") || limit_secrets.is_empty());
    }
}

/// The oracle of stages 2–3 for a flat schema: keep declared keys in schema order, check
/// types and `required`, redact top-level paths.
fn oracle(rows: &[J]) -> Option<J> {
    let order = ["e", "a", "c", "b", "d"];
    let mut out = Vec::new();
    for r in rows {
        let o = r.as_object()?;
        o.get("a")?;
        let mut m = Map::new();
        for k in order {
            let Some(v) = o.get(k) else { continue };
            let ok = match k {
                "e" => v.is_object(),
                "b" => v.is_string() || v.is_null(),
                "d" => v.as_f64().is_some_and(|x| x.fract() == 0.0),
                _ => true,
            };
            if !ok {
                return None;
            }
            let v = if k == "c" || k == "d" {
                J::String("[REDACTED]".into())
            } else {
                v.clone()
            };
            m.insert(k.to_owned(), v);
        }
        out.push(J::Object(m));
    }
    Some(J::Array(out))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn flat_schema_strip_validate_redact_matches_the_oracle(
        rows in prop::collection::vec(row(), 0..6),
    ) {
        use toolwire::present::Type;
        let p = Presenter::builder("P")
            .schema(
                Schema::object()
                    .property("e", Schema::object())
                    .property("a", Schema::any())
                    .property("c", Schema::any())
                    .property("b", Schema::types([Type::String, Type::Null]))
                    .property("d", Schema::integer())
                    .required(["a"]),
            )
            .redact(["c", "d"], None)
            .build()
            .unwrap();
        let doc = doc_from_serde(&J::Array(rows));
        // The oracle reads the rows as the document holds them (numbers in the form the
        // writers give them: `0.0` is `0`).
        let held = doc_to_serde(doc.root());
        match (p.present(doc.root(), None), oracle(held.as_array().unwrap())) {
            (Ok(r), Some(expected)) => prop_assert_eq!(doc_to_serde(r.data().unwrap()), expected),
            (Err(_), None) => {}
            (got, want) => prop_assert!(false, "presenter {:?} vs oracle {:?}", got.map(|r| r.texts()), want),
        }
    }
}
