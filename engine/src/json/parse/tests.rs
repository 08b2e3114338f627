//! Exact tests of the JSON parser: every error path with category, position and message;
//! numbers, strings, duplicate keys, limits, flags; and the selection entry point.

use crate::doc::{Number, ValueRef};
use crate::error::Category;
use crate::json::{ParseOptions, Selector, parse, parse_selected, to_vec_compact};

fn show(src: &[u8]) -> String {
    let doc = parse(src, &ParseOptions::new()).unwrap_or_else(|e| panic!("{e}"));
    format!("{:?}", doc.root())
}

/// (input, category, line, column, message): each input fails exactly like this, through
/// `parse` and through `parse_selected` (with and without matching keys).
#[rustfmt::skip]
const ERRORS: &[(&[u8], Category, usize, usize, &str)] = &[
    (b"", Category::Eof, 1, 1, "empty input, expected a JSON value"),
    (b"  \n ", Category::Eof, 2, 2, "empty input, expected a JSON value"),
    (b"}", Category::Syntax, 1, 1, "expected a value, found '}'"),
    (b"[1,]", Category::Syntax, 1, 4, "expected a value, found ']'"),
    (b"[1 2]", Category::Syntax, 1, 4, "expected ',' or ']' after an array element, found '2'"),
    (b"{\"a\":1 \"b\":2}", Category::Syntax, 1, 8, "expected ',' or '}' after an object member, found '\"'"),
    (b"{\"a\" 1}", Category::Syntax, 1, 6, "expected ':' after an object key, found '1'"),
    (b"{1:2}", Category::Syntax, 1, 2, "expected a string key, found '1'"),
    (b"{\"a\":1,}", Category::Syntax, 1, 8, "expected a string key, found '}'"),
    (b"{\n  \"a\": [1, {\"b\" 2}]\n}", Category::Syntax, 2, 17, "expected ':' after an object key, found '2'"),
    (b"[1", Category::Eof, 1, 3, "unexpected end of input, expected ',' or ']' after an array element"),
    (b"{\"a\":", Category::Eof, 1, 6, "unexpected end of input, expected a value"),
    (b"{\"a\"", Category::Eof, 1, 5, "unexpected end of input, expected ':' after an object key"),
    (b"\"abc", Category::Eof, 1, 5, "unexpected end of input, expected '\"' to close the string"),
    (b"\"abcdefghijklmnop", Category::Eof, 1, 18, "unexpected end of input, expected '\"' to close the string"),
    (b"\"a\\", Category::Eof, 1, 4, "unexpected end of input, expected an escape character"),
    (b"\"a\\n", Category::Eof, 1, 5, "unexpected end of input, expected '\"' to close the string"),
    (b"\"\\u12", Category::Eof, 1, 6, "unexpected end of input, expected 4 hex digits"),
    (b"[tru]", Category::Syntax, 1, 5, "invalid literal, expected 'true', found ']'"),
    (b"[fals", Category::Eof, 1, 6, "unexpected end of input, invalid literal, expected 'false'"),
    (b"nul", Category::Eof, 1, 4, "unexpected end of input, invalid literal, expected 'null'"),
    (b"nulL", Category::Syntax, 1, 4, "invalid literal, expected 'null', found 'L'"),
    (b"[1] x", Category::Syntax, 1, 5, "trailing characters after the document"),
    (b"{\"a\":1}}", Category::Syntax, 1, 8, "trailing characters after the document"),
    (b"truex", Category::Syntax, 1, 5, "trailing characters after the document"),
    (b"\"a\x01\"", Category::Syntax, 1, 3, "unescaped control character U+0001 in a string"),
    (b"\"a\nb\"", Category::Syntax, 1, 3, "unescaped control character U+000A in a string"),
    (b"\"\\n\x1f\"", Category::Syntax, 1, 4, "unescaped control character U+001F in a string"),
    (b"\"\\x\"", Category::Syntax, 1, 2, "invalid escape sequence '\\x'"),
    (b"\"\\\xc3\xa9\"", Category::Syntax, 1, 2, "invalid escape sequence"),
    (b"\"\\u12G4\"", Category::Syntax, 1, 6, "invalid \\u escape, expected 4 hex digits"),
    (b"\"\\ud800\\u12G4\"", Category::Syntax, 1, 12, "invalid \\u escape, expected 4 hex digits"),
    (b"01", Category::Syntax, 1, 1, "a number cannot have leading zeros"),
    (b"[-00]", Category::Syntax, 1, 3, "a number cannot have leading zeros"),
    (b"-", Category::Eof, 1, 2, "unexpected end of input, expected a digit after '-'"),
    (b"-a", Category::Syntax, 1, 2, "expected a digit after '-', found 'a'"),
    (b"[.5]", Category::Syntax, 1, 2, "expected a value, found '.'"),
    (b"[+1]", Category::Syntax, 1, 2, "expected a value, found '+'"),
    (b"1.", Category::Eof, 1, 3, "unexpected end of input, expected a digit after the decimal point"),
    (b"1.e5", Category::Syntax, 1, 3, "expected a digit after the decimal point, found 'e'"),
    (b"1e", Category::Eof, 1, 3, "unexpected end of input, expected a digit in the exponent"),
    (b"1e+x", Category::Syntax, 1, 4, "expected a digit in the exponent, found 'x'"),
    (b"1e400", Category::Number, 1, 1, "number out of the range of a 64-bit float"),
    (b"[0, -1.5e309]", Category::Number, 1, 5, "number out of the range of a 64-bit float"),
    (b"\xff", Category::Utf8, 1, 1, "invalid UTF-8"),
    (b"[1,\xc3]", Category::Utf8, 1, 4, "invalid UTF-8"),
    (b"\"a\xff\"", Category::Utf8, 1, 3, "invalid UTF-8"),
    (b"\"\xc3\xa9\xff\"", Category::Utf8, 1, 4, "invalid UTF-8"),
    (b"\"0123456789\xed\xa0\x80\"", Category::Utf8, 1, 12, "invalid UTF-8"),
    (b"\"\\u00e9\xe9\"", Category::Utf8, 1, 8, "invalid UTF-8"),
    (b"\xef\xbb\xbf{}", Category::Syntax, 1, 1, "unexpected byte order mark (U+FEFF) at the start of the input"),
    (b"[\xc3\xa9]", Category::Syntax, 1, 2, "expected a value, found 'é'"),
    (b"[\x00]", Category::Syntax, 1, 2, "expected a value, found '\\0'"),
    (b"[\r\n1,\r\n]", Category::Syntax, 3, 1, "expected a value, found ']'"),
];

#[test]
fn every_error_path_is_positioned_and_exact() {
    let opts = ParseOptions::new();
    for &(input, cat, line, column, msg) in ERRORS {
        let shown = String::from_utf8_lossy(input);
        let sels = [Selector::new(["a", "b"]), Selector::new(Vec::<&str>::new())];
        let results = std::iter::once(parse(input, &opts))
            .chain(sels.iter().map(|s| parse_selected(input, s, &opts)));
        for r in results {
            let e = r.expect_err(&shown);
            assert_eq!(
                (e.classify(), e.line(), e.column(), e.message()),
                (cat, line, column, msg),
                "input {shown:?}"
            );
        }
    }
}

