//! The load generator of `benches/serve_load.sh`: MCP `tools/call` requests over loopback
//! HTTP/1.1 (keep-alive, one connection per client thread), against `toolwire serve` or the
//! TypeScript SDK anchor (`benches/mcp-anchor`). Standard library only, so the client costs
//! the same against both servers.
//!
//! ```text
//! serve_load rps URL CLIENTS SECONDS ARGS_JSON   requests/s, p50/p99 latency, errors
//! serve_load big URL CALLS ARGS_JSON             CALLS calls at once: first body byte and
//!                                                total time of each, bytes received
//! serve_load startup RUNS CMD [ARG]...           spawn → `listening on` stderr line, RUNS
//!                                                times: min and median milliseconds
//! serve_load stdio CLIENTS SECONDS ARGS_JSON CMD [ARG]...
//!                                                `rps` against a stdio-only server: one
//!                                                process, CLIENTS calls in flight on its
//!                                                stdin at all times (answers matched by id)
//! ```
//!
//! `ARGS_JSON` is the tool's `arguments` (tool `invoices`, or `$TOOL`: the database servers of
//! benches/db_load.sh call theirs `execute_sql` and `query`). Every response is checked: HTTP
//! 200, a JSON-RPC `result` and no `"isError":true`, else it counts as an error; for `rps`
//! and `stdio` an answer of another length than the first one's counts as `varied` (the same
//! call gets the same answer, except where a database count ran past its time limit and the
//! notice has no number); `rps` prints each client's first error answer on stderr. Loops are
//! bounded by SECONDS (plus one second of warm-up that is not counted).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

struct Target {
    host: String,
    path: String,
}

fn parse_url(url: &str) -> Target {
    let rest = url
        .strip_prefix("http://")
        .unwrap_or_else(|| die(&format!("not an http:// URL: {url}")));
    let (host, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    Target {
        host: host.to_owned(),
        path: path.to_owned(),
    }
}

fn die(msg: &str) -> ! {
    eprintln!("serve_load: {msg}");
    std::process::exit(2)
}

/// The tool the calls name: `$TOOL`, else `invoices`.
fn tool() -> String {
    std::env::var("TOOL").unwrap_or_else(|_| "invoices".to_owned())
}

/// A `tools/call` JSON-RPC message.
fn call_body(args: &str, id: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":{:?},"arguments":{args}}}}}"#,
        tool()
    )
}

fn request(t: &Target, args: &str, id: u64) -> Vec<u8> {
    let body = call_body(args, id);
    let mut r = format!(
        "POST {} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-06-18\r\nContent-Length: {}\r\n\r\n",
        t.path,
        t.host,
        body.len()
    )
    .into_bytes();
    r.extend_from_slice(body.as_bytes());
    r
}

/// One response: status, body, and when its first body byte arrived.
struct Response {
    status: u16,
    body: Vec<u8>,
    first_body_byte: Option<Instant>,
    close: bool,
}

fn read_response(r: &mut BufReader<TcpStream>) -> std::io::Result<Response> {
    let mut line = String::new();
    r.read_line(&mut line)?;
    let status: u16 = line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| std::io::Error::other(format!("bad status line {line:?}")))?;
    let (mut len, mut chunked, mut close) = (None, false, false);
    loop {
        line.clear();
        r.read_line(&mut line)?;
        let l = line.trim_end();
        if l.is_empty() {
            break;
        }
        let (k, v) = l.split_once(':').unwrap_or((l, ""));
        let (k, v) = (k.to_ascii_lowercase(), v.trim().to_ascii_lowercase());
        match k.as_str() {
            "content-length" => len = v.parse::<usize>().ok(),
            "transfer-encoding" => chunked = v.contains("chunked"),
            "connection" => close = v == "close",
            _ => {}
        }
    }
    let mut body = Vec::new();
    let mut first = None;
    if chunked {
        loop {
            line.clear();
            r.read_line(&mut line)?;
            let size = usize::from_str_radix(line.trim().split(';').next().unwrap_or(""), 16)
                .map_err(|_| std::io::Error::other(format!("bad chunk size {line:?}")))?;
            if size == 0 {
                line.clear();
                r.read_line(&mut line)?;
                break;
            }
            let at = body.len();
            body.resize(at + size, 0);
            r.read_exact(&mut body[at..at + 1])?;
            first.get_or_insert_with(Instant::now);
            r.read_exact(&mut body[at + 1..])?;
            let mut crlf = [0; 2];
            r.read_exact(&mut crlf)?;
        }
    } else if let Some(n) = len {
        body.resize(n, 0);
        if n > 0 {
            r.read_exact(&mut body[..1])?;
            first = Some(Instant::now());
            r.read_exact(&mut body[1..])?;
        }
    } else {
        r.read_to_end(&mut body)?;
        first = Some(Instant::now());
        close = true;
    }
    Ok(Response {
        status,
        body,
        first_body_byte: first,
        close,
    })
}

