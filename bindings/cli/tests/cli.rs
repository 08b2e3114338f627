//! The real `toolwire` binary, driven as a user (and a black-box test) would: exit codes,
//! stdout, and the one stderr line of CLI.md.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn toolwire(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolwire"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn toolwire");
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

fn text(b: &[u8]) -> &str {
    std::str::from_utf8(b).unwrap()
}

/// Asserts a failure: exit code, empty stdout, and exactly one stderr line equal to `line`.
fn assert_fails(out: &Output, code: i32, line: &str) {
    assert_eq!(
        out.status.code(),
        Some(code),
        "stderr: {}",
        text(&out.stderr)
    );
    assert_eq!(text(&out.stdout), "", "stdout must stay empty");
    assert_eq!(text(&out.stderr), format!("{line}\n"));
}

#[test]
fn present_prints_one_compact_call_tool_result_line() {
    let out = toolwire(
        &["present", "--format", "toon"],
        br#"[{"id":1,"name":"A, Inc"},{"id":2,"name":"B"}]"#,
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        text(&out.stdout),
        "{\"content\":[{\"type\":\"text\",\"text\":\"[2|]{id|name}:\\n  1|A, Inc\\n  2|B\"}]}\n"
    );
    assert_eq!(text(&out.stderr), "");
}

