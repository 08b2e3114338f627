//! JSON: escaping as `JSON.stringify` does it.

pub mod escape;
