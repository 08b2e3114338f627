//! Arbitrary bytes through the JSON parser, differential against serde_json (see `toolwire_fuzz::engine::json_parse`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| toolwire_fuzz::engine::json_parse(data));
