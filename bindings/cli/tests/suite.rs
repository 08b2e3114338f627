//! The tests of the `toolwire` binary, one module per file of this folder, compiled as one
//! test binary (`autotests = false` in `bindings/cli/Cargo.toml`): each file linked as a
//! binary of its own, with rmcp, tokio, hyper and tiktoken, cost a link per file on every
//! change of the engine or the server.
//!
//! One file's tests: `cargo test -p toolwire-cli --test suite serve_http::`.
//!
//! Not called `main.rs`, like `tests/tests/suite.rs`: proptest would place the regression
//! files of any property test here in a folder of its own instead of beside the test.

/// The `toolwire` binary cargo built for these tests.
const BIN: &str = env!("CARGO_BIN_EXE_toolwire");

mod bench;
mod bench_anchor;
mod bench_common;
mod bench_report;
mod cli;
mod exit_codes;
mod readme;
mod serve_common;
mod serve_http;
mod serve_http_limits;
mod serve_postgres;
mod serve_replicas;
mod serve_replicas_postgres;
mod serve_sqlite;
mod serve_stdio;
