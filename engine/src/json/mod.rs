//! JSON: escaping as `JSON.stringify` does it.

pub mod escape;
pub mod write;

pub use write::{
    CompactFormatter, Formatter, PrettyFormatter, to_string_compact, to_string_pretty,
    to_vec_compact, to_vec_pretty, write_compact, write_pretty, write_with,
};
