//! Framed responses parse as one JSON-RPC line with the unframed texts (see `toolwire_fuzz::engine::frame`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| toolwire_fuzz::engine::frame(data));
