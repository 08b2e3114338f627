//! Scale-out (SERVE.md §6): two `toolwire serve --http` replicas on loopback behind nginx with
//! the repository's configuration (`bindings/mcp/deploy/nginx.conf`, its ports substituted).
//! Every call of the clients (raw HTTP, sequential and concurrent, plus one rmcp session) is
//! answered correctly, and both replicas served some: nginx's access log names the upstream
//! of each request (`upstream=$upstream_addr`).
//!
//! nginx (the Debian package) is run unprivileged-style with its own prefix, pid and logs in a
//! temporary directory. Without nginx the test says plainly that it did not run, unless
//! `TOOLWIRE_REQUIRE_EXTERNAL=1` (CI) makes that a failure.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::serve_common::*;
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::{Value, json};

const CONF: &str = include_str!("../../mcp/deploy/nginx.conf");

fn nginx_binary() -> Option<PathBuf> {
    let from_env = std::env::var_os("TOOLWIRE_NGINX").map(PathBuf::from);
    let mut candidates = from_env.into_iter().chain(
        ["/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/bin/nginx"]
            .into_iter()
            .map(PathBuf::from),
    );
    candidates.find(|c| c.is_file())
}

/// A free TCP port on 127.0.0.1 (bound, read, released).
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

struct Nginx {
    child: Child,
    prefix: PathBuf,
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Nginx {
    fn access_log(&self) -> String {
        std::fs::read_to_string(self.prefix.join("logs/access.log")).unwrap_or_default()
    }
}

/// The shipped configuration with this test's ports in place of 8765 (replicas) and 8080.
fn config(replica_port: u16, port: u16) -> String {
    let mut conf = CONF.to_owned();
    for (from, to) in [
        (
            "server 127.0.0.1:8765;",
            format!("server 127.0.0.1:{replica_port};"),
        ),
        (
            "server 127.0.0.2:8765;",
            format!("server 127.0.0.2:{replica_port};"),
        ),
        (
            "Host localhost:8765;",
            format!("Host localhost:{replica_port};"),
        ),
        (
            "listen 127.0.0.1:8080;",
            format!("listen 127.0.0.1:{port};"),
        ),
    ] {
        assert_eq!(
            conf.matches(from).count(),
            1,
            "nginx.conf holds `{from}` once"
        );
        conf = conf.replace(from, &to);
    }
    conf
}

fn start_nginx(bin: &Path, conf: &str, port: u16) -> Nginx {
    let prefix = temp_file("placeholder", b"")
        .parent()
        .unwrap()
        .join("nginx");
    for d in ["logs", "tmp", "conf"] {
        std::fs::create_dir_all(prefix.join(d)).unwrap();
    }
    let conf_path = prefix.join("conf/nginx.conf");
    std::fs::write(&conf_path, conf).unwrap();
    let child = Command::new(bin)
        .arg("-p")
        .arg(&prefix)
        .arg("-c")
        .arg(&conf_path)
        .args(["-g", "daemon off; pid nginx.pid; error_log logs/error.log;"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start nginx");
    let mut n = Nginx { child, prefix };
    let t0 = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        if let Some(s) = n.child.try_wait().unwrap() {
            let log = std::fs::read_to_string(n.prefix.join("logs/error.log")).unwrap_or_default();
            panic!("nginx exited ({s}): {log}");
        }
        assert!(t0.elapsed() < WAIT, "nginx does not listen on {port}");
        std::thread::sleep(Duration::from_millis(20));
    }
    n
}

/// One POST to nginx (keep-alive off): status, head, body.
fn post(port: u16, msg: &Value, accept: &str) -> (u16, String, Vec<u8>) {
    let b = serde_json::to_vec(msg).unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nAccept: {accept}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        b.len()
    );
    raw_http(port, &head, &b)
}

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
