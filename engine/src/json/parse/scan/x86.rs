//! The x86-64 kernels: SSE2 (part of the x86-64 baseline, always available) and AVX2
//! (detected at run time). Each classifies one 64-byte block into the masks of [`Raw`] or,
//! for strings, of [`Str`].

use std::arch::x86_64::*;

use super::{Raw, Str};

/// The quote, backslash, structural, whitespace and special masks of 16 bytes.
///
/// # Safety
///
/// SSE2 must be available (it is on every x86-64 CPU).
#[inline(always)]
unsafe fn sse2_masks(x: __m128i) -> [u32; 5] {
    // SAFETY: SSE2 intrinsics on register values only; SSE2 is baseline on x86-64.
    unsafe {
        let eq = |c: u8| _mm_cmpeq_epi8(x, _mm_set1_epi8(c as i8));
        let lower = _mm_or_si128(x, _mm_set1_epi8(0x20));
        let op = _mm_or_si128(
            _mm_or_si128(
                _mm_cmpeq_epi8(lower, _mm_set1_epi8(b'{' as i8)),
                _mm_cmpeq_epi8(lower, _mm_set1_epi8(b'}' as i8)),
            ),
            _mm_or_si128(eq(b':'), eq(b',')),
        );
        let ws = _mm_or_si128(
            _mm_or_si128(eq(b' '), eq(b'\n')),
            _mm_or_si128(eq(b'\r'), eq(b'\t')),
        );
        let backslash = eq(b'\\');
        // Unsigned `x < 0x20`, as a signed compare with both sides' top bit flipped.
        let control = _mm_cmplt_epi8(
            _mm_xor_si128(x, _mm_set1_epi8(i8::MIN)),
            _mm_set1_epi8((0x20u8 ^ 0x80) as i8),
        );
        // Bytes ≥ 0x80 are the sign bits of `x` itself.
        let special = _mm_or_si128(_mm_or_si128(backslash, control), _mm_or_si128(eq(b'<'), x));
        [
            _mm_movemask_epi8(eq(b'"')) as u32,
            _mm_movemask_epi8(backslash) as u32,
            _mm_movemask_epi8(op) as u32,
            _mm_movemask_epi8(ws) as u32,
            _mm_movemask_epi8(special) as u32,
        ]
    }
}

/// Classifies one block with SSE2, 16 bytes at a time.
#[inline(always)]
pub(super) fn classify_sse2(block: &[u8; 64]) -> Raw {
    let mut r = Raw::default();
    for k in 0..4 {
        // SAFETY: `16 * k + 16 <= 64`, so the unaligned load reads only bytes of `block`;
        // SSE2 is baseline on x86-64.
        let m = unsafe {
            let x = _mm_loadu_si128(block.as_ptr().add(16 * k).cast::<__m128i>());
            sse2_masks(x)
        };
        r.put(m, 16 * k);
    }
    r
}

