//! `toolwire serve --http` on loopback (SERVE.md §3, §4): rmcp's streamable HTTP client for
//! both eras; raw HTTP/1.1 for the security checks, status codes, framing and disconnects.

use std::io::{Read, Write};
use std::time::{Duration, Instant};

use crate::serve_common::*;
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, ProtocolVersion};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt};
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::{Value, json};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rmcp_http_client_both_eras() {
    let server = Http::start(&["--rows", "80", "--structured"]);
    let client =
        ().serve(StreamableHttpClientTransport::from_uri(server.url.clone()))
            .await
            .unwrap();
    assert_eq!(
        client.peer_info().unwrap().protocol_version,
        ProtocolVersion::V_2025_11_25
    );
    let tools = client.list_all_tools().await.unwrap();
    assert!(tools[0].output_schema.is_some());
    let r = client
        .call_tool(CallToolRequestParams::new("invoices").with_arguments(args(
            json!({"action": "list", "limit": 2, "_select": ["id"]}),
        )))
        .await
        .unwrap();
    assert_eq!(
        r.structured_content,
        Some(json!({"items": [{"id": "INV-0000001"}, {"id": "INV-0000002"}]}))
    );
    client.cancel().await.unwrap();

    let client = ()
        .serve_with_lifecycle(
            StreamableHttpClientTransport::from_uri(server.url.clone()),
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .unwrap();
    assert_eq!(
        client.peer_info().unwrap().protocol_version,
        ProtocolVersion::V_2026_07_28
    );
    let r = client
        .call_tool(
            CallToolRequestParams::new("invoices")
                .with_arguments(args(json!({"action": "get", "id": "INV-0000080"}))),
        )
        .await
        .unwrap();
    assert!(r.result_type.is_some());
    assert_eq!(
        r.structured_content.unwrap()["items"][0]["id"],
        "INV-0000080"
    );
    client.cancel().await.unwrap();
}

#[test]
fn stateless_json_and_sse_framing() {
    let s = Http::start(&["--rows", "60"]);
    // Any request, no session: tools/call straight away.
    let (status, head, body) = s.post(&call(1, "invoices", json!({"action": "list"})), "");
    assert_eq!(status, 200);
    let h = head.to_ascii_lowercase();
    assert!(h.contains("content-type: application/json"), "{head}");
    assert!(h.contains("transfer-encoding: chunked"), "streamed: {head}");
    assert!(!h.contains("mcp-session-id"));
    let r: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(shown(&r["result"]), Some(50));
    // Only SSE accepted: one event.
    let b = serde_json::to_vec(&call(
        2,
        "invoices",
        json!({"action": "get", "id": "INV-0000003"}),
    ))
    .unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAccept: text/event-stream\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        s.port,
        b.len()
    );
    let (status, head, body) = s.request(&head, &b);
    assert_eq!(status, 200);
    assert!(
        head.to_ascii_lowercase()
            .contains("content-type: text/event-stream")
    );
    let text = String::from_utf8(body).unwrap();
    let data = text
        .strip_prefix("event: message\ndata: ")
        .unwrap()
        .strip_suffix("\n\n")
        .unwrap();
    let r: Value = serde_json::from_str(data).unwrap();
    assert_eq!(r["id"], 2);
    // A notification: 202, no body.
    let (status, _, body) = s.post(
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        "",
    );
    assert_eq!((status, body.len()), (202, 0));
    // Malformed JSON: a JSON-RPC error, the server keeps serving.
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Length: 3\r\nConnection: close\r\n\r\n",
        s.port
    );
    let (status, _, body) = s.request(&head, b"{x}");
    assert_eq!(status, 200);
    assert_eq!(
        serde_json::from_slice::<Value>(&body).unwrap()["error"]["code"],
        -32700
    );
    // 2026-07-28: the header must match `_meta`.
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}});
    let ping = json!({"jsonrpc": "2.0", "id": 3, "method": "ping", "params": {"_meta": meta}});
    let (status, _, body) = s.post(&ping, "MCP-Protocol-Version: 2025-11-25\r\n");
    assert_eq!(status, 400);
    assert_eq!(
        serde_json::from_slice::<Value>(&body).unwrap()["error"]["code"],
        -32020
    );
    let (status, _, body) = s.post(&ping, "MCP-Protocol-Version: 2026-07-28\r\n");
    assert_eq!(status, 200);
    assert_eq!(
        serde_json::from_slice::<Value>(&body).unwrap()["result"]["resultType"],
        "complete"
    );
    // Progress over SSE: notifications, then the result, as events.
    let big = Http::start(&["--rows", "12000"]);
    let req = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"_meta": {"progressToken": 5},
        "name": "invoices", "arguments": {"action": "list", "where": {"status": "paid"}, "limit": 1}}});
    let (status, head, body) = big.post(&req, "");
    assert_eq!(status, 200);
    assert!(head.to_ascii_lowercase().contains("text/event-stream"));
    let events: Vec<Value> = String::from_utf8(body)
        .unwrap()
        .split("\n\n")
        .filter(|e| !e.is_empty())
        .map(|e| serde_json::from_str(e.strip_prefix("event: message\ndata: ").unwrap()).unwrap())
        .collect();
    assert!(events.len() >= 3);
    assert!(
        events[..events.len() - 1]
            .iter()
            .all(|e| e["method"] == "notifications/progress")
    );
    assert_eq!(events.last().unwrap()["id"], 4);
}

