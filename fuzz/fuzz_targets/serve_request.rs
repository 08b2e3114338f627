//! Arbitrary bytes as JSON-RPC lines into `toolwire serve`'s dispatcher: one valid JSON-RPC
//! line per reply, none over the cap, no forged tag (see `toolwire_fuzz::serve`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| toolwire_fuzz::serve::serve_request(data));
