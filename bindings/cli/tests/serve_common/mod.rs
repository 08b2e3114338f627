//! Helpers of the `serve_*` tests: the real `toolwire` binary, driven over real stdio and
//! loopback HTTP, by rmcp's client and by raw JSON-RPC lines.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

pub(crate) use crate::BIN;

/// How long any single wait in these tests may take.
pub const WAIT: Duration = Duration::from_secs(20);

/// A tool call's arguments for rmcp's client: the members of the object `v`.
pub fn args(v: Value) -> serde_json::Map<String, Value> {
    v.as_object().unwrap().clone()
}

/// A `toolwire serve` child spoken to with raw lines on stdin/stdout.
pub struct Raw {
    pub child: Child,
    stdin: Option<ChildStdin>,
    stdout: Option<std::process::ChildStdout>,
    /// Bytes of stdout read while paused ([`Raw::read_head`]), the start of what it reads next.
    head: Vec<u8>,
    tx: Option<mpsc::Sender<Vec<u8>>>,
    lines: mpsc::Receiver<Vec<u8>>,
    pub stderr: mpsc::Receiver<String>,
}

impl Raw {
    pub fn start(args: &[&str]) -> Raw {
        let mut r = Raw::start_paused(args);
        r.resume();
        r
    }

    /// Starts the server without reading its stdout until [`Raw::resume`]: its pipe fills.
    pub fn start_paused(args: &[&str]) -> Raw {
        let mut c = Command::new(BIN);
        c.arg("serve").args(args);
        Raw::spawn_paused(c)
    }

    /// Starts `command` (a `toolwire serve` with its own environment) and reads its stdout.
    pub fn start_with(command: Command) -> Raw {
        let mut r = Raw::spawn_paused(command);
        r.resume();
        r
    }

    fn spawn_paused(mut command: Command) -> Raw {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn toolwire serve");
        let stdout = child.stdout.take();
        let (tx, lines) = mpsc::channel();
        let stderr_pipe = child.stderr.take().unwrap();
        let (etx, stderr) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr_pipe).lines() {
                let Ok(line) = line else { break };
                if etx.send(line).is_err() {
                    break;
                }
            }
        });
        Raw {
            stdin: child.stdin.take(),
            stdout,
            head: Vec::new(),
            tx: Some(tx),
            child,
            lines,
            stderr,
        }
    }

    /// While paused: waits (up to [`WAIT`]) for the first `n` bytes of stdout, which the
    /// lines read after [`Raw::resume`] start with. Proof that the server has begun to
    /// answer (a call cancelled before its first byte is answered with nothing at all).
    pub fn read_head(&mut self, n: usize) {
        let mut stdout = self.stdout.take().expect("read_head while paused");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut buf = vec![0; n];
            let read = stdout.read_exact(&mut buf);
            let _ = tx.send((stdout, buf, read));
        });
        let (stdout, buf, read) = rx.recv_timeout(WAIT).expect("the first bytes of stdout");
        read.expect("the first bytes of stdout");
        self.stdout = Some(stdout);
        self.head.extend_from_slice(&buf);
    }

    /// Starts reading stdout.
    pub fn resume(&mut self) {
        let (Some(stdout), Some(tx)) = (self.stdout.take(), self.tx.take()) else {
            return;
        };
        let mut head = std::mem::take(&mut self.head);
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            loop {
                let mut line = std::mem::take(&mut head);
                if let Some(end) = line.iter().position(|&b| b == b'\n') {
                    head = line.split_off(end + 1);
                    if tx.send(line).is_err() {
                        break;
                    }
                    continue;
                }
                match r.read_until(b'\n', &mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        if tx.send(line).is_err() {
                            break;
                        }
                    }
                }
            }
        });
    }

    pub fn send(&mut self, line: &str) {
        let w = self.stdin.as_mut().unwrap();
        w.write_all(line.as_bytes()).unwrap();
        w.write_all(b"\n").unwrap();
        w.flush().unwrap();
    }

    pub fn send_json(&mut self, v: &Value) {
        self.send(&serde_json::to_string(v).unwrap());
    }

    /// The next line of stdout, LF included.
    pub fn line(&mut self) -> Vec<u8> {
        self.lines.recv_timeout(WAIT).expect("a line on stdout")
    }

    pub fn json(&mut self) -> Value {
        let l = self.line();
        serde_json::from_slice(&l)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&l)))
    }

    /// Sends a request and returns its response.
    pub fn call(&mut self, v: Value) -> Value {
        self.send_json(&v);
        self.json()
    }

    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// Waits (up to twice [`WAIT`] in all) for `n` stderr lines that contain `needle`
    /// (other lines are skipped).
    pub fn wait_logs(&self, needle: &str, n: usize) {
        let t0 = std::time::Instant::now();
        let mut seen = 0;
        while seen < n {
            let left = (WAIT * 2).saturating_sub(t0.elapsed());
            let line = self
                .stderr
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("{seen} of {n} log lines with {needle:?}"));
            if line.contains(needle) {
                seen += 1;
            }
        }
    }

    /// Waits for the exit status.
    pub fn wait_exit(&mut self) -> std::process::ExitStatus {
        let start = std::time::Instant::now();
        loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                return s;
            }
            assert!(start.elapsed() < WAIT, "the server did not exit");
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