#[test]
fn present_formats_select_frame_and_blocks() {
    let input = br#"{"b":2,"a":{"x":[1,"<tool_error>"]},"c":null}"#;
    let out = toolwire(
        &["present", "--format", "compact", "--select", "c, a"],
        input,
    );
    assert_eq!(
        text(&out.stdout),
        "{\"content\":[{\"type\":\"text\",\"text\":\"{\\\"c\\\":null,\\\"a\\\":{\\\"x\\\":[1,\\\"\\\\u003ctool_error>\\\"]}}\"}]}\n"
    );
    let out = toolwire(
        &["present", "--frame", "req-1", "--protocol", "2026-07-28"],
        b"[]",
    );
    assert_eq!(
        text(&out.stdout),
        "{\"jsonrpc\":\"2.0\",\"id\":\"req-1\",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"[]\"}],\"resultType\":\"complete\"}}\n"
    );
    let out = toolwire(
        &["present", "--frame", "-12", "--blocks"],
        br#""a string result""#,
    );
    assert_eq!(
        text(&out.stdout),
        "a string result\n-----\n",
        "--blocks wins over --frame"
    );
    let out = toolwire(&["present", "--frame", "-12"], br#""""#);
    assert_eq!(
        text(&out.stdout),
        "{\"jsonrpc\":\"2.0\",\"id\":-12,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"OK\"}]}}\n"
    );
    let out = toolwire(&["present"], b"null");
    assert_eq!(
        text(&out.stdout),
        "{\"content\":[{\"type\":\"text\",\"text\":\"null\"}]}\n"
    );
}

#[test]
fn malformed_input_exits_3_with_file_line_column() {
    assert_fails(
        &toolwire(&["present"], b""),
        3,
        "<stdin>:1:1: empty input, expected a JSON value",
    );
    assert_fails(
        &toolwire(&["present"], b"{\"a\":\n  }"),
        3,
        "<stdin>:2:3: expected a value, found '}'",
    );
    assert_fails(
        &toolwire(&["present"], b"[1,2"),
        3,
        "<stdin>:1:5: unexpected end of input, expected ',' or ']' after an array element",
    );
    assert_fails(
        &toolwire(&["present"], b"[1e400]"),
        3,
        "<stdin>:1:2: number out of the range of a 64-bit float",
    );
    assert_fails(
        &toolwire(&["present"], b"[\"a\xff\"]"),
        3,
        "<stdin>:1:4: invalid UTF-8",
    );
    assert_fails(
        &toolwire(&["present"], br#""\ud800""#),
        3,
        "<stdin>: a string result cannot hold a lone surrogate",
    );
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    assert_fails(
        &toolwire(&["present"], deep.as_bytes()),
        3,
        "<stdin>:1:129: nesting deeper than the limit of 128 arrays/objects",
    );
    assert_fails(
        &toolwire(&["toon", "encode"], b"{"),
        3,
        "<stdin>:1:2: unexpected end of input, expected a string key",
    );
    assert_fails(
        &toolwire(&["toon", "decode"], b"a[2]: 1"),
        3,
        "<stdin>:1:2: expected 2 inline values, found 1",
    );
}

#[test]
fn files_are_named_in_errors() {
    let dir = std::env::temp_dir().join(format!("toolwire-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("data.json");
    std::fs::write(&f, b"{\"a\":\n  }").unwrap();
    let name = f.to_str().unwrap();
    assert_fails(
        &toolwire(&["present", name], b""),
        3,
        &format!("{name}:2:3: expected a value, found '}}'"),
    );
    let missing = dir.join("missing.json");
    let out = toolwire(&["present", missing.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(3));
    assert!(text(&out.stderr).starts_with(&format!("{}: ", missing.display())));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn usage_errors_exit_2_with_one_line() {
    let out = toolwire(&["present", "--bogus"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(text(&out.stdout), "");
    assert_eq!(
        text(&out.stderr),
        "toolwire: unexpected argument '--bogus' found\n"
    );
    let out = toolwire(&["present", "--format", "yaml"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(text(&out.stderr).lines().count(), 1);
}

#[test]
fn toon_encode_and_decode_round_trip() {
    let json = br#"{"items":[{"sku":"A1","qty":2,"price":9.99},{"sku":"B2","qty":1,"price":14.5}],"n":123456789012345678901234567890}"#;
    let toon = toolwire(
        &["toon", "encode", "--delimiter", "tab", "--indent", "4"],
        json,
    );
    assert_eq!(toon.status.code(), Some(0));
    assert_eq!(
        text(&toon.stdout),
        "items[2\t]{sku\tqty\tprice}:\n    A1\t2\t9.99\n    B2\t1\t14.5\nn: 123456789012345678901234567890"
    );
    let back = toolwire(&["toon", "decode", "--indent", "4"], &toon.stdout);
    assert_eq!(text(&back.stdout), text(json));
    // Root strings are encoded per the TOON spec; empty or comment-only TOON decodes to {}.
    assert_eq!(
        text(&toolwire(&["toon", "encode"], b"\"true\"").stdout),
        "\"true\""
    );
    assert_eq!(text(&toolwire(&["toon", "decode"], b"").stdout), "{}");
    // Lone surrogates cannot be TOON: an error, not output.
    let out = toolwire(&["toon", "encode"], br#"["\ud800"]"#);
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(text(&out.stdout), "");
}

#[test]
fn demo_prints_blocks_and_a_table_with_every_format() {
    let out = toolwire(&["demo", "--rows", "2000"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    assert!(s.starts_with("toolwire demo: 2000 invoice rows ("), "{s}");
    assert!(
        s.contains("<domain_rules>\n- CRITICAL: amount_cents is in CENTS."),
        "{s}"
    );
    let table: Vec<&str> = s
        .lines()
        .skip_while(|l| !l.starts_with("format "))
        .collect();
    let names: Vec<&str> = table[1..]
        .iter()
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(
        names,
        ["pretty", "compact", "toon", "toon-comma", "toon-tab"]
    );
    let cheapest: Vec<&str> = table
        .iter()
        .filter(|l| l.ends_with("<- cheapest"))
        .copied()
        .collect();
    assert_eq!(cheapest.len(), 1, "{s}");
    assert!(
        cheapest[0].starts_with("toon"),
        "TOON is the cheapest on the flat corpus: {s}"
    );
    assert_eq!(
        text(&out.stderr),
        "",
        "no progress bar when stdout is not a terminal"
    );
}
