//! JSON values through the TOON encoder (sequential and parallel) and back (see `toolwire_fuzz::engine::toon_roundtrip`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| toolwire_fuzz::engine::toon_roundtrip(data));
