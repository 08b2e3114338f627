//! # toolwire-mcp
//!
//! `toolwire serve` (SERVE.md): a real MCP server that serves JSON collections of any size to
//! agents through toolwire presenters, over newline-delimited JSON-RPC on stdio or MCP
//! streamable HTTP.
//!
//! Each collection is one tool with the actions `list` (a `where` filter, paging by `cursor`
//! or `offset` and `limit`, a `format`, `_select`) and `get` (one row by its key). Every
//! result fits the message cap and the token budget. Every `tools/call` result is
//! written by toolwire's block writers straight into the transport, chunk by chunk, from a
//! blocking thread; no JSON value of a result is ever built.
//!
//! The map:
//!
//! * [`ServeArgs`] and [`run`]: the command line (`toolwire serve …`) and its entry point.
//! * `collection`: collections and presenter files, loaded and validated at start-up.
//! * `cursor`: the opaque `list` cursors (a position and the filter it belongs to, signed).
//! * `message`: a JSON-RPC message read member by member (the id survives a bad member).
//! * `args`: the arguments of a `tools/call`, checked into a typed call.
//! * `scalar`: a `where` value or `get` id from the client, and when a row's value equals it
//!   (the server's equality rules).
//! * `filter`: `where` and `get` through an index per field, built on first use.
//! * `source`: what a collection served from a database table asks of its database
//!   (`Backend`); `sqlite` answers it for SQLite files, `postgres` for PostgreSQL.
//! * `respond`: a `tools/call` checked, its rows picked (`where`, `offset`, `get`'s key), the
//!   rest through the engine's front door ([`toolwire::call`]: overrides, pages, the
//!   next-call directive, `structuredContent`, the message cap, framing).
//! * `rpc`: the JSON-RPC dispatcher shared by both transports (revisions 2025-06-18,
//!   2025-11-25 and the stateless 2026-07-28).
//! * `stdio`, `http`: the transports; `stream` runs a call into one, and `cut` closes a
//!   result line a cancellation cut (stdio) into valid JSON.
//! * [`demo`]: the built-in `invoices` collection, shared with `toolwire demo`.
//! * `fuzzing`: the hidden `fuzz_dispatch`, request lines into the dispatcher for the
//!   `serve_request` fuzz target.
//! * `fuzz_http`: the hidden `fuzz_http`, raw bytes into one HTTP connection for the
//!   `serve_http` fuzz target.
//!
//! `toolwire bench`, the client that measures a server from the other side of the wire, is
//! the crate `toolwire-bench`.
#![deny(missing_docs)]

mod args;
mod collection;
mod cursor;
mod cut;
pub mod demo;
mod filter;
mod fuzz_http;
mod fuzzing;
mod http;
mod message;
mod postgres;
mod respond;
mod rpc;
mod scalar;
mod source;
mod sqlite;
mod stdio;
mod stream;

use std::process::ExitCode;

#[doc(hidden)]
pub use fuzz_http::fuzz_http;
#[doc(hidden)]
pub use fuzzing::{FuzzList, fuzz_dispatch};

/// `toolwire serve` (SERVE.md §1).
#[derive(clap::Args, Debug, Clone)]
pub struct ServeArgs {
    /// Serve newline-delimited JSON-RPC on stdin/stdout (the default).
    #[arg(long, conflicts_with = "http")]
    pub stdio: bool,
    /// Serve MCP streamable HTTP at `POST http://ADDR/mcp` (port 0 picks one).
    #[arg(long, value_name = "ADDR")]
    pub http: Option<String>,
    /// A collection: SOURCE is a FILE holding a JSON array of objects or JSON Lines, or a
    /// database table (`sqlite://PATH#TABLE`, `postgres://USER@HOST:PORT/DB#TABLE`); NAME is
    /// its tool name.
    #[arg(long = "collection", value_name = "NAME=SOURCE")]
    pub collections: Vec<String>,
    /// The presenter file of collection NAME (CLI.md, plus the optional key `"key"`).
    #[arg(long = "presenter", value_name = "NAME=FILE")]
    pub presenters: Vec<String>,
    /// Rows of the built-in `invoices` collection (served when no --collection is given).
    #[arg(long, default_value_t = 100_000)]
    pub rows: usize,
    /// No message on the wire exceeds this many bytes (0: no cap).
    #[arg(long, default_value_t = 8_388_608, value_name = "B")]
    pub max_message_bytes: usize,
    /// No tool result's content exceeds this many tokens, counted with o200k_base (0: no
    /// budget). The default is Claude Code's own cap on a tool result.
    #[arg(long, default_value_t = 25_000, value_name = "N")]
    pub max_tokens: usize,
    /// The secret that signs `list` cursors, read from this environment variable: replicas
    /// that share it accept each other's cursors (without it cursors are still checked).
    #[arg(long, value_name = "VAR")]
    pub cursor_key_env: Option<String>,
    /// An `Origin` that HTTP requests may carry (others get 403).
    #[arg(long = "allow-origin", value_name = "ORIGIN")]
    pub allow_origins: Vec<String>,
    /// Allow --http to bind an address outside the loopback range.
    #[arg(long)]
    pub allow_remote: bool,
    /// Every HTTP request must carry `Authorization: Bearer <the value of VAR>`.
    #[arg(long, value_name = "VAR")]
    pub auth_token_env: Option<String>,
    /// Also return `structuredContent` and declare each tool's `outputSchema`.
    #[arg(long)]
    pub structured: bool,
    /// At most this many `tools/call`s are in flight at once: over HTTP while encoded (more
    /// get 503), on stdio until written (more get a JSON-RPC error on their id).
    #[arg(long, default_value_t = 64, value_name = "N", hide = true)]
    pub max_concurrent: usize,
    /// Milliseconds a database statement may run before it is interrupted (a `TIMEOUT`
    /// error response).
    #[arg(long, default_value_t = 10_000, value_name = "MS", hide = true)]
    pub statement_timeout_ms: u64,
    /// Milliseconds a database may take to count a `list`'s matching rows; past it the
    /// truncation notice says rows remain without a number.
    #[arg(long, default_value_t = 500, value_name = "MS", hide = true)]
    pub count_timeout_ms: u64,
    /// At most this many statements run at once on a PostgreSQL database (0: three a CPU core
    /// of this machine, at most --max-concurrent); the others wait their turn.
    #[arg(long, default_value_t = 0, value_name = "N", hide = true)]
    pub db_statements: usize,
    /// The time limits and the connection bound of `--http`.
    #[command(flatten)]
    pub limits: HttpLimits,
}

