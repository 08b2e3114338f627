//! TOON 4.4 encoder: the official encode fixtures (read in place), then one exact-string test
//! per spec rule so a clone without the fixtures still pins the rules.

use toolwire::toon::{self, Delimiter, EncodeOptions};
use toolwire::{Category, DocBuilder};
use toolwire_tests::doc_from_serde;

/// The spec version this encoder targets; fixtures with a newer `minSpecVersion` are skipped.
const TARGET: (u32, u32) = (4, 4);
const EXPECTED_CASES: usize = 160;

fn parse_version(v: &str) -> (u32, u32) {
    let mut parts = v
        .split('.')
        .map(|p| p.parse::<u32>().expect("numeric version"));
    (parts.next().unwrap_or(0), parts.next().unwrap_or(0))
}

fn options_of(case: &serde_json::Value) -> EncodeOptions {
    let mut opts = EncodeOptions::new();
    if let Some(o) = case.get("options") {
        if let Some(d) = o.get("delimiter").and_then(|d| d.as_str()) {
            opts = opts.delimiter(match d {
                "," => Delimiter::Comma,
                "\t" => Delimiter::Tab,
                "|" => Delimiter::Pipe,
                other => panic!("unknown delimiter {other:?}"),
            });
        }
        if let Some(n) = o.get("indentSize").and_then(|n| n.as_u64()) {
            opts = opts.indent(n as usize);
        }
        for k in o.as_object().expect("options object").keys() {
            assert!(
                k == "delimiter" || k == "indentSize",
                "unhandled encode option {k:?}"
            );
        }
    }
    opts
}

#[test]
fn spec_fixtures_encode() {
    let Some(dir) = toolwire_tests::toon_fixtures() else {
        return;
    };
    let dir = dir.join("encode");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut total = 0;
    let mut passed = 0;
    let mut failures = Vec::new();
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(path).expect("fixture file");
        let suite: serde_json::Value = serde_json::from_str(&text).expect("fixture JSON");
        let cases = suite["tests"].as_array().expect("tests array");
        let mut file_pass = 0;
        let mut file_run = 0;
        for (i, case) in cases.iter().enumerate() {
            if let Some(v) = case.get("minSpecVersion").and_then(|v| v.as_str()) {
                if parse_version(v) > TARGET {
                    eprintln!("{name}#{i}: skipped (minSpecVersion {v})");
                    continue;
                }
            }
            file_run += 1;
            let opts = options_of(case);
            let doc = doc_from_serde(&case["input"]);
            let expected = case["expected"].as_str().expect("expected string");
            match toon::to_string(doc.root(), &opts) {
                Ok(got) if got == expected => file_pass += 1,
                Ok(got) => failures.push(format!(
                    "{name}#{i} ({}):\n  expected {expected:?}\n  got      {got:?}",
                    case["name"]
                )),
                Err(e) => failures.push(format!("{name}#{i} ({}): error {e}", case["name"])),
            }
        }
        eprintln!("{name}: {file_pass}/{file_run} passed");
        total += file_run;
        passed += file_pass;
    }
    assert!(
        failures.is_empty(),
        "{} of {total} encode fixtures failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(passed, total);
    assert_eq!(total, EXPECTED_CASES, "number of encode fixture cases run");
}

// ---------------------------------------------------------------------------------------------
// Own rules.

fn enc_with(json: &str, opts: &EncodeOptions) -> String {
    let v: serde_json::Value = serde_json::from_str(json).expect("test JSON");
    toon::to_string(doc_from_serde(&v).root(), opts).expect("encodes")
}

fn enc(json: &str) -> String {
    enc_with(json, &EncodeOptions::new())
}

/// A root string, encoded as a field value so the root-only BOM rule does not interfere.
fn val(s: &str) -> String {
    let json = serde_json::json!({ "k": s }).to_string();
    enc(&json)
        .strip_prefix("k: ")
        .expect("field line")
        .to_string()
}

