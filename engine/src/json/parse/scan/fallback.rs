//! The portable kernel: classifies a 64-byte block one 8-byte word at a time (SWAR), for
//! targets without a vector kernel and as the reference the vector kernels are tested
//! against.

use super::{Raw, Str};

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// High bit set in exactly the bytes of `v` equal to `b` (no borrow or carry crosses bytes).
#[inline(always)]
fn eq_bytes(v: u64, b: u8) -> u64 {
    // Exact per-byte "equals": `(x & 0x7F) + 0x7F` sets the high bit iff the low 7 bits are
    // non-zero, with no carry out of the byte; OR in the byte's own high bit.
    let x = v ^ (ONES * b as u64);
    !(((x & !HIGHS).wrapping_add(!HIGHS)) | x) & HIGHS
}

/// Exact per-byte "below 0x20" (bytes ≥ 0x80 excluded).
#[inline(always)]
fn lt_0x20(v: u64) -> u64 {
    // Low 7 bits + (0x80 - 0x20) reach the high bit iff they are ≥ 0x20; no carry out.
    !(((v & !HIGHS).wrapping_add(ONES * 0x60)) | v) & HIGHS
}

/// Gathers the high bit of each of the 8 bytes into the low 8 bits (byte i → bit i).
#[inline(always)]
fn gather(m: u64) -> u64 {
    // Each flagged byte holds 0x80; move bit 7 of byte i to bit 56 + i with one multiply
    // (the partial products never overlap), then shift down.
    ((m >> 7).wrapping_mul(0x0102_0408_1020_4080)) >> 56
}

/// Classifies one block.
#[inline(always)]
pub(super) fn classify(block: &[u8; 64]) -> Raw {
    let mut r = Raw::default();
    for (w, chunk) in block.chunks_exact(8).enumerate() {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let v = u64::from_le_bytes(word);
        let lower = v | (ONES * 0x20);
        let quote = eq_bytes(v, b'"');
        let backslash = eq_bytes(v, b'\\');
        let op =
            eq_bytes(lower, b'{') | eq_bytes(lower, b'}') | eq_bytes(v, b':') | eq_bytes(v, b',');
        let ws = eq_bytes(v, b' ') | eq_bytes(v, b'\n') | eq_bytes(v, b'\r') | eq_bytes(v, b'\t');
        let special = backslash | lt_0x20(v) | (v & HIGHS) | eq_bytes(v, b'<');
        let s = 8 * w;
        r.quote |= gather(quote) << s;
        r.backslash |= gather(backslash) << s;
        r.op |= gather(op) << s;
        r.ws |= gather(ws) << s;
        r.special |= gather(special) << s;
    }
    r
}

/// The string masks of one block.
#[inline(always)]
pub(super) fn classify_str(block: &[u8; 64]) -> Str {
    let mut r = Str::default();
    for (w, chunk) in block.chunks_exact(8).enumerate() {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let v = u64::from_le_bytes(word);
        let special = eq_bytes(v, b'\\') | lt_0x20(v) | (v & HIGHS) | eq_bytes(v, b'<');
        let lower = v | (ONES * 0x20);
        let toon = eq_bytes(lower, b'{')
            | eq_bytes(lower, b'}')
            | eq_bytes(lower, b'|')
            | eq_bytes(v, b':')
            | eq_bytes(v, b',');
        r.quote |= gather(eq_bytes(v, b'"')) << (8 * w);
        r.special |= gather(special) << (8 * w);
        r.toon |= gather(toon) << (8 * w);
    }
    r
}