#[test]
fn control_characters_outside_strings_are_shown_escaped() {
    // The message uses Rust's char escapes for non-printable bytes.
    let e = parse(b"[\x00]", &ParseOptions::new()).unwrap_err();
    assert_eq!(e.to_string(), "1:2: expected a value, found '\\0'");
}

#[test]
fn numbers() {
    assert_eq!(
        show(b"123456789012345678901234567890123"),
        "123456789012345678901234567890123"
    );
    assert_eq!(
        show(b"-98765432109876543210987654321"),
        "-98765432109876543210987654321"
    );
    // `-0` as an integer lexeme reads as 0; as a float it is -0.0 (printed 0 by the writers).
    assert_eq!(show(b"[-0, -0.0, 0]"), "[0, -0.0, 0]");
    assert_eq!(
        show(b"[1.0, 1e2, 1E+2, 2.5e-3, 1.5]"),
        "[1.0, 100.0, 100.0, 0.0025, 1.5]"
    );
    let doc = parse(
        b"[5e-324, 1e-400, -1e-400, 1.7976931348623157e308, 0.1]",
        &ParseOptions::new(),
    )
    .unwrap();
    let xs: Vec<f64> = doc
        .root()
        .as_array()
        .unwrap()
        .iter()
        .map(|v| match v.get() {
            ValueRef::Number(Number::Float(x)) => x,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(xs[0].to_bits(), 1); // the smallest subnormal
    assert_eq!(xs[1].to_bits(), 0);
    assert_eq!(xs[2].to_bits(), (-0.0f64).to_bits());
    assert_eq!(xs[3], f64::MAX);
    assert_eq!(xs[4], 0.1);
    // Slow path and fast path agree with Rust's correctly rounded parser.
    for lex in [
        "9007199254740993.0",
        "0.30000000000000004",
        "123456789.123456789e-5",
        "1e22",
        "1e23",
        "2.2250738585072011e-308",
        "4.9406564584124654e-324",
        "17976931348623157e292",
        "0.000000000000000000000000000001",
        "12345678901234567890.5",
        "1e-22",
        "3e-23",
    ] {
        let doc = parse(lex.as_bytes(), &ParseOptions::new()).unwrap();
        match doc.root().get() {
            ValueRef::Number(Number::Float(x)) => {
                assert_eq!(x.to_bits(), lex.parse::<f64>().unwrap().to_bits(), "{lex}")
            }
            other => panic!("{lex}: {other:?}"),
        }
    }
    // Overflow needs no exponent: 309 integer digits and a fraction.
    let big = format!("{}.5", "9".repeat(309));
    let e = parse(big.as_bytes(), &ParseOptions::new()).unwrap_err();
    assert_eq!((e.classify(), e.offset()), (Category::Number, 0));
    let ok = format!("{}.5", "9".repeat(308));
    assert!(parse(ok.as_bytes(), &ParseOptions::new()).is_ok());
    // Skipped values are checked for overflow too.
    let e = parse_selected(
        b"{\"a\":1,\"b\":[2e999]}",
        &Selector::new(["a"]),
        &ParseOptions::new(),
    )
    .unwrap_err();
    assert_eq!((e.classify(), e.column()), (Category::Number, 13));
    let e =
        parse_selected(big.as_bytes(), &Selector::new(["a"]), &ParseOptions::new()).unwrap_err();
    assert_eq!(e.classify(), Category::Number);
}

#[test]
fn strings_and_escapes() {
    let doc = parse(
        br#"["plain", "a\"b\\c\/d\b\f\n\r\t", "\u00e9\u20AC\ud83d\ude00", "\u0000"]"#,
        &ParseOptions::new(),
    )
    .unwrap();
    let strs: Vec<Vec<u8>> = doc
        .root()
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().as_bytes().to_vec())
        .collect();
    assert_eq!(strs[0], b"plain");
    assert_eq!(strs[1], b"a\"b\\c/d\x08\x0c\n\r\t");
    assert_eq!(strs[2], "é€😀".as_bytes());
    assert_eq!(strs[3], b"\0");
    assert!(!doc.has_lone_surrogate());
    // Unescaped strings are borrowed from the input.
    let src = br#"{"k": "v"}"#;
    let doc = parse(src, &ParseOptions::new()).unwrap();
    let (k, v) = doc.root().as_object().unwrap().iter().next().unwrap();
    assert_eq!(k.as_bytes().as_ptr(), src[2..].as_ptr());
    assert_eq!(v.as_str().unwrap().as_bytes().as_ptr(), src[7..].as_ptr());
    // Non-ASCII text, long runs (the word scan) and every tail length.
    for n in 0..40 {
        let text = format!("{}é<b>", "x".repeat(n));
        let json = format!("[\"{text}\", \"{text}\\n\"]");
        let doc = parse(json.as_bytes(), &ParseOptions::new()).unwrap();
        let a: Vec<_> = doc
            .root()
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_str().unwrap().to_string())
            .collect();
        assert_eq!(a, [text.clone(), format!("{text}\n")]);
        assert!(!doc.has_reserved_tag());
    }
}