impl Drop for Raw {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A `tools/call` request line.
pub fn call(id: u64, tool: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": tool, "arguments": arguments}})
}

/// The text blocks of a `tools/call` result.
pub fn texts(result: &Value) -> Vec<String> {
    result["content"]
        .as_array()
        .expect("content")
        .iter()
        .map(|b| b["text"].as_str().expect("text").to_owned())
        .collect()
}

/// Reserved tag sequences in `text` (WIRE.md §2), in order, lowercase: `<name` or `</name`
/// (the shared oracle, `toolwire_oracles::reserved_tags`).
pub fn tags(text: &str) -> Vec<String> {
    toolwire_oracles::reserved_tags(text)
        .into_iter()
        .map(|t| t.to_ascii_lowercase())
        .collect()
}

/// Asserts that every block holds exactly the tags its writer wrote: none in a success's
/// data block, one opening tag at the start and its closing tag at the end otherwise.
pub fn assert_tag_safe(result: &Value) {
    let is_error = result["isError"] == json!(true);
    for (i, t) in texts(result).iter().enumerate() {
        let found = tags(t);
        if i == 0 && !is_error {
            assert!(found.is_empty(), "data block holds tags {found:?}: {t}");
            continue;
        }
        assert_eq!(found.len(), 2, "block {i} holds tags {found:?}: {t}");
        assert!(
            t.starts_with(&found[0]),
            "block {i} does not start with its tag: {t}"
        );
        assert_eq!(found[1], format!("</{}", &found[0][1..]), "block {i}: {t}");
    }
}

/// The text of the `<llm_directives>` block of a result, if any.
pub fn directive(result: &Value) -> Option<String> {
    texts(result)
        .into_iter()
        .find(|t| t.starts_with("<llm_directives>"))
}

/// How many rows the truncation notice says were shown (`Dataset truncated. K shown`), when
/// the result names a next call (whose directive leaves the counts to the notice).
pub fn shown(result: &Value) -> Option<usize> {
    directive(result)?;
    let notice = texts(result)
        .into_iter()
        .find(|t| t.starts_with("<ui_passthrough type=\"summary\">"))?;
    let at = notice.find("Dataset truncated. ")? + "Dataset truncated. ".len();
    let end = notice[at..].find(" shown")?;
    notice[at..at + end].parse().ok()
}

/// The arguments of the next call the directive names (the JSON after "with "), if any.
pub fn next_args(result: &Value) -> Option<Value> {
    let d = directive(result)?;
    let at = d.find("Next page: call ")?;
    let rest = &d[at..];
    let json_at = rest.find(" with ")? + 6;
    let text = rest[json_at..].lines().next()?;
    Some(serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}")))
}

/// The demo's rows as serde values (the oracle).
pub fn demo_rows(n: usize) -> Vec<Value> {
    serde_json::from_slice::<Vec<Value>>(&toolwire_mcp::demo::invoices(n)).unwrap()
}

/// `NAME=FILE` for `--collection` of a plain collection (no presenter) of `n` rows
/// `{"id": i, "text": …}`: `limit` is the caller's, so one `list` can be a large response.
pub fn large_collection(name: &str, n: usize) -> String {
    let mut rows = Vec::new();
    rows.push(b'[');
    for i in 0..n {
        if i > 0 {
            rows.push(b',');
        }
        rows.extend_from_slice(
            format!("{{\"id\":{i},\"text\":\"{}\"}}", "lorem ipsum ".repeat(8)).as_bytes(),
        );
    }
    rows.push(b']');
    format!("{name}={}", temp_file("rows.json", &rows).display())
}

/// `toolwire serve` arguments for the collection `spec` (`NAME=FILE`) with no message cap and
/// no token budget: one call can be a response of any size.
pub fn uncapped(spec: &str) -> Vec<&str> {
    vec![
        "--collection",
        spec,
        "--max-message-bytes",
        "0",
        "--max-tokens",
        "0",
    ]
}

/// A file in a fresh temporary directory.
pub fn temp_file(name: &str, contents: &[u8]) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "toolwire-serve-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, contents).unwrap();
    p
}

