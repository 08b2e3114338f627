//! Helpers of the `bench*` tests: the real `toolwire` binary runs `toolwire bench` against
//! real servers (a child over stdio, loopback HTTP); the figures are checked against calls
//! made here with raw JSON-RPC and counted with independent tokenizers.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

pub(crate) use crate::BIN;

/// The `list` call of the built-in invoices that the bench tests measure.
pub const LIST7: &str = r#"{"action":"list","limit":7}"#;

/// The most any one bench run in these tests may take before it counts as a hang.
pub const HANG: Duration = Duration::from_secs(120);

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `toolwire serve ARGS` as one `--stdio` command line.
pub fn serve_cmd(args: &str) -> String {
    format!("'{BIN}' serve {args}")
}

/// What a run printed and how it ended.
#[derive(Debug)]
pub struct Out {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Out {
    pub fn json(&self) -> Value {
        serde_json::from_str(self.stdout.trim_end())
            .unwrap_or_else(|e| panic!("stdout is not one JSON object ({e}): {self:?}"))
    }
}

/// Runs `toolwire ARGS`, failing the test if it does not end within [`HANG`].
pub fn toolwire(args: &[&str]) -> Out {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn toolwire");
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let t_out = std::thread::spawn(move || {
        let mut s = String::new();
        out.read_to_string(&mut s).ok();
        s
    });
    let t_err = std::thread::spawn(move || {
        let mut s = String::new();
        err.read_to_string(&mut s).ok();
        s
    });
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if start.elapsed() > HANG {
            let _ = child.kill();
            panic!("toolwire {args:?} hung (killed after {HANG:?})");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Out {
        code: status.code().unwrap_or(-1),
        stdout: t_out.join().unwrap(),
        stderr: t_err.join().unwrap(),
    }
}

/// An HTTP server child (killed on drop) and its endpoint.
pub struct HttpServer {
    pub child: Child,
    pub url: String,
}

impl HttpServer {
    /// Starts `program ARGS` and waits for its `listening on URL` line.
    pub fn start(program: &str, args: &[&str]) -> HttpServer {
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("spawn {program}: {e}"));
        let stderr = child.stderr.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if let Some(url) = line.strip_prefix("listening on ") {
                    let _ = tx.send(url.to_owned());
                }
            }
        });
        let url = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("the server printed its listening line");
        HttpServer { child, url }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One `tools/call` made here with raw JSON-RPC lines over stdio (the handshake at
/// `2025-11-25`, or the stateless revision with `_meta`), id 7: the response line's bytes
/// (without its LF) and its text blocks.
pub fn raw_call(argv: &[&str], stateless: bool, tool: &str, args: &Value) -> (usize, Vec<String>) {
    let mut child = Command::new(argv[0])
        .args(&argv[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn the server");
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = Vec::new();
    let mut call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                          "params": {"name": tool, "arguments": args}});
    if stateless {
        call["params"]["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"});
    } else {
        lines.push(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"}}}),
        );
        lines.push(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    }
    lines.push(call);
    for l in &lines {
        writeln!(stdin, "{l}").unwrap();
    }
    stdin.flush().unwrap();
    let (tx, rx) = mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        let mut r = BufReader::new(stdout);
        loop {
            let mut line = Vec::new();
            if r.read_until(b'\n', &mut line).unwrap_or(0) == 0 {
                break;
            }
            if line.ends_with(b"\n") {
                line.pop();
            }
            let v: Value = serde_json::from_slice(&line).expect("a JSON line");
            if v["id"] == 7 {
                let _ = tx.send((line.len(), v));
                break;
            }
        }
    });
    let (len, v) = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("the raw call was answered");
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    let blocks = v["result"]["content"]
        .as_array()
        .expect("a result with content")
        .iter()
        .filter(|b| b["type"] == "text")
        .map(|b| b["text"].as_str().unwrap().to_owned())
        .collect();
    (len, blocks)
}

/// tiktoken-rs's count of each block on its own, summed: (o200k, cl100k).
pub fn tiktoken_rs(blocks: &[String]) -> (usize, usize) {
    let o = tiktoken_rs::o200k_base().unwrap();
    let c = tiktoken_rs::cl100k_base().unwrap();
    (
        blocks.iter().map(|b| o.encode_ordinary(b).len()).sum(),
        blocks.iter().map(|b| c.encode_ordinary(b).len()).sum(),
    )
}

/// An external piece is missing: fatal with `TOOLWIRE_REQUIRE_EXTERNAL=1` (CI), else the
/// test says plainly what did not run.
pub fn missing(what: &str) {
    if std::env::var("TOOLWIRE_REQUIRE_EXTERNAL").as_deref() == Ok("1") {
        panic!("{what} (required: TOOLWIRE_REQUIRE_EXTERNAL=1)");
    }
    eprintln!("NOT RUN: {what}");
}

pub fn has_node() -> bool {
    Command::new("node")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// js-tiktoken's count (an independent tokenizer, `tests/js-tiktoken/count.mjs`) of each
/// block on its own, summed: (o200k, cl100k); `None` when node or the package is missing.
pub fn js_tiktoken(blocks: &[String]) -> Option<(usize, usize)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/js-tiktoken");
    if !has_node() || !dir.join("node_modules/js-tiktoken").is_dir() {
        missing(
            "js-tiktoken token check: node or bindings/cli/tests/js-tiktoken/node_modules missing (npm ci --prefix bindings/cli/tests/js-tiktoken)",
        );
        return None;
    }
    let mut child = Command::new("node")
        .arg(dir.join("count.mjs"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn node");
    let input = serde_json::to_vec(blocks).unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().expect("node count.mjs");
    writer.join().unwrap().unwrap();
    assert!(out.status.success(), "count.mjs failed");
    let v: Value = serde_json::from_slice(&out.stdout).expect("count.mjs prints JSON");
    Some((
        v["o200k"].as_u64().unwrap() as usize,
        v["cl100k"].as_u64().unwrap() as usize,
    ))
}

/// The anchor server's script, when node and its packages are there.
pub fn anchor() -> Option<String> {
    let dir = root().join("benches/mcp-anchor");
    if !has_node() || !dir.join("node_modules/@modelcontextprotocol/sdk").is_dir() {
        missing(
            "the TypeScript SDK anchor server: node or benches/mcp-anchor/node_modules missing (npm ci --prefix benches/mcp-anchor)",
        );
        return None;
    }
    Some(dir.join("server.mjs").to_string_lossy().into_owned())
}

/// Checks the figures every run must have: calls, errors, and that the per-call token and
/// byte spreads of calls with one argument set are one value each, equal to `expected`.
pub fn assert_uniform(j: &Value, bytes: usize, o200k: usize, cl100k: usize) {
    for (key, want) in [
        ("/bytes", bytes),
        ("/tokens/o200k", o200k),
        ("/tokens/cl100k", cl100k),
    ] {
        for f in ["min", "median", "max"] {
            assert_eq!(
                j.pointer(&format!("{key}/{f}")).and_then(Value::as_u64),
                Some(want as u64),
                "{key}/{f} in {j}"
            );
        }
    }
}
