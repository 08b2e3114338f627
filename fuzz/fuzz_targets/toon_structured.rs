//! Generated valid TOON must decode to exactly the value it was written from (see
//! `toolwire_fuzz::toon_structured`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| toolwire_fuzz::toon_structured(data));
