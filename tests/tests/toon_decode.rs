//! TOON decoder: the official 4.4 decode fixtures (read in place) and exact own tests.

use toolwire::Category;
use toolwire::toon::{DecodeOptions, decode};

/// Runs `f` and returns its result with the largest single allocation it made on this thread
/// (counted by the test binary's allocator, `suite.rs`): the hostile-input tests assert that a
/// huge declared length never turns into a huge reservation.
fn largest_allocation<T>(f: impl FnOnce() -> T) -> (T, usize) {
    toolwire_oracles::alloc::largest(f)
}

// ---------------------------------------------------------------------------------------
// Conformance: every case of every file in fixtures/decode.

/// The spec version this decoder targets.
const TARGET: (u32, u32) = (4, 4);

fn version(v: &str) -> (u32, u32) {
    let mut it = v
        .split('.')
        .map(|p| p.parse::<u32>().expect("numeric version"));
    (it.next().unwrap_or(0), it.next().unwrap_or(0))
}

#[test]
fn official_decode_fixtures() {
    let Some(root) = toolwire_tests::toon_fixtures() else {
        return;
    };
    let dir = root.join("decode");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("fixtures/decode")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut total = 0;
    let mut skipped = 0;
    let mut failures = Vec::new();
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(path).expect("fixture file");
        let suite: serde_json::Value = serde_json::from_str(&text).expect("fixture json");
        let cases = suite["tests"].as_array().expect("tests array");
        let mut passed = 0;
        for (i, case) in cases.iter().enumerate() {
            total += 1;
            if let Some(v) = case.get("minSpecVersion").and_then(|v| v.as_str()) {
                if version(v) > TARGET {
                    skipped += 1;
                    continue;
                }
            }
            let opts = case.get("options");
            let mut o = DecodeOptions::new();
            if let Some(s) = opts.and_then(|o| o.get("strict")).and_then(|v| v.as_bool()) {
                o = o.strict(s);
            }
            if let Some(n) = opts
                .and_then(|o| o.get("indentSize"))
                .and_then(|v| v.as_u64())
            {
                o = o.indent(n as usize);
            }
            let input = case["input"].as_str().expect("input string");
            let got = decode(input.as_bytes(), &o);
            let should_error = case.get("shouldError").and_then(|v| v.as_bool()) == Some(true);
            match (should_error, got) {
                (true, Err(e)) if e.line() >= 1 && e.column() >= 1 => passed += 1,
                (true, Err(e)) => failures.push(format!("{name}#{i}: error without position: {e}")),
                (true, Ok(doc)) => failures.push(format!(
                    "{name}#{i}: expected an error, decoded {}",
                    toolwire_tests::doc_to_serde(doc.root())
                )),
                (false, Err(e)) => {
                    failures.push(format!("{name}#{i}: {input:?}: unexpected error {e}"))
                }
                (false, Ok(doc)) => {
                    let got = toolwire_tests::doc_to_serde(doc.root());
                    if toolwire_tests::json_model_eq(&got, &case["expected"]) {
                        passed += 1;
                    } else {
                        failures.push(format!(
                            "{name}#{i}: {input:?}: expected {}, got {got}",
                            case["expected"]
                        ));
                    }
                }
            }
        }
        eprintln!("{name}: {passed}/{} passed", cases.len());
    }
    eprintln!(
        "total: {total} cases, {skipped} skipped (newer than 4.4), {} failed",
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(total, 404, "the 4.4 decode suite has 404 cases");
    assert_eq!(
        skipped, 0,
        "every case of the 4.4 suite targets 4.4 or older"
    );
}

// ---------------------------------------------------------------------------------------
// Own exact tests: these run without the external fixtures.

fn strict() -> DecodeOptions {
    DecodeOptions::new()
}

fn lenient() -> DecodeOptions {
    DecodeOptions::new().strict(false)
}

/// Decodes and renders the value as JSON text (the oracle's serialisation).
fn json(input: &str, opts: &DecodeOptions) -> String {
    match decode(input.as_bytes(), opts) {
        Ok(doc) => toolwire_tests::doc_to_serde(doc.root()).to_string(),
        Err(e) => panic!("{input:?}: unexpected error {e} ({:?})", e.classify()),
    }
}

/// Decodes and returns (category, line, column, message) of the error.
fn error(input: &[u8], opts: &DecodeOptions) -> (Category, usize, usize, String) {
    match decode(input, opts) {
        Ok(doc) => panic!(
            "{:?}: expected an error, decoded {}",
            String::from_utf8_lossy(input),
            toolwire_tests::doc_to_serde(doc.root())
        ),
        Err(e) => (e.classify(), e.line(), e.column(), e.message().to_owned()),
    }
}

