//! Issue #17 (hostile input): presenter files and data written by an adversary. Each test
//! names the defect it pins; the presenter-loading cost is in `load_linear.rs`.

use toolwire::json::{ParseOptions, parse};
use toolwire::present::{Presenter, Schema, UiEntry};
use toolwire::wire::{Format, UiMeta};

const SECRET: &str = "TOPSECRET@x";

fn presenter(json: &str) -> Presenter {
    Presenter::from_json(json.as_bytes()).unwrap_or_else(|e| panic!("{json}: {e}"))
}

fn file_error(json: &str) -> String {
    match Presenter::from_json(json.as_bytes()) {
        Ok(_) => panic!("{json}: loaded"),
        Err(e) => e.to_string(),
    }
}

/// Every text the agent would read (blocks of the success or error response) and, for an
/// error, its `Display` (the CLI's message), joined.
fn everything(p: &Presenter, data: &str) -> (bool, String) {
    let d = parse(data.as_bytes(), &ParseOptions::new()).unwrap();
    match p.present(d.root(), None) {
        Ok(r) => (true, r.texts().join("\n")),
        Err(e) => {
            let shown = e.to_string();
            let texts = e.into_response("t/a").texts().join("\n");
            (false, format!("{shown}\n{texts}"))
        }
    }
}

/// The four path shapes, each with a schema where the redacted value sits under a checked
/// node, and data builders putting `v` (JSON text) at that place.
/// A redaction path, the schema properties with `LEAF` where the redacted value's schema
/// goes, and a builder of data with a value (JSON text) at that place.
type PathShape = (&'static str, &'static str, fn(&str) -> String);

fn shapes() -> Vec<PathShape> {
    vec![
        ("s", r#"{"s": LEAF}"#, |v| format!(r#"{{"s": {v}}}"#)),
        (
            "c.email",
            r#"{"c": {"type": "object", "properties": {"email": LEAF}}}"#,
            |v| format!(r#"{{"c": {{"email": {v}}}}}"#),
        ),
        (
            "tags[*].s",
            r#"{"tags": {"type": "array", "items": {"type": "object", "properties": {"s": LEAF}}}}"#,
            |v| format!(r#"{{"tags": [{{"s": "y"}}, {{"s": {v}}}]}}"#),
        ),
        (
            "*.k",
            r#"{"a": {"type": "object", "properties": {"k": LEAF}}}"#,
            |v| format!(r#"{{"a": {{"k": {v}}}}}"#),
        ),
    ]
}

fn shape_presenter(path: &str, props: &str, leaf: &str) -> Presenter {
    let props = props.replace("LEAF", leaf);
    presenter(&format!(
        r#"{{"name": "P", "schema": {{"type": "object", "properties": {props}}},
            "redact": {{"paths": ["{path}"]}}}}"#
    ))
}

/// WIRE.md §5 stage 3: a redacted value never reaches a block. A redacted value that failed
/// `enum` was quoted in the `OUTPUT_VALIDATION_FAILED` message.
#[test]
fn redacted_value_never_appears_in_output_validation_messages() {
    let leaves = [
        // enum: the value itself was quoted.
        r#"{"type": "string", "enum": ["y"]}"#,
        // type: the value fails the type check (an object containing the secret).
        r#"{"type": "string"}"#,
        // required below the redacted value.
        r#"{"type": ["string", "object"], "properties": {"must": {}}, "required": ["must"]}"#,
    ];
    let values = [
        format!("\"{SECRET}\""),
        format!("{{\"x\": \"{SECRET}\"}}"),
        format!("[\"{SECRET}\"]"),
    ];
    for (path, props, put) in shapes() {
        for leaf in leaves {
            let p = shape_presenter(path, props, leaf);
            for v in &values {
                let item = put(v);
                for data in [item.clone(), format!("[{item}, {item}]")] {
                    let (ok, text) = everything(&p, &data);
                    assert!(
                        !text.contains("TOPSECRET"),
                        "{path} {leaf} {data}: the secret leaked:\n{text}"
                    );
                    if leaf.contains("enum") && v.starts_with('"') {
                        assert!(!ok, "{path} {data}: enum not checked:\n{text}");
                        assert!(text.contains("got a redacted value"), "{text}");
                    }
                }
            }
        }
    }
}

/// A top-level redacted field skipped `enum` (and everything below it) on the row fast path
/// and the row view: the same data without `redact` failed validation.
#[test]
fn redacted_top_level_field_is_still_validated() {
    let p = presenter(
        r#"{"name": "P", "schema": {"type": "object", "properties": {"s": {"type": "string", "enum": ["paid"]}}},
            "redact": {"paths": ["s"]}}"#,
    );
    for data in [
        r#"{"s": "bogus"}"#,
        r#"[{"s": "bogus"}]"#,
        r#"[{"s": "paid"}, {"s": "bogus"}]"#,
    ] {
        let (ok, text) = everything(&p, data);
        assert!(!ok, "{data}: {text}");
        assert!(
            text.contains("item 0 's': expected one of 'paid', got a redacted value")
                || text.contains("item 1 's'"),
            "{text}"
        );
        assert!(!text.contains("bogus"), "{text}");
    }
    let (ok, text) = everything(&p, r#"[{"s": "paid"}, {"s": "paid"}]"#);
    assert!(
        ok && text.contains("[REDACTED]") && !text.contains("paid\""),
        "{text}"
    );
    // Nested checks below a wholesale-redacted property also run.
    let p = presenter(
        r#"{"name": "P", "schema": {"type": "object", "properties": {"c": {"type": "object",
            "properties": {"n": {"type": "integer"}}, "required": ["n"]}}}, "redact": {"paths": ["c"]}}"#,
    );
    for data in [r#"{"c": {}}"#, r#"[{"c": {"n": "x"}}]"#] {
        let (ok, text) = everything(&p, data);
        assert!(!ok, "{data}: {text}");
    }
    // The builder API, with a collection format that takes the row view.
    let p = Presenter::builder("P")
        .schema(Schema::object().property("s", Schema::string().enum_values(["paid"])))
        .redact(["s"], None)
        .format(Format::Toon(toolwire::toon::Delimiter::Comma))
        .build()
        .unwrap();
    let (ok, text) = everything(&p, r#"[{"s": "paid"}, {"s": "bogus"}]"#);
    assert!(!ok, "{text}");
}