#[test]
fn security_and_status_codes() {
    let s = Http::start(&["--rows", "3", "--allow-origin", "https://ok.example"]);
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    assert_eq!(s.post(&ping, "").0, 200);
    assert_eq!(s.post(&ping, "Origin: https://ok.example\r\n").0, 200);
    assert_eq!(s.post(&ping, "Origin: https://evil.example\r\n").0, 403);
    // A Host that is not the bound address (DNS rebinding).
    let b = serde_json::to_vec(&ping).unwrap();
    for host in ["evil.example", "127.0.0.1:1", "evil.example:80"] {
        let head = format!(
            "POST /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            b.len()
        );
        assert_eq!(s.request(&head, &b).0, 403, "{host}");
    }
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: localhost:{}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        s.port,
        b.len()
    );
    assert_eq!(s.request(&head, &b).0, 200, "localhost:PORT is this server");
    for method in ["GET", "DELETE"] {
        let head = format!(
            "{method} /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n\r\n",
            s.port
        );
        let (status, head, _) = s.request(&head, b"");
        assert_eq!(status, 405, "{method}");
        assert!(head.to_ascii_lowercase().contains("allow: post"));
    }
    let head = format!(
        "POST /other HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        s.port
    );
    assert_eq!(s.request(&head, b"").0, 404);
    // Bodies over 4 MiB: by Content-Length, and by the bytes of a chunked body.
    let huge = vec![b' '; (4 << 20) + 1];
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        s.port,
        huge.len()
    );
    assert_eq!(s.request(&head, &huge).0, 413);
    let mut chunked = Vec::new();
    for _ in 0..5 {
        chunked.extend_from_slice(format!("{:x}\r\n", 1 << 20).as_bytes());
        chunked.extend_from_slice(&vec![b' '; 1 << 20]);
        chunked.extend_from_slice(b"\r\n");
    }
    chunked.extend_from_slice(b"0\r\n\r\n");
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
        s.port
    );
    assert_eq!(s.request(&head, &chunked).0, 413);
    // The server still answers.
    assert_eq!(s.post(&ping, "").0, 200);
}