fn ok(resp: &Response) -> bool {
    resp.status == 200
        && memfind(&resp.body, b"\"result\"")
        && !memfind(&resp.body, b"\"isError\":true")
}

fn memfind(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

fn connect(t: &Target) -> BufReader<TcpStream> {
    let s = TcpStream::connect(&t.host).unwrap_or_else(|e| die(&format!("{}: {e}", t.host)));
    s.set_nodelay(true).ok();
    s.set_read_timeout(Some(Duration::from_secs(120))).ok();
    BufReader::with_capacity(256 << 10, s)
}

/// One client thread: requests back to back until `stop`; latencies (µs) of the requests
/// started after `measure_from`, and the error count.
fn client(
    t: Arc<Target>,
    args: Arc<String>,
    measure_from: Instant,
    stop: Arc<AtomicBool>,
    expect_len: usize,
) -> (Vec<u32>, u64, u64) {
    let mut conn = connect(&t);
    let (mut lat, mut errors, mut varied) = (Vec::new(), 0u64, 0u64);
    // The same id every time: stateless HTTP, one call per request, and the same answer
    // bytes (the length check below).
    let req = request(&t, &args, 1);
    while !stop.load(Ordering::Relaxed) {
        let start = Instant::now();
        let resp = conn
            .get_mut()
            .write_all(&req)
            .and_then(|()| read_response(&mut conn));
        let took = start.elapsed();
        let (good, same) = match &resp {
            Ok(r) => (ok(r), r.body.len() == expect_len),
            Err(_) => (false, false),
        };
        if !good && errors == 0 && start >= measure_from {
            // The first error of each client, on stderr: what went wrong, not only how often.
            match &resp {
                Ok(r) => eprintln!(
                    "serve_load: an error answer (HTTP {}): {}",
                    r.status,
                    String::from_utf8_lossy(&r.body[..r.body.len().min(600)])
                ),
                Err(e) => eprintln!("serve_load: a failed request: {e}"),
            }
        }
        if start >= measure_from {
            lat.push(took.as_micros().min(u128::from(u32::MAX)) as u32);
            errors += u64::from(!good);
            varied += u64::from(good && !same);
        }
        if resp.as_ref().map_or(true, |r| r.close) {
            conn = connect(&t);
        }
    }
    (lat, errors, varied)
}

fn rps(t: Target, clients: usize, seconds: f64, args: String) {
    // The reference answer: its length is what every later answer must have.
    let mut c = connect(&t);
    c.get_mut().write_all(&request(&t, &args, 1)).unwrap();
    let first = read_response(&mut c).unwrap_or_else(|e| die(&format!("first call: {e}")));
    if !ok(&first) {
        die(&format!(
            "first call failed: {}",
            String::from_utf8_lossy(&first.body[..first.body.len().min(400)])
        ));
    }
    let expect_len = first.body.len();
    drop(c);
    let (t, args) = (Arc::new(t), Arc::new(args));
    let stop = Arc::new(AtomicBool::new(false));
    let measure_from = Instant::now() + Duration::from_secs(1);
    let threads: Vec<_> = (0..clients)
        .map(|_| {
            let (t, args, stop) = (t.clone(), args.clone(), stop.clone());
            std::thread::spawn(move || client(t, args, measure_from, stop, expect_len))
        })
        .collect();
    let Tally {
        lat,
        errors,
        varied,
        measured,
    } = run_for(seconds, &stop, measure_from, threads);
    let (p50, p99) = percentiles(&lat);
    println!(
        "clients {clients} requests {} errors {errors} varied {varied} rps {:.0} p50_ms {p50:.2} p99_ms {p99:.2} body_bytes {expect_len}",
        lat.len(),
        lat.len() as f64 / measured.as_secs_f64(),
    );
}

fn big(t: Target, calls: usize, args: String) {
    let t = Arc::new(t);
    let args = Arc::new(args);
    let threads: Vec<_> = (0..calls)
        .map(|i| {
            let (t, args) = (t.clone(), args.clone());
            std::thread::spawn(move || {
                let mut c = connect(&t);
                let start = Instant::now();
                c.get_mut()
                    .write_all(&request(&t, &args, i as u64))
                    .unwrap();
                let r = read_response(&mut c).unwrap_or_else(|e| die(&format!("call {i}: {e}")));
                let total = start.elapsed();
                let ttfb = r.first_body_byte.map_or(total, |f| f - start);
                (ok(&r), r.body.len(), ttfb, total)
            })
        })
        .collect();
    for (i, th) in threads.into_iter().enumerate() {
        let (good, bytes, ttfb, total) = th.join().expect("call thread");
        println!(
            "call {i} ok {good} bytes {bytes} first_byte_ms {:.1} total_ms {:.1} first_byte_share {:.3}",
            ttfb.as_secs_f64() * 1000.0,
            total.as_secs_f64() * 1000.0,
            ttfb.as_secs_f64() / total.as_secs_f64()
        );
    }
}

/// Latencies (ms) at the 50th and 99th percentile of sorted microseconds.
/// What the client threads measured: latencies in µs (sorted), error answers, answers of
/// another length than the first, and the time measured.
struct Tally {
    lat: Vec<u32>,
    errors: u64,
    varied: u64,
    measured: Duration,
}

/// Lets the client `threads` run a second of warm-up (until `measure_from`) and `seconds`
/// more, stops them and gathers what they measured.
fn run_for(
    seconds: f64,
    stop: &AtomicBool,
    measure_from: Instant,
    threads: Vec<std::thread::JoinHandle<(Vec<u32>, u64, u64)>>,
) -> Tally {
    std::thread::sleep(Duration::from_secs(1) + Duration::from_secs_f64(seconds));
    stop.store(true, Ordering::Relaxed);
    let measured = Instant::now() - measure_from;
    let mut t = Tally {
        lat: Vec::new(),
        errors: 0,
        varied: 0,
        measured,
    };
    for th in threads {
        let (l, e, v) = th.join().expect("client thread");
        t.lat.extend(l);
        t.errors += e;
        t.varied += v;
    }
    t.lat.sort_unstable();
    t
}

fn percentiles(lat: &[u32]) -> (f64, f64) {
    let pct = |p: f64| {
        lat.get(((lat.len() as f64 * p) as usize).min(lat.len().saturating_sub(1)))
            .map_or(f64::NAN, |&us| f64::from(us) / 1000.0)
    };
    (pct(0.50), pct(0.99))
}

/// The JSON-RPC id of a response line: the number after its top-level `"id":` (inside the
/// result, text is escaped, so `"id":` appears nowhere else).
fn response_id(line: &[u8]) -> Option<u64> {
    let at = line.windows(5).rposition(|w| w == b"\"id\":")? + 5;
    let digits: Vec<u8> = line[at..]
        .iter()
        .copied()
        .skip_while(|b| *b == b' ')
        .take_while(u8::is_ascii_digit)
        .collect();
    std::str::from_utf8(&digits).ok()?.parse().ok()
}

/// One message on a stdio server's stdin.
fn send(stdin: &Mutex<std::process::ChildStdin>, msg: &str) {
    let mut w = stdin.lock().expect("stdin lock");
    w.write_all(msg.as_bytes())
        .and_then(|()| w.write_all(b"\n"))
        .and_then(|()| w.flush())
        .unwrap_or_else(|e| die(&format!("write to the server's stdin: {e}")));
}

/// `rps` against a server that only speaks stdio (newline-delimited JSON-RPC): one process,
/// `clients` logical clients, each with one call in flight at a time on the shared stdin,
/// so the server always has `clients` calls to answer, as an HTTP server has with `clients`
/// connections. Client k uses the ids k, k + clients, …; one reader thread hands each
/// answer to its client.
fn stdio(clients: usize, seconds: f64, args: String, cmd: &[&str]) {
    let mut child = Command::new(cmd[0])
        .args(&cmd[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| die(&format!("{}: {e}", cmd[0])));
    let stdin = Arc::new(Mutex::new(child.stdin.take().expect("piped")));
    let mut out = BufReader::with_capacity(1 << 20, child.stdout.take().expect("piped"));
    let read = |out: &mut BufReader<std::process::ChildStdout>| {
        let mut line = Vec::new();
        match out.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => die(&format!("{} closed its stdout", cmd[0])),
            Ok(_) => line,
        }
    };
    send(
        &stdin,
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"serve_load","version":"0"}}}"#,
    );
    while response_id(&read(&mut out)) != Some(0) {}
    send(
        &stdin,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    // The reference answer, id 0 again: its length is what every answer must have, less the
    // digits of its id.
    send(&stdin, &call_body(&args, 0));
    let first = loop {
        let l = read(&mut out);
        if response_id(&l) == Some(0) {
            break l;
        }
    };
    if !memfind(&first, b"\"result\"") || memfind(&first, b"\"isError\":true") {
        die(&format!(
            "first call failed: {}",
            String::from_utf8_lossy(&first[..first.len().min(400)])
        ));
    }
    let expect_len = first.len() - 1;
    let txs: Vec<mpsc::Sender<Vec<u8>>>;
    let mut rxs = Vec::new();
    {
        let mut t = Vec::new();
        for _ in 0..clients {
            let (tx, rx) = mpsc::channel();
            t.push(tx);
            rxs.push(rx);
        }
        txs = t;
    }
    let reader = std::thread::spawn(move || {
        let mut line = Vec::new();
        loop {
            line.clear();
            match out.read_until(b'\n', &mut line) {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            if let Some(id) = response_id(&line) {
                if id > 0 {
                    let _ = txs[(id as usize - 1) % txs.len()].send(std::mem::take(&mut line));
                }
            }
        }
    });
    let stop = Arc::new(AtomicBool::new(false));
    let measure_from = Instant::now() + Duration::from_secs(1);
    let threads: Vec<_> = rxs
        .into_iter()
        .enumerate()
        .map(|(k, rx)| {
            let (stdin, stop, args) = (stdin.clone(), stop.clone(), args.clone());
            std::thread::spawn(move || {
                let (mut lat, mut errors, mut varied) = (Vec::new(), 0u64, 0u64);
                let mut id = k as u64 + 1;
                while !stop.load(Ordering::Relaxed) {
                    let start = Instant::now();
                    send(&stdin, &call_body(&args, id));
                    let (good, same) = match rx.recv_timeout(Duration::from_secs(120)) {
                        Ok(l) => (
                            memfind(&l, b"\"result\"") && !memfind(&l, b"\"isError\":true"),
                            l.len() - id.to_string().len() == expect_len,
                        ),
                        Err(_) => die("no answer within 120 s"),
                    };
                    if start >= measure_from {
                        lat.push(start.elapsed().as_micros().min(u128::from(u32::MAX)) as u32);
                        errors += u64::from(!good);
                        varied += u64::from(good && !same);
                    }
                    id += clients as u64;
                }
                (lat, errors, varied)
            })
        })
        .collect();
    let Tally {
        lat,
        errors,
        varied,
        measured,
    } = run_for(seconds, &stop, measure_from, threads);
    // The server's peak RSS (kB), from its /proc status, before it is stopped.
    let peak_kb: u64 = std::fs::read_to_string(format!("/proc/{}/status", child.id()))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.split_whitespace().next()?.parse().ok())
        })
        .unwrap_or(0);
    let _ = child.kill();
    let _ = child.wait();
    let _ = reader.join();
    let (p50, p99) = percentiles(&lat);
    println!(
        "clients {clients} requests {} errors {errors} varied {varied} rps {:.0} p50_ms {p50:.2} p99_ms {p99:.2} body_bytes {expect_len} transport stdio_one_process rss_peak_mib {}",
        lat.len(),
        lat.len() as f64 / measured.as_secs_f64(),
        peak_kb / 1024,
    );
}