/// Classifies one block with AVX2, 32 bytes at a time.
///
/// # Safety
///
/// The CPU must support AVX2.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn classify_avx2(block: &[u8; 64]) -> Raw {
    let mut r = Raw::default();
    for k in 0..2 {
        // SAFETY: `32 * k + 32 <= 64`, so the unaligned load reads only bytes of `block`;
        // the caller guarantees AVX2.
        let m: [u32; 5] = unsafe {
            let x = _mm256_loadu_si256(block.as_ptr().add(32 * k).cast::<__m256i>());
            let eq = |c: u8| _mm256_cmpeq_epi8(x, _mm256_set1_epi8(c as i8));
            let lower = _mm256_or_si256(x, _mm256_set1_epi8(0x20));
            let op = _mm256_or_si256(
                _mm256_or_si256(
                    _mm256_cmpeq_epi8(lower, _mm256_set1_epi8(b'{' as i8)),
                    _mm256_cmpeq_epi8(lower, _mm256_set1_epi8(b'}' as i8)),
                ),
                _mm256_or_si256(eq(b':'), eq(b',')),
            );
            let ws = _mm256_or_si256(
                _mm256_or_si256(eq(b' '), eq(b'\n')),
                _mm256_or_si256(eq(b'\r'), eq(b'\t')),
            );
            let backslash = eq(b'\\');
            // Unsigned `x < 0x20`: `max(x, 0x1F) == 0x1F`.
            let control = _mm256_cmpeq_epi8(
                _mm256_max_epu8(x, _mm256_set1_epi8(0x1F)),
                _mm256_set1_epi8(0x1F),
            );
            let special = _mm256_or_si256(
                _mm256_or_si256(backslash, control),
                _mm256_or_si256(eq(b'<'), x),
            );
            [
                _mm256_movemask_epi8(eq(b'"')) as u32,
                _mm256_movemask_epi8(backslash) as u32,
                _mm256_movemask_epi8(op) as u32,
                _mm256_movemask_epi8(ws) as u32,
                _mm256_movemask_epi8(special) as u32,
            ]
        };
        r.put(m, 32 * k);
    }
    r
}

/// The string masks of one block with SSE2.
#[inline(always)]
pub(super) fn classify_str_sse2(block: &[u8; 64]) -> Str {
    let mut r = Str::default();
    for k in 0..4 {
        // SAFETY: `16 * k + 16 <= 64`, so the unaligned load reads only bytes of `block`;
        // SSE2 is baseline on x86-64.
        let (q, sp, t) = unsafe {
            let x = _mm_loadu_si128(block.as_ptr().add(16 * k).cast::<__m128i>());
            let eq = |c: u8| _mm_cmpeq_epi8(x, _mm_set1_epi8(c as i8));
            let control = _mm_cmplt_epi8(
                _mm_xor_si128(x, _mm_set1_epi8(i8::MIN)),
                _mm_set1_epi8((0x20u8 ^ 0x80) as i8),
            );
            let special = _mm_or_si128(_mm_or_si128(eq(b'\\'), control), _mm_or_si128(eq(b'<'), x));
            let lower = _mm_or_si128(x, _mm_set1_epi8(0x20));
            let low = |c: u8| _mm_cmpeq_epi8(lower, _mm_set1_epi8(c as i8));
            let toon = _mm_or_si128(
                _mm_or_si128(low(b'{'), low(b'}')),
                _mm_or_si128(low(b'|'), _mm_or_si128(eq(b':'), eq(b','))),
            );
            (
                _mm_movemask_epi8(eq(b'"')) as u32,
                _mm_movemask_epi8(special) as u32,
                _mm_movemask_epi8(toon) as u32,
            )
        };
        r.quote |= (q as u64) << (16 * k);
        r.special |= (sp as u64) << (16 * k);
        r.toon |= (t as u64) << (16 * k);
    }
    r
}

/// Class bits of the string kernel's nibble tables ([`classify_str_avx2`]): a byte is in a
/// class when its low nibble's entry and its high nibble's entry both hold the bit.
mod nibble {
    /// `"`: bit 7, so a movemask reads it as is.
    pub(super) const QUOTE: u8 = 0x80;
    /// Bytes below 0x20 (high nibble 0 or 1, any low nibble).
    pub(super) const CONTROL: u8 = 0x40;
    /// `<` and `\` (high nibble 3 or 5, low nibble C).
    pub(super) const ANGLE_BACKSLASH: u8 = 0x20;
    /// `[`, `\`, `]`, `{`, `|`, `}` (high nibble 5 or 7, low nibble B, C or D).
    pub(super) const BRACKETS: u8 = 0x10;
    /// `:` (0x3A).
    pub(super) const COLON: u8 = 0x08;
    /// `,` (0x2C).
    pub(super) const COMMA: u8 = 0x04;

