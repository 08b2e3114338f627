//! The aarch64 kernel: NEON (part of the aarch64 baseline, so no detection), 16 bytes at a
//! time. NEON has no byte movemask; four compare results are folded into one 64-bit mask
//! by weighting each lane with its bit and adding pairs three times.

use std::arch::aarch64::*;

use super::{Raw, Str};

/// Bit `i` of the result is set when lane `i % 16` of vector `i / 16` is all ones.
#[inline(always)]
fn movemask64(v: [uint8x16_t; 4]) -> u64 {
    const WEIGHTS: [u8; 16] = [1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128];
    // SAFETY: NEON is baseline on aarch64; `WEIGHTS` is 16 readable bytes.
    unsafe {
        let w = vld1q_u8(WEIGHTS.as_ptr());
        let a = vpaddq_u8(vandq_u8(v[0], w), vandq_u8(v[1], w));
        let b = vpaddq_u8(vandq_u8(v[2], w), vandq_u8(v[3], w));
        let s = vpaddq_u8(a, b);
        let s = vpaddq_u8(s, s);
        vgetq_lane_u64::<0>(vreinterpretq_u64_u8(s))
    }
}

/// Classifies one block with NEON.
#[inline(always)]
pub(super) fn classify_neon(block: &[u8; 64]) -> Raw {
    // SAFETY: every load reads 16 bytes at `16 * k` with `k < 4`, inside `block`; the rest
    // are register-only NEON intrinsics, and NEON is baseline on aarch64.
    unsafe {
        let masks = |k: usize| {
            let x = vld1q_u8(block.as_ptr().add(16 * k));
            let eq = |c: u8| vceqq_u8(x, vdupq_n_u8(c));
            let lower = vorrq_u8(x, vdupq_n_u8(0x20));
            let backslash = eq(b'\\');
            let op = vorrq_u8(
                vorrq_u8(
                    vceqq_u8(lower, vdupq_n_u8(b'{')),
                    vceqq_u8(lower, vdupq_n_u8(b'}')),
                ),
                vorrq_u8(eq(b':'), eq(b',')),
            );
            let ws = vorrq_u8(
                vorrq_u8(eq(b' '), eq(b'\n')),
                vorrq_u8(eq(b'\r'), eq(b'\t')),
            );
            let control = vcltq_u8(x, vdupq_n_u8(0x20));
            let high = vcgeq_u8(x, vdupq_n_u8(0x80));
            let special = vorrq_u8(vorrq_u8(backslash, control), vorrq_u8(eq(b'<'), high));
            [eq(b'"'), backslash, op, ws, special]
        };
        let (a, b, c, d) = (masks(0), masks(1), masks(2), masks(3));
        let all = |i: usize| movemask64([a[i], b[i], c[i], d[i]]);
        Raw {
            quote: all(0),
            backslash: all(1),
            op: all(2),
            ws: all(3),
            special: all(4),
        }
    }
}

/// The string masks of one block with NEON.
#[inline(always)]
pub(super) fn classify_str_neon(block: &[u8; 64]) -> Str {
    let r = classify_neon(block);
    // SAFETY: every load reads 16 bytes at `16 * k` with `k < 4`, inside `block`; the rest
    // are register-only NEON intrinsics, and NEON is baseline on aarch64.
    let bars = unsafe {
        let bar = |k: usize| {
            let lower = vorrq_u8(vld1q_u8(block.as_ptr().add(16 * k)), vdupq_n_u8(0x20));
            vceqq_u8(lower, vdupq_n_u8(b'|'))
        };
        movemask64([bar(0), bar(1), bar(2), bar(3)])
    };
    Str {
        quote: r.quote,
        special: r.special,
        // `op` is `{}[]:,`; `|` and `\` are the bytes that equal `|` once 0x20 is set.
        toon: r.op | bars,
    }
}