fn startup(runs: usize, cmd: &[&str]) {
    let mut times = Vec::new();
    for _ in 0..runs.max(1) {
        let start = Instant::now();
        let mut child = std::process::Command::new(cmd[0])
            .args(&cmd[1..])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| die(&format!("{}: {e}", cmd[0])));
        let mut err = BufReader::new(child.stderr.take().expect("piped"));
        let mut line = String::new();
        let listening = loop {
            line.clear();
            match err.read_line(&mut line) {
                Ok(0) | Err(_) => break false,
                Ok(_) if line.starts_with("listening on ") => break true,
                Ok(_) => {}
            }
        };
        let took = start.elapsed();
        let _ = child.kill();
        let _ = child.wait();
        if !listening {
            die(&format!("{}: no `listening on` line", cmd[0]));
        }
        times.push(took.as_secs_f64() * 1000.0);
    }
    times.sort_by(f64::total_cmp);
    println!(
        "startup runs {} min_ms {:.1} median_ms {:.1}",
        times.len(),
        times[0],
        times[times.len() / 2]
    );
}

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let num = |s: &str| -> f64 {
        s.parse()
            .unwrap_or_else(|_| die(&format!("not a number: {s}")))
    };
    match a.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["rps", url, clients, seconds, args] => rps(
            parse_url(url),
            num(clients) as usize,
            num(seconds).min(120.0),
            (*args).to_owned(),
        ),
        ["big", url, calls, args] => big(parse_url(url), num(calls) as usize, (*args).to_owned()),
        ["startup", runs, cmd @ ..] if !cmd.is_empty() => startup(num(runs) as usize, cmd),
        ["stdio", clients, seconds, args, cmd @ ..] if !cmd.is_empty() => stdio(
            (num(clients) as usize).max(1),
            num(seconds).min(120.0),
            (*args).to_owned(),
            cmd,
        ),
        _ => die(
            "usage: serve_load rps URL CLIENTS SECONDS ARGS_JSON | big URL CALLS ARGS_JSON | startup RUNS CMD... | stdio CLIENTS SECONDS ARGS_JSON CMD...",
        ),
    }
}
