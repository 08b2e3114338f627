//! The conformance and acceptance tests, one module per file of this folder, compiled as one
//! test binary (`autotests = false` in `tests/Cargo.toml`): a binary per file would link the
//! engine, tokio, tiktoken and proptest once per file on every change of the engine. The
//! tests of `memory.rs` and `spare_tape.rs` need the process to themselves and run in the
//! `isolated` binary (`isolated.rs`). A new file of this folder needs its `mod` line here or
//! there, or it is never compiled (`every_file_is_a_module` fails).
//!
//! One file's tests: `cargo test -p toolwire-tests --test suite windowed::`.
//!
//! This file is not called `main.rs`: proptest places a test's regression file by looking for
//! a `lib.rs` or `main.rs` above the test's source file, and only when it finds none does it
//! read and write the file beside the source (`windowed.proptest-regressions`), where the
//! committed ones are.

// Per-thread allocation counts (`toolwire_oracles::alloc::allocated` and `largest`): the
// linear loading of presenter files (`load_linear`) and the largest single allocation of a
// hostile TOON header (`toon_decode`). The other tests of this binary, running meanwhile, do
// not disturb counts of this kind, and `PerThread` keeps no process-wide counter (which they
// would disturb, and which every allocation of every test would contend for).
#[global_allocator]
static GLOBAL: toolwire_oracles::alloc::PerThread = toolwire_oracles::alloc::PerThread;

mod call;
mod call_page;
mod helpers;
mod json_kernels;
mod json_parse_props;
mod json_suite;
mod json_write;
mod layers;
mod load_linear;
mod present;
mod present_describe;
mod present_estimate;
mod present_file;
mod present_props;
mod present_select;
mod present_view;
mod regression_budget_pushdown;
mod regression_fuzz;
mod regression_hostile;
mod serde_input;
mod sink_contract;
mod stream;
mod token_budget;
mod tokens;
mod toon_decode;
mod toon_encode;
mod toon_encode_props;
mod toon_roundtrip;
mod windowed;
mod wire;

/// Every Rust file of this folder (and folder with a `mod.rs`) is a module of `suite.rs` or `isolated.rs`:
/// with `autotests = false`, one that no `mod` line names would never be compiled, and its
/// tests would silently stop running.
#[test]
fn every_file_is_a_module() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let unlisted = toolwire_oracles::unlisted_test_modules(
        &dir,
        &[include_str!("suite.rs"), include_str!("isolated.rs")],
        &["suite", "isolated"],
    );
    assert!(
        unlisted.is_empty(),
        "tests/{unlisted:?} not modules of `suite.rs` or `isolated.rs`: their tests never run"
    );
}
