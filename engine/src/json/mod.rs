//! JSON: escaping as `JSON.stringify` does it.

pub mod escape;
mod parse;
mod select;

pub use parse::{ParseOptions, parse};
pub use select::{Selector, parse_selected};