    /// The entries by low nibble.
    pub(super) const LOW: [u8; 16] = {
        let mut t = [CONTROL; 16];
        t[0x2] |= QUOTE;
        t[0xA] |= COLON;
        t[0xB] |= BRACKETS;
        t[0xC] |= ANGLE_BACKSLASH | BRACKETS | COMMA;
        t[0xD] |= BRACKETS;
        t
    };

    /// The entries by high nibble (0 from 8 on: those bytes are special by their high bit).
    pub(super) const HIGH: [u8; 16] = {
        let mut t = [0; 16];
        t[0x0] = CONTROL;
        t[0x1] = CONTROL;
        t[0x2] = QUOTE | COMMA;
        t[0x3] = ANGLE_BACKSLASH | COLON;
        t[0x5] = ANGLE_BACKSLASH | BRACKETS;
        t[0x7] = BRACKETS;
        t
    };
}

/// The string masks of one block with AVX2: each byte's classes from two nibble lookups
/// (`vpshufb`, as simdjson classifies), then one movemask per mask.
///
/// # Safety
///
/// The CPU must support AVX2.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn classify_str_avx2(block: &[u8; 64]) -> Str {
    let mut r = Str::default();
    // SAFETY: register-only intrinsics and 16-byte reads of the two tables; the caller
    // guarantees AVX2.
    let (low_t, high_t, nib) = unsafe {
        (
            _mm256_broadcastsi128_si256(_mm_loadu_si128(nibble::LOW.as_ptr().cast())),
            _mm256_broadcastsi128_si256(_mm_loadu_si128(nibble::HIGH.as_ptr().cast())),
            _mm256_set1_epi8(0x0F),
        )
    };
    for k in 0..2 {
        // SAFETY: `32 * k + 32 <= 64`, so the unaligned load reads only bytes of `block`;
        // the rest are register-only intrinsics; the caller guarantees AVX2.
        let (q, sp, t) = unsafe {
            let x = _mm256_loadu_si256(block.as_ptr().add(32 * k).cast::<__m256i>());
            let lo = _mm256_shuffle_epi8(low_t, _mm256_and_si256(x, nib));
            let hi = _mm256_shuffle_epi8(high_t, _mm256_and_si256(_mm256_srli_epi16(x, 4), nib));
            let class = _mm256_and_si256(lo, hi);
            // Adding 0x60 to the control and `<`/`\` bits alone (0x20, 0x40 or both) sets
            // bit 7 exactly when one is set; adding 0x7C to the toon bits alone (0x04 to
            // 0x1C) likewise. Bytes from 0x80 on are special by their own bit 7.
            let special = _mm256_or_si256(
                _mm256_add_epi8(
                    _mm256_and_si256(
                        class,
                        _mm256_set1_epi8((nibble::CONTROL | nibble::ANGLE_BACKSLASH) as i8),
                    ),
                    _mm256_set1_epi8(0x60),
                ),
                x,
            );
            let toon = _mm256_add_epi8(
                _mm256_and_si256(
                    class,
                    _mm256_set1_epi8((nibble::BRACKETS | nibble::COLON | nibble::COMMA) as i8),
                ),
                _mm256_set1_epi8(0x7C),
            );
            (
                _mm256_movemask_epi8(class) as u32,
                _mm256_movemask_epi8(special) as u32,
                _mm256_movemask_epi8(toon) as u32,
            )
        };
        r.quote |= (q as u64) << (32 * k);
        r.special |= (sp as u64) << (32 * k);
        r.toon |= (t as u64) << (32 * k);
    }
    r
}

/// [`classify_str_avx2`] written into `out`: the parser's entry ([`super::StrKernel`]),
/// so the masks go straight into its block state.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn classify_str_avx2_into(block: &[u8; 64], out: &mut Str) {
    // SAFETY: the callee needs the features this function is compiled with.
    *out = unsafe { classify_str_avx2(block) };
}
