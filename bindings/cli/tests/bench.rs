//! `toolwire bench` against `toolwire serve` (the real binary on both sides, real stdio and
//! loopback HTTP), its figures checked against calls made here with raw JSON-RPC, counted by
//! tiktoken-rs and js-tiktoken; and every way a run can go wrong.

use crate::bench_common::*;
use serde_json::{Value, json};

fn check_percentiles(j: &Value) {
    let l = &j["latency_ms"];
    let (p50, p90, p99, max) = (
        l["p50"].as_f64().unwrap(),
        l["p90"].as_f64().unwrap(),
        l["p99"].as_f64().unwrap(),
        l["max"].as_f64().unwrap(),
    );
    assert!(0.0 < p50 && p50 <= p90 && p90 <= p99 && p99 <= max, "{l}");
    let t = &j["ttfb_ms"];
    let (t50, t99) = (t["p50"].as_f64().unwrap(), t["p99"].as_f64().unwrap());
    assert!(0.0 < t50 && t50 <= t99, "{t}");
    // The first byte never comes after the last.
    assert!(t50 <= p99.max(max) && t99 <= max, "{t} vs {l}");
}

fn check_formats(j: &Value) {
    let formats = j["formats"].as_array().unwrap();
    let names: Vec<&str> = formats
        .iter()
        .map(|f| f["format"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "pretty",
            "compact",
            "toon",
            "toon-comma",
            "toon-tab",
            "auto"
        ]
    );
    let cheapest: Vec<&Value> = formats.iter().filter(|f| f["cheapest"] == true).collect();
    assert_eq!(cheapest.len(), 1, "{formats:?}");
    let min = formats
        .iter()
        .map(|f| f["o200k"].as_u64().unwrap())
        .min()
        .unwrap();
    assert_eq!(cheapest[0]["o200k"].as_u64(), Some(min));
    // The first with the fewest tokens is marked.
    let first = formats
        .iter()
        .position(|f| f["o200k"].as_u64() == Some(min))
        .unwrap();
    assert_eq!(formats[first]["cheapest"], true);
    // Pretty JSON costs more than TOON on a table of invoices: the calls really differ.
    assert!(formats[0]["bytes"].as_u64() > formats[2]["bytes"].as_u64());
}

