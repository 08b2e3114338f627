//! Arbitrary bytes through the TOON decoder in every mode (see `toolwire_fuzz::toon_decode`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| toolwire_fuzz::toon_decode(data));
