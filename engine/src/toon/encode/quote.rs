//! Byte classes: what forces quoting, how strings and keys are written.

use super::*;

/// Bytes that force quoting anywhere in a string value: `:` `"` `\` `[` `]` `{` `}`, C0
/// controls, and the delimiter.
pub(super) const fn quote_table(delim: u8) -> [bool; 256] {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        t[b] = true;
        b += 1;
    }
    t[b':' as usize] = true;
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t[b'[' as usize] = true;
    t[b']' as usize] = true;
    t[b'{' as usize] = true;
    t[b'}' as usize] = true;
    t[delim as usize] = true;
    t
}

pub(super) static QUOTE_COMMA: [bool; 256] = quote_table(b',');
pub(super) static QUOTE_TAB: [bool; 256] = quote_table(b'\t');
pub(super) static QUOTE_PIPE: [bool; 256] = quote_table(b'|');

/// Escape class of each byte inside quotes: 0 = literal, `u` = `\u00xx`, else the letter after
/// the backslash.
pub(super) static ESCAPE: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 0x20 {
        t[b] = b'u';
        b += 1;
    }
    t[b'\n' as usize] = b'n';
    t[b'\r' as usize] = b'r';
    t[b'\t' as usize] = b't';
    t[b'"' as usize] = b'"';
    t[b'\\' as usize] = b'\\';
    t
};

/// Bytes allowed after the first in an unquoted key: `[A-Za-z0-9_.]`.
pub(super) static KEY_REST: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = c.is_ascii_alphanumeric() || c == b'_' || c == b'.';
        b += 1;
    }
    t
};

/// True when a string value must be quoted (whole-string rules, then one table scan).
#[inline]
pub(super) fn needs_quotes(s: &[u8], table: &[bool; 256]) -> bool {
    needs_quotes_when(s, |s| any_in_table(s, table))
}

/// [`needs_quotes`] of a string known to hold no byte of any quote table (a bare string of
/// the parser, `Node::StrBare`): the whole-string rules alone.
#[inline(always)]
pub(super) fn bare_needs_quotes(s: &[u8]) -> bool {
    needs_quotes_when(s, |_| false)
}

/// The whole-string rules, with `any_byte` for "a byte forces quotes" between the cheap
/// checks of the ends and the number-like one.
#[inline(always)]
fn needs_quotes_when(s: &[u8], any_byte: impl FnOnce(&[u8]) -> bool) -> bool {
    let (Some(&first), Some(&last)) = (s.first(), s.last()) else {
        return true;
    };
    // One lookup for the first byte's rules; most strings start with a byte that has none.
    let first_rule = FIRST[first as usize];
    if first_rule == First::None as u8 && last != b' ' {
        return any_byte(s);
    }
    if first_rule == First::Quote as u8 || last == b' ' {
        return true;
    }
    if any_byte(s) {
        return true;
    }
    match first_rule {
        r if r == First::Number as u8 => is_numeric_like(s),
        r if r == First::Keyword as u8 => matches!(s, b"true" | b"false" | b"null"),
        _ => false,
    }
}

/// What a string's first byte asks of [`needs_quotes_when`].
#[repr(u8)]
enum First {
    /// Nothing.
    None,
    /// Quotes (` `, `-`, `#`).
    Quote,
    /// Quotes when the string is number-like (a digit or `+`).
    Number,
    /// Quotes when the string is `true`, `false` or `null`.
    Keyword,
}

/// [`First`] of each byte.
static FIRST: [u8; 256] = {
    let mut t = [First::None as u8; 256];
    t[b' ' as usize] = First::Quote as u8;
    t[b'-' as usize] = First::Quote as u8;
    t[b'#' as usize] = First::Quote as u8;
    t[b'+' as usize] = First::Number as u8;
    let mut d = b'0';
    while d <= b'9' {
        t[d as usize] = First::Number as u8;
        d += 1;
    }
    t[b't' as usize] = First::Keyword as u8;
    t[b'f' as usize] = First::Keyword as u8;
    t[b'n' as usize] = First::Keyword as u8;
    t
};

/// True when a byte of `s` is in `table`: eight lookups ORed per branch (overlapping at
/// the end, harmless for "any"), not a branch per byte.
#[inline(always)]
pub(super) fn any_in_table(s: &[u8], table: &[bool; 256]) -> bool {
    let n = s.len();
    if n >= 8 {
        let mut i = 0;
        while i + 8 < n {
            if any_of_eight(&s[i..i + 8], table) {
                return true;
            }
            i += 8;
        }
        return any_of_eight(&s[n - 8..], table);
    }
    if n >= 4 {
        let t = |b: u8| table[b as usize];
        return t(s[0])
            | t(s[1])
            | t(s[2])
            | t(s[3])
            | t(s[n - 4])
            | t(s[n - 3])
            | t(s[n - 2])
            | t(s[n - 1]);
    }
    s.iter().any(|&b| table[b as usize])
}

