//! `toolwire bench` against a server that is not ours: the official TypeScript SDK anchor
//! server (`benches/mcp-anchor/server.mjs`), over stdio and stateless HTTP. The token counts
//! are checked against js-tiktoken (and tiktoken-rs) on the same response, fetched here with
//! raw JSON-RPC.

use crate::bench_common::*;
use serde_json::Value;

fn check(j: &Value, transport: &str, script: &str) {
    assert_eq!(j["transport"], transport);
    assert_eq!(j["tool"], "invoices");
    assert_eq!(j["errors"], 0);
    // The SDK speaks the handshake era only: the bench fell back to `initialize`.
    let protocol = j["protocol"].as_str().unwrap();
    assert!(protocol.starts_with("2025-"), "{protocol}");
    // The anchor declares the same `format` enum as toolwire serve.
    let formats: Vec<&str> = j["formats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["format"].as_str().unwrap())
        .collect();
    assert_eq!(formats.len(), 6, "{formats:?}");
    assert_eq!(
        j["formats"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["cheapest"] == true)
            .count(),
        1
    );
    let (bytes, blocks) = raw_call(
        &["node", script, "--stdio", "--rows", "200"],
        false,
        "invoices",
        &serde_json::from_str(LIST7).unwrap(),
    );
    let (o, c) = tiktoken_rs(&blocks);
    assert!(o > 100, "{o}");
    if let Some(js) = js_tiktoken(&blocks) {
        assert_eq!(js, (o, c), "js-tiktoken disagrees with tiktoken-rs");
    }
    assert_uniform(j, bytes, o, c);
}

#[test]
fn stdio_against_the_typescript_sdk_server() {
    let Some(script) = anchor() else { return };
    let cmd = format!("node '{script}' --stdio --rows 200");
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
        "--concurrency",
        "2",
        "--json",
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    check(&out.json(), "stdio", &script);
}

#[test]
fn http_against_the_typescript_sdk_server() {
    let Some(script) = anchor() else { return };
    let server = HttpServer::start("node", &[&script, "--http", "127.0.0.1:0", "--rows", "200"]);
    let out = toolwire(&[
        "bench",
        "--http",
        &server.url,
        "--tool",
        "invoices",
        "--args",
        LIST7,
        "--calls",
        "3",
        "--concurrency",
        "3",
        "--json",
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    check(&out.json(), "http", &script);
}