#[test]
fn bearer_token_and_remote_bind() {
    // SAFETY-free: the variable is set only in the child's environment.
    let mut child = std::process::Command::new(BIN)
        .args([
            "serve",
            "--http",
            "127.0.0.1:0",
            "--rows",
            "3",
            "--auth-token-env",
            "TW_TEST_TOKEN",
        ])
        .env("TW_TEST_TOKEN", "s3cret")
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
    std::io::BufRead::read_line(&mut err, &mut line).unwrap();
    let port: u16 = line
        .trim()
        .trim_start_matches("listening on http://127.0.0.1:")
        .trim_end_matches("/mcp")
        .parse()
        .unwrap();
    let b = serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": 1, "method": "ping"})).unwrap();
    let req = |auth: &str| {
        let head = format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: {}\r\n{auth}Connection: close\r\n\r\n",
            b.len()
        );
        raw_http(port, &head, &b)
    };
    let (status, head, _) = req("");
    assert_eq!(status, 401);
    assert!(
        head.to_ascii_lowercase()
            .contains("www-authenticate: bearer")
    );
    assert_eq!(req("Authorization: Bearer wrong\r\n").0, 401);
    assert_eq!(req("Authorization: Bearer s3cret\r\n").0, 200);
    let _ = child.kill();
    let _ = child.wait();
    // Without the variable: a usage error.
    let o = std::process::Command::new(BIN)
        .args([
            "serve",
            "--http",
            "127.0.0.1:0",
            "--auth-token-env",
            "TW_TEST_UNSET_VAR",
        ])
        .env_remove("TW_TEST_UNSET_VAR")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    // A non-loopback address needs --allow-remote.
    for addr in ["0.0.0.0:0", "[::]:0", "192.0.2.1:80"] {
        let o = std::process::Command::new(BIN)
            .args(["serve", "--http", addr])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{addr}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("--allow-remote"), "{err}");
    }
}

/// SIGTERM (a rolling restart): no new connections, the call being answered is answered
/// whole, an idle keep-alive connection is closed at once, then the server exits 0.
#[test]
fn sigterm_lets_the_calls_being_answered_finish_then_stops() {
    let spec = large_collection("rows", 60_000);
    let mut s = Http::start(&uncapped(&spec));
    let ping = |id: &str| json!({"jsonrpc": "2.0", "id": id, "method": "ping"});
    // A keep-alive connection, answered once, then idle.
    let idle = posted(s.port, &ping("before"));
    let mut idle_r = std::io::BufReader::new(&idle);
    let (status, head) = response_head(&mut idle_r);
    assert_eq!(status, 200);
    let body = response_body(&mut idle_r, &head);
    assert_eq!(
        serde_json::from_slice::<Value>(&body).unwrap()["id"],
        "before"
    );
    // A call being answered: its head is here, most of its body not yet read.
    let big = json!({"action": "list", "limit": 60000, "format": "pretty"});
    let busy = posted(s.port, &call(1, "rows", big));
    let mut busy_r = std::io::BufReader::new(&busy);
    let (status, head) = response_head(&mut busy_r);
    assert_eq!(status, 200);
    signal(s.raw.child.id(), "TERM");
    let log = s.raw.stderr.recv_timeout(WAIT).expect("a log line");
    assert!(
        log.contains("SIGTERM: no new connections; 2 open, given 25 s to finish"),
        "{log}"
    );
    assert!(std::net::TcpStream::connect(("127.0.0.1", s.port)).is_err());
    // The idle connection is closed; the call is answered whole.
    let mut rest = Vec::new();
    (&idle).read_to_end(&mut rest).unwrap();
    assert!(rest.is_empty(), "{}", String::from_utf8_lossy(&rest));
    let body = response_body(&mut busy_r, &head);
    let r: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(r["id"], 1);
    assert_eq!(data_json(&r).as_array().map(Vec::len), Some(60_000));
    let log = s.raw.stderr.recv_timeout(WAIT).expect("a log line");
    assert_eq!(log, "toolwire serve: stopped");
    assert!(s.raw.wait_exit().success());
}

/// What outlasts the shutdown grace is cut: a client that stops reading does not hold the
/// server past `--shutdown-grace`.
#[test]
fn what_outlasts_the_shutdown_grace_is_cut() {
    let spec = large_collection("rows", 60_000);
    let mut s = Http::start(&[&uncapped(&spec)[..], &["--shutdown-grace", "1"]].concat());
    let _busy = a_call_being_answered(s.port);
    signal(s.raw.child.id(), "TERM");
    let log = s.raw.stderr.recv_timeout(WAIT).expect("a log line");
    assert!(log.contains("1 open, given 1 s to finish"), "{log}");
    let t0 = Instant::now();
    let log = s.raw.stderr.recv_timeout(WAIT).expect("a log line");
    assert_eq!(
        log,
        "toolwire serve: stopped with 1 connection(s) cut after the grace period"
    );
    assert!(s.raw.wait_exit().success());
    assert!(t0.elapsed() < Duration::from_secs(10));
}

