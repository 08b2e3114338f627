//! Select pushdown against parse + projection (see `toolwire_fuzz::engine::json_select`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| toolwire_fuzz::engine::json_select(data));
