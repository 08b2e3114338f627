//! # toolwire
//!
//! toolwire turns what an MCP tool handler returns into the tool response an AI agent reads:
//! an ordered sequence of text blocks (data as JSON or TOON, UI blocks, directives, rules,
//! suggestions, errors), byte-compatible with the TypeScript framework that defined the
//! format, safe where that framework is not, and built for collections of millions of rows.
//!
//! This page is the map of the crate.
//!
//! * [`doc`]: [`Doc`], the one document representation, a flat tape of values.
//! * [`json`]: JSON parsing with select pushdown, and writers byte-identical to `JSON.stringify`.
//! * `ser` (feature `serde`): `to_doc`, any `serde::Serialize` value as a [`Doc`].
//! * [`toon`]: the TOON 4.4 encoder and decoder.
//! * [`present`]: Presenters: schema, truncation, redaction, UI, rules, suggestions, embeds,
//!   `_select`, tool descriptions and output schemas (WIRE.md §4–§7).
//! * [`sink`]: [`Sink`], where every encoder writes.
//! * [`num`]: numbers exactly as WIRE.md §1.3 prints them.
//! * [`tag`]: the reserved block tags untrusted text must never forge.
//! * [`error`]: [`Error`], one small positioned, classified error type.
//!
//! ## Crate features
//!
//! * `serde` (default): build a [`Doc`] from any `serde::Serialize` value.
#![doc(test(attr(deny(warnings))))]
#![deny(missing_docs)]

pub mod doc;
pub mod error;
pub mod frame;
pub mod json;
pub mod num;
pub mod present;
#[cfg(feature = "serde")]
pub mod ser;
pub mod sink;
pub mod tag;
pub mod toon;
pub mod wire;

#[doc(inline)]
pub use crate::doc::{Doc, DocBuilder, Value, ValueRef};
#[doc(inline)]
pub use crate::error::{Category, Error, Result};
#[doc(inline)]
pub use crate::sink::Sink;
