//! The word-at-a-time (SWAR) kernels of the parser: eight bytes per step for string runs,
//! digit runs and short compares. Kept apart from the grammar, as memchr keeps its
//! architecture code apart; the SIMD block kernels sit beside it in `scan`.

pub(super) const ONES: u64 = 0x0101_0101_0101_0101;
pub(super) const HIGHS: u64 = 0x8080_8080_8080_8080;

/// High bit set in each byte of `v` that is zero, and possibly in bytes above such a byte
/// (a borrow), never below: the lowest set bit marks the first zero byte exactly.
#[inline(always)]
pub(super) fn zero_bytes(v: u64) -> u64 {
    v.wrapping_sub(ONES) & !v & HIGHS
}

/// Same as [`zero_bytes`] for bytes below 0x20 (bytes ≥ 0x80 are never flagged).
#[inline(always)]
pub(super) fn control_bytes(v: u64) -> u64 {
    v.wrapping_sub(ONES * 0x20) & !v & HIGHS
}

/// The little-endian word of the eight bytes of `src` at `i`, when there are eight.
#[inline(always)]
fn word_at(src: &[u8], i: usize) -> Option<u64> {
    let mut word = [0u8; 8];
    word.copy_from_slice(src.get(i..i + 8)?);
    Some(u64::from_le_bytes(word))
}

/// The bytes of `x` that end a string's run (`"`, `\`, a control byte), marked as by
/// [`zero_bytes`]: the lowest mark is exact.
#[inline(always)]
fn run_stops(x: u64) -> u64 {
    zero_bytes(x ^ (ONES * b'"' as u64)) | zero_bytes(x ^ (ONES * b'\\' as u64)) | control_bytes(x)
}

/// The `<` bytes of `x`, marked as by [`zero_bytes`] (nonzero exactly when there is one).
#[inline(always)]
fn lt_bytes(x: u64) -> u64 {
    zero_bytes(x ^ (ONES * b'<' as u64))
}

/// Scans a run of string bytes from `i` to the first `"`, `\` or control byte (or the end
/// of `src`). Also returns an over-approximation of "the run holds a byte ≥ 0x80" and
/// "the run holds a `<`" (bytes past the stop in its 8-byte word may count; callers check
/// exactly when set).
#[inline(always)]
pub(super) fn scan_run(src: &[u8], i: usize) -> (usize, bool, bool) {
    #[cfg(target_arch = "x86_64")]
    let i = {
        let mut i = i;
        let (mut hi16, mut lt16) = (0u32, 0u32);
        while i + 16 <= src.len() {
            // SAFETY: `i + 16 <= src.len()`, so the unaligned 16-byte load reads only bytes
            // of `src`; SSE2 is part of the x86_64 baseline, so every intrinsic is available.
            let (stop, h, l) = unsafe {
                use std::arch::x86_64::*;
                let x = _mm_loadu_si128(src.as_ptr().add(i).cast::<__m128i>());
                let quote = _mm_cmpeq_epi8(x, _mm_set1_epi8(b'"' as i8));
                let backslash = _mm_cmpeq_epi8(x, _mm_set1_epi8(b'\\' as i8));
                // Unsigned `x < 0x20` as a signed compare with both sides' top bit flipped.
                let control = _mm_cmplt_epi8(
                    _mm_xor_si128(x, _mm_set1_epi8(i8::MIN)),
                    _mm_set1_epi8((0x20u8 ^ 0x80) as i8),
                );
                let lt = _mm_cmpeq_epi8(x, _mm_set1_epi8(b'<' as i8));
                (
                    _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, backslash), control)) as u32,
                    _mm_movemask_epi8(x) as u32,
                    _mm_movemask_epi8(lt) as u32,
                )
            };
            hi16 |= h;
            lt16 |= l;
            if stop != 0 {
                return (i + stop.trailing_zeros() as usize, hi16 != 0, lt16 != 0);
            }
            i += 16;
        }
        if hi16 | lt16 != 0 {
            let (end, hi, lt) = scan_run_words(src, i);
            return (end, hi || hi16 != 0, lt || lt16 != 0);
        }
        i
    };
    scan_run_words(src, i)
}

