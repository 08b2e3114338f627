//! Arbitrary bytes as one client connection of `toolwire serve --http`: whole HTTP/1.1
//! responses only, each body one JSON-RPC message or whole events (see
//! `toolwire_fuzz::serve_http`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| toolwire_fuzz::serve_http::serve_http(data));
