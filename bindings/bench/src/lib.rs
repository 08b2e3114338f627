//! # toolwire-bench
//!
//! `toolwire bench`: the other side of the wire. A minimal MCP client ([`client`]: stdio or
//! streamable HTTP, either protocol era) that times and weighs every response of any
//! server's tool, and the benchmark built on it ([`bench`](mod@bench)): latency, time to first
//! byte, message bytes and tokens against an agent's budgets, as a table, JSON and an HTML
//! report. It is its own crate because it serves nothing: `toolwire serve` (`toolwire-mcp`)
//! and this client share no code, only the protocol.
#![deny(missing_docs)]

pub mod bench;
pub mod client;
