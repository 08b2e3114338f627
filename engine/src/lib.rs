//! # toolwire
//!
//! toolwire turns what an MCP tool handler returns into the tool response an AI agent reads:
//! an ordered sequence of text blocks (data as JSON or TOON, UI blocks, directives, rules,
//! suggestions, errors), byte-compatible with the TypeScript framework that defined the
//! format, safe where that framework is not, and built for collections of millions of rows.
//!
//! One tool call goes through [`call::ToolCall`]: read the handler's bytes, respond, write.
//! It is the front door every interface uses (the CLI, `toolwire serve`, the Node and Python
//! bindings), so each behaves exactly like the others.
//!
//! ```
//! use toolwire::call::{Framing, ToolCall};
//! use toolwire::present::Presenter;
//!
//! let presenter = Presenter::from_json(br#"{
//!     "name": "Invoice", "select": true, "format": "toon-pipe",
//!     "schema": {"type": "object", "properties": {
//!         "id": {"type": "string"}, "amount_cents": {"type": "integer"}, "paid": {"type": "boolean"}}},
//!     "rules": ["amount_cents is in CENTS. Divide by 100."],
//!     "suggest": {"collection": [{"tool": "billing.get", "reason": "View details"}]}
//! }"#)?;
//! let rows = br#"[{"id":"INV-1","amount_cents":1250,"paid":true,"card":"4111"},
//!                 {"id":"INV-2","amount_cents":990,"paid":false}]"#;
//!
//! let call = ToolCall::new().presenter(&presenter); // also .select(..), .format(..), .limit(..)
//! let input = call.read(rows)?; // parsed as the presenter needs it; malformed JSON is an error
//! let reply = call.respond(&input)?; // a bad `_select` or invalid row is an error *response*
//! assert_eq!(
//!     reply.response().texts(),
//!     [
//!         "[2|]{id|amount_cents|paid}:\n  INV-1|1250|true\n  INV-2|990|false",
//!         "<domain_rules>\n- amount_cents is in CENTS. Divide by 100.\n</domain_rules>",
//!         "<action_suggestions>\n- billing.get: View details\n</action_suggestions>",
//!     ]
//! );
//! // On the wire: one CallToolResult line (or a JSON-RPC frame, `Framing::Frame`), written
//! // in chunks as it is encoded, block texts escaped on their way in.
//! let mut line = Vec::new();
//! reply.write_io(&Framing::result(), &mut line)?;
//! assert!(line.starts_with(br#"{"content":[{"type":"text","text":"[2|]{id|amount_cents|paid}:\n"#));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Paging a large collection under a byte cap and a token budget is [`call::Fit`]. Below the
//! front door, [`wire::response`] builds the blocks by hand (the example of "JSON bytes of
//! any size" below), and [`toon`] and [`json`] are the codecs.
//!
//! ## The map
//!
//! Data flows `bytes → parse (select pushdown) → Doc → present → encode → blocks → frame →
//! sink`, and every interface (CLI, MCP server, Node, Python) enters through [`call`]. The
//! modules are layers that only point down: each may import only the modules its row names
//! (`tests/tests/layers.rs` reads this table and the sources, and fails on an import the
//! table does not allow, on any cycle, and on files of one module that import each other in
//! a circle).
//!
//! | module | owns | may import |
//! |---|---|---|
//! | [`error`] | [`Error`], one small positioned, classified error type | — |
//! | `tag` | the reserved block tags untrusted text must never forge | — |
//! | [`sink`] | [`Sink`], where every encoder writes; chunked and counting sinks | — |
//! | `tokens` | token counts, `o200k_base`/`cl100k_base` (feature `tokenizer`) | — |
//! | `escape` | JSON string escaping as `JSON.stringify` does it; the escaping sink of framing | `sink` `tag` |
//! | `num` | numbers exactly as WIRE.md §1.3 prints them | `sink` |
//! | [`doc`] | [`Doc`], the flat tape of 8-byte nodes, its views and its builder | `escape` `num` `sink` `tag` |
//! | [`json`] | parsing with select pushdown, the window reader, writers byte-identical to `JSON.stringify` | `doc` `error` `escape` `num` `sink` `tag` |
//! | `ser` | any `serde::Serialize` value as a [`Doc`] (feature `serde`) | `doc` `error` `num` |
//! | [`toon`] | TOON 4.4: the encoder (parallel tables, from JSON text) and the decoder | `doc` `error` `escape` `json` `num` `sink` |
//! | [`wire`] | `Format` and its names, the token estimator and `auto`, size bounds, the row writer, block texts, UI helpers, error envelopes, [`wire::ToolResponse`] | `doc` `error` `escape` `json` `num` `sink` `tag` `tokens` `toon` |
//! | [`present`] | presenters: files, schema, truncation and budgets, redaction, UI, rules, suggestions, embeds, `_select`, tool descriptions | `doc` `error` `escape` `json` `num` `sink` `tag` `tokens` `toon` `wire` |
//! | [`frame`] | JSON-RPC 2.0 framing and the size cap, over `ToolResponse`'s public API | `error` `escape` `json` `sink` `wire` |
//! | [`call`] | the front door: one tool call → its response bytes, fitted to a cap and a token budget | `doc` `error` `frame` `json` `present` `sink` `tokens` `wire` |
//! | `test_hooks` | hidden hooks for the project's own tests, benches and fuzz targets | `doc` `escape` `json` `num` `present` `sink` `tag` `tokens` `toon` `wire` |
//!
//! ## JSON bytes of any size
//!
//! A handler that already has JSON text (a database's JSON column, an upstream API) hands the
//! bytes over as they are. Above 8 MiB a root array is validated and analysed window by
//! window, then encoded a window at a time as the response is written or streamed: from the
//! windows of the first reading when their tapes fit in 11 MiB (read once), else parsed
//! again. The peak heap is the input plus at most 16 MiB (8.5 MB for a million rows), and
//! the bytes are exactly those of the parsed document.
//!
//! ```
//! use toolwire::toon::Delimiter;
//! use toolwire::wire::{self, Data, Format};
//!
//! let bytes = br#"[{"id":1,"ok":true},{"ok":false,"id":2}]"#;
//! let r = wire::response(Data::Json(bytes))
//!     .format(Format::Toon(Delimiter::Comma))
//!     .build()?;
//! assert_eq!(r.texts(), ["[2]{id,ok}:\n  1,true\n  2,false"]);
//! // Invalid JSON is an error of `build`, before any byte is written.
//! let err = wire::response(Data::Json(b"[1,2,]")).build().unwrap_err();
//! assert_eq!(err.to_string(), "1:6: expected a value, found ']'");
//! # Ok::<(), toolwire::Error>(())
//! ```
//!
//! ## Implementation-defined behaviour
//!
//! * Integers beyond f64 precision are written with all their digits (JSON and TOON); some
//!   decoders will round them.
//! * JSON output keeps the input's key order (JavaScript moves integer-like keys first).
//! * A `<` that starts a reserved tag sequence is written `\u003c` in JSON data; TOON data
//!   holding one (or a lone surrogate) falls back to compact JSON for that response.
//!
//! ## Crate features
//!
//! * `serde` (default): build a [`Doc`] from any `serde::Serialize` value.
//! * `tokio`: stream a framed response as `Bytes` chunks from a blocking thread
//!   (`frame::stream_frame`) and write a [`call::Reply`] to an `AsyncWrite`
//!   (`Reply::write_async`).
//! * `tokenizer`: `tokens`, exact o200k_base/cl100k_base token counts in linear time, used by
//!   `token_budget` (the data block never exceeds the budget by o200k_base) and
//!   `Format::Auto` (the cheapest format by o200k_base). Without it the budget holds by the
//!   bytes bound (a token is at least one byte) and Auto uses the estimator.
#![doc(test(attr(deny(warnings))))]
#![deny(missing_docs)]

pub mod call;
pub mod doc;
pub mod error;
mod escape;
pub mod frame;
pub mod json;
mod num;
pub mod present;
#[cfg(feature = "serde")]
pub mod ser;
pub mod sink;
mod tag;
#[doc(hidden)]
pub mod test_hooks;
#[cfg(feature = "tokenizer")]
pub mod tokens;
pub mod toon;
pub mod wire;

#[doc(inline)]
pub use crate::doc::{Doc, DocBuilder, Value, ValueRef};
#[doc(inline)]
pub use crate::error::{Category, Error, Result};
#[doc(inline)]
pub use crate::sink::Sink;

/// The README's Rust examples, compiled and run as doctests so they cannot drift.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;