/// The portable part of [`scan_run`]: 8-byte words, then single bytes.
#[inline(always)]
pub(super) fn scan_run_words(src: &[u8], mut i: usize) -> (usize, bool, bool) {
    let mut hi = 0u64;
    let mut lt = 0u64;
    while let Some(x) = word_at(src, i) {
        let stop = run_stops(x);
        hi |= x;
        lt |= lt_bytes(x);
        if stop != 0 {
            i += (stop.trailing_zeros() / 8) as usize;
            return (i, hi & HIGHS != 0, lt != 0);
        }
        i += 8;
    }
    let mut hi = hi & HIGHS != 0;
    let mut lt = lt != 0;
    while let Some(&b) = src.get(i) {
        if b == b'"' || b == b'\\' || b < 0x20 {
            break;
        }
        hi |= b >= 0x80;
        lt |= b == b'<';
        i += 1;
    }
    (i, hi, lt)
}

/// [`scan_run`] of a run whose byte at `i` is ≥ 0x80, its UTF-8 validated on the way (one
/// pass where the scan and a `from_utf8` of the string were two): the end of the run (the
/// first `"`, `\` or control byte, or the end of `src`), "the run holds a `<`"
/// (over-approximated as by [`scan_run`]), and `false` when a byte from `i` on does not
/// continue valid UTF-8 (the end is then that byte's sequence; the caller finds the error
/// as before).
#[inline(always)]
pub(super) fn scan_run_utf8(src: &[u8], mut i: usize) -> (usize, bool, bool) {
    let mut lt = 0u64;
    loop {
        // ASCII eight bytes at a time, to the next stop or byte ≥ 0x80.
        while let Some(x) = word_at(src, i) {
            // Each term's lowest set bit is exact, so is the lowest of their union.
            let stop = run_stops(x) | (x & HIGHS);
            lt |= lt_bytes(x);
            if stop != 0 {
                i += (stop.trailing_zeros() / 8) as usize;
                break;
            }
            i += 8;
        }
        let Some(&b) = src.get(i) else {
            return (i, lt != 0, true);
        };
        if b < 0x80 {
            if b == b'"' || b == b'\\' || b < 0x20 {
                return (i, lt != 0, true);
            }
            lt |= u64::from(b == b'<');
            i += 1;
            continue;
        }
        // Characters one after another (a CJK run) without going back to the word loop.
        loop {
            match utf8_len(src, i) {
                Some(n) => i += n,
                None => return (i, lt != 0, false),
            }
            if src.get(i).is_none_or(|&b| b < 0x80) {
                break;
            }
        }
    }
}

/// The length of the UTF-8 character starting at `src[i]` (a byte ≥ 0x80), or `None` when
/// the bytes there are not one (Unicode's table 3-7 of well-formed sequences: no overlong
/// form, no surrogate, nothing past U+10FFFF, no character cut by the end).
#[inline(always)]
fn utf8_len(src: &[u8], i: usize) -> Option<usize> {
    let at = |k: usize, lo: u8, hi: u8| src.get(i + k).is_some_and(|c| (lo..=hi).contains(c));
    let tail = |k: usize| (1..k).all(|j| at(j, 0x80, 0xBF));
    match src[i] {
        0xC2..=0xDF => at(1, 0x80, 0xBF).then_some(2),
        0xE0 => (at(1, 0xA0, 0xBF) && at(2, 0x80, 0xBF)).then_some(3),
        0xE1..=0xEC | 0xEE..=0xEF => tail(3).then_some(3),
        0xED => (at(1, 0x80, 0x9F) && at(2, 0x80, 0xBF)).then_some(3),
        0xF0 => (at(1, 0x90, 0xBF) && at(2, 0x80, 0xBF) && at(3, 0x80, 0xBF)).then_some(4),
        0xF1..=0xF3 => tail(4).then_some(4),
        0xF4 => (at(1, 0x80, 0x8F) && at(2, 0x80, 0xBF) && at(3, 0x80, 0xBF)).then_some(4),
        _ => None,
    }
}

