//! The serve benches of issue #13 live in `benches/serve.rs` (criterion: the engine's
//! framer against the rmcp compat path) and `examples/serve_load.rs` (the load generator of
//! `benches/serve_load.sh`); this library is empty.
