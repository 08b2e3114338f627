//! Arbitrary bytes through every block kernel of the JSON parser, against the byte-by-byte
//! definitions and the bytewise parser (see `toolwire_fuzz::engine::json_kernels`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| toolwire_fuzz::engine::json_kernels(data));
