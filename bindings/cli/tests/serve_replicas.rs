//! Scale-out (SERVE.md §6): two `toolwire serve --http` replicas on loopback behind nginx with
//! the repository's configuration (`bindings/mcp/deploy/nginx.conf`, its ports substituted).
//! Every call of the clients (raw HTTP, sequential and concurrent, plus one rmcp session) is
//! answered correctly, and both replicas served some: nginx's access log names the upstream
//! of each request (`upstream=$upstream_addr`).
//!
//! nginx (the Debian package) is run unprivileged-style with its own prefix, pid and logs in a
//! temporary directory. Without nginx the test says plainly that it did not run, unless
//! `TOOLWIRE_REQUIRE_EXTERNAL=1` (CI) makes that a failure.

use std::time::{Duration, Instant};

use crate::serve_common::nginx::*;
use crate::serve_common::*;
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::{Value, json};

/// A `list` page through nginx, checked against the rows: ids `offset..offset+limit`.
fn checked_page(port: u16, id: u64, offset: usize, limit: usize, total: usize) {
    let (status, _, body) = post(
        port,
        &call(
            id,
            "rows",
            json!({"action": "list", "offset": offset, "limit": limit, "format": "compact"}),
        ),
        "application/json, text/event-stream",
    );
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    let v: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(v["id"], id);
    let page: Vec<Value> = serde_json::from_str(&texts(&v["result"])[0]).unwrap();
    let want: Vec<Value> = (offset..(offset + limit).min(total))
        .map(|i| json!(i))
        .collect();
    let got: Vec<Value> = page.iter().map(|r| r["id"].clone()).collect();
    assert_eq!(got, want, "call {id}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_replicas_behind_nginx_answer_every_call() {
    let Some(bin) = nginx_binary() else {
        let required = std::env::var("TOOLWIRE_REQUIRE_EXTERNAL").is_ok_and(|v| v == "1");
        assert!(
            !required,
            "nginx not found (required by TOOLWIRE_REQUIRE_EXTERNAL=1; .ci/run installs it)"
        );
        eprintln!(
            "serve_replicas: nginx is not installed: the replicas test DID NOT RUN \
             (install the nginx package, or set TOOLWIRE_NGINX)"
        );
        return;
    };
    const N: usize = 20_000;
    let spec = large_collection("rows", N);
    // Both replicas on one port of two loopback addresses (see nginx.conf).
    let rport = free_port();
    let replicas: Vec<Http> = ["127.0.0.1", "127.0.0.2"]
        .iter()
        .map(|ip| Http::start_at(&format!("{ip}:{rport}"), &uncapped(&spec)))
        .collect();
    let port = free_port();
    let nginx = start_nginx(&bin, &config(rport, port), port);

    // 20 sequential calls, then 20 from 4 concurrent clients.
    let mut calls = 0;
    for i in 0..20u64 {
        checked_page(port, i, i as usize * 37, 25, N);
        calls += 1;
    }
    let threads: Vec<_> = (0..4u64)
        .map(|t| {
            std::thread::spawn(move || {
                for j in 0..5u64 {
                    let id = 100 + t * 10 + j;
                    checked_page(port, id, (id as usize * 131) % N, 40, N);
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
        calls += 5;
    }

    // A large result streams through nginx whole (proxy_buffering off): all N rows.
    let (status, head, body) = post(
        port,
        &call(
            500,
            "rows",
            json!({"action": "list", "limit": N, "format": "compact"}),
        ),
        "application/json",
    );
    calls += 1;
    assert_eq!(status, 200);
    assert!(
        head.to_ascii_lowercase()
            .contains("transfer-encoding: chunked"),
        "{head}"
    );
    let v: Value = serde_json::from_slice(&body).unwrap();
    let rows: Vec<Value> = serde_json::from_str(&texts(&v["result"])[0]).unwrap();
    assert_eq!(rows.len(), N);
    assert_eq!(rows[N - 1]["id"], json!(N - 1));

    // Progress as SSE through nginx: events, then the result.
    let (status, head, body) = post(
        port,
        &json!({"jsonrpc": "2.0", "id": 501, "method": "tools/call", "params": {
            "_meta": {"progressToken": 9}, "name": "rows",
            "arguments": {"action": "list", "limit": 5000, "format": "toon"}}}),
        "text/event-stream",
    );
    calls += 1;
    assert_eq!(status, 200);
    assert!(head.contains("text/event-stream"), "{head}");
    let text = String::from_utf8(body).unwrap();
    let events: Vec<Value> = text
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .map(|d| serde_json::from_str(d).unwrap())
        .collect();
    assert!(events.len() >= 2, "{} events", events.len());
    assert!(
        events[..events.len() - 1]
            .iter()
            .all(|e| e["method"] == "notifications/progress")
    );
    assert_eq!(events[events.len() - 1]["id"], 501);

    // One rmcp client session through nginx: stateless, so its requests may land on either
    // replica (initialize on one, calls on the other) and all succeed.
    let url = format!("http://127.0.0.1:{port}/mcp");
    let client = ().serve(StreamableHttpClientTransport::from_uri(url)).await.unwrap();
    let mut rmcp_requests = 1; // initialize (+ notifications/initialized, also a POST)
    let tools = client.list_all_tools().await.unwrap();
    rmcp_requests += 1;
    assert_eq!(tools[0].name, "rows");
    for i in 0..6usize {
        let r = client
            .call_tool(
                CallToolRequestParams::new("rows").with_arguments(
                    json!({"action": "get", "id": i * 1000 + 1})
                        .as_object()
                        .unwrap()
                        .clone(),
                ),
            )
            .await
            .unwrap();
        rmcp_requests += 1;
        let t = r.content[0].as_text().unwrap().text.clone();
        assert!(t.contains(&format!("{}", i * 1000 + 1)), "{t}");
        assert_ne!(r.is_error, Some(true), "{t}");
    }
    client.cancel().await.unwrap();

    // nginx wrote each request's log line once the response ended; wait for all of them.
    let t0 = Instant::now();
    let log = loop {
        let log = nginx.access_log();
        if log.lines().count() >= calls + rmcp_requests || t0.elapsed() > WAIT {
            break log;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let a = format!("upstream=127.0.0.1:{rport}");
    let b = format!("upstream=127.0.0.2:{rport}");
    let (mut on_a, mut on_b) = (0, 0);
    for line in log.lines() {
        assert!(
            line.contains("\"POST /mcp HTTP/1.1\" 200 ") || line.contains("\" 202 "),
            "{line}"
        );
        if line.ends_with(&a) {
            on_a += 1;
        } else if line.ends_with(&b) {
            on_b += 1;
        } else {
            panic!("a request nginx did not pass to one replica: {line}");
        }
    }
    assert!(on_a + on_b >= calls + rmcp_requests, "{log}");
    assert!(
        on_a > 0 && on_b > 0,
        "both replicas serve: {on_a} and {on_b}"
    );
    drop(replicas);
}