#[test]
fn lone_surrogates_survive_as_wtf8() {
    let doc = parse(
        br#"["\ud800", "a\uDC00b", "\udbff\udfff", "\ude00\ud83d", "\ud800\u0041"]"#,
        &ParseOptions::new(),
    )
    .unwrap();
    let strs: Vec<Vec<u8>> = doc
        .root()
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().as_bytes().to_vec())
        .collect();
    assert_eq!(strs[0], [0xED, 0xA0, 0x80]);
    assert_eq!(strs[1], [b'a', 0xED, 0xB0, 0x80, b'b']);
    assert_eq!(strs[2], "\u{10FFFF}".as_bytes());
    assert_eq!(strs[3], [0xED, 0xB8, 0x80, 0xED, 0xA0, 0xBD]);
    assert_eq!(strs[4], [0xED, 0xA0, 0x80, b'A']);
    assert!(doc.has_lone_surrogate());
    assert!(
        !parse(br#""\ud83d\ude00""#, &ParseOptions::new())
            .unwrap()
            .has_lone_surrogate()
    );
    // In a key too.
    assert!(
        parse(br#"{"\udfff": 1}"#, &ParseOptions::new())
            .unwrap()
            .has_lone_surrogate()
    );
}

#[test]
fn reserved_tag_flags_on_unescaped_text_and_skipped_strings() {
    let opts = ParseOptions::new();
    let cases: &[(&[u8], bool)] = &[
        (br#"["<tool_error>"]"#, true),
        (br#"["x </Domain_Rules"]"#, true),
        (br#"{"<ui_passthrough x": 1}"#, true),
        (br#"["\u003ctool_error>"]"#, true),
        (br#"["\u003c/llm_directives"]"#, true),
        (br#"["<tool_error\u0041"]"#, false),
        (br#"["<tool_errors>", "<b>", "a<"]"#, false),
        (br#"["<tool_error\n"]"#, true),
    ];
    for &(src, want) in cases {
        let doc = parse(src, &opts).unwrap();
        assert_eq!(
            doc.has_reserved_tag(),
            want,
            "{}",
            String::from_utf8_lossy(src)
        );
    }
    // Skipped by a selector: keys and values, at any depth, still flag the document.
    let sel = Selector::new(["id"]);
    for src in [
        &br#"{"id": 1, "note": "<tool_error>"}"#[..],
        br#"[{"id": 1, "x": {"y": ["\u003cvalidation_error>"]}}]"#,
        br#"{"id": 1, "<action_suggestions>": 2}"#,
    ] {
        let doc = parse_selected(src, &sel, &opts).unwrap();
        assert!(doc.has_reserved_tag(), "{}", String::from_utf8_lossy(src));
        assert!(!format!("{:?}", doc.root()).contains('<'));
    }
    let doc = parse_selected(br#"{"id": 1, "note": "\ud800"}"#, &sel, &opts).unwrap();
    assert!(doc.has_lone_surrogate());
    assert_eq!(format!("{:?}", doc.root()), r#"{"id": 1}"#);
}

#[test]
fn duplicate_keys_last_wins_at_first_position() {
    assert_eq!(
        show(br#"{"a": 1, "b": [2], "a": {"c": 3}}"#),
        r#"{"a": {"c": 3}, "b": [2]}"#
    );
    assert_eq!(show(br#"{"a": 1, "\u0061": 2}"#), r#"{"a": 2}"#);
}

#[test]
fn depth_limit_at_under_and_over() {
    for limit in [0usize, 1, 2, 128] {
        let opts = ParseOptions::new().max_depth(limit);
        for depth in limit.saturating_sub(1)..=limit + 1 {
            let src = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
            let obj = format!("{}1{}", "{\"k\":".repeat(depth), "}".repeat(depth));
            for s in [&src, &obj] {
                let r = parse(s.as_bytes(), &opts);
                if depth <= limit {
                    assert!(r.is_ok(), "{limit} {s}");
                } else {
                    let e = r.unwrap_err();
                    let at = if s == &src { limit } else { limit * 5 };
                    assert_eq!(
                        (e.classify(), e.offset(), e.message()),
                        (
                            Category::Depth,
                            at,
                            format!("nesting deeper than the limit of {limit} arrays/objects")
                                .as_str()
                        ),
                        "{s}"
                    );
                }
            }
        }
    }
    // Through a selection: the root array is depth 1, a selected element depth 2.
    let sel = Selector::new(["a"]);
    let opts = ParseOptions::new().max_depth(2);
    assert!(parse_selected(br#"[{"a": 1, "b": 2}]"#, &sel, &opts).is_ok());
    let e = parse_selected(br#"[{"a": 1, "b": [3]}]"#, &sel, &opts).unwrap_err();
    assert_eq!((e.classify(), e.column()), (Category::Depth, 16));
    let e = parse_selected(br#"[[[1]]]"#, &sel, &opts).unwrap_err();
    assert_eq!((e.classify(), e.column()), (Category::Depth, 3));
    let e = parse_selected(br#"[1]"#, &sel, &ParseOptions::new().max_depth(0)).unwrap_err();
    assert_eq!((e.classify(), e.column()), (Category::Depth, 1));
}

#[test]
fn no_stack_overflow_on_a_small_thread_stack() {
    let handle = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(|| {
            let opens = vec![b'['; 100_000];
            let e = parse(&opens, &ParseOptions::new()).unwrap_err();
            assert_eq!((e.classify(), e.offset()), (Category::Depth, 128));
            let e = parse(&opens, &ParseOptions::new().max_depth(usize::MAX)).unwrap_err();
            assert_eq!((e.classify(), e.offset()), (Category::Eof, 100_000));
            let e = parse_selected(
                &opens,
                &Selector::new(["a"]),
                &ParseOptions::new().max_depth(usize::MAX),
            )
            .unwrap_err();
            assert_eq!(e.classify(), Category::Eof);
            let deep = format!("{}1{}", "[{\"a\":".repeat(250), "}]".repeat(250));
            let opts = ParseOptions::new().max_depth(1000);
            let doc = parse(deep.as_bytes(), &opts).unwrap();
            assert_eq!(doc.node_count(), 751);
            let doc = parse_selected(deep.as_bytes(), &Selector::new(["a"]), &opts).unwrap();
            assert_eq!(doc.node_count(), 751);
            // Skipped deep values too.
            let doc = parse_selected(deep.as_bytes(), &Selector::new(["b"]), &opts).unwrap();
            assert_eq!(format!("{:?}", doc.root()), "[{}]");
        })
        .unwrap();
    handle.join().unwrap();
}

#[test]
fn size_limits_at_under_and_over() {
    // Input.
    let src = b"[1, 2]";
    assert!(parse(src, &ParseOptions::new().max_input_bytes(6)).is_ok());
    let e = parse(src, &ParseOptions::new().max_input_bytes(5)).unwrap_err();
    assert_eq!(
        (e.classify(), e.offset(), e.message()),
        (Category::Limit, 5, "input longer than the limit of 5 bytes")
    );
    // Strings and keys: bytes as written, escapes counted as written.
    let opts = ParseOptions::new().max_string_bytes(4);
    assert!(parse(br#"{"abcd": "wxyz"}"#, &opts).is_ok());
    assert!(parse(br#"["\n\t"]"#, &opts).is_ok());
    for (src, at) in [
        (&br#"["abcde"]"#[..], 6),
        (br#"{"abcde": 1}"#, 6),
        (br#"["\n\t!"]"#, 6),
        (br#"{"a": 1, "b": "abcde"}"#, 19),
    ] {
        for r in [
            parse(src, &opts),
            parse_selected(src, &Selector::new(["a"]), &opts),
        ] {
            let e = r.unwrap_err();
            assert_eq!(
                (e.classify(), e.offset(), e.message()),
                (
                    Category::Limit,
                    at,
                    "string longer than the limit of 4 bytes"
                ),
                "{}",
                String::from_utf8_lossy(src)
            );
        }
    }
    // Keys per object, counted as written.
    let opts = ParseOptions::new().max_keys_per_object(2);
    assert!(parse(br#"{"a": 1, "b": {"c": 1, "d": 2}}"#, &opts).is_ok());
    for (src, at) in [
        (&br#"{"a": 1, "b": 2, "c": 3}"#[..], 17),
        (br#"{"a": 1, "a": 2, "a": 3}"#, 17),
        (br#"[{"a": {"x": 1, "y": 2, "z": 3}}]"#, 24),
    ] {
        for r in [
            parse(src, &opts),
            parse_selected(src, &Selector::new(["a"]), &opts),
        ] {
            let e = r.unwrap_err();
            assert_eq!(
                (e.classify(), e.offset(), e.message()),
                (
                    Category::Limit,
                    at,
                    "object with more than the limit of 2 keys"
                ),
                "{}",
                String::from_utf8_lossy(src)
            );
        }
    }
    assert!(parse(b"{}", &ParseOptions::new().max_keys_per_object(0)).is_ok());
    assert!(parse(br#"{"a":1}"#, &ParseOptions::new().max_keys_per_object(0)).is_err());
    // The input limit never exceeds what a Doc can address.
    assert_eq!(
        ParseOptions::new()
            .max_input_bytes(usize::MAX)
            .max_input_bytes,
        u32::MAX as usize
    );
    assert_eq!(ParseOptions::default(), ParseOptions::new());
}

#[test]
fn selector_order_duplicates_missing_and_non_objects() {
    let opts = ParseOptions::new();
    let sel = Selector::new(["total", "id", "total", "missing"]);
    assert_eq!(sel.keys().collect::<Vec<_>>(), ["total", "id", "missing"]);
    let src = br#"{"id": 7, "name": "x", "total": 1.5, "nested": {"id": 1, "total": 2}}"#;
    let doc = parse_selected(src, &sel, &opts).unwrap();
    assert_eq!(format!("{:?}", doc.root()), r#"{"total": 1.5, "id": 7}"#);
    // Nested values are kept whole.
    let sel = Selector::new(["nested"]);
    let doc = parse_selected(src, &sel, &opts).unwrap();
    assert_eq!(
        format!("{:?}", doc.root()),
        r#"{"nested": {"id": 1, "total": 2}}"#
    );
    // Root array: object elements selected, others whole (nested arrays of objects too).
    let src = br#"[{"b": 2, "a": 1}, null, 3, "s", [{"a": 1, "b": 2}], {}, {"c": 1}]"#;
    let doc = parse_selected(src, &Selector::new(["a"]), &opts).unwrap();
    assert_eq!(
        format!("{:?}", doc.root()),
        r#"[{"a": 1}, null, 3, "s", [{"a": 1, "b": 2}], {}, {}]"#
    );
    assert_eq!(
        format!(
            "{:?}",
            parse_selected(b"[]", &Selector::new(["a"]), &opts)
                .unwrap()
                .root()
        ),
        "[]"
    );
    // Scalars at the root pass unchanged.
    assert_eq!(
        format!(
            "{:?}",
            parse_selected(b" 42 ", &Selector::new(["a"]), &opts)
                .unwrap()
                .root()
        ),
        "42"
    );
    // Duplicate keys in the input: last wins.
    let doc = parse_selected(
        br#"{"a": 1, "b": 2, "a": [3]}"#,
        &Selector::new(["b", "a"]),
        &opts,
    )
    .unwrap();
    assert_eq!(format!("{:?}", doc.root()), r#"{"b": 2, "a": [3]}"#);
    // Escaped keys match their unescaped text; the key is stored unescaped.
    let doc = parse_selected(
        br#"{"\u0069d": 5, "x\n": 6}"#,
        &Selector::new(["x\n", "id"]),
        &opts,
    )
    .unwrap();
    let o = doc.root().as_object().unwrap();
    let keys: Vec<_> = o
        .iter()
        .map(|(k, _)| k.to_str().unwrap().to_string())
        .collect();
    assert_eq!(keys, ["x\n", "id"]);
    // An empty selector selects nothing.
    let doc = parse_selected(
        br#"[{"a": 1}, 2]"#,
        &Selector::new(Vec::<String>::new()),
        &opts,
    )
    .unwrap();
    assert_eq!(format!("{:?}", doc.root()), "[{}, 2]");
    // Many keys (hash lookup) behave the same as few.
    let many: Vec<String> = (0..20).map(|i| format!("k{i}")).rev().collect();
    let doc = parse_selected(
        br#"{"k1": 1, "zz": 0, "k3": 3, "k19": 19}"#,
        &Selector::new(&many),
        &opts,
    )
    .unwrap();
    assert_eq!(
        format!("{:?}", doc.root()),
        r#"{"k19": 19, "k3": 3, "k1": 1}"#
    );
    // Unselected members are not materialised.
    let doc = parse_selected(
        br#"{"a": 1, "big": [1, 2, 3, {"x": "\n"}]}"#,
        &Selector::new(["a"]),
        &opts,
    )
    .unwrap();
    assert_eq!(doc.node_count(), 3);
}

#[test]
fn selection_over_rows_with_repeating_and_changing_keys() {
    // Rows reuse the previous row's key lexing when the bytes repeat (see select.rs); keys
    // that change length, spacing, escaping or position must still be read exactly.
    let opts = ParseOptions::new();
    let src = br#"[{"id":1,"n":"x"},{"id" : 2,"n":"y"},{"i":3,"id":4},{"\u0069d":5},{"id":6,"id":7},{"idx":8,"id":9},{"id":10}]"#;
    let doc = parse_selected(src, &Selector::new(["id"]), &opts).unwrap();
    assert_eq!(
        format!("{:?}", doc.root()),
        r#"[{"id": 1}, {"id": 2}, {"id": 4}, {"id": 5}, {"id": 7}, {"id": 9}, {"id": 10}]"#
    );
    let e = parse_selected(
        br#"[{"a":1},{"a":1,"b":2}]"#,
        &Selector::new(["a"]),
        &ParseOptions::new().max_keys_per_object(1),
    )
    .unwrap_err();
    assert_eq!((e.classify(), e.column()), (Category::Limit, 17));
    // A repeated key after an invalid one is never reached.
    let e = parse_selected(
        b"[{\"a\":1},{\"a\":1,\"\xff\":2}]",
        &Selector::new(["a"]),
        &opts,
    )
    .unwrap_err();
    assert_eq!((e.classify(), e.column()), (Category::Utf8, 18));
    // Flags from a repeated flagged key are already set by its first occurrence.
    let doc = parse_selected(
        br#"[{"<tool_error>":1},{"<tool_error>":2}]"#,
        &Selector::new(["a"]),
        &opts,
    )
    .unwrap();
    assert!(doc.has_reserved_tag());
    // The repeat check starts at the opening quote: a non-quote byte where the quote
    // should be is an error even when the bytes after it repeat the previous key (found
    // by the json_select fuzz target: `(` was taken for the quote of `""`).
    for src in [&b"[{\"\":2},{(\"\":2}]"[..], b"[{\"a\":1},{xa\":2}]"] {
        let full = crate::json::parse(src, &opts).unwrap_err();
        let sel = parse_selected(src, &Selector::new(["a", ""]), &opts).unwrap_err();
        assert_eq!(sel.to_string(), full.to_string());
        let bad = src.iter().rposition(|&c| c == b'{').unwrap() + 1;
        assert_eq!((sel.classify(), sel.offset()), (Category::Syntax, bad));
    }
}

#[test]
fn vector_and_portable_string_scans_agree() {
    // Every stop byte at every offset and tail length, with non-ASCII and `<` around it:
    // the x86_64 SSE2 scan and the portable word scan find the same end, and neither
    // misses a byte >= 0x80 or a `<` before the end (both may over-report, never under).
    for stop in [b'"', b'\\', 0x00, 0x1f, b'\n'] {
        for len in 0..48 {
            for tail in 0..20 {
                for filler in [b'a', 0xC3, b'<'] {
                    let mut v = vec![b'x'; len];
                    if len > 0 {
                        v[len / 2] = filler;
                    }
                    v.push(stop);
                    v.extend(std::iter::repeat_n(b'y', tail));
                    for (name, (end, hi, lt)) in [
                        ("vector", super::swar::scan_run(&v, 0)),
                        ("words", super::swar::scan_run_words(&v, 0)),
                    ] {
                        assert_eq!(end, len, "{name} {stop} {len} {tail}");
                        let run = &v[..end];
                        assert!(hi || run.is_ascii(), "{name} hi {len} {tail}");
                        assert!(lt || !run.contains(&b'<'), "{name} lt {len} {tail}");
                    }
                }
            }
        }
    }
    // No stop byte at all: the end of the input.
    for len in 0..40 {
        let v = vec![b'z'; len];
        assert_eq!(super::swar::scan_run(&v, 0).0, len);
        assert_eq!(super::swar::scan_run_words(&v, 0).0, len);
    }
}

/// `parse_selected(src, keys)` against the full parse: the same error (category, position,
/// message), or the same flags and the full parse's rows reduced to `keys`.
fn assert_selection_agrees(src: &[u8], keys: &[&str]) {
    let opts = ParseOptions::new();
    let shown = String::from_utf8_lossy(src);
    let full = parse(src, &opts);
    let sel = parse_selected(src, &Selector::new(keys), &opts);
    let (full, sel) = match (full, sel) {
        (Err(f), Err(s)) => {
            assert_eq!(
                (s.classify(), s.to_string()),
                (f.classify(), f.to_string()),
                "{shown:?}"
            );
            return;
        }
        (Ok(f), Ok(s)) => (f, s),
        (f, s) => panic!(
            "{shown:?}: parse {:?}, parse_selected {:?}",
            f.err(),
            s.err()
        ),
    };
    assert_eq!(
        (sel.has_reserved_tag(), sel.has_lone_surrogate()),
        (full.has_reserved_tag(), full.has_lone_surrogate()),
        "flags of {shown:?}"
    );
    let project = |row: crate::doc::Value<'_>| {
        // Elements that are not objects are kept whole.
        let Some(row) = row.as_object() else {
            return format!("{row:?}");
        };
        let members: Vec<String> = keys
            .iter()
            .enumerate()
            // A key asked for twice is selected once, at its first place.
            .filter(|&(i, k)| !keys[..i].contains(k))
            .filter_map(|(_, k)| row.get(k.as_bytes()).map(|v| format!("{k:?}: {v:?}")))
            .collect();
        format!("{{{}}}", members.join(", "))
    };
    let expected = match full.root().as_array() {
        Some(rows) => {
            let rows: Vec<String> = rows.iter().map(project).collect();
            format!("[{}]", rows.join(", "))
        }
        None => project(full.root()),
    };
    assert_eq!(format!("{:?}", sel.root()), expected, "{shown:?}");
    // The selected rows' same-keys and flat marks (which the TOON encoder trusts) are the
    // ones a full parse of the selection's JSON text would set.
    let opts_toon = crate::toon::EncodeOptions::new();
    let text = to_vec_compact(sel.root());
    let again = parse(&text, &opts).unwrap();
    assert_eq!(
        crate::toon::to_vec(sel.root(), &opts_toon).ok(),
        crate::toon::to_vec(again.root(), &opts_toon).ok(),
        "TOON of {shown:?}"
    );
}

#[test]
fn selection_through_row_layouts() {
    // After a row read by the general loop, the next rows are walked through its layout:
    // pushed as read when the selected keys come in request order, through the slots
    // otherwise. A row that leaves the layout anywhere (another key, other spacing, an
    // extra or a missing member, a value of another kind) is read again from its `{`;
    // nothing of the abandoned reading may remain, the nested containers it pushed
    // included.
    let rows = br#"[{"a":1,"b":{"x":[1,2]},"c":"s"},{"a":2,"b":{"x":[3]},"c":"t"},{"a":3,"b":{"x":[4]},"d":"u"},{"a":4,"b":{"y":5},"c":"v"},{"a":5,"b":[],"c":"w","e":1},{"a":6, "b":null,"c":"x"},{"a":7,"b":true,"c":"y"},{"a":"q\n","b":-0.5e3,"c":"z"},{"c":"k","a":8,"b":9},7,{"a":10,"b":11,"c":"m"},"s",{"a":12}]"#;
    for keys in [
        &["a", "b"][..],
        &["b", "a"],
        &["c"],
        &["a", "c", "b"],
        &["c", "a"],
        &["b"],
        &["zz"],
        &["a", "a", "d", "e"],
    ] {
        assert_selection_agrees(rows, keys);
    }
    // A row of fewer keys between walked rows (its escaped key leaves the layout as it
    // was): the rows after it are not marked as having its keys.
    assert_selection_agrees(
        br#"[{"a":1,"b":2},{"a":3,"b":4},{"\u0061":5},{"a":6,"b":7},{"b":8},{"a":9,"b":10}]"#,
        &["a", "b"],
    );
    // Rows of scalars pushed in input order and put in request order on the tape (floats
    // kept in the side table move with their cells); a container among them sends the row
    // and the next ones like it through the slots.
    let scalars = br#"[{"a":1.5e300,"b":"x","c":true},{"a":2.5e300,"b":"y","c":null},{"a":-0.1e-5,"b":"z","c":false},{"a":7,"b":[1],"c":1},{"a":8,"b":"w","c":2}]"#;
    for keys in [
        &["c", "a", "b"][..],
        &["b", "c"],
        &["c", "b", "a"],
        &["b", "a"],
    ] {
        assert_selection_agrees(scalars, keys);
    }
    // Walked rows whose selected values are containers are not flat.
    for src in [
        &br#"[{"a":1,"b":{"x":1}},{"a":2,"b":{"x":2}},{"a":3,"b":{"x":3}}]"#[..],
        br#"[{"a":1,"b":[1]},{"a":2,"b":[2]},{"a":3,"b":[]}]"#,
        br#"[{"a":1,"b":2},{"a":3,"b":4},{"a":5,"b":{"x":1}},{"a":6,"b":7}]"#,
        br#"[{"a":1,"b":2},{"a":3,"b":4},{"a":5,"b":[6,7]},{"a":8,"b":9}]"#,
    ] {
        assert_selection_agrees(src, &["a", "b"]);
    }
    // Duplicate keys in a layout (the last value wins) and escaped keys (no layout).
    for src in [
        &br#"[{"a":1,"a":2,"b":3},{"a":4,"a":5,"b":6},{"a":7,"b":8}]"#[..],
        br#"[{"a":1,"b":2},{"a":3,"b":4},{"a":5,"b":6},{"a":7,"b":8}]"#,
    ] {
        assert_selection_agrees(src, &["a", "b"]);
        assert_selection_agrees(src, &["b", "a"]);
    }
    // Errors in a walked row, in a selected or a skipped value, and in a row read again.
    for src in [
        &br#"[{"a":1,"b":2},{"a":1,"b":02}]"#[..],
        br#"[{"a":1,"b":2},{"a":tru,"b":2}]"#,
        br#"[{"a":1,"b":2},{"a":1,"b":"x"x}]"#,
        br#"[{"a":1,"b":2},{"a":[1,{"c":2}],"c":x}]"#,
        br#"[{"a":1,"b":2},{"a":{"z":1},"b":2,}]"#,
        br#"[{"a":1,"b":2},{"a":1,"b":2]"#,
        b"[{\"a\":1,\"b\":2},{\"a\":\"\xff\",\"b\":2}]",
    ] {
        for keys in [&["a", "b"][..], &["b", "a"], &["b"]] {
            assert_selection_agrees(src, keys);
        }
    }
    // More keys than a keys token holds: the rows close unmarked.
    let keys: Vec<String> = (0..70).map(|i| format!("k{i}")).collect();
    let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
    assert_selection_agrees(
        br#"[{"k1":1,"k66":2,"k69":3},{"k1":4,"k66":5,"k69":6},{"k66":7,"k69":8}]"#,
        &keys,
    );
    // A string over the limit in a walked row fails where a first row's would.
    let long = format!(r#"[{{"a":"x","b":1}},{{"a":"{}","b":2}}]"#, "y".repeat(40));
    let opts = ParseOptions::new().max_string_bytes(16);
    let full = parse(long.as_bytes(), &opts).unwrap_err();
    for keys in [&["a", "b"][..], &["b"]] {
        let sel = parse_selected(long.as_bytes(), &Selector::new(keys), &opts).unwrap_err();
        assert_eq!(
            (sel.to_string(), sel.offset()),
            (full.to_string(), full.offset())
        );
    }
}

#[test]
fn skipped_nested_rows_walk_layouts_and_fail_like_the_full_parse() {
    // An unselected array of objects is validated through row layouts too (made and walked
    // without output): its rows may change shape, and a bad value in a walked row fails
    // exactly as in the full parse.
    let rows = |third: &str| {
        format!(
            r#"[{{"id":1,"lines":[{{"s":"a","q":1}},{{"s":"b","q":2}}]}},{{"id":2,"lines":[{{"s":"c","q":3}},{{"s":"d","q":4}},{third}]}},{{"id":3,"lines":[{{"s":"e","q":5}}]}}]"#
        )
    };
    for third in [
        r#"{"s":"f","q":6}"#,
        r#"{"s":"f","q":"x"}"#,
        r#"{"s":"f"}"#,
        r#"{"s":"f","q":6,"r":[{"t":1},{"t":2}]}"#,
        r#"{"q":6,"s":"f"}"#,
        r#"{"s" :"f","q":6}"#,
        r#"{"s":"f\u0041","q":[true,null,false]}"#,
        r#"{"s":"<tool_error>","q":6}"#,
        r#"{"s":"f","q":01}"#,
        r#"{"s":"f","q":-}"#,
        r#"{"s":"f","q":tru}"#,
        r#"{"s":"f","q":6,}"#,
        r#"{"s":"f","q":6"#,
        r#"{"s":"f","q":1e999}"#,
        r#"{"s":"f\x","q":6}"#,
        r#"{"s":"f","q":6]"#,
        "{\"s\":\"\u{1}\",\"q\":6}",
    ] {
        let src = rows(third);
        for keys in [&["id"][..], &["lines"], &["lines", "id"], &["nope"]] {
            assert_selection_agrees(src.as_bytes(), keys);
        }
    }
    // Limits in a skipped walked row: members, depth, string length.
    let src = rows(r#"{"s":"ffffffffffffffffffffffff","q":[[6]],"r":0}"#);
    for opts in [
        ParseOptions::new().max_keys_per_object(2),
        ParseOptions::new().max_depth(4),
        ParseOptions::new().max_string_bytes(8),
    ] {
        let full = parse(src.as_bytes(), &opts).unwrap_err();
        let sel = parse_selected(src.as_bytes(), &Selector::new(["id"]), &opts).unwrap_err();
        assert_eq!(
            (sel.to_string(), sel.offset()),
            (full.to_string(), full.offset())
        );
    }
}

#[test]
fn skipped_values_after_a_repeated_row_fail_like_the_full_parse() {
    // The first row sets the key shape, so in the second row every key is matched by the
    // previous row's `,"key":` bytes and the unselected values take the skip paths. Each
    // bad value sits at every offset relative to the 16-byte blocks the string scan uses
    // (the padding shifts it), in a skipped string, and in a selected one for contrast.
    let bad_strings: &[&[u8]] = &[
        b"\xff",
        b"\xc3",
        b"\xed\xa0\x80",
        b"\x01",
        b"\x1f",
        b"\n",
        b"\\x",
        b"\\u12G4",
        b"\\",
        b"<tool_error>",
        b"<tool_result",
        b"\\u003ctool_error>",
        b"\\ud800",
        b"\\udc00\\ud800",
        b"\\\"",
        b"\xc3\xa9",
        b"\xf0\x9f\x98\x80",
    ];
    for bad in bad_strings {
        for pad in 0..40 {
            for field in ["note", "id"] {
                let mut text = b"x".repeat(pad);
                text.extend_from_slice(bad);
                text.extend_from_slice(b"yz");
                let mut src = br#"[{"id":1,"note":"a","ok":true},{"id":2,"#.to_vec();
                src.extend_from_slice(format!("\"{field}\":\"").as_bytes());
                src.extend_from_slice(&text);
                src.extend_from_slice(br#"","ok":false},{"id":3,"note":"c","ok":null}]"#);
                assert_selection_agrees(&src, &["id"]);
                assert_selection_agrees(&src, &["ok", "id"]);
                assert_selection_agrees(&src, &[]);
            }
        }
    }
}

#[test]
fn skipped_numbers_and_literals_after_a_repeated_row_fail_like_the_full_parse() {
    let values: &[&str] = &[
        "-",
        "-a",
        "01",
        "-00",
        "1.",
        "1.e5",
        "1e",
        "1e+",
        "1e+x",
        "1e400",
        "-1.5e309",
        "1e-400",
        "123123e100000",
        "0.5",
        "-0",
        "12345678901234567890123",
        "tru",
        "fals",
        "nul",
        "nulL",
        "truex",
        "falsey",
        "nullx",
        "t",
        "f",
        "n",
        "True",
        "[1,]",
        "{}",
        "[tru]",
        "{\"a\":1e400}",
        "\"",
        "",
    ];
    for v in values {
        for key in ["n", "id"] {
            let src = format!(
                r#"[{{"id":1,"n":2,"b":true}},{{"id":3,"{key}":{v},"b":false}},{{"id":4,"n":5,"b":null}}]"#
            );
            assert_selection_agrees(src.as_bytes(), &["id"]);
            assert_selection_agrees(src.as_bytes(), &["b"]);
            // The value last in its row, then last in the input.
            let src = format!(r#"[{{"id":1,"n":2}},{{"id":3,"{key}":{v}}}]"#);
            assert_selection_agrees(src.as_bytes(), &["id"]);
        }
    }
    // A literal among the last 8 bytes of the input (shorter than the word compare).
    for src in [
        &br#"[{"a":1,"b":true},{"a":2,"b":true}]"#[..],
        br#"[{"a":1,"b":false}]"#,
        br#"[{"a":1,"b":nul}]"#,
        br#"[{"a":1,"b":null"#,
        br#"[{"a":1,"b":fals"#,
        br#"{"a":1,"b":true}"#,
    ] {
        assert_selection_agrees(src, &["a"]);
    }
}

#[test]
fn a_repeated_rows_string_over_the_limit_fails_where_a_first_rows_does() {
    // The second row repeats the first's layout, so its strings take the row walk's plain
    // path; the limit is checked there as in the general loop. Escaped and plain, and each
    // one at the limit first (accepted).
    let opts = ParseOptions::new().max_string_bytes(4);
    for (value, ok) in [
        ("abcd", true),
        ("abcde", false),
        ("a\\nb", true),
        ("a\\nbc", false),
    ] {
        let src = format!(r#"[{{"a": "ab", "b": 1}}, {{"a": "{value}", "b": 2}}]"#);
        let start = src.rfind(value).unwrap();
        let got = parse(src.as_bytes(), &opts);
        let bytewise = crate::json::parse::with_kernel(None, || parse(src.as_bytes(), &opts));
        match (got, bytewise) {
            (Ok(d), Some(Ok(w))) => {
                assert!(ok, "{value}");
                assert_eq!(to_vec_compact(d.root()), to_vec_compact(w.root()));
            }
            (Err(e), Some(Err(w))) => {
                assert!(!ok, "{value}");
                assert_eq!(
                    (e.classify(), e.offset(), e.message()),
                    (
                        Category::Limit,
                        start + 4,
                        "string longer than the limit of 4 bytes"
                    )
                );
                assert_eq!((w.offset(), w.message()), (e.offset(), e.message()));
            }
            (got, bytewise) => panic!("{value}: {got:?} vs bytewise {bytewise:?}"),
        }
    }
}

#[test]
fn truncated_rows_fail_like_the_full_parse_at_every_length() {
    // Every prefix of a few repeated rows (keys, skipped strings with escapes, UTF-8 and
    // tags, numbers, literals) ends inside some value, key or separator.
    let src = "[{\"id\":\"INV-1\",\"customer\":\"Zo\u{eb} \\\"Caf\u{e9}\\\"\",\"amount\":1250,\"rate\":1.5e3,\"paid\":true,\"tag\":\"<tool_error>\"},\
               {\"id\":\"INV-2\",\"customer\":\"\u{65e5}\u{672c}\\u00e9\",\"amount\":-7,\"rate\":0.25,\"paid\":false,\"tag\":null},\
               {\"id\" : \"INV-3\" ,\"customer\":\"\\ud800\",\"amount\":0,\"rate\":1e-9,\"paid\":true,\"tag\":\"x\"}]";
    let src = src.as_bytes();
    for end in 0..=src.len() {
        assert_selection_agrees(&src[..end], &["id", "amount"]);
        assert_selection_agrees(&src[..end], &["paid"]);
    }
}

#[test]
fn repeated_keys_matched_whole_still_check_their_neighbours() {
    // The `,"key":` comparison covers the comma, both quotes and the colon: a row that
    // differs in any of them, or adds whitespace, falls back to the exact path.
    let rows: &[&[u8]] = &[
        br#"[{"id":1,"amount_cents":2},{"id":3,"amount_cents":4}]"#,
        br#"[{"id":1,"amount_cents":2},{"id":3;"amount_cents":4}]"#,
        br#"[{"id":1,"amount_cents":2},{"id":3,'amount_cents":4}]"#,
        br#"[{"id":1,"amount_cents":2},{"id":3,"amount_cents':4}]"#,
        br#"[{"id":1,"amount_cents":2},{"id":3,"amount_cents"=4}]"#,
        br#"[{"id":1,"amount_cents":2},{"id":3 ,"amount_cents" :4}]"#,
        br#"[{"id":1,"amount_cents":2},{"id":3,"amount_centz":4}]"#,
        br#"[{"id":1,"amount_cents":2},{"id":3,"amount_cents":4,"amount_cents":5}]"#,
        br#"[{"id":1,"amount_cents":2},{"id":3}]"#,
        br#"[{"id":1,"amount_cents":2},{"id":3,"amount_cents":"#,
        br#"[{"id":1,"amount_cents":2},{"id":3,"amount_cents""#,
        br#"[{"id":1,"a_key_longer_than_sixteen":2},{"id":3,"a_key_longer_than_sixteen":4}]"#,
        br#"[{"id":1,"\u0061":2},{"id":3,"\u0061":4}]"#,
        br#"[{"id":1},{"id":2},{"id":3}]"#,
    ];
    for src in rows {
        assert_selection_agrees(src, &["id", "amount_cents"]);
        assert_selection_agrees(src, &["amount_cents"]);
    }
    // The 1-key limit applies to keys matched whole too.
    let e = parse_selected(
        br#"[{"a":1},{"a":1,"b":2}]"#,
        &Selector::new(["b"]),
        &ParseOptions::new().max_keys_per_object(1),
    )
    .unwrap_err();
    assert_eq!(
        (e.classify(), e.column(), e.message()),
        (
            Category::Limit,
            17,
            "object with more than the limit of 1 keys"
        )
    );
}

#[test]
fn word_digit_scan_agrees_with_the_bytewise_one() {
    // Every byte value as the first non-digit, at every offset of a 24-byte window and with
    // every tail length (the last bytes are scanned one by one).
    for stop in 0..=255u8 {
        for digits in 0..24 {
            for tail in 0..10 {
                let mut v: Vec<u8> = (0..digits).map(|k| b'0' + (k % 10) as u8).collect();
                v.push(stop);
                v.extend(std::iter::repeat_n(b'7', tail));
                let want = v
                    .iter()
                    .position(|b| !b.is_ascii_digit())
                    .unwrap_or(v.len());
                assert_eq!(
                    super::swar::skip_digits(&v, 0),
                    want,
                    "{stop} {digits} {tail}"
                );
            }
        }
    }
}

#[test]
fn short_integers_in_rows_parse_like_the_bytewise_lexer() {
    // The row walk takes an integer of up to seven digits from one 8-byte word; anything
    // else (a sign, eight digits, a leading zero, a fraction or exponent after it, fewer
    // than 8 bytes left) goes to the general lexer. The second row repeats the first's
    // layout, so its `a` is read by the walk; every case must give the bytewise parse's
    // document, or its error at the same offset.
    let opts = ParseOptions::new();
    let numbers = [
        "0",
        "00",
        "01",
        "7",
        "10",
        "999",
        "1234567",
        "12345678",
        "123456789",
        "-1",
        "-0",
    ];
    let followers = [
        "", ",", "}", " ", ".5", ".", "e3", "E3", "e", "x", "\n", "]", "-",
    ];
    let tails = ["", "}", "}]", ",\"b\":3}]", "   \"b\":3}]"];
    let mut walked = 0;
    for n in numbers {
        for f in followers {
            for tail in tails {
                let src = format!(r#"[{{"a":1,"b":2}},{{"a":{n}{f}{tail}"#);
                let got = parse(src.as_bytes(), &opts);
                let want =
                    crate::json::parse::with_kernel(None, || parse(src.as_bytes(), &opts)).unwrap();
                match (got, want) {
                    (Ok(d), Ok(w)) => {
                        walked += 1;
                        assert_eq!(to_vec_compact(d.root()), to_vec_compact(w.root()), "{src}");
                    }
                    (Err(e), Err(w)) => assert_eq!(
                        (e.offset(), e.message()),
                        (w.offset(), w.message()),
                        "{src}"
                    ),
                    (got, want) => panic!("{src}: {got:?} vs bytewise {want:?}"),
                }
                assert_selection_agrees(src.as_bytes(), &["a"]);
            }
        }
    }
    assert!(walked > 50, "only {walked} inputs parsed");
}

#[test]
fn runs_of_same_rows_end_anywhere_like_the_bytewise_parse() {
    // From the third row on, a run's rows are opened and closed without the builder's
    // checks (`Parser::same_rows`). A row that leaves the layout anywhere, at any place in
    // the run, must still give the bytewise parse's document, marks and errors: the TOON
    // tables trust the marks, so a wrong one shows in the TOON text.
    let row = |n: usize| format!(r#"{{"id":{n},"name":"r{n}","ok":true}}"#);
    let odd = [
        r#"{"id":9,"name":"r9","no":true}"#,
        r#"{"id":9,"name":"r9"}"#,
        r#"{"id":9,"name":"r9","ok":true,"more":1}"#,
        r#"{"id":9,"name":{"first":"a"},"ok":true}"#,
        r#"{"id":9,"name":["a",1],"ok":true}"#,
        r#"{"id":9,"name":"a\"b","ok":true}"#,
        r#"{"id":9,"name":"caf\u00e9","ok":false}"#,
        r#"{"id":9, "name":"r9","ok":true}"#,
        r#"{"name":"r9","id":9,"ok":true}"#,
        r#"{"id":9,"name":"r9","ok":true,"ok":false}"#,
        r#"{}"#,
        r#"7"#,
        r#"{"id":9,"name":"r9","ok":tru}"#,
        r#"{"id":9,"name":"r9","ok":true"#,
        r#"{"id":9,"name":"r9","ok":true}}"#,
    ];
    let opts = ParseOptions::new();
    let toon = crate::toon::EncodeOptions::new();
    for at in 0..6 {
        for o in odd {
            for sep in [",", ", ", ",\n  "] {
                let rows: Vec<String> = (0..7)
                    .map(|n| if n == at { o.to_string() } else { row(n) })
                    .collect();
                let src = format!("[{}]", rows.join(sep));
                let got = parse(src.as_bytes(), &opts);
                let want =
                    crate::json::parse::with_kernel(None, || parse(src.as_bytes(), &opts)).unwrap();
                match (got, want) {
                    (Ok(d), Ok(w)) => {
                        assert_eq!(to_vec_compact(d.root()), to_vec_compact(w.root()), "{src}");
                        assert_eq!(
                            crate::toon::to_vec(d.root(), &toon).ok(),
                            crate::toon::to_vec(w.root(), &toon).ok(),
                            "TOON of {src}"
                        );
                    }
                    (Err(e), Err(w)) => assert_eq!(
                        (e.offset(), e.message()),
                        (w.offset(), w.message()),
                        "{src}"
                    ),
                    (got, want) => panic!("{src}: {got:?} vs bytewise {want:?}"),
                }
            }
        }
    }
}

/// Bytes drawn from pieces of text: ASCII (a `<` among it), characters of two, three and
/// four bytes, and bytes that are not UTF-8 or cut a character short.
fn text_pieces() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
    use proptest::prelude::*;
    let piece = prop_oneof![
        "[ -~]{0,12}".prop_map(String::into_bytes),
        Just("é".as_bytes().to_vec()),
        Just("東京".as_bytes().to_vec()),
        Just("🍰".as_bytes().to_vec()),
        Just(b"<tool_error>".to_vec()),
        any::<u8>().prop_map(|b| vec![b]),
        Just(b"\xE6\x97".to_vec()),
        Just(b"\xED\xA0\x80".to_vec()),
        Just(b"\xF4\x90\x80\x80".to_vec()),
        Just(b"\xC0\xAF".to_vec()),
    ];
    proptest::collection::vec(piece, 0..12).prop_map(|v| v.concat())
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

    /// The one-pass scan of a non-ASCII run stops where the scan does, says valid exactly
    /// when std's `from_utf8` of the run does, stops at std's first invalid byte otherwise,
    /// and never misses a `<`.
    #[test]
    fn non_ascii_runs_scanned_and_validated_as_std_does(tail in text_pieces()) {
        let mut v = "é".as_bytes().to_vec();
        v.extend_from_slice(&tail);
        let stop = v.iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20).unwrap_or(v.len());
        let (end, lt, valid) = super::swar::scan_run_utf8(&v, 0);
        let run = &v[..stop];
        match std::str::from_utf8(run) {
            Ok(_) => {
                proptest::prop_assert!(valid);
                proptest::prop_assert_eq!(end, stop);
                proptest::prop_assert!(lt || !run.contains(&b'<'));
            }
            Err(e) => {
                proptest::prop_assert!(!valid);
                proptest::prop_assert_eq!(end, e.valid_up_to());
            }
        }
    }

    /// A string of such bytes (escapes and controls left out) parses exactly when it is
    /// UTF-8, to its text, with the tag flag when it holds a reserved tag; else an error at
    /// std's first invalid byte.
    #[test]
    fn strings_of_any_bytes_parse_exactly_when_utf8(body in text_pieces()) {
        let body: Vec<u8> = body.into_iter().filter(|&b| b != b'"' && b != b'\\' && b >= 0x20).collect();
        let src = [&b"[\""[..], &body, b"\"]"].concat();
        match (parse(&src, &ParseOptions::new()), std::str::from_utf8(&body)) {
            (Ok(doc), Ok(text)) => {
                let s = doc.root().as_array().and_then(|a| a.iter().next()).and_then(|v| v.as_str()).map(|s| s.as_bytes().to_vec());
                proptest::prop_assert_eq!(s, Some(text.as_bytes().to_vec()));
                proptest::prop_assert_eq!(doc.has_reserved_tag(), crate::tag::contains_reserved_tag(text.as_bytes()));
            }
            (Err(e), Err(u)) => {
                proptest::prop_assert_eq!(e.classify(), Category::Utf8);
                proptest::prop_assert_eq!(e.offset(), 2 + u.valid_up_to());
            }
            (got, want) => proptest::prop_assert!(false, "{:?} against {:?}", got.map(|_| ()), want.map(|_| ())),
        }
    }
}
