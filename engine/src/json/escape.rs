//! JSON string escaping exactly as `JSON.stringify` does it (WIRE.md §1.3), plus the one
//! deviation of WIRE.md §2: a `<` that starts a reserved tag sequence is written `\u003c`.
//!
//! Input strings are WTF-8: valid UTF-8 except that a lone surrogate (which JSON can carry as
//! `\ud800`) is stored as its 3-byte generalized UTF-8 form `ED A0..BF xx`. Such a sequence is
//! written back as `\udxxx` (lowercase hex), as `JSON.stringify` does.

use crate::sink::Sink;

/// What to do with a byte: 0 = copy; otherwise the escape class.
const NO: u8 = 0;
const QU: u8 = b'"';
const BS: u8 = b'\\';
const B: u8 = b'b';
const F: u8 = b'f';
const N: u8 = b'n';
const R: u8 = b'r';
const T: u8 = b't';
const U: u8 = b'u'; // \u00xx
const LT: u8 = b'<'; // maybe a reserved tag
const ED: u8 = 0xED; // maybe a lone surrogate

/// One entry per byte value; see the class constants above.
static ESCAPE: [u8; 256] = {
    let mut t = [NO; 256];
    let mut i = 0;
    while i < 0x20 {
        t[i] = U;
        i += 1;
    }
    t[0x08] = B;
    t[0x09] = T;
    t[0x0A] = N;
    t[0x0C] = F;
    t[0x0D] = R;
    t[b'"' as usize] = QU;
    t[b'\\' as usize] = BS;
    t[b'<' as usize] = LT;
    t[0xED] = ED;
    t
};

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Writes `s` (WTF-8) as a JSON string literal, quotes included.
#[inline]
pub fn write_json_string<W: Sink + ?Sized>(out: &mut W, s: &[u8]) {
    out.write_byte(b'"');
    write_json_string_body(out, s);
    out.write_byte(b'"');
}

/// Writes the escaped body of `s` (WTF-8) without the surrounding quotes.
pub fn write_json_string_body<W: Sink + ?Sized>(out: &mut W, s: &[u8]) {
    let mut start = 0;
    let mut i = 0;
    while i < s.len() {
        let class = ESCAPE[s[i] as usize];
        if class == NO {
            i += 1;
            continue;
        }
        let replacement: &[u8];
        let mut buf = [0u8; 6];
        let consumed;
        match class {
            LT => {
                if !crate::tag::starts_reserved_tag(s, i) {
                    i += 1;
                    continue;
                }
                replacement = b"\\u003c";
                consumed = 1;
            }
            ED => {
                // A lone surrogate is ED A0..BF xx; ED 80..9F xx is ordinary UTF-8 (U+D000..U+D7FF).
                match s.get(i + 1..i + 3) {
                    Some(&[b1, b2]) if (0xA0..=0xBF).contains(&b1) => {
                        let cp = 0xD000 | (u32::from(b1 & 0x3F) << 6) | u32::from(b2 & 0x3F);
                        buf = [
                            b'\\',
                            b'u',
                            HEX[(cp >> 12) as usize & 0xF],
                            HEX[(cp >> 8) as usize & 0xF],
                            HEX[(cp >> 4) as usize & 0xF],
                            HEX[cp as usize & 0xF],
                        ];
                        replacement = &buf;
                        consumed = 3;
                    }
                    _ => {
                        i += 1;
                        continue;
                    }
                }
            }
            U => {
                let b = s[i];
                buf = [
                    b'\\',
                    b'u',
                    b'0',
                    b'0',
                    HEX[(b >> 4) as usize],
                    HEX[(b & 0xF) as usize],
                ];
                replacement = &buf;
                consumed = 1;
            }
            c => {
                buf[0] = b'\\';
                buf[1] = c;
                replacement = &buf[..2];
                consumed = 1;
            }
        }
        if start < i {
            out.write(&s[start..i]);
        }
        out.write(replacement);
        i += consumed;
        start = i;
    }
    if start < s.len() {
        out.write(&s[start..]);
    }
}

/// Encodes a lone surrogate code point (`0xD800..=0xDFFF`) as the 3 WTF-8 bytes the crate
/// stores for it.
#[inline]
pub fn surrogate_to_wtf8(cp: u16) -> [u8; 3] {
    debug_assert!((0xD800..=0xDFFF).contains(&cp));
    [
        0xED,
        0x80 | ((cp >> 6) & 0x3F) as u8,
        0x80 | (cp & 0x3F) as u8,
    ]
}

/// True when WTF-8 bytes `s` hold a lone surrogate.
#[inline]
pub fn has_lone_surrogate(s: &[u8]) -> bool {
    memchr::memchr_iter(0xED, s).any(|i| s.get(i + 1).is_some_and(|b| (0xA0..=0xBF).contains(b)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn esc(s: &[u8]) -> String {
        let mut v = Vec::new();
        write_json_string(&mut v, s);
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn matches_json_stringify() {
        assert_eq!(esc(b""), r#""""#);
        assert_eq!(esc(b"plain"), r#""plain""#);
        assert_eq!(esc(b"q\"b\\s/"), r#""q\"b\\s/""#);
        assert_eq!(esc(b"\x08\x0c\n\r\t"), r#""\b\f\n\r\t""#);
        assert_eq!(esc(b"\x00\x01\x1f\x7f"), "\"\\u0000\\u0001\\u001f\x7f\"");
        assert_eq!(esc("é€😀\u{2028}".as_bytes()), "\"é€😀\u{2028}\"");
        // U+D7FF is ED 9F BF: ordinary UTF-8, copied.
        assert_eq!(esc("\u{D7FF}".as_bytes()), "\"\u{D7FF}\"");
    }

    #[test]
    fn lone_surrogates_round_trip_as_escapes() {
        let mut s = b"a".to_vec();
        s.extend_from_slice(&surrogate_to_wtf8(0xD800));
        s.extend_from_slice(&surrogate_to_wtf8(0xDFFF));
        s.push(b'z');
        assert!(has_lone_surrogate(&s));
        assert!(!has_lone_surrogate("\u{D7FF}é".as_bytes()));
        assert_eq!(esc(&s), r#""a\ud800\udfffz""#);
    }

    #[test]
    fn reserved_tags_are_neutralised() {
        assert_eq!(esc(b"<tool_error>"), r#""\u003ctool_error>""#);
        assert_eq!(esc(b"a</Domain_Rules>"), r#""a\u003c/Domain_Rules>""#);
        assert_eq!(esc(b"<b> <tool_errors>"), r#""<b> <tool_errors>""#);
    }
}