#[test]
fn quoting_triggers_one_by_one() {
    let cases: &[(&str, &str)] = &[
        ("plain", "plain"),
        ("hello world", "hello world"),
        ("", r#""""#),
        (" lead", r#"" lead""#),
        ("trail ", r#""trail ""#),
        ("\tlead", r#""\tlead""#),
        ("true", r#""true""#),
        ("false", r#""false""#),
        ("null", r#""null""#),
        ("True", "True"),
        ("nulls", "nulls"),
        ("42", r#""42""#),
        ("-3.14", r#""-3.14""#),
        ("+1", r#""+1""#),
        ("1e-6", r#""1e-6""#),
        ("1E+9", r#""1E+9""#),
        ("05", r#""05""#),
        ("1.", "1."),
        (".5", ".5"),
        ("1e", "1e"),
        ("1_000", "1_000"),
        ("+", "+"),
        ("a:b", r#""a:b""#),
        ("a,b", r#""a,b""#),
        ("a|b", "a|b"),
        ("a\tb", r#""a\tb""#),
        ("say \"hi\"", r#""say \"hi\"""#),
        ("back\\slash", r#""back\\slash""#),
        ("[x", r#""[x""#),
        ("x]", r#""x]""#),
        ("{x", r#""{x""#),
        ("x}", r#""x}""#),
        ("line\nbreak", r#""line\nbreak""#),
        ("cr\rhere", r#""cr\rhere""#),
        ("nul\u{0}", r#""nul\u0000""#),
        ("bell\u{7}", r#""bell\u0007""#),
        ("us\u{1f}", r#""us\u001f""#),
        ("del\u{7f}", "del\u{7f}"),
        ("-", r#""-""#),
        ("-x", r#""-x""#),
        ("- item", r#""- item""#),
        ("a-b", "a-b"),
        ("#tag", "\"#tag\""),
        ("a#b", "a#b"),
        ("café", "café"),
        ("\u{feff}x", "\u{feff}x"),
        ("\u{a0}x\u{a0}", "\u{a0}x\u{a0}"),
        ("a,\u{301}b", "\"a,\u{301}b\""),
    ];
    for &(input, want) in cases {
        assert_eq!(val(input), want, "string {input:?}");
    }
}

#[test]
fn delimiter_decides_which_separator_quotes() {
    let pipe = EncodeOptions::new().delimiter(Delimiter::Pipe);
    let tab = EncodeOptions::new().delimiter(Delimiter::Tab);
    assert_eq!(enc_with(r#"{"k":"a|b"}"#, &pipe), r#"k: "a|b""#);
    assert_eq!(enc_with(r#"{"k":"a,b"}"#, &pipe), "k: a,b");
    assert_eq!(enc_with(r#"{"k":"a,b"}"#, &tab), "k: a,b");
    assert_eq!(enc_with(r#"["a,b","c|d"]"#, &pipe), r#"[2|]: a,b|"c|d""#);
    assert_eq!(enc_with(r#"["a,b","c d"]"#, &tab), "[2\t]: a,b\tc d");
    assert_eq!(enc_with(r#""a,b""#, &pipe), "a,b");
    assert_eq!(enc(r#""a,b""#), r#""a,b""#);
}

#[test]
fn root_strings() {
    assert_eq!(enc(r#""hello""#), "hello");
    assert_eq!(enc(r#""""#), r#""""#);
    // U+FEFF opens the document only at the root: quoted there, literal elsewhere.
    assert_eq!(enc("\"\u{feff}8\""), "\"\u{feff}8\"");
    assert_eq!(enc("\"\u{feff}x\""), "\"\u{feff}x\"");
    assert_eq!(enc("[\"\u{feff}x\"]"), "[1]: \u{feff}x");
}

#[test]
fn keys() {
    assert_eq!(enc(r#"{"a":1}"#), "a: 1");
    assert_eq!(enc(r#"{"_a.b_9":1}"#), "_a.b_9: 1");
    assert_eq!(enc(r#"{"true":1}"#), "true: 1");
    assert_eq!(enc(r#"{"A":1}"#), "A: 1");
    for (key, want) in [
        ("", r#""""#),
        ("9a", r#""9a""#),
        (".a", r#"".a""#),
        ("a-b", r#""a-b""#),
        ("-a", r#""-a""#),
        ("a b", r#""a b""#),
        ("a:b", r#""a:b""#),
        ("a[0]", r#""a[0]""#),
        ("a{b}", r#""a{b}""#),
        ("a,b", r#""a,b""#),
        ("a|b", r#""a|b""#),
        ("é", r#""é""#),
        ("a\"b", r#""a\"b""#),
        ("a\\b", r#""a\\b""#),
        ("a\nb", r#""a\nb""#),
        ("a\u{1}b", r#""a\u0001b""#),
    ] {
        let json = serde_json::json!({ key: 1 }).to_string();
        assert_eq!(enc(&json), format!("{want}: 1"), "key {key:?}");
    }
}

#[test]
fn numbers() {
    assert_eq!(enc("1e21"), "1e+21");
    assert_eq!(enc("1e20"), "100000000000000000000");
    assert_eq!(enc("-0"), "0");
    assert_eq!(enc("-0.0"), "0");
    assert_eq!(enc("0.1"), "0.1");
    assert_eq!(enc("1e-7"), "1e-7");
    assert_eq!(enc("1.5"), "1.5");
    assert_eq!(
        enc("123456789012345678901234567890"),
        "123456789012345678901234567890"
    );
    assert_eq!(
        enc("[-98765432109876543210987654321,2.50]"),
        "[2]: -98765432109876543210987654321,2.5"
    );
    let mut b = DocBuilder::new(b"");
    let a = b.begin_array();
    b.float(f64::NAN);
    b.float(f64::INFINITY);
    b.end_array(a, 2);
    let doc = b.finish();
    assert_eq!(
        toon::to_string(doc.root(), &EncodeOptions::new()).unwrap(),
        "[2]: null,null"
    );
}

#[test]
fn primitives_and_empties() {
    assert_eq!(enc("null"), "null");
    assert_eq!(enc("true"), "true");
    assert_eq!(enc("false"), "false");
    assert_eq!(enc("{}"), "");
    assert_eq!(enc("[]"), "[]");
    assert_eq!(enc(r#"{"a":[]}"#), "a: []");
    assert_eq!(enc(r#"{"a":{}}"#), "a:");
    assert_eq!(enc("[[]]"), "[1]:\n  - [0]:");
    assert_eq!(enc("[{}]"), "[1]:\n  -");
}

#[test]
fn nested_objects_and_indent() {
    let json = r#"{"a":{"b":{"c":1}},"d":2}"#;
    assert_eq!(enc(json), "a:\n  b:\n    c: 1\nd: 2");
    assert_eq!(
        enc_with(json, &EncodeOptions::new().indent(3)),
        "a:\n   b:\n      c: 1\nd: 2"
    );
    assert_eq!(
        enc_with(json, &EncodeOptions::new().indent(1)),
        "a:\n b:\n  c: 1\nd: 2"
    );
}

#[test]
fn inline_tabular_and_list_arrays() {
    assert_eq!(enc(r#"{"t":["a",1,null,true]}"#), "t[4]: a,1,null,true");
    assert_eq!(
        enc(r#"{"t":[{"a":1,"b":"x y"},{"b":"-","a":2}]}"#),
        "t[2]{a,b}:\n  1,x y\n  2,\"-\""
    );
    assert_eq!(
        enc(r#"{"t":[{"a":1},{"a":[1]}]}"#),
        "t[2]:\n  - a: 1\n  - a[1]: 1"
    );
    assert_eq!(
        enc(r#"{"t":[{"a":{"b":1,"c":2}},{"a":{"c":3,"b":4}}]}"#),
        "t[2]{a{b,c}}:\n  1,2\n  4,3"
    );
    assert_eq!(
        enc(r#"[[1,2],["a"],[]]"#),
        "[3]:\n  - [2]: 1,2\n  - [1]: a\n  - [0]:"
    );
    assert_eq!(
        enc(r#"{"x":[1,[2],{"a":1,"b":[{"c":1},{"c":2}]}]}"#),
        "x[3]:\n  - 1\n  - [1]: 2\n  - a: 1\n    b[2]{c}:\n      1\n      2"
    );
}

#[test]
fn list_item_objects_first_field_layouts() {
    assert_eq!(
        enc(r#"[{"t":[{"a":1},{"a":2}],"z":0},5]"#),
        "[2]:\n  - t[2]{a}:\n      1\n      2\n    z: 0\n  - 5"
    );
    assert_eq!(
        enc(r#"[{"o":{"p":1},"z":0},5]"#),
        "[2]:\n  - o:\n      p: 1\n    z: 0\n  - 5"
    );
    assert_eq!(
        enc(r#"[{"l":[1,{"a":1}]},5]"#),
        "[2]:\n  - l[2]:\n      - 1\n      - a: 1\n  - 5"
    );
    assert_eq!(
        enc(r#"[{"k":{"a":{"x":1},"b":{"x":2}}},5]"#),
        "[2]:\n  - k[2:]{x}:\n      a: 1\n      b: 2\n  - 5"
    );
}

#[test]
fn keyed_tabular_objects() {
    assert_eq!(
        enc(r#"{"m":{"a":{"x":1,"y":"p q"},"b":{"y":"r","x":2}}}"#),
        "m[2:]{x,y}:\n  a: 1,p q\n  b: 2,r"
    );
    assert_eq!(
        enc_with(
            r#"{"a":{"x":"1|2"},"b":{"x":3}}"#,
            &EncodeOptions::new().delimiter(Delimiter::Pipe)
        ),
        "[2:|]{x}:\n  a: \"1|2\"\n  b: 3"
    );
    // One entry, or mixed values: nested form.
    assert_eq!(enc(r#"{"m":{"a":{"x":1}}}"#), "m:\n  a:\n    x: 1");
    assert_eq!(
        enc(r#"{"m":{"a":{"x":1},"b":{}}}"#),
        "m:\n  a:\n    x: 1\n  b:"
    );
}

#[test]
fn delimiters_in_headers() {
    let tab = EncodeOptions::new().delimiter(Delimiter::Tab);
    assert_eq!(
        enc_with(r#"{"t":[{"a":1,"b":2}]}"#, &tab),
        "t[1\t]{a\tb}:\n  1\t2"
    );
    assert_eq!(enc_with(r#"[[1,2]]"#, &tab), "[1\t]:\n  - [2\t]: 1\t2");
}

#[test]
fn no_trailing_newline_or_spaces() {
    let out = enc(r#"{"a":{"b":[1,2],"c":[{"x":1},{"x":2}],"d":[{"y":1},{"z":2}],"e":{}}}"#);
    assert_eq!(
        out,
        "a:\n  b[2]: 1,2\n  c[2]{x}:\n    1\n    2\n  d[2]:\n    - y: 1\n    - z: 2\n  e:"
    );
    assert!(out.lines().all(|l| !l.ends_with(' ')));
}

fn string_doc(bytes: &[u8], as_key: bool) -> toolwire::Doc<'static> {
    let mut b = DocBuilder::new(b"");
    let o = b.begin_object();
    if as_key {
        b.string(bytes);
        b.i64(1);
    } else {
        b.string(b"k");
        b.string(bytes);
    }
    b.end_object(o, 1);
    b.finish()
}

#[test]
fn lone_surrogates_are_encode_errors_and_write_nothing() {
    // U+D800 in WTF-8.
    let lone = b"a\xED\xA0\x80b";
    for (as_key, msg) in [
        (
            false,
            "toon: a string holds a lone surrogate, which TOON (UTF-8 text) cannot represent",
        ),
        (
            true,
            "toon: a key holds a lone surrogate, which TOON (UTF-8 text) cannot represent",
        ),
    ] {
        let doc = string_doc(lone, as_key);
        let opts = EncodeOptions::new();
        let e = toon::check(doc.root(), &opts).unwrap_err();
        assert_eq!(e.classify(), Category::Encode);
        assert_eq!(e.message(), msg);
        let mut out = b"keep".to_vec();
        let e = toon::encode(doc.root(), &opts, &mut out).unwrap_err();
        assert_eq!(e.message(), msg);
        assert_eq!(out, b"keep");
    }
    // Hangul (ED 9x xx) is not a surrogate.
    let doc = string_doc("한".as_bytes(), false);
    assert_eq!(
        toon::to_string(doc.root(), &EncodeOptions::new()).unwrap(),
        "k: 한"
    );
}

fn nested_arrays_around(levels: usize, inner: &[u8]) -> toolwire::Doc<'static> {
    let mut b = DocBuilder::new(b"");
    let marks: Vec<_> = (0..levels).map(|_| b.begin_array()).collect();
    if inner.is_empty() {
        b.i64(7);
    } else {
        b.string(inner);
    }
    for m in marks.into_iter().rev() {
        b.end_array(m, 1);
    }
    b.finish()
}

fn nested_arrays(levels: usize) -> toolwire::Doc<'static> {
    nested_arrays_around(levels, b"")
}

#[test]
fn depth_limit_is_an_error_not_a_stack_overflow() {
    let opts = EncodeOptions::new().max_depth(3);
    let ok = nested_arrays(3);
    assert_eq!(
        toon::to_string(ok.root(), &opts).unwrap(),
        "[1]:\n  - [1]:\n    - [1]: 7"
    );
    let deep = nested_arrays(4);
    let e = toon::to_string(deep.root(), &opts).unwrap_err();
    assert_eq!(e.classify(), Category::Depth);
    assert_eq!(
        e.message(),
        "toon: values nest deeper than max_depth (3 levels)"
    );

    // Far deeper than any stack would survive recursively: still a clean error.
    let huge = nested_arrays(200_000);
    let e = toon::to_string(huge.root(), &EncodeOptions::new()).unwrap_err();
    assert_eq!(
        e.message(),
        "toon: values nest deeper than max_depth (128 levels)"
    );
    assert_eq!(
        EncodeOptions::new().max_depth(usize::MAX).get_max_depth(),
        toon::MAX_DEPTH_LIMIT
    );
    assert_eq!(
        toon::to_string(nested_arrays(0).root(), &EncodeOptions::new().max_depth(0)).unwrap(),
        "7"
    );
    // The same limits on the path taken when the document flags a lone surrogate.
    let flagged = nested_arrays_around(4, b"\xED\xB0\x80");
    let e = toon::check(flagged.root(), &opts).unwrap_err();
    assert_eq!(e.classify(), Category::Depth);
    assert_eq!(
        e.message(),
        "toon: values nest deeper than max_depth (3 levels)"
    );
    let e = toon::check(flagged.root(), &EncodeOptions::new()).unwrap_err();
    assert_eq!(e.classify(), Category::Encode);
    // Flagged document (the flag covers the whole input), clean value: encodes.
    let mut b = DocBuilder::new(b"");
    b.mark_lone_surrogate();
    let outer = b.begin_array();
    let inner = b.begin_array();
    b.string("x\u{1F680}".as_bytes());
    b.end_array(inner, 1);
    b.end_array(outer, 1);
    let flagged_ok = b.finish();
    assert!(flagged_ok.has_lone_surrogate());
    assert_eq!(
        toon::to_string(flagged_ok.root(), &opts).unwrap(),
        "[1]:\n  - [1]: x\u{1F680}"
    );
}

#[test]
fn indent_out_of_range_is_rejected() {
    let doc = doc_from_serde(&serde_json::json!({"a": {"b": 1}}));
    for bad in [0, toon::MAX_INDENT + 1, usize::MAX] {
        let opts = EncodeOptions::new().indent(bad);
        let e = toon::check(doc.root(), &opts).unwrap_err();
        assert_eq!(e.classify(), Category::Encode);
        assert_eq!(e.message(), "toon: indent must be between 1 and 64 spaces");
        let mut out = Vec::new();
        assert!(toon::encode(doc.root(), &opts, &mut out).is_err());
        assert!(out.is_empty());
    }
    let wide = EncodeOptions::new().indent(toon::MAX_INDENT);
    assert_eq!(
        toon::to_string(doc.root(), &wide).unwrap(),
        format!("a:\n{}b: 1", " ".repeat(64))
    );
}

#[test]
fn options_builder_and_defaults() {
    let d = EncodeOptions::default();
    assert_eq!(d.get_delimiter(), Delimiter::Comma);
    assert_eq!(d.get_indent(), 2);
    assert_eq!(d.get_max_depth(), 128);
    assert!(d.get_parallel());
    assert_eq!(d.get_parallel_threshold(), 4096);
    let o = EncodeOptions::new()
        .delimiter(Delimiter::Tab)
        .indent(4)
        .max_depth(10)
        .parallel(false)
        .parallel_threshold(0);
    assert_eq!(o.get_delimiter(), Delimiter::Tab);
    assert_eq!(o.get_indent(), 4);
    assert_eq!(o.get_max_depth(), 10);
    assert!(!o.get_parallel());
    assert_eq!(o.get_parallel_threshold(), 1);
}

#[test]
fn parallel_tabular_matches_sequential() {
    let rows: Vec<serde_json::Value> = (0..1000)
        .map(|i| {
            let tag = if i % 7 == 0 { "a,b" } else { "x" };
            serde_json::json!({"id": i, "name": format!("n{i}"), "tag": tag,
                               "geo": {"lat": i as f64 / 4.0, "lon": -i}})
        })
        .collect();
    let v = serde_json::json!({ "rows": rows });
    let doc = doc_from_serde(&v);
    for d in [Delimiter::Comma, Delimiter::Tab, Delimiter::Pipe] {
        let seq = EncodeOptions::new().delimiter(d).parallel(false);
        let par = EncodeOptions::new().delimiter(d).parallel_threshold(10);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        let a = toon::to_string(doc.root(), &seq).unwrap();
        let b = pool.install(|| toon::to_string(doc.root(), &par).unwrap());
        assert_eq!(a, b);
        assert!(a.starts_with("rows[1000"));
        assert_eq!(a.lines().count(), 1001);
    }
}

#[test]
fn deepest_allowed_nesting_encodes_without_overflow() {
    let opts = EncodeOptions::new().max_depth(toon::MAX_DEPTH_LIMIT);
    // Arrays of arrays of objects, alternating, as deep as the limit allows.
    let mut b = DocBuilder::new(b"");
    let mut marks = Vec::new();
    for i in 0..toon::MAX_DEPTH_LIMIT {
        if i % 2 == 0 {
            marks.push((true, b.begin_array()));
        } else {
            marks.push((false, b.begin_object()));
            b.string(b"k");
        }
    }
    b.i64(1);
    for (is_array, m) in marks.into_iter().rev() {
        if is_array {
            b.end_array(m, 1);
        } else {
            b.end_object(m, 1);
        }
    }
    let doc = b.finish();
    let out = toon::to_string(doc.root(), &opts).unwrap();
    // `[1]:`, then `- [1]:` / `- k[1]:` lines, and the innermost array (a member value whose
    // element is `{"k": 1}`) in tabular form.
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), toon::MAX_DEPTH_LIMIT / 2 + 1);
    assert_eq!(lines[0], "[1]:");
    assert_eq!(lines[1], "  - k[1]:");
    assert_eq!(lines[lines.len() - 2].trim_start(), "- k[1]{k}:");
    assert_eq!(lines[lines.len() - 1].trim_start(), "1");
    let e = toon::check(doc.root(), &opts.clone().max_depth(999)).unwrap_err();
    assert_eq!(e.classify(), Category::Depth);
}
