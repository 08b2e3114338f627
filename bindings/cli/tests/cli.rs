//! The real `toolwire` binary, driven as a user (and a black-box test) would: exit codes,
//! stdout, and the one stderr line of CLI.md.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use toolwire::json::ParseOptions;
use toolwire::present::Presenter;
use toolwire::toon::Delimiter;
use toolwire::wire::Format;
use toolwire::wire::estimate_format_tokens;

fn toolwire(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(crate::BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn toolwire");
    // The binary may exit before reading stdin (a bad presenter file is checked first).
    let _ = child.stdin.take().unwrap().write_all(stdin);
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
        "<stdin>:1:1: a string result cannot hold a lone surrogate",
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

/// A fresh directory for one test's files (removed when dropped).
struct TempDir(PathBuf);

impl TempDir {
    fn new(test: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("toolwire-cli-{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    /// Writes `name` and returns its path as a string.
    fn file(&self, name: &str, contents: &str) -> String {
        let path = self.0.join(name);
        std::fs::write(&path, contents).unwrap();
        path.to_str().unwrap().to_owned()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The CLI.md presenter file, trimmed: limit 2, TOON, select enabled.
const INVOICE: &str = r#"{"name": "Invoice",
 "schema": {"type": "object",
            "properties": {"id": {"type": "string"}, "amount_cents": {"type": "integer"},
                           "status": {"type": "string", "enum": ["paid", "pending", "overdue"]}},
            "required": ["id", "amount_cents", "status"]},
 "rules": ["CRITICAL: amount_cents is in CENTS. Divide by 100."],
 "limit": 2,
 "select": true,
 "ui": {"collection": [{"table": {"columns": ["id", "status"], "title": "Invoices"}},
                       {"summary": "{shown} of {count} invoices"}]},
 "format": "toon"}"#;

const ROWS: &[u8] = br#"[{"id":"A","amount_cents":100,"status":"paid","x":1},{"id":"B","amount_cents":200,"status":"pending"},{"id":"C","amount_cents":300,"status":"overdue"}]"#;

/// `--blocks` output of INVOICE over ROWS with `kept` rows (their TOON lines) of 3.
fn invoice_blocks(data: &str, table_rows: &str, shown: usize) -> String {
    let notice = if shown < 3 {
        format!(
            "<ui_passthrough type=\"summary\">\n📊 **Summary**: ⚠️ Dataset truncated. {shown} shown, {} hidden. Use filters to narrow results.\n</ui_passthrough>\n-----\n",
            3 - shown
        )
    } else {
        String::new()
    };
    format!(
        "{data}\n-----\n{notice}<ui_passthrough type=\"markdown\" title=\"Invoices\">\n| id | status |\n| --- | --- |\n{table_rows}</ui_passthrough>\n-----\n<ui_passthrough type=\"summary\">\n📊 **Summary**: {shown} of 3 invoices\n</ui_passthrough>\n-----\n<domain_rules>\n- CRITICAL: amount_cents is in CENTS. Divide by 100.\n</domain_rules>\n-----\n"
    )
}

#[test]
fn present_through_a_presenter_file() {
    let dir = TempDir::new("presenter");
    let p = dir.file("invoice.json", INVOICE);
    let out = toolwire(&["present", "--presenter", &p, "--blocks"], ROWS);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        invoice_blocks(
            "[2|]{id|amount_cents|status}:\n  A|100|paid\n  B|200|pending",
            "| A | paid |\n| B | pending |\n",
            2
        ),
        "the file's format (toon) and limit (2); the undeclared field x is stripped"
    );
    assert_eq!(text(&out.stderr), "");
    // A valid _select: the data block only, names in request order, spaces trimmed.
    let out = toolwire(
        &[
            "present",
            "--presenter",
            &p,
            "--select",
            "status , id",
            "--blocks",
        ],
        ROWS,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        invoice_blocks(
            "[2|]{status|id}:\n  paid|A\n  pending|B",
            "| A | paid |\n| B | pending |\n",
            2
        )
    );
}

#[test]
fn limit_token_budget_and_format_override_the_file() {
    let dir = TempDir::new("overrides");
    let p = dir.file("invoice.json", INVOICE);
    let out = toolwire(
        &[
            "present",
            "--presenter",
            &p,
            "--limit",
            "3",
            "--format",
            "compact",
            "--blocks",
        ],
        ROWS,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        invoice_blocks(
            r#"[{"id":"A","amount_cents":100,"status":"paid"},{"id":"B","amount_cents":200,"status":"pending"},{"id":"C","amount_cents":300,"status":"overdue"}]"#,
            "| A | paid |\n| B | pending |\n| C | overdue |\n",
            3
        )
    );
    let out = toolwire(
        &["present", "--presenter", &p, "--limit", "0", "--blocks"],
        ROWS,
    );
    assert_eq!(
        text(&out.stdout),
        invoice_blocks("[]", "", 0),
        "--limit 0 keeps nothing"
    );
    // --token-budget: the same as a file that says so (the engine's estimator decides), and
    // a growing budget keeps 0, 1, 2, then 3 rows.
    for (budget, kept) in [(10, 0), (20, 1), (30, 2), (40, 3)] {
        let n = budget.to_string();
        let out = toolwire(
            &[
                "present",
                "--presenter",
                &p,
                "--limit",
                "3",
                "--token-budget",
                &n,
                "--blocks",
            ],
            ROWS,
        );
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let file = INVOICE.replace(
            "\"limit\": 2",
            &format!("\"limit\": 3, \"token_budget\": {budget}"),
        );
        let presenter = Presenter::from_json(file.as_bytes()).unwrap();
        // Parsed as the CLI does, with the presenter's pushdown selector (see
        // tests/engine_bugs.rs: the budget counts raw rows, so pushdown changes the result).
        let selector = presenter.selector(None).unwrap();
        let doc =
            toolwire::json::parse_selected(ROWS, &selector, &ParseOptions::default()).unwrap();
        let expected: String = presenter
            .present(doc.root(), None)
            .unwrap()
            .texts()
            .iter()
            .map(|t| format!("{t}\n-----\n"))
            .collect();
        assert_eq!(text(&out.stdout), expected, "budget {budget}");
        assert!(
            text(&out.stdout).contains(&format!("{kept} of 3 invoices")),
            "budget {budget}: {}",
            text(&out.stdout)
        );
    }
    // Without a presenter, --limit goes through an anonymous presenter without schema.
    let out = toolwire(&["present", "--limit", "1", "--format", "compact"], ROWS);
    assert_eq!(
        text(&out.stdout),
        "{\"content\":[{\"type\":\"text\",\"text\":\"[{\\\"id\\\":\\\"A\\\",\\\"amount_cents\\\":100,\\\"status\\\":\\\"paid\\\",\\\"x\\\":1}]\"},{\"type\":\"text\",\"text\":\"<ui_passthrough type=\\\"summary\\\">\\n📊 **Summary**: ⚠️ Dataset truncated. 1 shown, 2 hidden. Use filters to narrow results.\\n</ui_passthrough>\"}]}\n"
    );
}

#[test]
fn unknown_select_name_is_a_validation_error_response() {
    let dir = TempDir::new("select");
    let p = dir.file("invoice.json", INVOICE);
    let out = toolwire(
        &["present", "--presenter", &p, "--select", "status, x"],
        ROWS,
    );
    assert_eq!(out.status.code(), Some(5));
    assert_eq!(
        text(&out.stdout),
        "{\"content\":[{\"type\":\"text\",\"text\":\"<validation_error action=\\\"Invoice/present\\\">\\n<field name=\\\"_select\\\">Unknown field 'x'. You sent: 'x'. Valid options: 'amount_cents', 'id', 'status'.</field>\\n<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>\\n</validation_error>\"}],\"isError\":true}\n"
    );
    assert_eq!(
        text(&out.stderr),
        "<stdin>: _select: Unknown field 'x'. You sent: 'x'. Valid options: 'amount_cents', 'id', 'status'.\n"
    );
    // Framed, the same error response is the JSON-RPC result.
    let out = toolwire(
        &[
            "present",
            "--presenter",
            &p,
            "--select",
            "x",
            "--frame",
            "3",
        ],
        ROWS,
    );
    assert_eq!(out.status.code(), Some(5));
    assert!(
        text(&out.stdout).starts_with(
            "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"<validation_error action=\\\"Invoice/present\\\">"
        ),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn output_that_fails_the_schema_is_an_error_response() {
    let dir = TempDir::new("output");
    let p = dir.file("invoice.json", INVOICE);
    let out = toolwire(
        &["present", "--presenter", &p],
        br#"[{"id":"A","amount_cents":"100","status":"paid"},{"id":"B","status":"lost"}]"#,
    );
    assert_eq!(out.status.code(), Some(5));
    assert_eq!(
        text(&out.stdout),
        "{\"content\":[{\"type\":\"text\",\"text\":\"<tool_error code=\\\"OUTPUT_VALIDATION_FAILED\\\" severity=\\\"error\\\">\\n<message>[Invoice presenter] 3 problem(s): item 0 'amount_cents': expected integer, got string; item 1 'amount_cents': expected integer, got missing; item 1 'status': expected one of 'paid', 'pending', 'overdue', got 'lost'</message>\\n<recovery>The server returned data that does not match its declared schema. Retrying the same call will not help.</recovery>\\n</tool_error>\"}],\"isError\":true}\n"
    );
    assert_eq!(
        text(&out.stderr),
        "<stdin>: the tool response is an error response (OUTPUT_VALIDATION_FAILED)\n"
    );
}

#[test]
fn presenter_file_problems_exit_4_naming_the_file_and_key() {
    let dir = TempDir::new("files");
    let cases = [
        (
            "unknown.json",
            r#"{"name": "Invoice", "limt": 5}"#,
            "limt: unknown key",
        ),
        (
            "type.json",
            r#"{"name": "Invoice", "ui": {"collection": [{"table": {"columns": "id"}}]}}"#,
            "ui.collection[0].table.columns: expected an array of strings",
        ),
        (
            "bad.json",
            "{\"name\": \"Invoice\",\n  \"limit\": 5,,\n}",
            "2:14: expected a string key, found ','",
        ),
        (
            "format.json",
            r#"{"name": "Invoice", "format": "yaml"}"#,
            "format: unknown format 'yaml' (pretty, compact, toon, toon-comma, toon-tab, auto)",
        ),
    ];
    for (name, contents, message) in cases {
        let p = dir.file(name, contents);
        let line = if message.starts_with("2:") {
            format!("{p}:{message}")
        } else {
            format!("{p}: {message}")
        };
        assert_fails(&toolwire(&["present", "--presenter", &p], ROWS), 4, &line);
        // The presenter is checked first, also when an override replaces the bad key's
        // neighbours, and in budget.
        assert_fails(
            &toolwire(&["present", "--presenter", &p, "--limit", "1"], b"["),
            4,
            &line,
        );
        assert_fails(&toolwire(&["budget", "--presenter", &p], ROWS), 4, &line);
    }
    let missing = dir.0.join("missing.json");
    let missing = missing.to_str().unwrap();
    assert_fails(
        &toolwire(&["present", "--presenter", missing], ROWS),
        4,
        &format!("{missing}: No such file or directory (os error 2)"),
    );
}

#[test]
fn select_with_a_presenter_without_select_is_ignored_with_a_warning() {
    let dir = TempDir::new("noselect");
    let p = dir.file("plain.json", r#"{"name": "Plain", "format": "compact"}"#);
    let out = toolwire(&["present", "--presenter", &p, "--select", "id"], ROWS);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        text(&out.stdout),
        format!(
            "{{\"content\":[{{\"type\":\"text\",\"text\":{}}}]}}\n",
            serde_json::to_string(text(ROWS)).unwrap()
        )
    );
    assert_eq!(
        text(&out.stderr),
        "toolwire: --select ignored: presenter 'Plain' does not enable select\n"
    );
}

/// The data block text of a `present` result line.
fn data_block(out: &Output) -> String {
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v["content"][0]["text"].as_str().unwrap().to_owned()
}

#[test]
fn format_auto_picks_the_cheapest_by_the_estimator() {
    let dir = TempDir::new("auto");
    let inputs: [&[u8]; 3] = [
        ROWS,
        br#"{"a":{"b":[{"c":[1,{"d":2}]},[3,[4]]]},"e":"x"}"#,
        br#"[{"id":1,"name":"A, Inc"},{"id":2,"name":"B | C"},{"id":3,"name":"D"}]"#,
    ];
    let candidates = [
        ("pretty", Format::Pretty),
        ("compact", Format::Compact),
        ("toon-comma", Format::Toon(Delimiter::Comma)),
        ("toon", Format::Toon(Delimiter::Pipe)),
    ];
    let mut picked = Vec::new();
    for input in inputs {
        let doc = toolwire::json::parse(input, &ParseOptions::default()).unwrap();
        let mut best = ("", usize::MAX);
        for (name, f) in candidates {
            let t = estimate_format_tokens(doc.root(), f);
            if t < best.1 {
                best = (name, t);
            }
        }
        let auto = toolwire(&["present", "--format", "auto"], input);
        let fixed = toolwire(&["present", "--format", best.0], input);
        assert_eq!(auto.status.code(), Some(0));
        assert_eq!(data_block(&auto), data_block(&fixed), "{}", best.0);
        picked.push(best.0);
    }
    assert!(
        picked.iter().any(|p| p.starts_with("toon")),
        "a table is cheapest in TOON: {picked:?}"
    );
    // Through a presenter file that says "auto", on the data the presenter kept.
    let p = dir.file("auto.json", r#"{"name": "X", "format": "auto"}"#);
    let table =
        br#"[{"id":1,"name":"A"},{"id":2,"name":"B"},{"id":3,"name":"C"},{"id":4,"name":"D"}]"#;
    let out = toolwire(&["present", "--presenter", &p], table);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let doc = toolwire::json::parse(table, &ParseOptions::default()).unwrap();
    let toon = estimate_format_tokens(doc.root(), Format::Toon(Delimiter::Comma));
    let compact = estimate_format_tokens(doc.root(), Format::Compact);
    assert!(toon < compact, "{toon} {compact}");
    assert_eq!(
        data_block(&out),
        "[4]{id,name}:\n  1,A\n  2,B\n  3,C\n  4,D"
    );
}

/// Counts like the CLI: tiktoken's `encode_ordinary`.
fn o200k(s: &str) -> usize {
    tiktoken_rs::o200k_base_singleton().encode_ordinary(s).len()
}

fn cl100k(s: &str) -> usize {
    tiktoken_rs::cl100k_base_singleton()
        .encode_ordinary(s)
        .len()
}

/// The table lines after the header starting with `format `, split on whitespace.
fn table(s: &str) -> Vec<Vec<String>> {
    s.lines()
        .skip_while(|l| !l.starts_with("format "))
        .skip(1)
        .take_while(|l| !l.is_empty())
        .map(|l| l.split_whitespace().map(str::to_owned).collect())
        .collect()
}

const NAMES: [&str; 5] = ["pretty", "compact", "toon", "toon-comma", "toon-tab"];

#[test]
fn budget_prints_a_line_per_format_with_exact_token_counts() {
    let dir = TempDir::new("budget");
    let p = dir.file("invoice.json", INVOICE);
    for args in [
        vec!["budget"],
        vec!["budget", "--presenter", &p],
        vec!["budget", "--presenter", &p, "--select", "id"],
    ] {
        let out = toolwire(&args, ROWS);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert_eq!(text(&out.stderr), "");
        let s = text(&out.stdout);
        assert_eq!(
            s.lines()
                .next()
                .unwrap()
                .split_whitespace()
                .collect::<Vec<_>>(),
            ["format", "bytes", "o200k", "cl100k", "encode_ms"]
        );
        let rows = table(s);
        assert_eq!(rows.len(), 5, "{s}");
        let mut min = usize::MAX;
        for (row, name) in rows.iter().zip(NAMES) {
            assert_eq!(row[0], name);
            // The same response from `present`: every block, tokenized block by block.
            let mut present = args.clone();
            present[0] = "present";
            present.extend(["--format", name]);
            let out = toolwire(&present, ROWS);
            let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            let texts: Vec<&str> = v["content"]
                .as_array()
                .unwrap()
                .iter()
                .map(|b| b["text"].as_str().unwrap())
                .collect();
            let bytes: usize = texts.iter().map(|t| t.len()).sum();
            let o: usize = texts.iter().map(|t| o200k(t)).sum();
            let c: usize = texts.iter().map(|t| cl100k(t)).sum();
            assert_eq!(
                row[1..4],
                [bytes.to_string(), o.to_string(), c.to_string()],
                "{name}: {s}"
            );
            assert!(row[4].parse::<f64>().unwrap() >= 0.0);
            min = min.min(o);
        }
        let marked: Vec<&Vec<String>> = rows.iter().filter(|r| r.len() == 7).collect();
        assert_eq!(marked.len(), 1, "{s}");
        assert_eq!(marked[0][5..], ["<-", "cheapest"]);
        assert_eq!(marked[0][2], min.to_string());
    }
    // An unknown _select name: the error response, exit 5.
    let out = toolwire(&["budget", "--presenter", &p, "--select", "x"], ROWS);
    assert_eq!(out.status.code(), Some(5));
    assert!(text(&out.stdout).contains("<validation_error action=\\\"Invoice/present\\\">"));
    assert_eq!(text(&out.stderr).lines().count(), 1);
}

#[test]
fn demo_prints_blocks_and_a_table_with_every_format() {
    let out = toolwire(&["demo", "--rows", "2000"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stderr),
        "",
        "no progress bar when stdout is not a terminal"
    );
    let s = text(&out.stdout);
    assert!(s.starts_with("toolwire demo: 2000 invoice rows ("), "{s}");
    // The first blocks: the Invoice presenter's response, limited to 50, email redacted.
    assert!(
        s.contains(
            "\n[50|]{id|client{name|email}|amount_cents|currency|status|issued_at}:\n  INV-0000001|"
        ),
        "{s}"
    );
    assert!(s.contains("|\"[REDACTED]\"|"), "{s}");
    assert!(!s.contains("@"), "no email leaks: {s}");
    assert!(
        s.contains("<domain_rules>\n- CRITICAL: amount_cents is in CENTS. Divide by 100 before display.\n- Display the client's company name prominently.\n</domain_rules>"),
        "{s}"
    );
    assert!(s.contains("📊 **Summary**: 2000 invoices, 50 shown"), "{s}");
    assert!(s.contains("<action_suggestions>\n- billing.get: "), "{s}");
    let rows = table(s);
    let names: Vec<&str> = rows.iter().map(|r| r[0].as_str()).collect();
    assert_eq!(names, NAMES);
    // Bytes and tokens are those of the very text each format produces for all rows.
    let mut dumps = Vec::new();
    for row in &rows {
        let dump = toolwire(&["demo", "--rows", "2000", "--dump", &row[0]], b"");
        assert_eq!(dump.status.code(), Some(0));
        let d = text(&dump.stdout).to_owned();
        assert_eq!(row[1], d.len().to_string(), "{} bytes", row[0]);
        assert_eq!(row[2], o200k(&d).to_string(), "{} tokens", row[0]);
        dumps.push(d);
    }
    // Every format holds the same 2000 rows: the TOON texts decode to the compact JSON.
    assert!(dumps[1].starts_with("[{\"id\":\"INV-0000001\",\"client\":{\"name\":"));
    assert_eq!(dumps[1].matches("\"id\":\"INV-").count(), 2000);
    for toon in &dumps[2..] {
        let back = toolwire(&["toon", "decode"], toon.as_bytes());
        assert_eq!(text(&back.stdout), dumps[1]);
    }
    let cheapest: Vec<&Vec<String>> = rows.iter().filter(|r| r.len() == 7).collect();
    assert_eq!(cheapest.len(), 1, "{s}");
    assert!(
        cheapest[0][0].starts_with("toon"),
        "TOON is the cheapest on the tabular corpus: {s}"
    );
    let min = rows
        .iter()
        .map(|r| r[2].parse::<usize>().unwrap())
        .min()
        .unwrap();
    assert_eq!(cheapest[0][2], min.to_string());
}

/// A root array without presenter or select goes into the response as JSON bytes (read
/// window by window above 8 MiB): the output is the whole document's, byte for byte, in
/// every format, and a malformed row late in a large file is the usual one stderr line.
#[test]
fn large_plain_arrays_equal_the_whole_document() {
    let rows: Vec<String> = (0..160_000)
        .map(|i| {
            format!(
                r#"{{"id":{i},"name":"row {i}, \"q\"","ok":{},"x":1.5}}"#,
                i % 2 == 0
            )
        })
        .collect();
    let input = format!("[{}]", rows.join(",\n "));
    assert!(input.len() > 8 << 20, "large enough to be windowed");
    let doc = toolwire::json::parse(input.as_bytes(), &ParseOptions::default()).unwrap();
    for (name, format) in [
        ("toon", Format::Toon(Delimiter::Pipe)),
        ("pretty", Format::Pretty),
        ("compact", Format::Compact),
    ] {
        let out = toolwire(
            &["present", "--format", name, "--frame", "3"],
            input.as_bytes(),
        );
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let r = toolwire::wire::response(doc.root())
            .format(format)
            .build()
            .unwrap();
        let mut expect = Vec::new();
        toolwire::frame::write_frame(
            &toolwire::frame::Id::number_or_string("3"),
            &r,
            Default::default(),
            &mut expect,
        );
        assert!(
            out.stdout == expect,
            "{name}: output differs from the whole document's"
        );
    }
    let broken = input.replacen("\"id\":89990,", "\"id\":89990,,", 1);
    // The second comma, as line:column (1-based).
    let at = broken.find(",,").unwrap() + 1;
    let line = 1 + broken[..at].matches('\n').count();
    let column = at - broken[..at].rfind('\n').unwrap();
    let out = toolwire(&["present", "--format", "toon"], broken.as_bytes());
    assert_fails(
        &out,
        3,
        &format!("<stdin>:{line}:{column}: expected a string key, found ','"),
    );
}

#[test]
fn a_mapped_file_gives_the_bytes_and_errors_of_the_same_input_on_stdin() {
    // Files of 1 MiB or more are mapped (and, above 8 MiB, read once off the heap); stdin is
    // read. Same output, same exit codes, same positioned errors.
    let dir = std::env::temp_dir().join(format!("toolwire-cli-map-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let rows: Vec<String> = (0..110_000)
        .map(|i| format!(r#"{{"id":{i},"name":"customer {i}","memo":"{:040}"}}"#, i))
        .collect();
    let good = format!("[{}]", rows.join(",")).into_bytes();
    assert!(good.len() > 8 << 20);
    // A row near the end with a member missing its value.
    let mut bad = good.clone();
    let at = bad.len() - 60;
    let colon = at + bad[at..].iter().position(|&b| b == b':').unwrap();
    bad.insert(colon + 1, b',');
    for (name, bytes) in [("good.json", &good), ("bad.json", &bad)] {
        let f = dir.join(name);
        std::fs::write(&f, bytes).unwrap();
        let path = f.to_str().unwrap();
        for args in [
            vec!["toon", "encode", path, "--delimiter", "comma"],
            vec!["present", path, "--format", "toon-comma", "--frame", "1"],
            vec!["present", path, "--format", "pretty"],
        ] {
            let mapped = toolwire(&args, b"");
            let mut piped_args = args.clone();
            let i = piped_args.iter().position(|a| *a == path).unwrap();
            piped_args[i] = "-";
            let piped = toolwire(&piped_args, bytes);
            assert_eq!(mapped.status.code(), piped.status.code(), "{args:?}");
            assert!(mapped.stdout == piped.stdout, "{args:?}: the same output");
            assert_eq!(
                text(&mapped.stderr).replace(path, "<stdin>"),
                text(&piped.stderr),
                "{args:?}"
            );
            if name == "good.json" {
                assert_eq!(mapped.status.code(), Some(0), "{}", text(&mapped.stderr));
                assert!(mapped.stdout.len() > good.len() / 3);
            } else {
                assert_eq!(mapped.status.code(), Some(3));
                assert!(text(&mapped.stderr).starts_with(&format!("{path}:1:")));
            }
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