/// The end of the run of ASCII digits starting at `i`: 8 bytes at a time, then bytewise.
#[inline(always)]
pub(super) fn skip_digits(src: &[u8], mut i: usize) -> usize {
    while let Some(chunk) = src.get(i..i + 8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        // Per byte, `a` is 0..=9 exactly for a digit. Adding 0x76 to its low 7 bits sets the
        // high bit when they exceed 9 and never carries into the next byte (0x7F + 0x76 <
        // 0x100); `a`'s own high bit marks the bytes ≥ 0x80.
        let a = u64::from_le_bytes(word) ^ (ONES * b'0' as u64);
        let other = ((a & (ONES * 0x7F)).wrapping_add(ONES * 0x76) | a) & HIGHS;
        if other != 0 {
            return i + (other.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while let Some(b'0'..=b'9') = src.get(i) {
        i += 1;
    }
    i
}

/// The end of the number at `i` when it is an integer of one to seven digits with no sign,
/// no leading zero, and a byte after it (in the same 8-byte word) that is not a digit, `.`,
/// `e` or `E`: what [`Parser::number`](super::lex::Parser::number) would take as such an
/// integer, from one word. `None` for anything else (that lexer then decides), and when
/// fewer than 8 bytes are left.
#[inline(always)]
pub(super) fn short_int(src: &[u8], i: usize) -> Option<usize> {
    let mut word = [0u8; 8];
    word.copy_from_slice(src.get(i..i + 8)?);
    let w = u64::from_le_bytes(word);
    // As in [`skip_digits`]: the high bit of each byte that is not a digit.
    let a = w ^ (ONES * b'0' as u64);
    let other = ((a & (ONES * 0x7F)).wrapping_add(ONES * 0x76) | a) & HIGHS;
    let n = other.trailing_zeros() / 8;
    // No digit (a `-`), eight or more, or a leading zero before more digits.
    if n == 0 || n == 8 || (w as u8 == b'0' && n > 1) {
        return None;
    }
    let next = (w >> (8 * n)) as u8;
    if next == b'.' || next | 0x20 == b'e' {
        return None;
    }
    Some(i + n as usize)
}

/// `a == b` for two slices of the same length, without a `memcmp` call for short keys.
#[inline(always)]
pub(super) fn bytes_eq(a: &[u8], b: &[u8]) -> bool {
    debug_assert_eq!(a.len(), b.len());
    let n = a.len();
    let word = |s: &[u8], i: usize| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&s[i..i + 8]);
        u64::from_le_bytes(w)
    };
    let half = |s: &[u8], i: usize| {
        let mut w = [0u8; 4];
        w.copy_from_slice(&s[i..i + 4]);
        u32::from_le_bytes(w)
    };
    let wide = |s: &[u8], i: usize| {
        let mut w = [0u8; 16];
        w.copy_from_slice(&s[i..i + 16]);
        u128::from_le_bytes(w)
    };
    match n {
        0..=3 => a == b,
        4..=8 => half(a, 0) == half(b, 0) && half(a, n - 4) == half(b, n - 4),
        9..=16 => word(a, 0) == word(b, 0) && word(a, n - 8) == word(b, n - 8),
        17..=32 => wide(a, 0) == wide(b, 0) && wide(a, n - 16) == wide(b, n - 16),
        _ => a == b,
    }
}

#[inline]
pub(super) fn hex_val(b: u8) -> Option<u16> {
    match b {
        b'0'..=b'9' => Some((b - b'0') as u16),
        b'a'..=b'f' => Some((b - b'a' + 10) as u16),
        b'A'..=b'F' => Some((b - b'A' + 10) as u16),
        _ => None,
    }
}