#[test]
fn options_default_to_strict_indent_2_depth_128() {
    let d = DecodeOptions::default();
    assert!(d.is_strict());
    assert_eq!(d.indent_size(), 2);
    assert_eq!(d.depth_limit(), 128);
    assert_eq!(DecodeOptions::new().indent(0).indent_size(), 1);
    let o = DecodeOptions::new().strict(false).indent(4).max_depth(7);
    assert_eq!(
        (o.is_strict(), o.indent_size(), o.depth_limit()),
        (false, 4, 7)
    );
}

#[test]
fn root_forms() {
    let cases = [
        ("", "{}"),
        ("# only a comment\n\n  # another\n", "{}"),
        ("\n\n", "{}"),
        ("hello", r#""hello""#),
        ("\nhello\n", r#""hello""#),
        ("42", "42"),
        ("true", "true"),
        ("null", "null"),
        (r#""quoted: [1]""#, r#""quoted: [1]""#),
        ("[]", "[]"),
        ("[0]:", "[]"),
        ("[3]: a,2,true", r#"["a",2,true]"#),
        ("[2]{x}:\n  1\n  2", r#"[{"x":1},{"x":2}]"#),
        ("[2:]{v}:\n  a: 1\n  b: 2", r#"{"a":{"v":1},"b":{"v":2}}"#),
        ("items[2]", r#""items[2]""#),
        ("a: 1", r#"{"a":1}"#),
    ];
    for (input, expected) in cases {
        assert_eq!(json(input, &strict()), expected, "{input:?}");
    }
}

#[test]
fn primitives_and_numbers() {
    let cases = [
        ("a: 1.5000", r#"{"a":1.5}"#),
        ("a: -1E+03", r#"{"a":-1000}"#),
        ("a: 2.5e2", r#"{"a":250}"#),
        ("a: -0", r#"{"a":0}"#),
        ("a: -0.0", r#"{"a":0}"#),
        ("a: 0e1", r#"{"a":0}"#),
        (
            "a: 123456789012345678901234567890",
            r#"{"a":123456789012345678901234567890}"#,
        ),
        ("a: 05", r#"{"a":"05"}"#),
        ("a: -05", r#"{"a":"-05"}"#),
        ("a: .5", r#"{"a":".5"}"#),
        ("a: 1.", r#"{"a":"1."}"#),
        ("a: +1", r#"{"a":"+1"}"#),
        ("a: 0x10", r#"{"a":"0x10"}"#),
        ("a: NaN", r#"{"a":"NaN"}"#),
        ("a: True", r#"{"a":"True"}"#),
        ("a: \"true\"", r#"{"a":"true"}"#),
        ("a: \"42\"", r#"{"a":"42"}"#),
        ("a: false", r#"{"a":false}"#),
        ("a: null", r#"{"a":null}"#),
        ("a: hello world", r#"{"a":"hello world"}"#),
        ("a: b:c", r#"{"a":"b:c"}"#),
        ("a: x,y", r#"{"a":"x,y"}"#),
        ("a: -x", r#"{"a":"-x"}"#),
        ("a: #x", r##"{"a":"#x"}"##),
        ("a: \u{a0}v\t", "{\"a\":\"\u{a0}v\\t\"}"),
        (r#"a: "x\"y\\z\n\r\t""#, r#"{"a":"x\"y\\z\n\r\t"}"#),
        (r#"a: "\u00e9\u0041""#, r#"{"a":"éA"}"#),
        ("a: \"caf\u{e9} 🚀\"", r#"{"a":"café 🚀"}"#),
        ("a: \"\"", r#"{"a":""}"#),
        ("a: \" padded \"", r#"{"a":" padded "}"#),
    ];
    for (input, expected) in cases {
        assert_eq!(json(input, &strict()), expected, "{input:?}");
    }
}

#[test]
fn objects_and_keys() {
    let cases = [
        ("a:\n  b:\n    c: deep", r#"{"a":{"b":{"c":"deep"}}}"#),
        ("user:", r#"{"user":{}}"#),
        ("user: ", r#"{"user":{}}"#),
        ("e: []", r#"{"e":[]}"#),
        ("\"order:id\": 7", r#"{"order:id":7}"#),
        ("\"a\\tb\": 1", r#"{"a\tb":1}"#),
        ("\"\": 1", r#"{"":1}"#),
        (": 1", r#"{"":1}"#),
        ("a : 1\nb:2", r#"{"a":1,"b":2}"#),
        ("\"a\" : 1", r#"{"a":1}"#),
        (
            "foo-bar: 1\n2key: 2\ntrue: 3",
            r#"{"foo-bar":1,"2key":2,"true":3}"#,
        ),
        ("- a: 1", r#"{"- a":1}"#),
        ("a\"b:c\"d: 1", r#"{"a\"b:c\"d":1}"#),
        (
            "__proto__:\n  admin: true",
            r#"{"__proto__":{"admin":true}}"#,
        ),
        ("a: 1\nb:\n  c: 2\nd: 3", r#"{"a":1,"b":{"c":2},"d":3}"#),
    ];
    for (input, expected) in cases {
        assert_eq!(json(input, &strict()), expected, "{input:?}");
    }
}

#[test]
fn arrays_every_form() {
    let cases = [
        ("t[3]: a,\"b,c\",", r#"{"t":["a","b,c",""]}"#),
        ("t[3|]: a|b,c|d", r#"{"t":["a","b,c","d"]}"#),
        ("t[2\t]: a b\tc", r#"{"t":["a b","c"]}"#),
        ("t[3]: a , b , c", r#"{"t":["a","b","c"]}"#),
        ("t[1]: []", r#"{"t":["[]"]}"#),
        ("t[0]:", r#"{"t":[]}"#),
        ("\"my key\"[2]: 1,2", r#"{"my key":[1,2]}"#),
        (
            "u[2]{id,name}:\n  1,Ada\n  2,\"B, ob\"\nn: 1",
            r#"{"u":[{"id":1,"name":"Ada"},{"id":2,"name":"B, ob"}],"n":1}"#,
        ),
        (
            "o[1]{id,c{name,geo{lat,lon}},t}:\n  1,Ada,1.5,-2,9",
            r#"{"o":[{"id":1,"c":{"name":"Ada","geo":{"lat":1.5,"lon":-2}},"t":9}]}"#,
        ),
        (
            "o[1]{\"a b\",\"x\\\"y\"}:\n  1,2",
            r#"{"o":[{"a b":1,"x\"y":2}]}"#,
        ),
        (
            "s[2:|]{host|port}:\n  alpha: a|80\n  \"b:c\": b|81",
            r#"{"s":{"alpha":{"host":"a","port":80},"b:c":{"host":"b","port":81}}}"#,
        ),
        (
            "l[5]:\n  - x\n  - 2\n  -\n  - []\n  - [2]: 1,2",
            r#"{"l":["x",2,{},[],[1,2]]}"#,
        ),
        (
            "l[2]:\n  - id: 1\n    tags[1]: a\n    sub:\n      k: v\n  - t[1]{a}:\n      1\n    z: 0",
            r#"{"l":[{"id":1,"tags":["a"],"sub":{"k":"v"}},{"t":[{"a":1}],"z":0}]}"#,
        ),
        ("l[1]:\n  - [1]:\n    - [1]: 1", r#"{"l":[[[1]]]}"#),
        ("l[1|]:\n  - t[2]: a,b", r#"{"l":[{"t":["a","b"]}]}"#),
        ("l[1]:\n  - \"[2]: x\"", r#"{"l":["[2]: x"]}"#),
    ];
    for (input, expected) in cases {
        assert_eq!(json(input, &strict()), expected, "{input:?}");
    }
}

#[test]
fn comments_blank_lines_bom_and_crlf() {
    let cases = [
        (
            "# head\nt[2]{a}:\n  # note\n  1\n# outdented\n  2\n",
            r#"{"t":[{"a":1},{"a":2}]}"#,
        ),
        (
            "a: 1\n   # odd indent is fine for comments\nb: 2",
            r#"{"a":1,"b":2}"#,
        ),
        ("a: 1\n\n   \nb: 2\n\n\n", r#"{"a":1,"b":2}"#),
        ("l[2]:\n\n  - a\n  - b", r#"{"l":["a","b"]}"#),
        ("l[1]:\n  - a\n\nb: 2", r#"{"l":["a"],"b":2}"#),
        ("\u{feff}a: 1", r#"{"a":1}"#),
        ("\u{feff}# c\na: 1", r#"{"a":1}"#),
        ("a: 1\n\u{feff}b: 2", "{\"a\":1,\"\u{feff}b\":2}"),
        // CRLF: exactly one CR before each LF belongs to the line terminator.
        ("a: 1\r\nb: 2\r\n", r#"{"a":1,"b":2}"#),
        (
            "t[2]{a,b}:\r\n  1,2\r\n  3,4\r\n",
            r#"{"t":[{"a":1,"b":2},{"a":3,"b":4}]}"#,
        ),
        ("a: 1\n\r\nb: 2", r#"{"a":1,"b":2}"#),
        ("a: 1\r", r#"{"a":1}"#),
        ("a: x\r\r\nb: 1", r#"{"a":"x\r","b":1}"#),
        ("a: x\ry", r#"{"a":"x\ry"}"#),
    ];
    for (input, expected) in cases {
        assert_eq!(json(input, &strict()), expected, "{input:?}");
    }
    // Positions in a CRLF document count LF-terminated lines; the CR is not a column.
    assert_eq!(
        error(b"a: 1\r\nb: \"x\r\nc: 3", &strict()),
        (
            Category::Syntax,
            2,
            4,
            "unterminated quoted string: expected a closing quote".to_owned()
        )
    );
}

#[test]
fn lenient_mode_applies_exactly_the_five_recoveries() {
    let cases = [
        // 1. Declared lengths are not checked: nothing is dropped, nothing is invented.
        ("t[1]: a,b", r#"{"t":["a","b"]}"#),
        ("t[3]: a", r#"{"t":["a"]}"#),
        (
            "a[1]:\n  - 1\n  - 2\nb[3]:\n  - x",
            r#"{"a":[1,2],"b":["x"]}"#,
        ),
        ("a[1]{x}:\n  1\n  2", r#"{"a":[{"x":1},{"x":2}]}"#),
        ("m[3:]{v}:\n  a: 1", r#"{"m":{"a":{"v":1}}}"#),
        ("a[99999999999999999999]: 1", r#"{"a":[1]}"#),
        // 2. Indentation: non-multiples floor, tabs count one level each.
        ("a:\n   b: 1\n  c: 2", r#"{"a":{"b":1,"c":2}}"#),
        ("a:\n  b:\n \t c: 1", r#"{"a":{"b":{"c":1}}}"#),
        // 3. Blank lines inside arrays are ignored (a tab-only line is blank too).
        ("l[2]:\n  - a\n\n  - b", r#"{"l":["a","b"]}"#),
        ("a: 1\n\t\nb: 2", r#"{"a":1,"b":2}"#),
        // 4. Duplicate keys: last write wins, at the first key's position.
        ("a: 1\nb: 2\na: 3", r#"{"a":3,"b":2}"#),
        ("t[1]{a,a,b}:\n  1,2,3", r#"{"t":[{"a":2,"b":3}]}"#),
        ("m[2:]{v}:\n  k: 1\n  k: 2", r#"{"m":{"k":{"v":2}}}"#),
        // 5. A jumped first line of a scope sets the scope's depth.
        ("a:\n    b: 1\n    c: 2", r#"{"a":{"b":1,"c":2}}"#),
        ("l[2]:\n    - 1\n    - 2", r#"{"l":[1,2]}"#),
    ];
    for (input, expected) in cases {
        assert_eq!(json(input, &lenient()), expected, "{input:?}");
        assert!(
            decode(input.as_bytes(), &strict()).is_err(),
            "strict accepts {input:?}"
        );
    }
    // Everything else stays an error in lenient mode.
    for input in [
        "k: \"abc\" def",
        "k: \"a\\x\"",
        "a: 1\n  b: 2",
        "[2]: 1,2\njunk: 3",
        "t[1]{a}:\n  1,2",
        "hello\nworld",
        "foo [2]: x",
        "a:\n    b: 1\n  c: 2",
    ] {
        assert!(decode(input.as_bytes(), &lenient()).is_err(), "{input:?}");
    }
}

#[test]
fn indent_size_option() {
    let four = DecodeOptions::new().indent(4);
    assert_eq!(
        json(
            "a:\n    b: 1\nl[2]:\n    - b: 1\n        c: 2\n    - 1",
            &four
        ),
        r#"{"a":{"b":1},"l":[{"b":1,"c":2},1]}"#
    );
    assert_eq!(
        error(b"a:\n  b: 1", &four),
        (
            Category::Indent,
            2,
            3,
            "expected indentation in multiples of 4 spaces, found 2".to_owned()
        )
    );
}

#[test]
fn every_error_class_with_exact_message_and_position() {
    use Category::*;
    let s = strict();
    let cases: &[(&str, Category, usize, usize, &str)] = &[
        // Declared lengths and field counts.
        (
            "tags[3]: a,b",
            Count,
            1,
            5,
            "expected 3 inline values, found 2",
        ),
        (
            "tags[2]: a,b,c",
            Count,
            1,
            14,
            "expected 2 inline values, found 3",
        ),
        (
            "items[2]:\n  - a",
            Count,
            1,
            6,
            "expected 2 list items, found 1",
        ),
        (
            "items[1]:\n  - a\n  - b",
            Count,
            3,
            3,
            "expected 1 list item, found more",
        ),
        ("t[2]{a}:\n  1", Count, 1, 2, "expected 2 rows, found 1"),
        (
            "t[1]{a}:\n  1\n  2",
            Count,
            3,
            3,
            "expected 1 row, found more",
        ),
        (
            "t[1]{a,b}:\n  1",
            Count,
            2,
            3,
            "expected 2 values in row, found 1",
        ),
        (
            "t[1]{a}:\n  1,2,3",
            Count,
            2,
            5,
            "expected 1 value in row, found 3",
        ),
        (
            "m[2:]{v}:\n  a: 1",
            Count,
            1,
            2,
            "expected 2 entry rows, found 1",
        ),
        (
            "m[1:]{v}:\n  a: 1\n  b: 2",
            Count,
            3,
            3,
            "expected 1 entry row, found 2",
        ),
        (
            "m[1:]{a,b}:\n  k: 1",
            Count,
            2,
            3,
            "expected 2 values in entry row, found 1",
        ),
        (
            "a[18446744073709551617]: 1",
            Count,
            1,
            2,
            "expected 18446744073709551617 inline values, found 1",
        ),
        // Indentation.
        (
            "a:\n   b: 1",
            Indent,
            2,
            4,
            "expected indentation in multiples of 2 spaces, found 3",
        ),
        (
            "a:\n\tb: 1",
            Indent,
            2,
            1,
            "tab in indentation: expected spaces",
        ),
        (
            "a: 1\n\t\nb: 2",
            Indent,
            2,
            1,
            "tab in indentation: expected spaces",
        ),
        (
            "a:\n    b: 1",
            Indent,
            2,
            5,
            "unexpected indentation: expected depth 1, found 2",
        ),
        (
            "a: 1\n  b: 2",
            Indent,
            2,
            3,
            "unexpected indentation: expected depth 0, found 1",
        ),
        (
            "  a: 1",
            Indent,
            1,
            3,
            "unexpected indentation: expected depth 0, found 1",
        ),
        (
            "l[1]:\n    - a",
            Indent,
            2,
            5,
            "unexpected indentation: expected depth 1, found 2",
        ),
        // Blank lines inside an array's span (strict).
        (
            "l[2]:\n  - a\n\n  - b",
            Syntax,
            3,
            1,
            "blank line inside an array",
        ),
        (
            "l[1]:\n  - a: 1\n\n    b: 2",
            Syntax,
            3,
            1,
            "blank line inside an array",
        ),
        // Duplicates (strict).
        ("a: 1\n\"a\": 2", Syntax, 2, 1, "duplicate key \"a\""),
        (
            "o:\n  x: 1\n  y: 2\n  x: 3",
            Syntax,
            4,
            3,
            "duplicate key \"x\"",
        ),
        (
            "m[2:]{v}:\n  a: 1\n  a: 2",
            Syntax,
            3,
            3,
            "duplicate key \"a\"",
        ),
        ("t[0]{a,b,a}:", Syntax, 1, 10, "duplicate field name \"a\""),
        (
            "t[0]{\"a\\\"\\n\",\"a\\\"\\n\"}:",
            Syntax,
            1,
            14,
            "duplicate field name \"a\\\"\\n\"",
        ),
        // Headers.
        (
            "a[1:",
            Syntax,
            1,
            2,
            "unterminated bracket segment: expected `]`",
        ),
        (
            "a[2:]{x}",
            Syntax,
            1,
            9,
            "expected `:` after the array header",
        ),
        (
            "a[03]: 1",
            Syntax,
            1,
            3,
            "invalid array length: expected digits without leading zeros",
        ),
        (
            "a[#2]: 1,2",
            Syntax,
            1,
            3,
            "invalid array length: expected digits without leading zeros",
        ),
        (
            "a[]: 1",
            Syntax,
            1,
            3,
            "invalid array length: expected digits without leading zeros",
        ),
        (
            "a[2] : 1,2",
            Syntax,
            1,
            5,
            "unexpected whitespace before the colon of the array header",
        ),
        (
            "a[2]x: 1,2",
            Syntax,
            1,
            5,
            "unexpected content before the colon of the array header",
        ),
        (
            "a[0] {b}:",
            Syntax,
            1,
            5,
            "unexpected whitespace before the field list of the array header",
        ),
        (
            "a [2]: 1,2",
            Syntax,
            1,
            2,
            "unexpected whitespace between the key and its bracket segment",
        ),
        ("m[0:]:", Syntax, 1, 2, "keyed header requires a field list"),
        (
            "t[1]{a}: 1",
            Syntax,
            1,
            10,
            "unexpected content after a fields-bearing header",
        ),
        (
            "t[0]{}:",
            Syntax,
            1,
            6,
            "expected a field name, found an empty entry",
        ),
        (
            "t[0]{a,{b}}:",
            Syntax,
            1,
            8,
            "expected a field name before `{`",
        ),
        (
            "t[0]{a {b}}:",
            Syntax,
            1,
            7,
            "unexpected whitespace before a nested field group",
        ),
        (
            "t[0]{a{b}c}:",
            Syntax,
            1,
            10,
            "unexpected content after a nested field group",
        ),
        (
            "t[0]{a|b}:",
            Syntax,
            1,
            7,
            "field list uses the delimiter `|`, but the header declares `,`",
        ),
        (
            "a:\n  [2]: 1,2",
            Syntax,
            2,
            3,
            "keyless array header is only valid at the document root or as a list item",
        ),
        (
            "l[1]:\n  - [2:]{v}:",
            Syntax,
            2,
            5,
            "keyless keyed header is only valid at the document root",
        ),
        (
            "l[1]:\n  - [0]{x}:",
            Syntax,
            2,
            5,
            "keyless header with a field list is only valid at the document root",
        ),
        // Lines and tokens.
        (
            "a:\n  user",
            Syntax,
            2,
            3,
            "expected `key: value`, found no `:`",
        ),
        (
            "m[1:]{v}:\n  a: 1\n  5",
            Syntax,
            3,
            3,
            "expected an entry row (`key: values`), found no `:`",
        ),
        (
            "hello\nworld",
            Syntax,
            2,
            1,
            "expected a single root value, found a second line",
        ),
        (
            "[1]: x\ny: 1",
            Syntax,
            2,
            1,
            "expected end of input after the root array",
        ),
        ("\"a\"\t: 1", Syntax, 1, 4, "expected `:` after the key"),
        (
            "k: \"abc\" d",
            Syntax,
            1,
            9,
            "unexpected characters after the closing quote",
        ),
        (
            "k: \"a\\x\"",
            Syntax,
            1,
            6,
            "invalid escape: expected \\\\, \\\", \\n, \\r, \\t or \\uXXXX",
        ),
        (
            "k: \"\\u00b\"",
            Syntax,
            1,
            5,
            "invalid \\u escape: expected 4 hex digits",
        ),
        (
            "k: \"\\u+0ab\"",
            Syntax,
            1,
            5,
            "invalid \\u escape: expected 4 hex digits",
        ),
        (
            "k: \"\\ud83d\\ude00\"",
            Syntax,
            1,
            5,
            "invalid \\u escape: a surrogate (write supplementary characters as utf-8)",
        ),
        (
            "k: \"open\nb: 1",
            Syntax,
            1,
            4,
            "unterminated quoted string: expected a closing quote",
        ),
        (
            "k: \"open",
            Eof,
            1,
            4,
            "unterminated quoted string: expected a closing quote",
        ),
        // Numbers.
        ("a: 1e400", Number, 1, 4, "number out of range"),
        ("t[2]: 1,-1e999", Number, 1, 9, "number out of range"),
    ];
    let mut failures = Vec::new();
    for &(input, cat, line, col, msg) in cases {
        let got = error(input.as_bytes(), &s);
        let want = (cat, line, col, msg.to_owned());
        if got != want {
            failures.push(format!("{input:?}:\n  want {want:?}\n  got  {got:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn display_puts_the_position_first() {
    let e = decode(b"a:\n  b: 1\n  b: 2", &strict()).unwrap_err();
    assert_eq!(e.to_string(), "3:3: duplicate key \"b\"");
    assert_eq!(e.offset(), 12);
}

#[test]
fn invalid_utf8_is_a_positioned_error_in_both_modes() {
    for opts in [strict(), lenient()] {
        assert_eq!(
            error(b"a: ok\nb: \xff\xfe", &opts),
            (Category::Utf8, 2, 4, "invalid utf-8".to_owned())
        );
        // A truncated multi-byte sequence at the very end.
        assert_eq!(
            error(b"k: caf\xc3", &opts),
            (Category::Utf8, 1, 7, "invalid utf-8".to_owned())
        );
        // An encoded surrogate (CESU-8 style) is not UTF-8 either.
        assert_eq!(
            error(b"\"\xed\xa0\x80\"", &opts),
            (Category::Utf8, 1, 2, "invalid utf-8".to_owned())
        );
    }
}

#[test]
fn hostile_declared_lengths_cost_nothing() {
    for (input, line, col, msg) in [
        (
            "a[999999999]:",
            1,
            2,
            "expected 999999999 list items, found 0",
        ),
        (
            "a[999999999]:\n  - x",
            1,
            2,
            "expected 999999999 list items, found 1",
        ),
        (
            "a[999999999]: x",
            1,
            2,
            "expected 999999999 inline values, found 1",
        ),
        (
            "a[999999999]{x}:\n  1",
            1,
            2,
            "expected 999999999 rows, found 1",
        ),
        (
            "[999999999:]{x}:\n  k: 1",
            1,
            1,
            "expected 999999999 entry rows, found 1",
        ),
    ] {
        let start = std::time::Instant::now();
        let (got, largest) = largest_allocation(|| error(input.as_bytes(), &strict()));
        assert_eq!(
            got,
            (Category::Count, line, col, msg.to_owned()),
            "{input:?}"
        );
        assert!(
            largest < 64 * 1024,
            "{input:?} allocated {largest} bytes at once"
        );
        assert!(
            start.elapsed() < std::time::Duration::from_secs(1),
            "{input:?} was slow"
        );
    }
    // Lenient mode keeps what is there, without reserving for what is declared.
    let (out, largest) = largest_allocation(|| json("a[999999999]:\n  - x", &lenient()));
    assert_eq!(out, r#"{"a":["x"]}"#);
    assert!(largest < 64 * 1024, "allocated {largest} bytes at once");
}

/// `a:` nested `levels` times (an object per level), innermost value 1.
fn nested_objects(levels: usize) -> String {
    let mut s = String::new();
    for i in 0..levels {
        s.push_str(&"  ".repeat(i));
        s.push_str(if i + 1 == levels { "a: 1\n" } else { "a:\n" });
    }
    s
}

#[test]
fn nesting_is_bounded_by_max_depth() {
    // 128 objects deep is the default limit: fine; one more is a Depth error on its line.
    assert!(decode(nested_objects(128).as_bytes(), &strict()).is_ok());
    let deep = nested_objects(129);
    let (cat, line, col, msg) = error(deep.as_bytes(), &strict());
    assert_eq!(
        (cat, line, col, msg.as_str()),
        (
            Category::Depth,
            128,
            255,
            "expected at most 128 levels of nesting"
        )
    );
    // A small limit, and every container kind counts.
    let three = DecodeOptions::new().max_depth(3);
    assert_eq!(json("a:\n  b:\n    c: 1", &three), r#"{"a":{"b":{"c":1}}}"#);
    for (input, line, col) in [
        ("a:\n  b:\n    c:\n      d: 1", 3, 5),
        ("a:\n  b:\n    c[1]: 1", 3, 6),
        ("l[1]:\n  - [1]:\n    - [1]: 1", 3, 7),
        ("a:\n  t[1]{x}:\n    1", 3, 5),
        ("t[1]{a{b{c}}}:\n  1", 2, 3),
        ("t[1]{a}:\n  1\nb:\n  c:\n    d[0]:", 5, 6),
    ] {
        assert_eq!(
            error(input.as_bytes(), &three),
            (
                Category::Depth,
                line,
                col,
                "expected at most 3 levels of nesting".to_owned()
            ),
            "{input:?}"
        );
    }
    // Very deep input errors quickly instead of exhausting the stack.
    let huge = nested_objects(20_000);
    assert_eq!(error(huge.as_bytes(), &strict()).0, Category::Depth);
    let braces = format!(
        "t[1]{{{}x{}}}:\n  1",
        "a{".repeat(50_000),
        "}".repeat(50_000)
    );
    assert_eq!(error(braces.as_bytes(), &strict()).0, Category::Depth);
}

#[test]
fn reserved_tags_are_flagged_wherever_they_hide() {
    for (input, flagged) in [
        ("a: plain", false),
        ("a: <tool_error>", true),
        ("\"</Domain_Rules>\": 1", true),
        ("a: \"\\u003cui_passthrough>\"", true),
        ("t[1]{\"<llm_directives>\"}:\n  1", true),
        ("t[1]{\"x\\t<llm_directives>\"}:\n  1", true),
        ("m[1:]{v}:\n  <action_suggestions: 1", true),
        ("l[1]: <validation_error", true),
        ("a: <tool_errors>", false),
    ] {
        let doc = decode(input.as_bytes(), &strict()).unwrap();
        assert_eq!(doc.has_reserved_tag(), flagged, "{input:?}");
        assert!(!doc.has_lone_surrogate(), "{input:?}");
    }
}

#[test]
fn unescaped_strings_survive_scratch_reuse() {
    // Several escaped strings and field names in one document: each keeps its own bytes.
    assert_eq!(
        json(
            "\"k\\n1\": \"v\\t1\"\n\"k\\n2\": \"v\\t2\"\nt[2]{\"a\\\"\",\"b\\\\\"}:\n  \"x\\n\",1\n  \"y\\r\",2",
            &strict()
        ),
        r#"{"k\n1":"v\t1","k\n2":"v\t2","t":[{"a\"":"x\n","b\\":1},{"a\"":"y\r","b\\":2}]}"#
    );
}

const DOCUMENTS: &[&str] = &[
    "id: 123\nname: \"Ada \\\"L\\\"\"\ntags[3]: a,\"b,c\",3\nuser:\n  active: true\n  prefs[0]:\n",
    "items[2]{sku,qty,price}:\r\n  A1,2,9.99\r\n  B2,1,14.5\r\ncount: 2\r\n",
    "[3]:\n  - summary\n  - id: 1\n    name: Ada\n  - [2]:\n    - id: 2\n    - status: draft\n",
    "# c\nservers[2:|]{host|geo{lat|lon}}:\n  alpha: a.example|1.5|2\n  \"b:c\": b|-1e3|0\n",
    "l[2]:\n  - users[1]{id}:\n      1\n    status: ok\n  - k:\n      x: [1]\n",
    "\u{feff}a: caf\u{e9} \u{1f680}\nb: \"\\u00e9\"\n\n\n",
];

#[test]
fn every_prefix_and_mutation_decodes_or_fails_with_a_position() {
    let check = |bytes: &[u8], opts: &DecodeOptions| match decode(bytes, opts) {
        Ok(doc) => {
            // The document is walkable.
            let _ = toolwire_tests::doc_to_serde(doc.root());
        }
        Err(e) => assert!(
            e.line() >= 1 && e.column() >= 1,
            "{:?}: unpositioned error {e}",
            String::from_utf8_lossy(bytes)
        ),
    };
    let modes = [strict(), lenient(), DecodeOptions::new().indent(1)];
    let mut cases = 0;
    for doc in DOCUMENTS {
        let bytes = doc.as_bytes();
        // The full documents are valid.
        decode(bytes, &strict()).unwrap_or_else(|e| panic!("{doc:?}: {e}"));
        for end in 0..=bytes.len() {
            for opts in &modes {
                check(&bytes[..end], opts);
                cases += 1;
            }
        }
        // Deterministic mutations: replace one byte with a structural one, everywhere.
        let specials = b"\"\\:[]{},|\t \n-#\r";
        let mut rng = 0x2545_f491_4f6c_dd1d_u64;
        for _ in 0..600 {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            let mut m = bytes.to_vec();
            let at = (rng as usize) % m.len();
            m[at] = specials[(rng >> 32) as usize % specials.len()];
            for opts in &modes {
                check(&m, opts);
                cases += 1;
            }
        }
    }
    assert!(cases > 10_000, "only {cases} cases ran");
}

#[test]
fn large_documents_decode_in_linear_time() {
    const N: usize = 50_000;
    // A tabular array, a keyed object and a wide object, each with N members, in strict
    // mode (which checks every object for duplicate keys).
    let mut text = format!("rows[{N}]{{id,name,score}}:\n");
    for i in 0..N {
        text.push_str(&format!("  {i},name {i},{}.5\n", i % 97));
    }
    text.push_str(&format!("by_id[{N}:]{{v}}:\n"));
    for i in 0..N {
        text.push_str(&format!("  k{i}: {i}\n"));
    }
    text.push_str("wide:\n");
    for i in 0..N {
        text.push_str(&format!("  \"f\\t{i}\": \"v\\n{i}\"\n"));
    }
    let start = std::time::Instant::now();
    let doc = decode(text.as_bytes(), &strict()).unwrap();
    let elapsed = start.elapsed();
    let root = doc.root().as_object().unwrap();
    let rows = root.get(b"rows").unwrap().as_array().unwrap();
    assert_eq!(rows.len(), N);
    let last = toolwire_tests::doc_to_serde(rows.iter().last().unwrap());
    assert_eq!(
        last.to_string(),
        r#"{"id":49999,"name":"name 49999","score":44.5}"#
    );
    assert_eq!(root.get(b"by_id").unwrap().as_object().unwrap().len(), N);
    let wide = root.get(b"wide").unwrap().as_object().unwrap();
    assert_eq!(wide.len(), N);
    let (k, v) = wide.iter().nth(7).unwrap();
    assert_eq!(
        (k.as_bytes(), v.as_str().unwrap().as_bytes()),
        (&b"f\t7"[..], &b"v\n7"[..])
    );
    // Debug builds take a fraction of this; quadratic behaviour would take minutes.
    assert!(
        elapsed < std::time::Duration::from_secs(20),
        "took {elapsed:?}"
    );
    // A duplicate at the very end of a large object is still found, at its line.
    text.push_str("  \"f\\t3\": again\n");
    let e = decode(text.as_bytes(), &strict()).unwrap_err();
    assert_eq!(
        (e.classify(), e.line(), e.column(), e.message()),
        (Category::Syntax, 3 * N + 4, 3, "duplicate key \"f\\t3\"")
    );
}

#[test]
fn strings_and_keys_borrow_from_the_input_unless_escaped() {
    let src = "plain: word\n\"quoted key\": \"no escapes\"\nesc: \"a\\tb\"\nt[1]{f}:\n  cell\n";
    let doc = decode(src.as_bytes(), &strict()).unwrap();
    let range = src.as_bytes().as_ptr_range();
    let borrowed = |b: &[u8]| range.contains(&b.as_ptr());
    let root = doc.root().as_object().unwrap();
    let members: Vec<_> = root.iter().collect();
    assert!(
        borrowed(members[0].0.as_bytes()) && borrowed(members[0].1.as_str().unwrap().as_bytes())
    );
    assert!(
        borrowed(members[1].0.as_bytes()) && borrowed(members[1].1.as_str().unwrap().as_bytes())
    );
    assert_eq!(members[1].0.as_bytes(), b"quoted key");
    let escaped = members[2].1.as_str().unwrap();
    assert_eq!(escaped.as_bytes(), b"a\tb");
    assert!(
        !borrowed(escaped.as_bytes()),
        "an unescaped string is a copy"
    );
    let row = members[3].1.as_array().unwrap().iter().next().unwrap();
    let (field, cell) = row.as_object().unwrap().iter().next().unwrap();
    assert!(borrowed(field.as_bytes()) && borrowed(cell.as_str().unwrap().as_bytes()));
}
