//! Presenter files (CLI.md "Presenter file"): the file and the builder give identical
//! responses; errors name the key path.

use toolwire::json::{ParseOptions, parse};
use toolwire::present::{Presenter, Schema, Type, UiEntry};
use toolwire::wire::{Format, UiMeta, Width};

const FILE: &str = r#"{
  "name": "Invoice",
  "schema": { "type": "object",
              "properties": { "id": {"type": "string"},
                              "amount_cents": {"type": "integer"},
                              "status": {"type": "string", "enum": ["paid", "pending", "overdue"]},
                              "client": {"type": "object", "properties": {"name": {"type": "string"}, "email": {"type": "string"}}},
                              "note": {"type": ["string", "null"]} },
              "required": ["id", "amount_cents", "status"] },
  "rules": ["CRITICAL: amount_cents is in CENTS. Divide by 100.", null],
  "collection_rules": ["Totals are per page."],
  "limit": 2,
  "token_budget": null,
  "redact": { "paths": ["client.email"], "censor": "[REDACTED]" },
  "select": true,
  "ui": { "item": [ {"markdown": "**{id}**: {amount_cents} ({client.email})"} ],
          "collection": [ {"table": {"columns": ["id", "status", "client.name"], "title": "Invoices", "width": "full"}},
                          {"summary": "{count} invoices, {hidden} hidden", "priority": 2},
                          {"list": "{id} is {status}"} ] },
  "suggest": { "item": [], "collection": [ {"tool": "billing.get", "reason": "View details"} ] },
  "embed": { "client": { "name": "Client", "rules": ["Display company name prominently."] } },
  "format": "pretty"
}"#;

fn built() -> Presenter {
    let schema = Schema::object()
        .property("id", Schema::string())
        .property("amount_cents", Schema::integer())
        .property(
            "status",
            Schema::string().enum_values(["paid", "pending", "overdue"]),
        )
        .property(
            "client",
            Schema::object()
                .property("name", Schema::string())
                .property("email", Schema::string()),
        )
        .property("note", Schema::types([Type::String, Type::Null]))
        .required(["id", "amount_cents", "status"]);
    Presenter::builder("Invoice")
        .schema(schema)
        .rules(["CRITICAL: amount_cents is in CENTS. Divide by 100."])
        .collection_rules_reading(&[], |_| vec!["Totals are per page.".into()])
        .limit(2)
        .redact(["client.email"], Some("[REDACTED]"))
        .select(true)
        .item_ui_entry(UiEntry::Markdown {
            template: "**{id}**: {amount_cents} ({client.email})".into(),
            meta: UiMeta::default(),
        })
        .collection_ui_entry(UiEntry::Table {
            columns: vec!["id".into(), "status".into(), "client.name".into()],
            meta: UiMeta {
                title: Some("Invoices".into()),
                width: Some(Width::Full),
                priority: None,
            },
        })
        .collection_ui_entry(UiEntry::Summary {
            template: "{count} invoices, {hidden} hidden".into(),
            meta: UiMeta {
                priority: Some(2),
                ..UiMeta::default()
            },
        })
        .collection_ui_entry(UiEntry::List {
            template: "{id} is {status}".into(),
            meta: UiMeta::default(),
        })
        .collection_suggestion("billing.get", "View details")
        .embed(
            "client",
            Presenter::builder("Client")
                .rules(["Display company name prominently."])
                .build()
                .unwrap(),
        )
        .format(Format::Pretty)
        .build()
        .unwrap()
}

const ROWS: &str = r#"[{"id": "A", "amount_cents": 100, "status": "paid", "client": {"name": "Acme | Co", "email": "a@x"}},
 {"id": "B", "amount_cents": 200, "status": "pending", "note": null, "x": 1},
 {"id": "C", "amount_cents": 300, "status": "overdue"}]"#;

#[test]
fn file_and_builder_give_identical_responses() {
    let file = Presenter::from_json(FILE.as_bytes()).unwrap();
    let built = built();
    let rows = parse(ROWS.as_bytes(), &ParseOptions::new()).unwrap();
    let one = parse(
        br#"{"id": "A", "amount_cents": 1, "status": "paid", "client": {"name": "N", "email": "e@x"}}"#,
        &ParseOptions::new(),
    )
    .unwrap();
    for (data, select) in [
        (rows.root(), None),
        (rows.root(), Some(&["status", "id"][..])),
        (one.root(), None),
        (one.root(), Some(&["client"][..])),
    ] {
        let a = file.present(data, select).unwrap();
        let b = built.present(data, select).unwrap();
        assert_eq!(a.texts(), b.texts());
    }
    let r = file.present(rows.root(), None).unwrap();
    assert_eq!(
        r.texts(),
        [
            "[\n  {\n    \"id\": \"A\",\n    \"amount_cents\": 100,\n    \"status\": \"paid\",\n    \"client\": {\n      \"name\": \"Acme | Co\",\n      \"email\": \"[REDACTED]\"\n    }\n  },\n  {\n    \"id\": \"B\",\n    \"amount_cents\": 200,\n    \"status\": \"pending\",\n    \"note\": null\n  }\n]",
            "<ui_passthrough type=\"summary\">\n📊 **Summary**: ⚠️ Dataset truncated. 2 shown, 1 hidden. Use filters to narrow results.\n</ui_passthrough>",
            "<ui_passthrough type=\"markdown\" title=\"Invoices\" width=\"full\">\n| id | status | client.name |\n| --- | --- | --- |\n| A | paid | Acme \\| Co |\n| B | pending |  |\n</ui_passthrough>",
            "<ui_passthrough type=\"summary\" priority=\"2\">\n📊 **Summary**: 3 invoices, 1 hidden\n</ui_passthrough>",
            "<ui_passthrough type=\"markdown\">\n- A is paid\n- B is pending\n</ui_passthrough>",
            "<domain_rules>\n- CRITICAL: amount_cents is in CENTS. Divide by 100.\n- Totals are per page.\n- Display company name prominently.\n</domain_rules>",
            "<action_suggestions>\n- billing.get: View details\n</action_suggestions>",
        ]
    );
    let item = file.present(one.root(), None).unwrap();
    assert_eq!(item.meta().ui_blocks[0].content(), "**A**: 1 ([REDACTED])");
    assert_eq!(
        file.output_schema("2026-07-28", false),
        built.output_schema("2026-07-28", false)
    );
}

