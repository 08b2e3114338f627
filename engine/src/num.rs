//! Numbers as WIRE.md §1.3 prints them.
//!
//! * Integers (lexeme `-?(0|[1-9][0-9]*)`) keep every digit, however long; `-0` prints `0`.
//! * Other numbers are the nearest f64 and print as ECMAScript's `String(x)`: the shortest
//!   round-trip digits, ties to even, exponent form outside `[1e-6, 1e21)` (`1e+21`, `1e-7`),
//!   `-0` as `0`. Rust's `{}` is not this, so the `ryu-js` crate does the digits.
//! * Reading them (crate-internal): a non-integer JSON lexeme to its nearest f64 (Clinger's
//!   fast path, then Rust's correctly rounded parser), and whether a lexeme is already the
//!   text its value prints as (the tape then keeps the text).

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

/// Exact powers of ten for Clinger's fast path.
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// True when the non-integer JSON number `lex` (grammar already checked) is exactly the text
/// ECMAScript's `String(x)` gives its nearest f64 `x` (what `num::write_f64` writes), so a
/// writer can copy it: a fraction without an exponent, not ending in `0`, with at most 15
/// significant digits (each such decimal is the shortest that rounds to its f64: two of them
/// never share one, the guarantee of f64's 15 decimal digits), and below 1 at most five zeros
/// after the point (`0.000001`; smaller values are written with an exponent).
/// `int_digits`: the digits before the point. The caller has checked there is no exponent.
#[inline(always)]
pub(crate) fn is_written_as_read(lex: &[u8], int_digits: usize) -> bool {
    debug_assert!(!lex.iter().any(|&b| b | 0x20 == b'e'), "an exponent");
    let neg = usize::from(lex.first() == Some(&b'-'));
    let Some(frac) = lex.get(neg + int_digits + 1..) else {
        return false;
    };
    if frac.is_empty() || frac.last() == Some(&b'0') {
        return false;
    }
    if lex[neg] != b'0' {
        return int_digits + frac.len() <= 15;
    }
    let zeros = frac.iter().take_while(|&&b| b == b'0').count();
    zeros <= 5 && frac.len() - zeros <= 15
}

/// The nearest f64 of a JSON number lexeme (grammar already checked). Infinite on overflow.
pub(crate) fn float_value(lex: &[u8]) -> f64 {
    let (neg, digits) = match lex {
        [b'-', rest @ ..] => (true, rest),
        _ => (false, lex),
    };
    // Clinger's fast path: a significand below 2^53 times/divided by an exact power of ten
    // ≤ 1e22 is one correctly rounded operation. At most 19 digits cannot overflow u64.
    let mut m: u64 = 0;
    let mut i = 0;
    while let Some(&b @ b'0'..=b'9') = digits.get(i) {
        m = m.wrapping_mul(10).wrapping_add((b - b'0') as u64);
        i += 1;
    }
    let mut n_digits = i;
    let mut exp10: i64 = 0;
    if digits.get(i) == Some(&b'.') {
        i += 1;
        let frac = i;
        while let Some(&b @ b'0'..=b'9') = digits.get(i) {
            m = m.wrapping_mul(10).wrapping_add((b - b'0') as u64);
            i += 1;
        }
        n_digits += i - frac;
        exp10 = -((i - frac) as i64);
    }
    if let Some(b'e' | b'E') = digits.get(i) {
        i += 1;
        let eneg = match digits.get(i) {
            Some(b'-') => {
                i += 1;
                true
            }
            Some(b'+') => {
                i += 1;
                false
            }
            _ => false,
        };
        let mut e: i64 = 0;
        while let Some(&b @ b'0'..=b'9') = digits.get(i) {
            // Saturate: anything this large is far outside the fast path anyway.
            e = (e * 10 + (b - b'0') as i64).min(1 << 40);
            i += 1;
        }
        exp10 += if eneg { -e } else { e };
    }
    if n_digits <= 19 && m < 1 << 53 && (-22..=22).contains(&exp10) {
        let m = m as f64; // exact: m < 2^53
        let x = if exp10 < 0 {
            m / POW10[(-exp10) as usize]
        } else {
            m * POW10[exp10 as usize]
        };
        return if neg { -x } else { x };
    }
    // The lexeme is ASCII JSON number syntax, which Rust's parser accepts; it is correctly
    // rounded and gives ±inf on overflow, ±0 on underflow.
    std::str::from_utf8(lex)
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .unwrap_or(f64::INFINITY)
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

    /// `is_written_as_read` of a lexeme, with the parser's checks around it.
    fn kept(lex: &str) -> bool {
        if lex.contains(['e', 'E']) {
            return false;
        }
        let digits = lex.trim_start_matches('-');
        let int_digits = digits.bytes().take_while(u8::is_ascii_digit).count();
        is_written_as_read(lex.as_bytes(), int_digits)
    }

    #[test]
    fn a_kept_lexeme_is_what_its_value_prints_as() {
        for yes in [
            "0.5",
            "-0.5",
            "12.625",
            "0.000001",
            "-0.000123456789012345",
            "12345678901234.5",
            "1.1",
            "100.01",
            "99999999999999.9",
            "0.1",
        ] {
            assert!(kept(yes), "{yes}");
            assert_eq!(js(float_value(yes.as_bytes())), yes);
        }
        // A trailing zero, an exponent, more than 15 significant digits, a value printed with
        // an exponent, an integer-valued fraction: all converted and printed as before.
        for no in [
            "1.50",
            "0.0",
            "-0.0",
            "1.0",
            "1.5e3",
            "1E-2",
            "0.0000001",
            "1234567890123456.5",
            "0.1234567890123456",
            "0.30000000000000004",
            "100000000000000000000.5",
        ] {
            assert!(!kept(no), "{no}");
        }
    }

    proptest::proptest! {
        /// Every lexeme kept prints back as itself, whatever its digits; and the fixed-point
        /// text of any double with at most 15 significant digits is kept.
        #[test]
        fn kept_lexemes_round_trip(
            neg in proptest::bool::ANY,
            int in 0u64..1_000_000_000,
            zeros in 0usize..8,
            frac in 1u64..10_000_000,
        ) {
            let lex = format!("{}{int}.{}{frac}", if neg { "-" } else { "" }, "0".repeat(zeros));
            if kept(&lex) {
                proptest::prop_assert_eq!(js(float_value(lex.as_bytes())), lex.clone());
            }
            let printed = js(float_value(lex.as_bytes()));
            let digits: String = printed.chars().filter(char::is_ascii_digit).collect();
            let sig = digits.trim_start_matches('0').len();
            if printed.contains('.') && !printed.contains('e') && sig <= 15 {
                proptest::prop_assert!(kept(&printed), "{}", printed);
            }
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
