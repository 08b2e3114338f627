//! Numbers as WIRE.md §1.3 prints them.
//!
//! * Integers (lexeme `-?(0|[1-9][0-9]*)`) keep every digit, however long; `-0` prints `0`.
//! * Other numbers are the nearest f64 and print as ECMAScript's `String(x)`: the shortest
//!   round-trip digits, ties to even, exponent form outside `[1e-6, 1e21)` (`1e+21`, `1e-7`),
//!   `-0` as `0`. Rust's `{}` is not this, so the `ryu-js` crate does the digits.

use crate::sink::Sink;

/// Formats `x` exactly as ECMAScript `String(x)` into a stack buffer. Non-finite values
/// format as `NaN`, `Infinity`, `-Infinity` (callers that need JSON map them to `null`).
#[inline]
pub fn format_f64(buf: &mut ryu_js::Buffer, x: f64) -> &str {
    if x == 0.0 {
        // Both zeros: ECMAScript prints `-0` as `0`.
        return "0";
    }
    buf.format(x)
}

/// Writes `x` as ECMAScript `String(x)` would. Non-finite values are written as `null`, the
/// way `JSON.stringify` and TOON both treat them.
#[inline]
pub fn write_f64<W: Sink + ?Sized>(out: &mut W, x: f64) {
    if !x.is_finite() {
        out.write(b"null");
        return;
    }
    let mut buf = ryu_js::Buffer::new();
    out.write_clean(format_f64(&mut buf, x).as_bytes());
}

/// Writes an integer lexeme (`-?(0|[1-9][0-9]*)`) with all its digits; `-0` becomes `0`.
#[inline]
pub fn write_int_lexeme<W: Sink + ?Sized>(out: &mut W, lexeme: &[u8]) {
    out.write_clean(normalize_int_lexeme(lexeme));
}

/// `-0` → `0`; every other integer lexeme unchanged.
#[inline]
pub fn normalize_int_lexeme(lexeme: &[u8]) -> &[u8] {
    if lexeme == b"-0" { b"0" } else { lexeme }
}

/// Writes an `i64` in decimal.
#[inline]
pub fn write_i64<W: Sink + ?Sized>(out: &mut W, x: i64) {
    let mut buf = itoa::Buffer::new();
    out.write_clean(buf.format(x).as_bytes());
}

/// Writes a `u64` in decimal.
#[inline]
pub fn write_u64<W: Sink + ?Sized>(out: &mut W, x: u64) {
    let mut buf = itoa::Buffer::new();
    out.write_clean(buf.format(x).as_bytes());
}

/// True when `lexeme` matches `-?(0|[1-9][0-9]*)`, the integer form of WIRE.md §1.3.
pub fn is_int_lexeme(lexeme: &[u8]) -> bool {
    let digits = lexeme.strip_prefix(b"-").unwrap_or(lexeme);
    match digits {
        [] => false,
        [b'0'] => true,
        [b'1'..=b'9', rest @ ..] => rest.iter().all(u8::is_ascii_digit),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn js(x: f64) -> String {
        let mut v = Vec::new();
        write_f64(&mut v, x);
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn floats_print_like_javascript() {
        // Expected strings are what `String(x)` prints in a JavaScript engine.
        let cases: &[(f64, &str)] = &[
            (0.0, "0"),
            (-0.0, "0"),
            (1.0, "1"),
            (-1.5, "-1.5"),
            (0.1, "0.1"),
            (0.1 + 0.2, "0.30000000000000004"),
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (123456789012345680000.0, "123456789012345680000"),
            (1e-6, "0.000001"),
            (1e-7, "1e-7"),
            (1.5e-7, "1.5e-7"),
            (5e-324, "5e-324"),
            (f64::MAX, "1.7976931348623157e+308"),
            (9007199254740993.0, "9007199254740992"),
            (f64::NAN, "null"),
            (f64::INFINITY, "null"),
            (f64::NEG_INFINITY, "null"),
        ];
        for &(x, want) in cases {
            assert_eq!(js(x), want, "String({x:e})");
        }
    }

    #[test]
    fn integer_lexemes_keep_digits() {
        let mut v = Vec::new();
        write_int_lexeme(&mut v, b"123456789012345678901234567890");
        v.push(b' ');
        write_int_lexeme(&mut v, b"-0");
        v.push(b' ');
        write_i64(&mut v, i64::MIN);
        v.push(b' ');
        write_u64(&mut v, u64::MAX);
        assert_eq!(
            v,
            b"123456789012345678901234567890 0 -9223372036854775808 18446744073709551615"
        );
    }

    #[test]
    fn integer_lexeme_grammar() {
        for ok in ["0", "-0", "7", "-12", "10000000000000000000000"] {
            assert!(is_int_lexeme(ok.as_bytes()), "{ok}");
        }
        for bad in ["", "-", "01", "-01", "1.0", "1e3", "+1", "1a", " 1"] {
            assert!(!is_int_lexeme(bad.as_bytes()), "{bad}");
        }
    }
}
