//! The wire: block texts, tag safety and error envelopes (WIRE.md §1–3, §8).
//!
//! Every untrusted string passes through `tag_safe`; the block writers in this module are the
//! only code that writes block tags.

mod tag_safe;
pub mod ui;

mod blocks;
mod bounds;
mod estimate;
mod format;
mod response;
mod rows;
mod windowed_block;

/// Whether a text holds a reserved block tag (WIRE.md §2): such text is never copied raw.
pub use crate::tag::contains_reserved_tag;
pub use blocks::{
    FieldProblem, Severity, Suggestion, ToolError, UiBlock, UiMeta, Width, you_sent_string,
};
pub(crate) use estimate::AUTO_SAMPLE_ROWS;
pub(crate) use estimate::write_format;
pub use estimate::{cheapest_format, choose_auto, estimate_format_tokens, estimate_tokens};
pub use format::{Format, UnknownFormat};
pub(crate) use response::response_view;
pub use response::{
    Data, HandlerOutput, Meta, ResponseBuilder, Structured, ToolResponse, error, error_with_code,
    handler_error, required, response, success, success_structured, toon_success, validation_error,
    wrap,
};
pub(crate) use rows::RowBlock;