static COUNTER: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// A `toolwire serve --http 127.0.0.1:0` child and its base URL.
pub struct Http {
    pub raw: Raw,
    pub url: String,
    pub port: u16,
}

impl Http {
    pub fn start(args: &[&str]) -> Http {
        Http::start_at("127.0.0.1:0", args)
    }

    /// `toolwire serve --http ADDR ARGS` (e.g. another loopback address).
    pub fn start_at(addr: &str, args: &[&str]) -> Http {
        let mut all = vec!["--http", addr];
        all.extend_from_slice(args);
        let raw = Raw::start(&all);
        let first = raw.stderr.recv_timeout(WAIT).expect("the listening line");
        let url = first
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("first stderr line: {first}"))
            .to_owned();
        let port = url
            .trim_end_matches("/mcp")
            .rsplit(':')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        Http { raw, url, port }
    }

    /// One raw HTTP/1.1 exchange (`Connection: close`): status and body.
    pub fn request(&self, head: &str, body: &[u8]) -> (u16, String, Vec<u8>) {
        raw_http(self.port, head, body)
    }

    pub fn post(&self, body: &Value, extra_headers: &str) -> (u16, String, Vec<u8>) {
        post_with(
            self.port,
            body,
            &format!("Accept: application/json, text/event-stream\r\n{extra_headers}"),
        )
    }
}

/// One POST of `msg` to 127.0.0.1:`port`/mcp accepting `accept` (keep-alive off): status,
/// head, body.
pub fn post(port: u16, msg: &Value, accept: &str) -> (u16, String, Vec<u8>) {
    post_with(port, msg, &format!("Accept: {accept}\r\n"))
}

/// [`post`] with these header lines.
fn post_with(port: u16, msg: &Value, headers: &str) -> (u16, String, Vec<u8>) {
    let b = serde_json::to_vec(msg).unwrap();
    let head = post_head(port, &format!("{headers}Connection: close\r\n"), b.len());
    raw_http(port, &head, &b)
}

/// The head of a POST to /mcp with these header lines and a body of `len` bytes.
fn post_head(port: u16, headers: &str, len: usize) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n{headers}Content-Length: {len}\r\n\r\n"
    )
}

/// A connection to 127.0.0.1:`port` with a POST of `msg` sent on it and nothing read yet: a
/// client that stops reading, or goes away, mid-call.
pub fn posted(port: u16, msg: &Value) -> std::net::TcpStream {
    let b = serde_json::to_vec(msg).unwrap();
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    let head = post_head(
        port,
        "Accept: application/json, text/event-stream\r\n",
        b.len(),
    );
    s.write_all(head.as_bytes()).unwrap();
    s.write_all(&b).unwrap();
    s
}

