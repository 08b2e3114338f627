//! `toolwire serve --http` against hostile clients (docs/RELIABILITY.md, "toolwire serve:
//! limits"): request slots go only to calls the engine is working on, and every connection
//! that stalls (in its head, its body, its idle keep-alive or its reading of a response) is
//! closed after its time limit. The limits are the hidden flags, set to 1–3 s here; every
//! wait has the generous slack of `WAIT`, and no assertion times the server.

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;

use crate::serve_common::*;
use serde_json::{Value, json};

/// More sockets than the default 64 call slots.
const HOSTILE: usize = 70;

fn connect(port: u16) -> TcpStream {
    let s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(WAIT)).unwrap();
    s
}

fn ping() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "ping"})
}

/// Reads until the server closes `s` (EOF or a reset): what it sent before. Panics when the
/// connection is still open after `WAIT`.
fn read_until_closed(s: &mut TcpStream) -> Vec<u8> {
    let mut got = Vec::new();
    let mut buf = [0u8; 64 * 1024];
    loop {
        match s.read(&mut buf) {
            Ok(0) => return got,
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == ErrorKind::ConnectionReset => return got,
            Err(e) => panic!(
                "the server did not close the connection ({e}); it sent {:?}",
                String::from_utf8_lossy(&got[..got.len().min(200)])
            ),
        }
    }
}

/// The head of a ping request with its body, ready to write, kept alive.
fn ping_request(port: u16) -> Vec<u8> {
    let b = serde_json::to_vec(&ping()).unwrap();
    let mut r = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        b.len()
    )
    .into_bytes();
    r.extend_from_slice(&b);
    r
}

/// Reads one response off a kept-alive connection (`Content-Length` or chunked): status
/// and body.
fn read_response(s: &mut TcpStream) -> (u16, Vec<u8>) {
    let line = |s: &mut TcpStream| {
        let mut got = Vec::new();
        let mut byte = [0u8; 1];
        while !got.ends_with(b"\r\n") {
            assert_eq!(s.read(&mut byte).unwrap(), 1, "a response");
            got.push(byte[0]);
        }
        got.truncate(got.len() - 2);
        String::from_utf8(got).unwrap()
    };
    let status = line(s)[9..12].parse().unwrap();
    let (mut len, mut chunked) = (0, false);
    loop {
        let h = line(s).to_ascii_lowercase();
        if h.is_empty() {
            break;
        }
        if let Some(v) = h.strip_prefix("content-length: ") {
            len = v.trim().parse().unwrap();
        }
        chunked |= h == "transfer-encoding: chunked";
    }
    let mut body = Vec::new();
    loop {
        let n = if chunked {
            usize::from_str_radix(&line(s), 16).unwrap()
        } else {
            len
        };
        let mut part = vec![0u8; n];
        s.read_exact(&mut part).unwrap();
        body.extend_from_slice(&part);
        if !chunked {
            return (status, body);
        }
        assert_eq!(line(s), "");
        if n == 0 {
            return (status, body);
        }
    }
}

#[test]
fn d2_half_body_sockets_hold_no_call_slot_and_get_408() {
    let s = Http::start(&["--rows", "20", "--body-timeout", "1"]);
    let mut hostile: Vec<TcpStream> = (0..HOSTILE)
        .map(|_| {
            let mut c = connect(s.port);
            write!(
                c,
                "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{{\"jsonrpc\":",
                s.port
            )
            .unwrap();
            c
        })
        .collect();
    // Each head is read before the requests below (one connection at a time would not
    // show the bound).
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert_eq!(
        s.post(&ping(), "").0,
        200,
        "a ping while {HOSTILE} bodies stall"
    );
    let (status, _, body) = s.post(
        &call(2, "invoices", json!({"action": "get", "id": "INV-0000003"})),
        "",
    );
    assert_eq!(status, 200);
    let r: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(r["id"], 2);
    assert!(r["result"]["content"].is_array(), "{r}");
    // After the body timeout every stalled request gets 408 and its connection is closed.
    for c in &mut hostile {
        let got = read_until_closed(c);
        let text = String::from_utf8_lossy(&got);
        assert!(text.starts_with("HTTP/1.1 408 "), "{text}");
        assert!(
            text.to_ascii_lowercase().contains("connection: close"),
            "{text}"
        );
    }
    assert_eq!(s.post(&ping(), "").0, 200);
}

