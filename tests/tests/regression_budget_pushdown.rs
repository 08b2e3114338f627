//! Regression: `token_budget` once depended on parser pushdown (found while building the CLI).
//! The budget now costs each row as the data block shows it (the schema's root keys only).

use toolwire::json::ParseOptions;
use toolwire::present::Presenter;

/// Parsing with `Presenter::selector` is an optimisation: the response must be the same as
/// with a full parse, also under a token budget (the undeclared `note` used to be costed in
/// the full parse only, keeping 0 rows instead of 1).
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
