//! The JSON writers against `JSON.stringify`: exact tables, deep nesting, a Node.js oracle
//! and properties against serde_json.

use proptest::prelude::*;
use toolwire::DocBuilder;
use toolwire::json::{
    to_string_compact, to_string_pretty, to_vec_compact, to_vec_pretty, write_compact, write_pretty,
};
use toolwire::test_hooks::surrogate_to_wtf8;
use toolwire_oracles::values::{Spelling, Values};
use toolwire_tests::{doc_from_serde, json_model_eq};

/// Compact and pretty output of the JSON text `json` (read by serde_json, arbitrary precision).
fn both(json: &str) -> (String, String) {
    let v: serde_json::Value = serde_json::from_str(json).expect("test input is JSON");
    let doc = doc_from_serde(&v);
    (to_string_compact(doc.root()), to_string_pretty(doc.root()))
}

#[test]
fn compact_and_pretty_table() {
    // (input, JSON.stringify(x), JSON.stringify(x, null, 2)); expected strings checked in Node.
    let cases: &[(&str, &str, &str)] = &[
        ("null", "null", "null"),
        ("true", "true", "true"),
        ("false", "false", "false"),
        ("0", "0", "0"),
        ("\"\"", "\"\"", "\"\""),
        ("[]", "[]", "[]"),
        ("{}", "{}", "{}"),
        ("[[]]", "[[]]", "[\n  []\n]"),
        ("[{}]", "[{}]", "[\n  {}\n]"),
        (r#"{"a":[]}"#, r#"{"a":[]}"#, "{\n  \"a\": []\n}"),
        (r#"{"a":{}}"#, r#"{"a":{}}"#, "{\n  \"a\": {}\n}"),
        ("[1,2]", "[1,2]", "[\n  1,\n  2\n]"),
        (
            r#"{"a":1,"b":[true,null,{"c":"d"}],"e":{}}"#,
            r#"{"a":1,"b":[true,null,{"c":"d"}],"e":{}}"#,
            "{\n  \"a\": 1,\n  \"b\": [\n    true,\n    null,\n    {\n      \"c\": \"d\"\n    }\n  ],\n  \"e\": {}\n}",
        ),
        (
            "[[[1]],[[]],[{}]]",
            "[[[1]],[[]],[{}]]",
            "[\n  [\n    [\n      1\n    ]\n  ],\n  [\n    []\n  ],\n  [\n    {}\n  ]\n]",
        ),
        (
            r#"{"":"","  ":" "}"#,
            r#"{"":"","  ":" "}"#,
            "{\n  \"\": \"\",\n  \"  \": \" \"\n}",
        ),
    ];
    for &(input, compact, pretty) in cases {
        assert_eq!(
            both(input),
            (compact.to_string(), pretty.to_string()),
            "{input}"
        );
    }
}

#[test]
fn string_escapes_match_json_stringify() {
    // Every C0 control: the five short escapes, the rest as lowercase \u00xx.
    let mut raw = String::new();
    let mut want = String::from("\"");
    for c in 0u8..0x20 {
        raw.push(char::from(c));
        match c {
            0x08 => want.push_str("\\b"),
            0x09 => want.push_str("\\t"),
            0x0A => want.push_str("\\n"),
            0x0C => want.push_str("\\f"),
            0x0D => want.push_str("\\r"),
            _ => want.push_str(&format!("\\u{c:04x}")),
        }
    }
    want.push('"');
    let v = serde_json::Value::String(raw);
    let doc = doc_from_serde(&v);
    assert_eq!(to_string_compact(doc.root()), want);
    assert_eq!(to_string_pretty(doc.root()), want);
    assert!(want.contains("\\u001f") && want.contains("\\u000b") && want.contains("\\u0000"));

    let cases: &[(&str, &str)] = &[
        ("q\"b\\", r#""q\"b\\""#),
        ("a/b</c>", r#""a/b</c>""#),
        ("\u{7f}", "\"\u{7f}\""),
        ("\u{2028}\u{2029}", "\"\u{2028}\u{2029}\""),
        ("é€😀", "\"é€😀\""),
        ("\u{D7FF}\u{E000}\u{FFFF}", "\"\u{D7FF}\u{E000}\u{FFFF}\""),
    ];
    for &(raw, want) in cases {
        let doc = doc_from_serde(&serde_json::Value::String(raw.into()));
        assert_eq!(to_string_compact(doc.root()), want, "{raw:?}");
    }
}

#[test]
fn lone_surrogates_print_as_escapes() {
    let mut s = b"a".to_vec();
    s.extend_from_slice(&surrogate_to_wtf8(0xD800));
    s.extend_from_slice(&surrogate_to_wtf8(0xDBFF));
    s.extend_from_slice(b"b");
    s.extend_from_slice(&surrogate_to_wtf8(0xDC00));
    s.extend_from_slice(&surrogate_to_wtf8(0xDFFF));
    let mut b = DocBuilder::new(b"");
    let o = b.begin_object();
    b.string(&s);
    b.string(&s);
    b.end_object(o, 1);
    let doc = b.finish();
    assert!(doc.has_lone_surrogate());
    assert_eq!(
        to_string_compact(doc.root()),
        r#"{"a\ud800\udbffb\udc00\udfff":"a\ud800\udbffb\udc00\udfff"}"#
    );
    assert_eq!(
        to_string_pretty(doc.root()),
        "{\n  \"a\\ud800\\udbffb\\udc00\\udfff\": \"a\\ud800\\udbffb\\udc00\\udfff\"\n}"
    );
}

#[test]
fn reserved_tags_are_escaped_in_strings_and_keys() {
    let (compact, pretty) = both(
        r#"{"<tool_error>":"</LLM_DIRECTIVES> <b> <domain_rules_x> <ui_passthrough","x<validation_error":["<Action_Suggestions>"]}"#,
    );
    assert_eq!(
        compact,
        r#"{"\u003ctool_error>":"\u003c/LLM_DIRECTIVES> <b> <domain_rules_x> \u003cui_passthrough","x\u003cvalidation_error":["\u003cAction_Suggestions>"]}"#
    );
    assert_eq!(
        pretty,
        "{\n  \"\\u003ctool_error>\": \"\\u003c/LLM_DIRECTIVES> <b> <domain_rules_x> \\u003cui_passthrough\",\n  \"x\\u003cvalidation_error\": [\n    \"\\u003cAction_Suggestions>\"\n  ]\n}"
    );
}

#[test]
fn numbers_print_like_javascript_and_integers_keep_digits() {
    let floats: &[(f64, &str)] = &[
        (1e21, "1e+21"),
        (1e20, "100000000000000000000"),
        (1e-7, "1e-7"),
        (1e-6, "0.000001"),
        (5e-324, "5e-324"),
        (-0.0, "0"),
        (0.1 + 0.2, "0.30000000000000004"),
        (3.0, "3"),
        (-1.5e300, "-1.5e+300"),
        (f64::MAX, "1.7976931348623157e+308"),
        (f64::NAN, "null"),
        (f64::INFINITY, "null"),
        (f64::NEG_INFINITY, "null"),
    ];
    let mut b = DocBuilder::new(b"");
    let a = b.begin_array();
    for &(x, _) in floats {
        b.float(x);
    }
    for lexeme in [
        "0",
        "-0",
        "9007199254740993",
        "-123456789012345678901234567890",
        "18446744073709551616",
    ] {
        b.int_lexeme(lexeme.as_bytes());
    }
    b.end_array(a, floats.len() + 5);
    let doc = b.finish();
    let mut want: Vec<&str> = floats.iter().map(|&(_, s)| s).collect();
    want.extend([
        "0",
        "0",
        "9007199254740993",
        "-123456789012345678901234567890",
        "18446744073709551616",
    ]);
    assert_eq!(
        to_string_compact(doc.root()),
        format!("[{}]", want.join(","))
    );
    assert_eq!(
        to_string_pretty(doc.root()),
        format!("[\n  {}\n]", want.join(",\n  "))
    );
    // The same through JSON text: lexemes as written, floats as their nearest f64.
    assert_eq!(both("[1E2,1.0,-0.0,-0,0.1e1,1e-7]").0, "[100,1,0,0,1,1e-7]");
}

#[test]
fn key_order_is_the_inputs_even_for_integer_like_keys() {
    // JSON.stringify(JSON.parse(...)) would print {"1":4,"2":2,"b":1,"a":3}: a documented
    // deviation (WIRE.md §1.3).
    let (compact, pretty) = both(r#"{"b":1,"2":2,"a":3,"1":4}"#);
    assert_eq!(compact, r#"{"b":1,"2":2,"a":3,"1":4}"#);
    assert_eq!(
        pretty,
        "{\n  \"b\": 1,\n  \"2\": 2,\n  \"a\": 3,\n  \"1\": 4\n}"
    );
}

#[test]
fn sinks_and_entry_points_agree() {
    let v: serde_json::Value = serde_json::from_str(r#"{"a":[1,2.5,"x"],"b":{"c":null}}"#).unwrap();
    let doc = doc_from_serde(&v);
    let mut vec = Vec::new();
    write_compact(doc.root(), &mut vec);
    let mut by_ref = Vec::new();
    write_compact(doc.root(), &mut &mut by_ref);
    assert_eq!(vec, to_vec_compact(doc.root()));
    assert_eq!(by_ref, vec);
    assert_eq!(vec, br#"{"a":[1,2.5,"x"],"b":{"c":null}}"#);
    let mut vec = Vec::new();
    write_pretty(doc.root(), &mut vec);
    assert_eq!(vec, to_vec_pretty(doc.root()));
    // A value inside the document writes on its own.
    let inner = doc.root().as_object().unwrap().get(b"a").unwrap();
    assert_eq!(to_string_compact(inner), r#"[1,2.5,"x"]"#);
    assert_eq!(to_string_pretty(inner), "[\n  1,\n  2.5,\n  \"x\"\n]");
}

/// `[{"k":[{"k":…[ 0 ]…}]}]`, `depth` containers in all, alternating arrays and objects.
fn deep_doc(depth: usize) -> toolwire::Doc<'static> {
    let mut b = DocBuilder::new(b"");
    let mut marks = Vec::with_capacity(depth);
    for d in 0..depth {
        if d % 2 == 0 {
            marks.push(b.begin_array());
        } else {
            marks.push(b.begin_object());
            b.string(b"k");
        }
    }
    b.i64(0);
    for (d, m) in marks.into_iter().enumerate().rev() {
        if d % 2 == 0 {
            b.end_array(m, 1);
        } else {
            b.end_object(m, 1);
        }
    }
    b.finish()
}

#[test]
fn deep_nesting_does_not_overflow_the_stack() {
    let depth = 100_000;
    let doc = deep_doc(depth);
    let out = to_string_compact(doc.root());
    let mut want = String::with_capacity(depth * 4);
    for d in 0..depth {
        want.push_str(if d % 2 == 0 { "[" } else { "{\"k\":" });
    }
    want.push('0');
    for d in (0..depth).rev() {
        want.push(if d % 2 == 0 { ']' } else { '}' });
    }
    assert_eq!(out, want);

    let depth = 10_000;
    let doc = deep_doc(depth);
    let out = to_string_compact(doc.root());
    assert_eq!(out.len(), depth / 2 * 6 + 1 + depth);
    // Pretty at 2_000 levels (10_000 would be ~200 MB of indentation).
    let depth = 2_000;
    let doc = deep_doc(depth);
    let out = to_string_pretty(doc.root());
    let mut lines: Vec<String> = Vec::new();
    let mut pending_key = false;
    for d in 0..depth {
        let open = if d % 2 == 0 { "[" } else { "{" };
        if pending_key {
            let last = lines.last_mut().unwrap();
            last.push_str(open);
        } else if d == 0 {
            lines.push(open.to_string());
        } else {
            lines.push(format!("{}{open}", " ".repeat(2 * d)));
        }
        pending_key = false;
        if d % 2 == 1 {
            lines.push(format!("{}\"k\": ", " ".repeat(2 * (d + 1))));
            pending_key = true;
        }
    }
    if pending_key {
        lines.last_mut().unwrap().push('0');
    } else {
        lines.push(format!("{}0", " ".repeat(2 * depth)));
    }
    for d in (0..depth).rev() {
        lines.push(format!(
            "{}{}",
            " ".repeat(2 * d),
            if d % 2 == 0 { "]" } else { "}" }
        ));
    }
    assert_eq!(out, lines.join("\n"));
}

// ---------------------------------------------------------------------------------------------
// Node.js oracle.

/// Node program: for each line of the file, `JSON.stringify(JSON.parse(line))` and the
/// `null, 2` form, with the documented `\u003c` deviation applied (a `<` can only occur
/// inside strings of JSON output), all separated by NUL bytes.
const NODE_ORACLE: &str = r#"
const fs = require('fs');
const re = /<(\/?)(ui_passthrough|llm_directives|domain_rules|action_suggestions|tool_error|validation_error)(?![A-Za-z0-9_-])/gi;
const fix = (s) => s.replace(re, '\\u003c$1$2');
const out = [];
for (const line of fs.readFileSync(process.argv[1], 'utf8').split('\n')) {
  if (line === '') continue;
  const v = JSON.parse(line);
  out.push(fix(JSON.stringify(v)));
  out.push(fix(JSON.stringify(v, null, 2)));
}
process.stdout.write(out.join('\0'));
"#;

fn node_available() -> bool {
    std::process::Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn node_json_stringify_oracle() {
    if !node_available() {
        let required = std::env::var("TOOLWIRE_REQUIRE_EXTERNAL").is_ok_and(|v| v == "1");
        assert!(
            !required,
            "node not found on PATH (required by TOOLWIRE_REQUIRE_EXTERNAL=1)"
        );
        eprintln!("NOTE: node not found on PATH; the JSON.stringify oracle test DID NOT RUN");
        return;
    }
    const DOCS: usize = 400;
    // Values JavaScript reads exactly and keeps in place (integers within 2^53, no
    // array-index keys), lone surrogates included (well-formed `JSON.stringify` escapes
    // them), at most 4 containers deep; one per line, some characters escaped (the parser
    // must not care). Always the same documents: a deterministic runner.
    let values = Values::new()
        .javascript(true)
        .lone_surrogates(true)
        .depth(4)
        .width(4);
    let strategy = (values.json(), any::<u64>());
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let mut input = String::new();
    let mut docs = Vec::with_capacity(DOCS);
    for _ in 0..DOCS {
        let (json, escapes) = strategy.new_tree(&mut runner).unwrap().current();
        input.push_str(&json.text(Spelling { space: "", escapes }));
        input.push('\n');
        docs.push(json.to_doc());
    }
    let path = std::env::temp_dir().join(format!(
        "toolwire-json-write-oracle-{}.jsonl",
        std::process::id()
    ));
    std::fs::write(&path, &input).unwrap();
    let output = std::process::Command::new("node")
        .arg("-e")
        .arg(NODE_ORACLE)
        .arg(&path)
        .output()
        .expect("run node");
    std::fs::remove_file(&path).ok();
    assert!(
        output.status.success(),
        "node failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let parts: Vec<&[u8]> = output.stdout.split(|&b| b == 0).collect();
    assert_eq!(parts.len(), 2 * DOCS);
    let lines: Vec<&str> = input.lines().collect();
    let mut matched = 0;
    for (i, doc) in docs.iter().enumerate() {
        assert_eq!(
            String::from_utf8_lossy(&to_vec_compact(doc.root())),
            String::from_utf8_lossy(parts[2 * i]),
            "compact, document {i}: {}",
            lines[i]
        );
        assert_eq!(
            String::from_utf8_lossy(&to_vec_pretty(doc.root())),
            String::from_utf8_lossy(parts[2 * i + 1]),
            "pretty, document {i}: {}",
            lines[i]
        );
        matched += 1;
    }
    // The generator must have produced the interesting cases: lone surrogates, reserved tags,
    // the smallest subnormal (in the values, as `JSON.stringify` wrote them: the input text
    // escapes characters at random).
    let stringified = String::from_utf8_lossy(&output.stdout);
    assert!(
        stringified.contains("\\ud")
            && stringified.contains("tool_error")
            && stringified.contains("e-324")
    );
    eprintln!(
        "node JSON.stringify oracle: {matched} of {DOCS} documents matched (compact and pretty)"
    );
}

// ---------------------------------------------------------------------------------------------
// Properties against serde_json.

use toolwire_tests::with_tag_deviation;

/// A case the generator found before it was `toolwire_oracles::values` (its seed in
/// `json_write.proptest-regressions` now draws another value).
#[test]
fn found_case_an_empty_key() {
    let v = serde_json::json!({"": null});
    let doc = doc_from_serde(&v);
    assert_eq!(
        to_string_compact(doc.root()),
        serde_json::to_string(&v).unwrap()
    );
    assert_eq!(
        to_string_pretty(doc.root()),
        serde_json::to_string_pretty(&v).unwrap()
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn compact_reads_back_as_the_same_value(v in Values::new().value()) {
        let doc = doc_from_serde(&v);
        let out = to_vec_compact(doc.root());
        let back: serde_json::Value = serde_json::from_slice(&out).unwrap();
        prop_assert!(json_model_eq(&v, &back), "{v} -> {}", String::from_utf8_lossy(&out));
        // Pretty differs only by whitespace outside strings.
        let pretty: serde_json::Value = serde_json::from_slice(&to_vec_pretty(doc.root())).unwrap();
        prop_assert!(json_model_eq(&v, &pretty));
    }

    #[test]
    fn pretty_equals_serde_json_without_floats(v in Values::new().floats(false).value()) {
        let doc = doc_from_serde(&v);
        let want = with_tag_deviation(&serde_json::to_string_pretty(&v).unwrap());
        prop_assert_eq!(to_string_pretty(doc.root()), want);
        let want = with_tag_deviation(&serde_json::to_string(&v).unwrap());
        prop_assert_eq!(to_string_compact(doc.root()), want);
    }
}
