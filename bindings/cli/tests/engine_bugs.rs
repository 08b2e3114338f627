//! Engine bugs found while building the CLI, pinned as failing tests (the CLI must not fix
//! the engine). Each test states the contract it expects; it fails until the engine is fixed.

use toolwire::json::ParseOptions;
use toolwire::present::Presenter;

/// `Presenter::selector` documents the root keys the parser "must materialise for
/// `present`": parsing with it is meant to be an optimisation that does not change the
/// response. With `token_budget`, it does: the budget counts each RAW row (before stripping,
/// `present/mod.rs` decisions), and pushdown drops the undeclared fields from the raw rows,
/// so the same input keeps 1 row with pushdown and 0 without.
///
/// Expected: the same response either way (e.g. `fit` costs the stripped row, or
/// `needed_root_keys` returns `None` when a token budget is set).
#[test]
fn token_budget_truncation_does_not_depend_on_parser_pushdown() {
    let presenter = Presenter::from_json(
        br#"{"name": "Invoice",
             "schema": {"type": "object",
                        "properties": {"id": {"type": "string"}, "amount_cents": {"type": "integer"}}},
             "token_budget": 20, "select": true, "format": "toon"}"#,
    )
    .unwrap();
    let rows = br#"[{"id":"A","amount_cents":100,"note":"a long undeclared note that the schema strips anyway"},{"id":"B","amount_cents":200}]"#;
    let full = toolwire::json::parse(rows, &ParseOptions::default()).unwrap();
    let selector = presenter
        .selector(None)
        .expect("the schema declares properties");
    let pushed = toolwire::json::parse_selected(rows, &selector, &ParseOptions::default()).unwrap();
    let with_full = presenter.present(full.root(), None).unwrap().texts();
    let with_pushdown = presenter.present(pushed.root(), None).unwrap().texts();
    assert_eq!(with_pushdown, with_full);
}
