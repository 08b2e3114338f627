//! The tests of the `toolwire` binary, one module per file of this folder, compiled as one
//! test binary (`autotests = false` in `bindings/cli/Cargo.toml`): a binary per file would
//! link rmcp, tokio, hyper, tiktoken and the engine once per file on every change of the
//! engine or the server. A new file of this folder needs its `mod` line here, or it is never
//! compiled (`every_file_is_a_module` fails).
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

/// Every Rust file of this folder (and folder with a `mod.rs`) is a module of `suite.rs`:
/// with `autotests = false`, one that no `mod` line names would never be compiled, and its
/// tests would silently stop running.
#[test]
fn every_file_is_a_module() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let unlisted =
        toolwire_oracles::unlisted_test_modules(&dir, &[include_str!("suite.rs")], &["suite"]);
    assert!(
        unlisted.is_empty(),
        "tests/{unlisted:?} not modules of `suite.rs`: their tests never run"
    );
}