/// [`any_in_table`] of exactly eight bytes, without a branch.
#[inline(always)]
fn any_of_eight(c: &[u8], table: &[bool; 256]) -> bool {
    let c: &[u8; 8] = c.try_into().expect("eight bytes");
    let t = |b: u8| table[b as usize];
    t(c[0]) | t(c[1]) | t(c[2]) | t(c[3]) | t(c[4]) | t(c[5]) | t(c[6]) | t(c[7])
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = ONES * 0x80;

/// Nonzero when a byte of `w` is `b` (exact for presence: a borrow only leaves a byte that
/// matched).
#[inline(always)]
fn has_byte(w: u64, b: u8) -> u64 {
    let v = w ^ (ONES * u64::from(b));
    v.wrapping_sub(ONES) & !v & HIGHS
}

/// Nonzero when a byte of `w` is a C0 control (below 0x20; exact for presence as above).
#[inline(always)]
fn has_control(w: u64) -> u64 {
    w.wrapping_sub(ONES * 0x20) & !w & HIGHS
}

/// Nonzero when a byte of `w` needs an escape inside quotes ([`ESCAPE`]: `"`, `\\`, C0).
#[inline(always)]
fn escape_word(w: u64) -> u64 {
    has_control(w) | has_byte(w, b'"') | has_byte(w, b'\\')
}

/// True when a byte of `s` needs an escape inside quotes, eight bytes at a time: words at
/// every multiple of 8 and one ending at the end (overlapping is harmless for "any"); under
/// 8 bytes, one word made of the string's bytes (some twice) and padding `a`, which needs
/// none.
#[inline(always)]
pub(super) fn has_escape(s: &[u8]) -> bool {
    let n = s.len();
    let word = |i: usize| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&s[i..i + 8]);
        u64::from_le_bytes(w)
    };
    if n >= 8 {
        let mut i = 0;
        while i + 8 < n {
            if escape_word(word(i)) != 0 {
                return true;
            }
            i += 8;
        }
        return escape_word(word(n - 8)) != 0;
    }
    let w = if n >= 4 {
        let half = |i: usize| {
            let mut w = [0u8; 4];
            w.copy_from_slice(&s[i..i + 4]);
            u64::from(u32::from_le_bytes(w))
        };
        half(0) | half(n - 4) << 32
    } else if n > 0 {
        let b = |i: usize| u64::from(s[i]);
        b(0) | b(n / 2) << 8 | b(n - 1) << 16 | u64::from_le_bytes(*b"\0\0\0aaaaa")
    } else {
        return false;
    };
    escape_word(w) != 0
}

/// `^[+-]?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?$`
pub(super) fn is_numeric_like(s: &[u8]) -> bool {
    fn digits(s: &[u8], i: &mut usize) -> bool {
        let start = *i;
        while *i < s.len() && s[*i].is_ascii_digit() {
            *i += 1;
        }
        *i > start
    }
    let mut i = usize::from(matches!(s.first(), Some(b'+' | b'-')));
    if !digits(s, &mut i) {
        return false;
    }
    if s.get(i) == Some(&b'.') {
        i += 1;
        if !digits(s, &mut i) {
            return false;
        }
    }
    if matches!(s.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(s.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if !digits(s, &mut i) {
            return false;
        }
    }
    i == s.len()
}

#[inline]
pub(super) fn is_unquoted_key(k: &[u8]) -> bool {
    match k.split_first() {
        Some((&f, rest)) => {
            (f.is_ascii_alphabetic() || f == b'_') && rest.iter().all(|&b| KEY_REST[b as usize])
        }
        None => false,
    }
}

/// Writes `s` in double quotes with TOON escapes, copying clean runs in bulk.
pub(super) fn write_quoted<W: Sink + ?Sized>(w: &mut W, s: &[u8]) {
    w.write_byte(b'"');
    if !has_escape(s) {
        w.write_clean(s);
        w.write_byte(b'"');
        return;
    }
    let mut start = 0;
    for (i, &b) in s.iter().enumerate() {
        let e = ESCAPE[b as usize];
        if e == 0 {
            continue;
        }
        if start < i {
            w.write_clean(&s[start..i]);
        }
        if e == b'u' {
            w.write(&crate::escape::u00(b));
        } else if w.escapes() {
            // The pair as JSON escapes it, in one write that needs no escaping pass: `\\`
            // and the letter, or `\\\"` / `\\\\` for a quote or a backslash.
            match e {
                b'"' => w.write_escaped(b"\\\\\\\""),
                b'\\' => w.write_escaped(b"\\\\\\\\"),
                _ => w.write_escaped(&[b'\\', b'\\', e]),
            }
        } else {
            w.write(&[b'\\', e]);
        }
        start = i + 1;
    }
    if start < s.len() {
        w.write_clean(&s[start..]);
    }
    w.write_byte(b'"');
}

#[inline]
pub(super) fn write_key<W: Sink + ?Sized>(w: &mut W, k: &[u8]) {
    if is_unquoted_key(k) {
        w.write_clean(k);
    } else {
        write_quoted(w, k);
    }
}
