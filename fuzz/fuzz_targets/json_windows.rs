//! A root array read window by window equals its whole parse (see `toolwire_fuzz::engine::json_windows`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| toolwire_fuzz::engine::json_windows(data));
