//! Token counts: the engine's `toolwire::tokens` (embedded tiktoken vocabularies, offline,
//! linear in the text even for one long unbroken string). Loaded lazily: only the commands
//! that count tokens pay the start-up cost.

pub use toolwire::tokens::{Vocabulary, count_blocks};

/// Number of tokens of `text`, counted the way tiktoken's `encode_ordinary` does (exact for
/// any text without a run of more than 8 KiB of one character class; see `toolwire::tokens`).
pub fn count(v: Vocabulary, text: &str) -> usize {
    toolwire::tokens::count(v, text)
}
