//! Hostile strings in every builder field never forge a block tag (see `toolwire_fuzz::engine::wire_tags`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| toolwire_fuzz::engine::wire_tags(data));
