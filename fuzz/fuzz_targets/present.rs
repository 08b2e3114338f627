//! Arbitrary presenter files and data: a response or an error, never a panic (see `toolwire_fuzz::engine::present`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| toolwire_fuzz::engine::present(data));
