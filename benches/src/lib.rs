//! The deterministic invoice corpus used by the benches and the demo.