#[test]
fn stdio_against_toolwire_serve_matches_a_raw_call_and_two_tokenizers() {
    let cmd = serve_cmd("--rows 500");
    let out = toolwire(&[
        "bench",
        "--stdio",
        &cmd,
        "--tool",
        "invoices",
        "--args",
        LIST7,
        "--calls",
        "4",
        "--concurrency",
        "2",
        "--json",
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    // stderr is not a terminal: no progress bar, nothing at all.
    assert_eq!(out.stderr, "");
    let j = out.json();
    assert_eq!(j["tool"], "invoices");
    assert_eq!(j["transport"], "stdio");
    assert_eq!(j["protocol"], "2026-07-28");
    assert_eq!(j["calls"], 4);
    assert_eq!(j["errors"], 0);
    assert_eq!(
        j["budget"],
        json!({"tokens": 25000, "bytes": 8388608, "over_tokens": 0, "over_bytes": 0})
    );
    check_percentiles(&j);
    check_formats(&j);
    // The same call made here: the same message bytes and tokens.
    let (bytes, blocks) = raw_call(
        &[BIN, "serve", "--rows", "500"],
        true,
        "invoices",
        &serde_json::from_str(LIST7).unwrap(),
    );
    let (o200k, cl100k) = tiktoken_rs(&blocks);
    assert!(o200k > 100, "{o200k}");
    assert_uniform(&j, bytes, o200k, cl100k);
    if let Some(js) = js_tiktoken(&blocks) {
        assert_eq!(js, (o200k, cl100k), "js-tiktoken disagrees");
    }
}

#[test]
fn stdio_handshake_era_is_measured_too() {
    let cmd = serve_cmd("--rows 200");
    for rev in ["2025-06-18", "2025-11-25"] {
        let out = toolwire(&[
            "bench",
            "--stdio",
            &cmd,
            "--tool",
            "invoices",
            "--args",
            LIST7,
            "--calls",
            "3",
            "--protocol",
            rev,
            "--json",
        ]);
        assert_eq!(out.code, 0, "{out:?}");
        let j = out.json();
        assert_eq!(j["protocol"], rev);
        // Handshake results carry no `resultType`: the raw handshake call weighs the same.
        let (bytes, blocks) = raw_call(
            &[BIN, "serve", "--rows", "200"],
            false,
            "invoices",
            &serde_json::from_str(LIST7).unwrap(),
        );
        let (o, c) = tiktoken_rs(&blocks);
        assert_uniform(&j, bytes, o, c);
    }
}

#[test]
fn http_json_and_sse_against_toolwire_serve() {
    let server = HttpServer::start(BIN, &["serve", "--http", "127.0.0.1:0", "--rows", "300"]);
    let (bytes, blocks) = raw_call(
        &[BIN, "serve", "--rows", "300"],
        true,
        "invoices",
        &serde_json::from_str(LIST7).unwrap(),
    );
    let (o, c) = tiktoken_rs(&blocks);
    for sse in [false, true] {
        let mut args = vec![
            "bench",
            "--http",
            &server.url,
            "--tool",
            "invoices",
            "--args",
            LIST7,
            "--calls",
            "5",
            "--concurrency",
            "3",
            "--json",
        ];
        if sse {
            args.push("--sse");
        }
        let out = toolwire(&args);
        assert_eq!(out.code, 0, "{out:?}");
        let j = out.json();
        assert_eq!(j["transport"], "http");
        assert_eq!(j["protocol"], "2026-07-28");
        assert_eq!(j["calls"], 5);
        check_percentiles(&j);
        check_formats(&j);
        // The message is the same JSON-RPC text on every transport and framing.
        assert_uniform(&j, bytes, o, c);
    }
}

#[test]
fn several_args_in_turn_and_the_table() {
    let server = HttpServer::start(BIN, &["serve", "--http", "127.0.0.1:0", "--rows", "300"]);
    let get = r#"{"action":"get","id":"INV-0000002"}"#;
    let out = toolwire(&[
        "bench",
        "--http",
        &server.url,
        "--tool",
        "invoices",
        "--args",
        LIST7,
        "--args",
        get,
        "--calls",
        "4",
        "--protocol",
        "2025-06-18",
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    let t = &out.stdout;
    assert!(
        t.starts_with(
            "tool invoices over http (protocol 2025-06-18): 4 calls, 1 in flight, 0 errors\n"
        ),
        "{t}"
    );
    assert!(
        t.contains(&format!("  args {LIST7}\n  args {get}\n")),
        "{t}"
    );
    let cheapest: Vec<&str> = t.lines().filter(|l| l.ends_with("  <- cheapest")).collect();
    assert_eq!(cheapest.len(), 1, "{t}");
    for row in [
        "latency ",
        "ttfb ",
        "bytes ",
        "o200k ",
        "cl100k ",
        "over budget: 0 calls by tokens, 0 by bytes",
    ] {
        assert!(t.lines().any(|l| l.starts_with(row)), "no {row:?} row: {t}");
    }
    // Two distinct responses: the spread shows both (a get of one row is smaller).
    let (_, list) = raw_call(
        &[BIN, "serve", "--rows", "300"],
        false,
        "invoices",
        &serde_json::from_str(LIST7).unwrap(),
    );
    let (_, one) = raw_call(
        &[BIN, "serve", "--rows", "300"],
        false,
        "invoices",
        &serde_json::from_str(get).unwrap(),
    );
    let (lo, _) = tiktoken_rs(&one);
    let (hi, _) = tiktoken_rs(&list);
    let o200k_row = t.lines().find(|l| l.starts_with("o200k ")).unwrap();
    let cells: Vec<&str> = o200k_row.split_whitespace().collect();
    assert_eq!(
        cells,
        [
            "o200k",
            &lo.to_string(),
            &lo.to_string(),
            &hi.to_string(),
            "25000"
        ]
    );
}

#[test]
fn over_budget_exits_5_with_the_reason_and_the_full_output() {
    let cmd = serve_cmd("--rows 200");
    let out = toolwire(&[
        "bench",
        "--stdio",
        &cmd,
        "--tool",
        "invoices",
        "--args",
        LIST7,
        "--calls",
        "2",
        "--budget-tokens",
        "50",
        "--budget-bytes",
        "100",
        "--json",
    ]);
    assert_eq!(out.code, 5, "{out:?}");
    let j = out.json();
    assert_eq!(j["budget"]["over_tokens"], 2);
    assert_eq!(j["budget"]["over_bytes"], 2);
    assert_eq!(j["errors"], 0);
    let e = out.stderr.trim_end();
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(
        e.starts_with("toolwire: bench: 2 of 2 calls over the token budget 50 (max o200k "),
        "{e}"
    );
    assert!(
        e.contains("; 2 of 2 calls over the byte budget 100 (max "),
        "{e}"
    );
}

#[test]
fn a_tool_that_errors_exits_5() {
    let cmd = serve_cmd("--rows 50");
    let out = toolwire(&[
        "bench",
        "--stdio",
        &cmd,
        "--tool",
        "invoices",
        "--args",
        r#"{"action":"list","offset":-1}"#,
        "--calls",
        "3",
        "--json",
    ]);
    assert_eq!(out.code, 5, "{out:?}");
    let j = out.json();
    assert_eq!(j["errors"], 3);
    assert!(
        j["formats"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["isError"] == true)
    );
    assert!(
        j["formats"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["cheapest"] == false)
    );
    let e = out.stderr.trim_end();
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(
        e.starts_with("toolwire: bench: 3 of 3 calls failed (call 1: isError: <validation_error"),
        "{e}"
    );
    assert!(e.contains("6 of 6 per-format calls failed"), "{e}");
}

#[test]
fn an_unknown_tool_is_a_usage_error_naming_what_the_server_offers() {
    let cmd = serve_cmd("--rows 10");
    let out = toolwire(&["bench", "--stdio", &cmd, "--tool", "invoice"]);
    assert_eq!(out.code, 2, "{out:?}");
    assert_eq!(out.stdout, "");
    assert_eq!(
        out.stderr,
        "toolwire: bench: --tool invoice: the server has no such tool (it offers: invoices)\n"
    );
}

#[test]
fn a_server_that_will_not_start_exits_6() {
    // No such program.
    let out = toolwire(&[
        "bench",
        "--stdio",
        "/nonexistent/mcp-server --x",
        "--tool",
        "t",
    ]);
    assert_eq!(out.code, 6, "{out:?}");
    assert!(
        out.stderr.starts_with("toolwire: bench: the server did not start or answer: cannot start \"/nonexistent/mcp-server\": "),
        "{}",
        out.stderr
    );
    // A server that exits at once: its status and its own last words.
    let cmd = serve_cmd("--rows 10 --collection 'bad name=x.json'");
    let out = toolwire(&["bench", "--stdio", &cmd, "--tool", "t"]);
    assert_eq!(out.code, 6, "{out:?}");
    let e = &out.stderr;
    assert!(e.contains("exited (exit status: 2)"), "{e}");
    assert!(e.contains("its last stderr line: toolwire: "), "{e}");
    assert_eq!(e.lines().count(), 1, "{e}");
    // Nothing listening.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let out = toolwire(&["bench", "--http", &url, "--tool", "t"]);
    assert_eq!(out.code, 6, "{out:?}");
    assert!(
        out.stderr.starts_with(&format!(
            "toolwire: bench: the server did not start or answer: POST {url}: "
        )),
        "{}",
        out.stderr
    );
}

/// A shell script that passes the first `lines` lines of its stdin to `toolwire serve`
/// (line by line: `read` takes no byte more), keeps the server's stdin open 2 s more (a
/// closed stdin cancels calls in flight, SERVE.md §3: the last call is answered first),
/// then closes it and runs `then`.
fn script(name: &str, lines: usize, then: &str) -> String {
    let path =
        std::env::temp_dir().join(format!("toolwire-bench-{}-{name}.sh", std::process::id()));
    let reads = "IFS= read -r l && printf '%s\\n' \"$l\"; ".repeat(lines);
    let body = format!("({reads}sleep 2) | '{BIN}' serve --rows 20\n{then}\n");
    std::fs::write(&path, body).unwrap();
    format!("sh '{}'", path.display())
}

#[test]
fn a_server_that_dies_mid_run_exits_6_naming_the_call() {
    // The server answers server/discover, tools/list and the first two calls; then its
    // stdin closes, it exits, and the shell around it says goodbye and exits 3.
    let cmd = script("dies", 4, "echo bye >&2; exit 3");
    let out = toolwire(&[
        "bench", "--stdio", &cmd, "--tool", "invoices", "--calls", "5", "--json",
    ]);
    assert_eq!(out.code, 6, "{out:?}");
    assert_eq!(out.stdout, "");
    assert_eq!(
        out.stderr,
        "toolwire: bench: call 3 of 5: the server \"sh\" exited (exit status: 3); its last stderr line: bye\n"
    );
}

#[test]
fn a_server_that_does_not_answer_times_out() {
    // Never answers at all.
    let out = toolwire(&[
        "bench",
        "--stdio",
        "sleep 30",
        "--tool",
        "t",
        "--timeout",
        "0.5",
    ]);
    assert_eq!(out.code, 6, "{out:?}");
    assert_eq!(
        out.stderr,
        "toolwire: bench: the server did not start or answer: no response within 0.5 s\n"
    );
    // Answers the set-up, then nothing (the shell keeps the pipes open): the first call
    // times out.
    let cmd = script("hangs", 2, "sleep 5");
    let out = toolwire(&[
        "bench",
        "--stdio",
        &cmd,
        "--tool",
        "invoices",
        "--timeout",
        "1",
    ]);
    assert_eq!(out.code, 6, "{out:?}");
    assert_eq!(
        out.stderr,
        "toolwire: bench: call 1 of 20: no response within 1 s\n"
    );
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["bench", "--tool", "t"][..],
        &[
            "bench",
            "--stdio",
            "x",
            "--http",
            "http://127.0.0.1:1/mcp",
            "--tool",
            "t",
        ],
        &["bench", "--stdio", "x", "--tool", "t", "--args", "[1]"],
        &["bench", "--stdio", "x", "--tool", "t", "--args", "{"],
        &["bench", "--stdio", "x", "--tool", "t", "--calls", "0"],
        &["bench", "--stdio", "x", "--tool", "t", "--timeout", "0"],
        &["bench", "--stdio", "x", "--tool", "t", "--protocol", "soon"],
        &["bench", "--stdio", "x", "--tool", "t", "--sse"],
    ] {
        let out = toolwire(args);
        assert_eq!(out.code, 2, "{args:?}: {out:?}");
        assert_eq!(out.stdout, "");
        assert_eq!(out.stderr.lines().count(), 1, "{args:?}: {}", out.stderr);
    }
}

#[test]
fn a_server_that_asks_the_client_something_and_offers_no_formats() {
    if !has_node() {
        missing("bench_servers/asks.mjs: no node on PATH");
        return;
    }
    let script = root().join("bindings/cli/tests/bench_servers/asks.mjs");
    let cmd = format!("node '{}'", script.display());
    let report =
        std::env::temp_dir().join(format!("toolwire-bench-asks-{}.html", std::process::id()));
    let out = toolwire(&[
        "bench",
        "--stdio",
        &cmd,
        "--tool",
        "echo",
        "--args",
        r#"{"say":"<hi>"}"#,
        "--calls",
        "3",
        "--json",
        "--timeout",
        "20",
        "--report",
        report.to_str().unwrap(),
    ]);
    // The server answers only after the client replied to its ping and roots/list.
    assert_eq!(out.code, 0, "{out:?}");
    let j = out.json();
    assert_eq!(j["protocol"], "2025-06-18");
    assert_eq!(j["formats"], json!([]));
    let text = r#"echo: {"say":"<hi>"}"#;
    let (o, c) = tiktoken_rs(&[text.to_owned()]);
    let message = json!({"jsonrpc": "2.0", "id": 4, "result": {
        "content": [{"type": "text", "text": text}], "isError": false}});
    assert_uniform(&j, message.to_string().len(), o, c);
    // Without a format enum the chart shows the median call, and the table has no format part.
    let html = std::fs::read_to_string(&report).unwrap();
    assert!(html.contains("median call"), "{html}");
    assert!(
        html.contains("echo: {&quot;say&quot;:&quot;&lt;hi&gt;&quot;}"),
        "{html}"
    );
    let table = toolwire(&["bench", "--stdio", &cmd, "--tool", "echo", "--calls", "1"]);
    assert_eq!(table.code, 0, "{table:?}");
    assert!(!table.stdout.contains("format "), "{}", table.stdout);
}

#[test]
fn an_http_server_that_dies_mid_run_exits_6_naming_the_call() {
    if !has_node() {
        missing("bench_servers/dies_http.mjs: no node on PATH");
        return;
    }
    let script = root().join("bindings/cli/tests/bench_servers/dies_http.mjs");
    let server = HttpServer::start("node", &[script.to_str().unwrap()]);
    let out = toolwire(&[
        "bench",
        "--http",
        &server.url,
        "--tool",
        "t",
        "--calls",
        "5",
    ]);
    assert_eq!(out.code, 6, "{out:?}");
    assert_eq!(out.stdout, "");
    let e = out.stderr.trim_end();
    assert!(
        e.starts_with(&format!(
            "toolwire: bench: call 3 of 5: POST {}: ",
            server.url
        )),
        "{e}"
    );
    assert_eq!(e.lines().count(), 1, "{e}");
}

#[test]
fn the_progress_bar_shows_on_a_terminal_only() {
    // `script` runs the bench on a pseudo-terminal: stderr is a terminal, stdout a file.
    let has_script = std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_script {
        missing("the progress-bar check: no `script` (util-linux) on PATH");
        return;
    }
    let json = std::env::temp_dir().join(format!("toolwire-bench-tty-{}.json", std::process::id()));
    let cmd = format!(
        "'{BIN}' bench --stdio \"'{BIN}' serve --rows 50\" --tool invoices --args '{{\"action\":\"list\"}}' --calls 3 --json > '{}'",
        json.display()
    );
    let out = std::process::Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .stdin(std::process::Stdio::null())
        .output()
        .expect("script");
    assert!(out.status.success(), "{out:?}");
    let tty = String::from_utf8_lossy(&out.stdout);
    // `calls DONE/9`: 3 measured calls and one per format.
    assert!(
        tty.contains("calls ") && tty.contains("/9 "),
        "no progress bar on the terminal: {tty:?}"
    );
    // stdout stays the one JSON object.
    let j: Value =
        serde_json::from_str(std::fs::read_to_string(&json).unwrap().trim_end()).unwrap();
    assert_eq!(j["calls"], 3);
}
