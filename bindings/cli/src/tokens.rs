//! Token counts with the embedded tiktoken vocabularies (offline). Loaded lazily: only the
//! commands that count tokens pay the start-up cost.

use tiktoken_rs::CoreBPE;

/// A tokenizer the CLI can count with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Vocabulary {
    /// `o200k_base` (GPT-4o family).
    O200k,
    /// `cl100k_base` (GPT-4 family).
    Cl100k,
}

fn bpe(v: Vocabulary) -> &'static CoreBPE {
    match v {
        Vocabulary::O200k => tiktoken_rs::o200k_base_singleton(),
        Vocabulary::Cl100k => tiktoken_rs::cl100k_base_singleton(),
    }
}

/// Number of tokens of `text`, counted the way tiktoken's `encode_ordinary` does.
pub fn count(v: Vocabulary, text: &str) -> usize {
    bpe(v).encode_ordinary(text).len()
}
