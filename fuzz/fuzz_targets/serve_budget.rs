//! Random `list` arguments against random collections under random token budgets and caps:
//! no page over either, and the pages the directives name yield every row once (see
//! `toolwire_fuzz::serve_budget`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| toolwire_fuzz::serve_budget::serve_budget(data));