/// Values quoted in output validation messages were copied whole: a 100 KB value gave a
/// 100 KB message. They are cut as WIRE.md §8 cuts `You sent:` values.
#[test]
fn long_values_are_capped_in_output_validation_messages() {
    let p = presenter(
        r#"{"name": "P", "schema": {"type": "object", "properties": {"s": {"enum": ["y"]}}}}"#,
    );
    let long = "é".repeat(100_000);
    let (ok, text) = everything(&p, &format!(r#"{{"s": "{long}"}}"#));
    assert!(!ok);
    assert!(
        text.contains(&format!("got '{}...'", "é".repeat(47))),
        "{}",
        &text[..300.min(text.len())]
    );
    assert!(text.len() < 2000, "{} bytes", text.len());
    let digits = "9".repeat(100_000);
    let (ok, text) = everything(&p, &format!(r#"{{"s": {digits}}}"#));
    assert!(!ok);
    assert!(
        text.contains(&format!("got {}...", "9".repeat(47))),
        "{}",
        &text[..300.min(text.len())]
    );
    assert!(text.len() < 2000, "{} bytes", text.len());
    // At most 50 scalars: quoted whole.
    let fifty = "x".repeat(50);
    let (_, text) = everything(&p, &format!(r#"{{"s": "{fifty}"}}"#));
    assert!(text.contains(&format!("got '{fifty}'")), "{text}");
}

/// `required` naming an undeclared property loaded, then every call failed.
#[test]
fn required_naming_an_undeclared_property_is_a_file_error() {
    assert_eq!(
        file_error(
            r#"{"name": "P", "schema": {"type": "object", "properties": {"a": {}}, "required": ["a", "b"]}}"#
        ),
        "schema.required: 'b' is not a declared property"
    );
    assert_eq!(
        file_error(
            r#"{"name": "P", "schema": {"properties": {"x": {"properties": {}, "required": ["q"]}}}}"#
        ),
        "schema.properties.x.required: 'q' is not a declared property"
    );
    assert_eq!(
        file_error(
            r#"{"name": "P", "embed": {"c": {"name": "C", "schema": {"properties": {}, "required": ["q"]}}}}"#
        ),
        "embed.c.schema.required: 'q' is not a declared property"
    );
    // Allowed: no `properties`, or extras allowed, or the property declared.
    presenter(r#"{"name": "P", "schema": {"type": "object", "required": ["b"]}}"#);
    presenter(
        r#"{"name": "P", "schema": {"properties": {"a": {}}, "additionalProperties": true, "required": ["b"]}}"#,
    );
    presenter(r#"{"name": "P", "schema": {"properties": {"a": {}}, "required": ["a"]}}"#);
    // The builder gives the same error.
    let e = Presenter::builder("P")
        .schema(
            Schema::object()
                .property("a", Schema::any())
                .required(["b"]),
        )
        .build()
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "schema.required: 'b' is not a declared property"
    );
}

/// A redaction path that cannot exist under the schema was accepted (and redacted nothing).
#[test]
fn redaction_path_that_cannot_exist_is_a_file_error() {
    let schema = r#"{"type": "object", "properties": {"c": {"type": "object", "properties": {"email": {}}},
        "tags": {"type": "array", "items": {"properties": {"s": {}}}}, "free": {"type": "object"}, "n": {"type": "integer"}}}"#;
    let file = |paths: &str| {
        format!(r#"{{"name": "P", "schema": {schema}, "redact": {{"paths": {paths}}}}}"#)
    };
    for ok in [
        r#"["c.email"]"#,
        r#"["c", "tags", "tags[*]", "tags[*].s"]"#,
        r#"["free.anything.below"]"#,
        r#"["*", "*.email", "c.*", "*.nothing"]"#,
    ] {
        presenter(&file(ok));
    }
    for (bad, msg) in [
        (
            r#"["c.mail"]"#,
            "redact.paths[0]: path 'c.mail' cannot exist under the schema",
        ),
        (
            r#"["c.email", "x"]"#,
            "redact.paths[1]: path 'x' cannot exist under the schema",
        ),
        (
            r#"["tags[*].t"]"#,
            "redact.paths[0]: path 'tags[*].t' cannot exist under the schema",
        ),
        (
            r#"["c[*]"]"#,
            "redact.paths[0]: path 'c[*]' cannot exist under the schema",
        ),
        (
            r#"["n.x"]"#,
            "redact.paths[0]: path 'n.x' cannot exist under the schema",
        ),
        (
            r#"["n.*"]"#,
            "redact.paths[0]: path 'n.*' cannot exist under the schema",
        ),
        (
            r#"["[*]"]"#,
            "redact.paths[0]: path '[*]' cannot exist under the schema",
        ),
    ] {
        assert_eq!(file_error(&file(bad)), msg, "{bad}");
    }
    // No schema: anything goes.
    presenter(r#"{"name": "P", "redact": {"paths": ["a.b[*].c"]}}"#);
    // The builder.
    let e = Presenter::builder("P")
        .schema(Schema::object().property("a", Schema::string()))
        .redact(["b"], None)
        .build()
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "redact.paths[0]: path 'b' cannot exist under the schema"
    );
}

/// An embed key that cannot exist under the schema was accepted (and never applied).
#[test]
fn embed_key_that_cannot_exist_is_a_file_error() {
    // An embed declares its key: kept even when the schema does not list it (module docs of
    // `present`), so only a schema whose items cannot be objects rules it out.
    presenter(
        r#"{"name": "P", "schema": {"type": "object", "properties": {"a": {}}}, "embed": {"b": {"name": "B"}}}"#,
    );
    assert_eq!(
        file_error(
            r#"{"name": "P", "schema": {"type": ["integer", "array"]}, "embed": {"b": {"name": "B"}}}"#
        ),
        "embed.b: key 'b' cannot exist under the schema"
    );
    assert_eq!(
        file_error(r#"{"name": "P", "schema": {"type": "string"}, "embed": {"b": {"name": "B"}}}"#),
        "embed.b: key 'b' cannot exist under the schema"
    );
    presenter(
        r#"{"name": "P", "schema": {"type": "object", "properties": {"a": {}}}, "embed": {"a": {"name": "A"}}}"#,
    );
    presenter(r#"{"name": "P", "schema": {"type": "object"}, "embed": {"b": {"name": "B"}}}"#);
    presenter(r#"{"name": "P", "embed": {"b": {"name": "B"}}}"#);
}

/// `table.columns: []` rendered `|\n|\n|`.
#[test]
fn table_without_columns_is_a_file_error() {
    assert_eq!(
        file_error(r#"{"name": "P", "ui": {"collection": [{"table": {"columns": []}}]}}"#),
        "ui.collection[0].table.columns: a table needs at least one column"
    );
    assert_eq!(
        file_error(
            r#"{"name": "P", "ui": {"item": [{"summary": "x"}, {"table": {"columns": []}}]}}"#
        ),
        "ui.item[1].table.columns: a table needs at least one column"
    );
    let e = Presenter::builder("P")
        .item_ui_entry(UiEntry::Table {
            columns: vec![],
            meta: UiMeta::default(),
        })
        .build()
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "ui.item[0].table.columns: a table needs at least one column"
    );
}

/// Nested embeds compiled an object and an array plan for every embed, recursively: memory
/// doubled with each level (22 levels took 2 GB). 200 levels now load at once.
#[test]
fn nested_embeds_do_not_double_with_each_level() {
    let n = 60;
    let file = format!(
        "{}{}{}",
        r#"{"name":"L","embed":{"c":"#.repeat(n),
        r#"{"name":"L"}"#,
        "}}".repeat(n)
    );
    let p = presenter(&file);
    let d = parse(b"[]", &ParseOptions::new()).unwrap();
    assert!(p.present(d.root(), None).is_ok());
}

/// Input cut inside a UTF-8 sequence of a string reported `invalid UTF-8` at the sequence's
/// first byte; the input is valid up to its end, which is the problem (as for any string cut
/// short).
#[test]
fn input_cut_inside_a_utf8_sequence_is_an_end_of_input_error() {
    use toolwire::Category;
    for (json, col) in [
        (&b"\"\xc3"[..], 3),
        (b"[\"ab\xe2\x82", 7),
        (b"{\"k\": \"\\n\xf0\x9f\x98", 13),
        (b"{\"\xe2", 4),
    ] {
        let e = parse(json, &ParseOptions::new()).unwrap_err();
        assert_eq!(e.classify(), Category::Eof, "{json:?}: {e}");
        assert_eq!(
            (e.line(), e.column(), e.message()),
            (
                1,
                col,
                "unexpected end of input, expected '\"' to close the string"
            ),
            "{json:?}"
        );
    }
    // An invalid sequence before the end is still a UTF-8 error at its start.
    let e = parse(b"\"\xc3x", &ParseOptions::new()).unwrap_err();
    assert_eq!((e.classify(), e.column()), (Category::Utf8, 2));
}

/// `toon encode` of JSON text holding a lone surrogate failed without a position (the
/// encoder sees the decoded string); the error names the line and column of the string.
#[test]
fn lone_surrogate_in_toon_encode_names_its_position() {
    use toolwire::test_hooks::encode_json_windows;
    use toolwire::toon::{EncodeOptions, encode_json};
    let msg_s = "toon: a string holds a lone surrogate, which TOON (UTF-8 text) cannot represent";
    let msg_k = "toon: a key holds a lone surrogate, which TOON (UTF-8 text) cannot represent";
    for (json, pos, msg) in [
        (
            &br#"{"a": "x\ud83d\ude00", "b": "\ud800"}"#[..],
            (1, 29),
            msg_s,
        ),
        (
            b"[\n  {\"ok\": \"\\\\ud800\"},\n  {\"\\udc00k\": 1}\n]",
            (3, 4),
            msg_k,
        ),
        (b"[\"a\", \"\\ud800\\u0041\"]", (1, 7), msg_s),
        (b"[\"\\udbff\"]", (1, 2), msg_s),
    ] {
        for window in [None, Some(4)] {
            let mut out = Vec::new();
            let e = match window {
                None => encode_json(json, &EncodeOptions::new(), &mut out),
                Some(w) => encode_json_windows(json, &EncodeOptions::new(), w, &mut out),
            }
            .unwrap_err();
            assert_eq!(e.message(), msg, "{}", String::from_utf8_lossy(json));
            assert_eq!(
                (e.line(), e.column()),
                pos,
                "{} (window {window:?}): {e}",
                String::from_utf8_lossy(json)
            );
            assert!(out.is_empty());
        }
    }
}

/// The redaction trie's members are looked up through a sorted index past 8 keys (a scan per
/// key was quadratic): every path of a wide set still redacts, named and under `*`, in the
/// presenter's own trie and merged into an embedded child's.
#[test]
fn wide_redaction_sets_still_redact_every_path() {
    let keys: Vec<String> = (0..40).map(|i| format!("k{}", (i * 7919) % 1000)).collect();
    let paths: Vec<String> = keys
        .iter()
        .map(|k| format!("\"{k}\""))
        .chain(keys.iter().map(|k| format!("\"c.{k}\"")))
        .chain(["\"*.star\"".to_owned()])
        .collect();
    let file = format!(
        r#"{{"name": "P", "redact": {{"paths": [{}]}}, "embed": {{"c": {{"name": "C", "redact": {{"paths": ["z1", "z2", "z3", "z4", "z5", "z6", "z7", "z8", "z9"]}}}}}}}}"#,
        paths.join(",")
    );
    let p = presenter(&file);
    let mut item: Vec<String> = keys
        .iter()
        .map(|k| format!("\"{k}\": {{\"star\": \"SECRET\", \"v\": \"SECRET\"}}"))
        .collect();
    let inner: Vec<String> = keys
        .iter()
        .map(|k| format!("\"{k}\": \"SECRET\""))
        .chain((1..10).map(|i| format!("\"z{i}\": \"SECRET\"")))
        .chain(["\"keep\": \"visible\"".to_owned()])
        .collect();
    item.push(format!("\"c\": {{{}}}", inner.join(",")));
    item.push("\"other\": {\"star\": \"SECRET\", \"keep\": \"visible\"}".into());
    let data = format!("{{{}}}", item.join(","));
    for d in [data.clone(), format!("[{data}, {data}]")] {
        let (ok, text) = everything(&p, &d);
        assert!(ok, "{text}");
        assert!(!text.contains("SECRET"), "{text}");
        assert!(text.contains("visible"), "{text}");
    }
}

/// Rows of a wide schema whose keys come in another order than the schema's were matched by
/// a scan per key (quadratic per row); they go through a key index now, with the same output:
/// schema order, validation and redaction as before, on the row fast path and the row view.
#[test]
fn wide_rows_in_any_key_order_present_like_ordered_ones() {
    let n = 40;
    let props: Vec<String> = (0..n)
        .map(|i| format!(r#""f{i}": {{"type": "integer"}}"#))
        .collect();
    for format in ["compact", "toon"] {
        let p = presenter(&format!(
            r#"{{"name": "P", "format": "{format}", "select": true, "schema": {{"type": "object",
                "properties": {{{}}}, "required": ["f3", "f39"]}}, "redact": {{"paths": ["f7"]}}}}"#,
            props.join(",")
        ));
        let row = |order: &mut dyn Iterator<Item = usize>| {
            format!(
                "{{{}}}",
                order
                    .map(|i| format!("\"f{i}\": {i}"))
                    .collect::<Vec<_>>()
                    .join(",")
            )
        };
        let ordered = row(&mut (0..n));
        let reversed = row(&mut (0..n).rev());
        let (ok_a, a) = everything(&p, &format!("[{ordered}, {ordered}]"));
        let (ok_b, b) = everything(&p, &format!("[{reversed}, {reversed}]"));
        assert!(ok_a && ok_b, "{a}\n{b}");
        assert_eq!(a, b, "{format}");
        assert!(a.contains("[REDACTED]"), "{a}");
        // A failing row is found whatever the order.
        let bad = row(&mut (0..n).rev().filter(|&i| i != 39));
        let (ok, text) = everything(&p, &format!("[{reversed}, {bad}]"));
        assert!(
            !ok && text.contains("item 1 'f39': expected integer, got missing"),
            "{text}"
        );
        // `_select` names are found through the index too.
        let one = format!("[{reversed}]");
        let d = parse(one.as_bytes(), &ParseOptions::new()).unwrap();
        let r = p.present(d.root(), Some(&["f30", "f2"])).unwrap();
        let text = r.texts().join("\n");
        assert!(
            text.contains("f30") && text.contains("f2") && !text.contains("f31"),
            "{text}"
        );
    }
}

/// A parent's redaction path that reaches into an embedded child is written with the
/// parent's censor, not the child's (found by the Node binding's tests: the child's `***`
/// replaced the parent's `[REDACTED]`). Where both redact the same path, the child's stays.
#[test]
fn a_parents_path_into_an_embed_keeps_the_parents_censor() {
    let p = Presenter::from_json(
        br#"{"name": "P", "redact": {"paths": ["client.email", "client.both"]},
             "embed": {"client": {"name": "C", "redact": {"paths": ["phone", "both"], "censor": "***"}}}}"#,
    )
    .unwrap();
    for (input, want) in [
        (
            r#"{"client":{"email":"a@b","phone":"1","both":"2","x":3}}"#,
            r#"{"client":{"email":"[REDACTED]","phone":"***","both":"***","x":3}}"#,
        ),
        (
            r#"[{"client":{"email":"a@b","phone":"1","both":"2","x":3}}]"#,
            r#"[{"client":{"email":"[REDACTED]","phone":"***","both":"***","x":3}}]"#,
        ),
        // `client.email` does not reach into an array (WIRE.md §5: a non-object
        // intermediate redacts nothing); the child's own path still does.
        (
            r#"{"client":[{"email":"a@b","phone":"1"}]}"#,
            r#"{"client":[{"email":"a@b","phone":"***"}]}"#,
        ),
    ] {
        let doc = toolwire::json::parse(input.as_bytes(), &Default::default()).unwrap();
        let r = p
            .with_overrides(toolwire::present::Overrides {
                format: Some(toolwire::wire::Format::Compact),
                ..Default::default()
            })
            .present(doc.root(), None)
            .unwrap();
        assert_eq!(r.texts()[0], want, "{input}");
    }
}