fn err(text: &str) -> String {
    Presenter::from_json(text.as_bytes())
        .unwrap_err()
        .to_string()
}

#[test]
fn file_errors_name_the_key_path() {
    assert_eq!(
        err(r#"{"name": "X", "ui": {"collection": [{"table": {"columns": "id"}}]}}"#),
        "ui.collection[0].table.columns: expected an array of strings"
    );
    assert_eq!(
        err(r#"{"name": "X", "ui": {"collection": [{"table": {"columns": ["id", 3]}}]}}"#),
        "ui.collection[0].table.columns: expected an array of strings"
    );
    assert_eq!(err(r#"{"name": "X", "limt": 5}"#), "limt: unknown key");
    assert_eq!(
        err(r#"{"name": "X", "limit": -1}"#),
        "limit: expected a natural number or null"
    );
    assert_eq!(
        err(r#"{"name": "X", "limit": 1.5}"#),
        "limit: expected a natural number or null"
    );
    assert_eq!(err(r#"{"limit": 1}"#), "name: missing");
    assert_eq!(err(r#"{"name": 1}"#), "name: expected a string");
    assert_eq!(
        err(r#"{"name": "X", "embed": {"client": {"name": "C", "rulez": []}}}"#),
        "embed.client.rulez: unknown key"
    );
    assert_eq!(
        err(
            r#"{"name": "X", "schema": {"type": "object", "properties": {"a": {"type": "strin"}}}}"#
        ),
        "schema.properties.a.type: unknown type 'strin'"
    );
    assert_eq!(
        err(r#"{"name": "X", "ui": {"item": [{"summary": "s", "width": "wide"}]}}"#),
        "ui.item[0].width: expected full, half or third"
    );
    assert_eq!(
        err(r#"{"name": "X", "ui": {"item": [{"chart": "s"}]}}"#),
        "ui.item[0].chart: unknown key"
    );
    assert_eq!(
        err(r#"{"name": "X", "ui": {"item": [{"title": "t"}]}}"#),
        "ui.item[0]: expected one of table, summary, markdown, list"
    );
    assert_eq!(
        err(r#"{"name": "X", "format": "yaml"}"#),
        "format: unknown format 'yaml' (pretty, compact, toon, toon-comma, toon-tab, auto)"
    );
    assert_eq!(
        err(r#"{"name": "X", "redact": {"paths": ["a[1]"]}}"#),
        "redact: bad redaction path 'a[1]': only [*] may follow a name"
    );
    assert_eq!(
        err(r#"{"name": "X", "embed": {"c": {"name": "C", "redact": {"paths": ["a..b"]}}}}"#),
        "embed.c.redact: bad redaction path 'a..b': empty segment"
    );
}

#[test]
fn template_paths_must_exist_under_the_schema() {
    let schema = r#""schema": {"type": "object", "properties": {"id": {"type": "string"}, "client": {"type": "object", "properties": {"name": {"type": "string"}}}, "meta": {"type": "object"}}}"#;
    assert_eq!(
        err(&format!(
            r#"{{"name": "X", {schema}, "ui": {{"collection": [{{"summary": "{{count}}"}}, {{"table": {{"columns": ["id", "client.phone"]}}}}]}}}}"#
        )),
        "ui.collection[1]: path 'client.phone' cannot exist under the schema"
    );
    assert_eq!(
        err(&format!(
            r#"{{"name": "X", {schema}, "ui": {{"item": [{{"markdown": "{{id.x}}"}}]}}}}"#
        )),
        "ui.item[0]: path 'id.x' cannot exist under the schema"
    );
    // Under an object without properties, and without a schema, any path is allowed.
    assert!(Presenter::from_json(format!(r#"{{"name": "X", {schema}, "ui": {{"item": [{{"markdown": "{{meta.any.thing}}"}}]}}}}"#).as_bytes()).is_ok());
    assert!(
        Presenter::from_json(br#"{"name": "X", "ui": {"item": [{"markdown": "{a.b}"}]}}"#).is_ok()
    );
}

#[test]
fn bad_json_has_line_and_column() {
    let e = Presenter::from_json(b"{\n  \"name\": }").unwrap_err();
    assert_eq!(e.position(), Some((2, 11)));
    assert!(e.to_string().starts_with("2:11: "), "{e}");
}