/// The time limits and the connection bound of `--http` (hidden flags; docs/RELIABILITY.md).
/// A time limit of 0 seconds is no limit.
#[derive(clap::Args, Debug, Clone, Copy, PartialEq, Eq)]
pub struct HttpLimits {
    /// Seconds a client has to send a whole request head, from its connection or from the
    /// first byte after an idle keep-alive; then the connection is closed.
    #[arg(long, default_value_t = HttpLimits::DEFAULT.header_timeout, value_name = "SECS", hide = true)]
    pub header_timeout: u64,
    /// Seconds a client has to send a whole request body, from its head; then 408.
    #[arg(long, default_value_t = HttpLimits::DEFAULT.body_timeout, value_name = "SECS", hide = true)]
    pub body_timeout: u64,
    /// Seconds a keep-alive connection may wait for its next request; then it is closed.
    #[arg(long, default_value_t = HttpLimits::DEFAULT.idle_timeout, value_name = "SECS", hide = true)]
    pub idle_timeout: u64,
    /// Seconds a response write may wait for a client that does not read; then the
    /// connection is closed and its call stopped.
    #[arg(long, default_value_t = HttpLimits::DEFAULT.write_timeout, value_name = "SECS", hide = true)]
    pub write_timeout: u64,
    /// At most this many open connections; the next ones wait to be accepted.
    #[arg(long, default_value_t = HttpLimits::DEFAULT.max_connections, value_name = "N", hide = true)]
    pub max_connections: usize,
    /// Seconds open connections have to finish their requests after SIGTERM or SIGINT; then
    /// the rest are cut (0: at once).
    #[arg(long, default_value_t = HttpLimits::DEFAULT.shutdown_grace, value_name = "SECS", hide = true)]
    pub shutdown_grace: u64,
}

impl HttpLimits {
    /// The defaults: hyper's header timeout (30 s), nginx's `client_body_timeout` and
    /// `send_timeout` (60 s) and `keepalive_timeout` (75 s), and nginx's default
    /// `worker_connections` (512), half of the usual 1024 descriptors of a process; 25 s of
    /// shutdown grace, under the 30 s a Kubernetes pod gets between SIGTERM and SIGKILL.
    pub const DEFAULT: HttpLimits = HttpLimits {
        header_timeout: 30,
        body_timeout: 60,
        idle_timeout: 75,
        write_timeout: 60,
        max_connections: 512,
        shutdown_grace: 25,
    };
}

/// A start-up failure: the exit code and the one stderr line.
pub(crate) struct Failure {
    pub(crate) code: u8,
    pub(crate) line: String,
}

impl Failure {
    pub(crate) fn usage(line: impl Into<String>) -> Failure {
        Failure {
            code: 2,
            line: format!("toolwire: {}", line.into()),
        }
    }
    pub(crate) fn data(line: String) -> Failure {
        Failure { code: 3, line }
    }
    pub(crate) fn presenter(line: String) -> Failure {
        Failure { code: 4, line }
    }
}

/// Runs `toolwire serve` until stdin closes (stdio) or forever (HTTP). Exit codes as CLI.md:
/// 0 on a clean end, 2 for usage errors (a bad NAME, a remote ADDR without
/// `--allow-remote`, a missing `--auth-token-env` variable), 3 for a malformed collection
/// file (`FILE:LINE:COLUMN: message`), 4 for a bad presenter file, 1 when the transport fails.
pub fn run(args: ServeArgs) -> ExitCode {
    match run_inner(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            eprintln!("{}", f.line);
            ExitCode::from(f.code)
        }
    }
}

fn run_inner(args: ServeArgs) -> Result<(), Failure> {
    let http = match &args.http {
        Some(addr) => Some(http::Config::from_args(addr, &args)?),
        None => None,
    };
    let server = std::sync::Arc::new(collection::Server::load(&args)?);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure {
            code: 1,
            line: format!("toolwire: cannot start the runtime: {e}"),
        })?;
    let result = match http {
        Some(cfg) => rt.block_on(http::serve(server, cfg)),
        None => rt.block_on(stdio::serve(server, args.max_concurrent)),
    };
    // Blocking encoders of cancelled calls stop on their own; do not wait for them.
    rt.shutdown_background();
    result.map_err(|e| Failure {
        code: 1,
        line: format!("toolwire: {e}"),
    })
}