#[test]
fn d2_clients_that_never_read_a_large_list_hold_no_ping_and_are_cut() {
    let spec = large_collection("rows", 60_000);
    let s = Http::start(&[&uncapped(&spec)[..], &["--write-timeout", "1"]].concat());
    let b =
        serde_json::to_vec(&call(1, "rows", json!({"action": "list", "limit": 60000}))).unwrap();
    let hostile: Vec<TcpStream> = (0..HOSTILE)
        .map(|_| {
            let mut c = connect(s.port);
            write!(
                c,
                "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Length: {}\r\n\r\n",
                s.port,
                b.len()
            )
            .unwrap();
            c.write_all(&b).unwrap();
            c
        })
        .collect();
    std::thread::sleep(std::time::Duration::from_millis(300));
    // A ping needs no call slot: it is answered while 64 calls wait on their readers.
    assert_eq!(
        s.post(&ping(), "").0,
        200,
        "a ping while {HOSTILE} readers stall"
    );
    // Every call that got a slot is cut by the write timeout, and its encoding stops.
    s.raw.wait_logs("of rows cancelled (connection closed)", 64);
    // The slots are free again: a call is answered.
    let (status, _, body) = s.post(&call(2, "rows", json!({"action": "get", "id": 7})), "");
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    drop(hostile);
}

#[test]
fn d2_connections_stalled_in_their_head_are_closed() {
    let s = Http::start(&["--rows", "3", "--header-timeout", "1"]);
    let mut stalled: Vec<TcpStream> = (0..HOSTILE)
        .map(|i| {
            let mut c = connect(s.port);
            if i % 2 == 0 {
                // Half the head; the other half of the sockets send nothing at all.
                write!(c, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n", s.port).unwrap();
            }
            c
        })
        .collect();
    for c in &mut stalled {
        assert_eq!(read_until_closed(c), b"", "closed without a response");
    }
    assert_eq!(s.post(&ping(), "").0, 200);
}

#[test]
fn d2_idle_keep_alive_connections_are_closed() {
    // The idle limit (3 s) is not the head's (1 s): a connection idle for 2 s still serves.
    let s = Http::start(&[
        "--rows",
        "3",
        "--header-timeout",
        "1",
        "--idle-timeout",
        "3",
    ]);
    let mut c = connect(s.port);
    c.write_all(&ping_request(s.port)).unwrap();
    assert_eq!(read_response(&mut c).0, 200);
    std::thread::sleep(std::time::Duration::from_secs(2));
    c.write_all(&ping_request(s.port)).unwrap();
    assert_eq!(
        read_response(&mut c).0,
        200,
        "kept alive for its next request"
    );
    // After a streamed response too.
    let b = serde_json::to_vec(&call(2, "invoices", json!({"action": "list"}))).unwrap();
    write!(
        c,
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Length: {}\r\n\r\n",
        s.port,
        b.len()
    )
    .unwrap();
    c.write_all(&b).unwrap();
    let (status, body) = read_response(&mut c);
    assert_eq!(status, 200);
    assert_eq!(serde_json::from_slice::<Value>(&body).unwrap()["id"], 2);
    assert_eq!(read_until_closed(&mut c), b"", "closed once idle");
}

/// The descriptors the child holds (Linux).
fn open_fds(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .count()
}

#[test]
fn d2_connections_beyond_the_bound_wait_and_are_served() {
    let s = Http::start(&[
        "--rows",
        "3",
        "--max-connections",
        "16",
        "--header-timeout",
        "3",
    ]);
    let pid = s.raw.child.id();
    let base = open_fds(pid);
    let silent: Vec<TcpStream> = (0..40).map(|_| connect(s.port)).collect();
    std::thread::sleep(std::time::Duration::from_millis(500));
    let held = open_fds(pid) - base;
    assert!(held <= 16, "{held} descriptors for 40 silent connections");
    // A client beyond the bound waits in the listen queue and is served once the header
    // timeout has closed the silent ones ahead of it.
    assert_eq!(s.post(&ping(), "").0, 200);
    drop(silent);
    assert_eq!(s.post(&ping(), "").0, 200);
}
