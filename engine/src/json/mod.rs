//! JSON in and out.
//!
//! * [`parse`] / [`parse_selected`]: bytes → [`Doc`](crate::Doc), integers exact, select
//!   pushdown with a compiled [`Selector`]; [`parse_head`]: the first elements of a root
//!   array kept, the others validated and counted (a presenter's `limit` pushed down).
//! * [`write_compact`] / [`write_pretty`]: byte-identical to `JSON.stringify(x)` and
//!   `JSON.stringify(x, null, 2)` with the three deviations of WIRE.md §1.3.
//! * [`write_json_string`]: one string escaped as `JSON.stringify` does it, with WIRE.md §2's
//!   `\u003c` before a reserved tag; [`format_f64`] / [`is_int_lexeme`]: numbers as WIRE.md
//!   §1.3 prints them (the bindings use these for their own values).
//! * Inside the crate, `windows`: a root array of any size read window by window, for
//!   [`toon::encode_json`](crate::toon::encode_json) and
//!   [`Data::Json`](crate::wire::Data::Json).

mod parse;
mod select;
mod windows;
mod write;

pub use parse::{ParseOptions, parse};
pub(crate) use parse::{scan, with_kernel};
pub use select::{Selector, parse_head, parse_selected};
pub use windows::JsonInput;
pub(crate) use windows::{
    Facts, Kept, Reading, WindowPlan, WindowRun, first_reading, second_reading,
};
pub use write::{
    CompactFormatter, Formatter, PrettyFormatter, to_string_compact, to_string_pretty,
    to_vec_compact, to_vec_pretty, write_compact, write_pretty, write_with,
};
pub(crate) use write::{member_prefix, write_elements, write_leaf, write_prefix};

pub use crate::escape::{write_json_string, write_json_string_body_plain};
pub use crate::num::{format_f64, is_int_lexeme, write_f64};
