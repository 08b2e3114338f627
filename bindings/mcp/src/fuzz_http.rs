//! The fuzzing entry point of the HTTP front (`fuzz/fuzz_targets/serve_http.rs`): a client's
//! raw bytes into one connection served exactly as `toolwire serve --http` serves a socket
//! (hyper's HTTP/1 parser, the time limits, the checks, the dispatcher, streamed calls),
//! over an in-memory pipe.

use std::sync::{Arc, OnceLock};

use clap::Parser;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::ServeArgs;
use crate::collection::Server;
use crate::http::{self, Config, State};

/// The address the fuzzed server answers at: requests reach the dispatcher with
/// `Host: 127.0.0.1:8765` (or `localhost:8765`); other hosts get 403.
const ADDR: &str = "127.0.0.1:8765";

/// The command line of the fuzzed server: the built-in `invoices` collection (300 rows),
/// `Origin: https://ok.example` allowed, every other setting its default.
const ARGS: [&str; 7] = [
    "serve",
    "--http",
    ADDR,
    "--rows",
    "300",
    "--allow-origin",
    "https://ok.example",
];

#[derive(Parser)]
struct Cli {
    #[command(flatten)]
    serve: ServeArgs,
}

/// One runtime (current-thread, as cheap to enter per input as it gets) and one server for
/// every input: loading is the slow part.
fn fixture() -> &'static (tokio::runtime::Runtime, Arc<State>) {
    static FIXTURE: OnceLock<(tokio::runtime::Runtime, Arc<State>)> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let Ok(Cli { serve: args }) = Cli::try_parse_from(ARGS) else {
            unreachable!("the fuzzed server's command line parses")
        };
        let (Ok(cfg), Ok(server)) = (Config::from_args(ADDR, &args), Server::load(&args)) else {
            unreachable!("the fuzzed server's command line is valid")
        };
        let Ok(rt) = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        else {
            unreachable!("a current-thread runtime builds")
        };
        let Ok(local) = ADDR.parse() else {
            unreachable!("ADDR is an IP:PORT")
        };
        let state = Arc::new(State::new(Arc::new(server), cfg, local));
        (rt, state)
    })
}

/// Writes `request` (any bytes: one or more pipelined requests, or garbage) to a fresh
/// connection of the fuzzed server (see `ARGS`), shuts the client's write side, and
/// returns every byte the server wrote until it closed the connection. The server answers
/// the requests it read before the shutdown (hyper's half-close; a socket's server does
/// not wait for that).
#[doc(hidden)]
pub fn fuzz_http(request: &[u8]) -> Vec<u8> {
    let (rt, state) = fixture();
    rt.block_on(async {
        let (client, server) = tokio::io::duplex(64 * 1024);
        let conn = tokio::spawn(http::serve_connection(state.clone(), server, true, None));
        let (mut rd, mut wr) = tokio::io::split(client);
        let write = async {
            // The server may close first (a 400 for a bad head): the rest is not read.
            let _ = wr.write_all(request).await;
            let _ = wr.shutdown().await;
        };
        let read = async {
            let mut out = Vec::new();
            let _ = rd.read_to_end(&mut out).await;
            out
        };
        let ((), out) = tokio::join!(write, read);
        let _ = conn.await;
        out
    })
}

#[cfg(test)]
mod tests {
    use super::fuzz_http;

    fn post(body: &str) -> Vec<u8> {
        format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:8765\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .into_bytes()
    }

    #[test]
    fn pipelined_call_and_ping_are_answered_in_order() {
        let call = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"invoices","arguments":{"action":"get","id":"INV-0000007"}}}"#;
        let ping = r#"{"jsonrpc":"2.0","id":6,"method":"ping"}"#;
        let out = String::from_utf8(fuzz_http(&[post(call), post(ping)].concat())).unwrap();
        assert!(out.starts_with("HTTP/1.1 200 OK\r\n"), "{out}");
        let result = out.find(r#"{"jsonrpc":"2.0","id":3,"result":{"content":"#);
        let pong = out.find(r#"{"jsonrpc":"2.0","id":6,"result":{}}"#);
        assert!(result.is_some_and(|r| pong.is_some_and(|p| r < p)), "{out}");
        assert!(out.contains("INV-0000007"), "{out}");
    }
}
