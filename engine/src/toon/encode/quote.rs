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
    let (Some(&first), Some(&last)) = (s.first(), s.last()) else {
        return true;
    };
    if matches!(first, b' ' | b'-' | b'#') || last == b' ' {
        return true;
    }
    if s.iter().any(|&b| table[b as usize]) {
        return true;
    }
    match first {
        b'0'..=b'9' | b'+' => is_numeric_like(s),
        b't' | b'f' | b'n' => matches!(s, b"true" | b"false" | b"null"),
        _ => false,
    }
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
