//! `_select` (WIRE.md §4): projection, validation details, the input property, pushdown.

use toolwire::json::{ParseOptions, parse};
use toolwire::present::{PresentError, Presenter, Schema, select_input_property, validate_select};
use toolwire::wire::ui;
use toolwire::{Doc, Value};

fn doc(s: &'static str) -> Doc<'static> {
    parse(s.as_bytes(), &ParseOptions::new()).unwrap()
}

fn compact(v: Value<'_>) -> String {
    toolwire::json::to_string_compact(v)
}

fn schema() -> Schema {
    Schema::object()
        .property("id", Schema::string())
        .property("status", Schema::string())
        .property("amount", Schema::integer())
        .required(["id"])
}

fn selecting() -> Presenter {
    Presenter::builder("Invoice")
        .schema(schema())
        .select(true)
        .collection_ui(|items| vec![ui::markdown(&compact(items))])
        .build()
        .unwrap()
}

const ROWS: &str = r#"[{"id": "A", "status": "paid", "amount": 1}, {"id": "B", "amount": 2}]"#;

#[test]
fn select_projects_in_request_order_and_ui_sees_everything() {
    let d = doc(ROWS);
    let r = selecting()
        .present(d.root(), Some(&["amount", "id", "amount"]))
        .unwrap();
    assert_eq!(
        compact(r.data().unwrap()),
        r#"[{"amount":1,"id":"A"},{"amount":2,"id":"B"}]"#
    );
    // The late guillotine: UI saw the whole (stripped) rows.
    assert_eq!(
        r.meta().ui_blocks[0].content(),
        r#"[{"id":"A","status":"paid","amount":1},{"id":"B","amount":2}]"#
    );
    assert_eq!(
        r.block_text(0),
        "[\n  {\n    \"amount\": 1,\n    \"id\": \"A\"\n  },\n  {\n    \"amount\": 2,\n    \"id\": \"B\"\n  }\n]"
    );
}

#[test]
fn empty_select_means_all_fields_and_select_is_ignored_when_disabled() {
    let d = doc(ROWS);
    let all = selecting().present(d.root(), Some(&[])).unwrap();
    assert_eq!(
        compact(all.data().unwrap()),
        r#"[{"id":"A","status":"paid","amount":1},{"id":"B","amount":2}]"#
    );
    let off = Presenter::builder("Invoice")
        .schema(schema())
        .build()
        .unwrap();
    let r = off.present(d.root(), Some(&["id", "nope"])).unwrap();
    assert_eq!(
        compact(r.data().unwrap()),
        r#"[{"id":"A","status":"paid","amount":1},{"id":"B","amount":2}]"#
    );
}

#[test]
fn select_with_null_or_primitive_data_passes_unchanged() {
    let p = Presenter::builder("P").select(true).build().unwrap();
    for (input, out) in [
        ("null", "null"),
        ("3.5", "3.5"),
        ("\"s\"", "\"s\""),
        ("[null, 1]", "[null,1]"),
    ] {
        let d = parse(input.as_bytes(), &ParseOptions::new()).unwrap();
        let r = p.present(d.root(), Some(&["x"])).unwrap();
        assert_eq!(compact(r.data().unwrap()), out);
    }
    let d = doc(r#"{"a": 1, "b": {"c": 2}}"#);
    let r = p.present(d.root(), Some(&["b"])).unwrap();
    assert_eq!(compact(r.data().unwrap()), r#"{"b":{"c":2}}"#);
}

#[test]
fn unknown_select_names_are_validation_errors() {
    let d = doc(ROWS);
    let e = selecting()
        .present(d.root(), Some(&["id", "total"]))
        .unwrap_err();
    assert!(matches!(e, PresentError::Select(_)));
    assert_eq!(
        e.into_response("billing/list").block_text(0),
        "<validation_error action=\"billing/list\">\n<field name=\"_select\">Unknown field 'total'. You sent: 'total'. Valid options: 'amount', 'id', 'status'.</field>\n<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>\n</validation_error>"
    );
}

#[test]
fn a_select_without_fields_to_choose_says_there_are_none() {
    let d = doc(r#"["id"]"#);
    let problems = validate_select(d.root(), &[]).unwrap_err();
    assert_eq!(
        problems[0].detail,
        "Unknown field 'id'. You sent: 'id'. Valid options: none."
    );
}

fn detail(action: &str, json: &'static str) -> String {
    let d = doc(json);
    match validate_select(d.root(), &["amount", "id", "status"]) {
        Ok(v) => format!("ok {v:?}"),
        Err(p) => toolwire::wire::validation_error(action, &p).block_text(0),
    }
}

#[test]
fn validate_select_details_and_you_sent_rendering() {
    assert_eq!(
        detail("a/b", r#"["status", "id", "status"]"#),
        r#"ok ["status", "id"]"#
    );
    assert_eq!(detail("a/b", "[]"), "ok []");
    let wrap = |fields: &str| {
        format!(
            "<validation_error action=\"a/b\">\n{fields}\n<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>\n</validation_error>"
        )
    };
    assert_eq!(
        detail("a/b", r#""id""#),
        wrap(
            "<field name=\"_select\">Expected an array of field names. You sent: 'id'. Valid options: 'amount', 'id', 'status'.</field>"
        )
    );
    assert_eq!(
        detail(
            "a/b",
            r#"{"k": "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"}"#
        ),
        wrap(&format!(
            "<field name=\"_select\">Expected an array of field names. You sent: {{\"k\":\"{}. Valid options: 'amount', 'id', 'status'.</field>",
            "v".repeat(44)
        ))
    );
    assert_eq!(
        detail("a/b", "null"),
        wrap(
            "<field name=\"_select\">Expected an array of field names. You sent: null. Valid options: 'amount', 'id', 'status'.</field>"
        )
    );
    assert_eq!(
        detail("a/b", r#"["id", 5, [1, 2], "x<y>"]"#),
        wrap(concat!(
            "<field name=\"_select\">Expected a field name (string). You sent: 5. Valid options: 'amount', 'id', 'status'.</field>\n",
            "<field name=\"_select\">Expected a field name (string). You sent: array(2). Valid options: 'amount', 'id', 'status'.</field>\n",
            "<field name=\"_select\">Unknown field 'x&lt;y>'. You sent: 'x&lt;y>'. Valid options: 'amount', 'id', 'status'.</field>"
        ))
    );
    let long = "[\"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz\"]";
    assert_eq!(
        detail("a/b", long),
        wrap(
            "<field name=\"_select\">Unknown field 'abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz'. You sent: 'abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstu...'. Valid options: 'amount', 'id', 'status'.</field>"
        )
    );
}

#[test]
fn input_property_is_the_sorted_union_of_selecting_presenters() {
    let a = selecting();
    let b = Presenter::builder("Client")
        .schema(
            Schema::object()
                .property("Zeta", Schema::any())
                .property("name", Schema::any())
                .property("id", Schema::any()),
        )
        .select(true)
        .build()
        .unwrap();
    let off = Presenter::builder("Off")
        .schema(Schema::object().property("hidden", Schema::any()))
        .build()
        .unwrap();
    assert_eq!(
        select_input_property(&[&a, &b, &off]).unwrap(),
        r#"{"type":"array","description":"⚡ Context optimization: select only the response fields you need. Omit to receive all fields.","items":{"type":"string","enum":["Zeta","amount","id","name","status"]}}"#
    );
    assert_eq!(select_input_property(&[&off]), None);
    assert_eq!(off.input_schema_property(), None);
    assert!(
        a.input_schema_property()
            .unwrap()
            .contains(r#""enum":["amount","id","status"]"#)
    );
}

#[test]
fn pushdown_keys_cover_select_callbacks_redaction_and_embeds() {
    // With a schema that declares properties: its keys and the embed keys.
    let child = Presenter::builder("C").build().unwrap();
    let p = Presenter::builder("P")
        .schema(schema())
        .select(true)
        .embed("client", child.clone())
        .build()
        .unwrap();
    assert_eq!(
        p.needed_root_keys(Some(&["id"])).unwrap(),
        ["id", "status", "amount", "client"]
    );
    // Without a schema: select ∪ declared reads ∪ redaction roots ∪ embeds.
    let q = Presenter::builder("Q")
        .select(true)
        .item_rules_reading(&["status"], |_| vec![])
        .collection_suggestions_reading(&["owner", "id"], |_| vec![])
        .redact(["card.number"], None)
        .embed("client", child.clone())
        .build()
        .unwrap();
    assert_eq!(
        q.needed_root_keys(Some(&["id", "id"])).unwrap(),
        ["id", "status", "owner", "card", "client"]
    );
    assert_eq!(q.needed_root_keys(None), None);
    assert_eq!(q.needed_root_keys(Some(&[])), None);
    let sel = q.selector(Some(&["id"])).unwrap();
    assert_eq!(
        sel.keys().collect::<Vec<_>>(),
        ["id", "status", "owner", "card", "client"]
    );
    // A callback that declares nothing sees everything: no pushdown.
    let r = Presenter::builder("R")
        .select(true)
        .item_rules(|_| vec![])
        .build()
        .unwrap();
    assert_eq!(r.needed_root_keys(Some(&["id"])), None);
    assert!(r.selector(Some(&["id"])).is_none());
    // The pushed-down parse gives the same response as the full parse.
    let bytes = br#"[{"id": "A", "status": "s", "card": {"number": "4111"}, "junk": [1, 2, 3]}]"#;
    let full = parse(bytes, &ParseOptions::new()).unwrap();
    let pushed = toolwire::json::parse_selected(bytes, &sel, &ParseOptions::new()).unwrap();
    let a = q.present(full.root(), Some(&["id", "card"])).unwrap();
    let b = q.present(pushed.root(), Some(&["id", "card"])).unwrap();
    assert_eq!(a.texts(), b.texts());
    assert_eq!(
        a.texts()[0],
        "[\n  {\n    \"id\": \"A\",\n    \"card\": {\n      \"number\": \"[REDACTED]\"\n    }\n  }\n]"
    );
}

#[test]
fn raw_select_argument_is_validated_then_applied() {
    let d = doc(ROWS);
    let arg = doc(r#"["status", "id"]"#);
    let r = selecting()
        .present_with_select_arg(d.root(), Some(arg.root()))
        .unwrap();
    assert_eq!(
        compact(r.data().unwrap()),
        r#"[{"status":"paid","id":"A"},{"id":"B"}]"#
    );
    let bad = doc(r#"{"id": true}"#);
    let e = selecting()
        .present_with_select_arg(d.root(), Some(bad.root()))
        .unwrap_err();
    assert_eq!(
        e.into_response("billing/list").block_text(0),
        "<validation_error action=\"billing/list\">\n<field name=\"_select\">Expected an array of field names. You sent: {\"id\":true}. Valid options: 'amount', 'id', 'status'.</field>\n<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>\n</validation_error>"
    );
    // Ignored when the presenter does not enable select.
    let off = Presenter::builder("Invoice")
        .schema(schema())
        .build()
        .unwrap();
    let r = off
        .present_with_select_arg(d.root(), Some(bad.root()))
        .unwrap();
    assert_eq!(
        compact(r.data().unwrap()),
        r#"[{"id":"A","status":"paid","amount":1},{"id":"B","amount":2}]"#
    );
}