/// A connection with a 60k-row call of `rows` being answered, read no further than the
/// response's head.
fn a_call_being_answered(port: u16) -> std::net::TcpStream {
    let big = json!({"action": "list", "limit": 60000, "format": "pretty"});
    let busy = posted(port, &call(1, "rows", big));
    assert_eq!(response_head(&mut std::io::BufReader::new(&busy)).0, 200);
    busy
}

/// A second signal during the grace cuts what is open at once (SIGINT counts as SIGTERM).
#[test]
fn a_second_signal_cuts_at_once() {
    let spec = large_collection("rows", 60_000);
    let mut s = Http::start(&uncapped(&spec));
    let _busy = a_call_being_answered(s.port);
    signal(s.raw.child.id(), "INT");
    let log = s.raw.stderr.recv_timeout(WAIT).expect("a log line");
    assert!(log.contains("SIGINT: no new connections; 1 open"), "{log}");
    let t0 = Instant::now();
    signal(s.raw.child.id(), "TERM");
    let log = s.raw.stderr.recv_timeout(WAIT).expect("a log line");
    assert!(log.contains("1 connection(s) cut"), "{log}");
    assert!(s.raw.wait_exit().success());
    assert!(t0.elapsed() < Duration::from_secs(10));
}

#[test]
fn a_client_that_disconnects_mid_stream_stops_the_encoding() {
    let spec = large_collection("rows", 60_000);
    let s = Http::start(&uncapped(&spec));
    let mut sock = posted(
        s.port,
        &call(1, "rows", json!({"action": "list", "limit": 60000})),
    );
    // The first bytes arrive while the rest is still being encoded.
    let mut first = vec![0u8; 4096];
    sock.set_read_timeout(Some(WAIT)).unwrap();
    let n = sock.read(&mut first).unwrap();
    assert!(n > 0);
    assert!(String::from_utf8_lossy(&first[..n]).starts_with("HTTP/1.1 200"));
    std::thread::sleep(Duration::from_millis(300));
    drop(sock);
    let t0 = Instant::now();
    let log = s.raw.stderr.recv_timeout(WAIT).expect("a log line");
    assert!(
        log.contains("call 1 of rows cancelled (connection closed)"),
        "{log}"
    );
    assert!(t0.elapsed() < Duration::from_secs(5));
    // Nothing else is disturbed.
    assert_eq!(
        s.post(&json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}), "")
            .0,
        200
    );
}

#[test]
fn concurrent_calls_beyond_the_bound_get_503() {
    let spec = large_collection("rows", 60_000);
    let s = Http::start(&[
        "--collection",
        &spec,
        "--max-message-bytes",
        "0",
        "--max-concurrent",
        "1",
    ]);
    let b =
        serde_json::to_vec(&call(1, "rows", json!({"action": "list", "limit": 60000}))).unwrap();
    let mut sock = std::net::TcpStream::connect(("127.0.0.1", s.port)).unwrap();
    write!(
        sock,
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Length: {}\r\n\r\n",
        s.port,
        b.len()
    )
    .unwrap();
    sock.write_all(&b).unwrap();
    let mut first = [0u8; 16];
    sock.set_read_timeout(Some(WAIT)).unwrap();
    assert!(sock.read(&mut first).unwrap() > 0);
    // The first response is unread (its body waits on the socket): the bound is reached
    // for calls; a ping needs no slot.
    let get = call(2, "rows", json!({"action": "get", "id": 7}));
    let (status, head, _) = s.post(&get, "");
    assert_eq!(status, 503);
    assert!(head.to_ascii_lowercase().contains("retry-after: 1"));
    let ping = json!({"jsonrpc": "2.0", "id": 3, "method": "ping"});
    assert_eq!(s.post(&ping, "").0, 200);
    drop(sock);
    // Once the first call is gone, calls are answered again.
    let t0 = Instant::now();
    loop {
        let (status, _, _) = s.post(&get, "");
        if status == 200 {
            break;
        }
        assert!(t0.elapsed() < WAIT);
        std::thread::sleep(Duration::from_millis(50));
    }
}