/// Sends `head` + `body` to 127.0.0.1:`port` and reads the whole response.
pub fn raw_http(port: u16, head: &str, body: &[u8]) -> (u16, String, Vec<u8>) {
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(WAIT)).unwrap();
    s.write_all(head.as_bytes()).unwrap();
    // The server may answer (413) before reading everything.
    let _ = s.write_all(body);
    let mut buf = Vec::new();
    let _ = s.read_to_end(&mut buf);
    let split = buf
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a response head");
    let head = String::from_utf8_lossy(&buf[..split]).into_owned();
    let status = head[9..12].parse().unwrap();
    let body = dechunk(&head, &buf[split + 4..]);
    (status, head, body)
}

/// Reads a response head from `r` (the lines up to the blank one): status and head.
pub fn response_head(r: &mut impl BufRead) -> (u16, String) {
    let mut head = String::new();
    loop {
        let mut line = String::new();
        assert!(
            r.read_line(&mut line).unwrap() > 0,
            "the head ended early: {head}"
        );
        if line == "\r\n" {
            break;
        }
        head.push_str(&line);
    }
    (head[9..12].parse().unwrap(), head)
}

/// Reads the body of the response whose `head` was read from `r`: exactly its
/// `Content-Length` bytes, or its chunks up to the last, so the connection can go on.
pub fn response_body(r: &mut impl BufRead, head: &str) -> Vec<u8> {
    let lower = head.to_ascii_lowercase();
    let length = lower
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .map(|v| v.trim().parse::<usize>().unwrap());
    if let Some(n) = length {
        let mut body = vec![0; n];
        r.read_exact(&mut body).unwrap();
        return body;
    }
    assert!(lower.contains("transfer-encoding: chunked"), "{head}");
    let mut body = Vec::new();
    loop {
        let mut size = String::new();
        r.read_line(&mut size).unwrap();
        let n = usize::from_str_radix(size.trim(), 16).unwrap();
        let mut chunk = vec![0; n + 2];
        r.read_exact(&mut chunk).unwrap();
        if n == 0 {
            return body;
        }
        body.extend_from_slice(&chunk[..n]);
    }
}

/// Sends a signal (`TERM`, `INT`) to the process `pid`.
pub fn signal(pid: u32, name: &str) {
    assert!(send_signal(pid, name), "kill -{name} {pid}");
}

/// `kill -NAME pid`: whether it ran and succeeded (its own messages, such as "no such
/// process" for a child already gone, kept out of the test output).
fn send_signal(pid: u32, name: &str) -> bool {
    Command::new("kill")
        .args([&format!("-{name}"), &pid.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Stops `child` as its own shutdown signal does (`TERM`, `INT`: `kill -NAME`), waiting up to
/// `grace` for it to exit, and kills it if it has not. Never panics (it runs in `Drop`).
pub fn stop_child(child: &mut Child, name: &str, grace: Duration) {
    send_signal(child.id(), name);
    let t0 = std::time::Instant::now();
    while matches!(child.try_wait(), Ok(None)) {
        if t0.elapsed() > grace {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.wait();
}

/// The body of a `Transfer-Encoding: chunked` response, or the body as is.
fn dechunk(head: &str, body: &[u8]) -> Vec<u8> {
    if !head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        return body.to_vec();
    }
    response_body(&mut &body[..], head)
}

/// An SQLite file in a fresh temporary directory, made by the SQL `setup` (the tests of
/// database sources serve it).
pub fn sqlite_file(setup: &str) -> std::path::PathBuf {
    let p = temp_file("t.db", b"");
    std::fs::remove_file(&p).unwrap();
    let db = rusqlite::Connection::open(&p).unwrap();
    db.execute_batch(setup).unwrap();
    p
}

/// The data block of a `tools/call` result as JSON (the call asked for `format: compact`).
pub fn data_json(response: &Value) -> Value {
    let t = &texts(&response["result"])[0];
    serde_json::from_str(t).unwrap_or_else(|e| panic!("{e}: {t}"))
}

pub mod nginx;
pub mod postgres;
