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
    if let Some((digits, len)) = short_decimal(x) {
        out.write_clean(&digits[..len]);
        return;
    }
    let mut buf = ryu_js::Buffer::new();
    out.write_clean(format_f64(&mut buf, x).as_bytes());
}

/// The largest `|x| · 10^6` [`short_decimal`] takes: the product's rounding error and the
/// width of the values that read back as `x`, scaled, are then each under 2^-3, so the
/// product rounded to an integer is the only six-place decimal that can read back as `x`.
const SHORT_MAX: f64 = (1u64 << 49) as f64;

/// Adding and subtracting this rounds an `|y| < 2^51` to an integer (ties to even) with
/// two additions: `f64::round` is a library call on x86-64's baseline.
const ROUNDER: f64 = 6_755_399_441_055_744.0;

/// `x` as ECMAScript's `String(x)` prints it when that is an integer below 2^53 or a decimal
/// of at most six places below about 5·10^8 (prices, rates, measures), `None` for any other
/// (ryu-js prints it). The nearest six-place decimal `m / 10^6` reads back as `x` exactly
/// when the division of the two exact doubles gives `x` (it is correctly rounded, as reading
/// the text is); `m`'s trailing zeros dropped, it is the shortest such text, as ECMAScript
/// asks. Writing 100k rows of the Node bench's corpus from their cells: 13.1 → 8.9 ms.
#[inline]
fn short_decimal(x: f64) -> Option<([u8; 32], usize)> {
    let mut out = [0u8; 32];
    let int = x as i64;
    if int as f64 == x && x.abs() < 9_007_199_254_740_992.0 {
        // Exact below 2^53; -0 prints as 0.
        let mut buf = itoa::Buffer::new();
        let text = buf.format(int).as_bytes();
        out[..text.len()].copy_from_slice(text);
        return Some((out, text.len()));
    }
    let scaled = x * 1e6;
    if scaled.abs() > SHORT_MAX {
        return None;
    }
    let m = (scaled.abs() + ROUNDER) - ROUNDER;
    if m.copysign(x) / 1e6 != x {
        return None;
    }
    // Exact: m ≤ 2^49.
    let mut m = m as u64;
    let mut k = 6;
    while m != 0 && m % 10 == 0 {
        m /= 10;
        k -= 1;
    }
    let mut buf = itoa::Buffer::new();
    let digits = buf.format(m).as_bytes();
    let mut at = 0;
    if x < 0.0 {
        out[0] = b'-';
        at = 1;
    }
    if digits.len() > k {
        let int = digits.len() - k;
        out[at..at + int].copy_from_slice(&digits[..int]);
        at += int;
        out[at] = b'.';
        out[at + 1..at + 1 + k].copy_from_slice(&digits[int..]);
        at += 1 + k;
    } else {
        // 0.00ddd: the places not in the digits are leading zeros.
        let zeros = k - digits.len();
        out[at..at + 2].copy_from_slice(b"0.");
        out[at + 2..at + 2 + zeros].fill(b'0');
        at += 2 + zeros;
        out[at..at + digits.len()].copy_from_slice(digits);
        at += digits.len();
    }
    Some((out, at))
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

    /// What `ryu-js` alone prints for `x` (the slow path of [`write_f64`]).
    fn ryu(x: f64) -> String {
        let mut buf = ryu_js::Buffer::new();
        format_f64(&mut buf, x).to_owned()
    }

    #[test]
    fn short_decimals_print_as_ryu_does() {
        for x in [
            62.875,
            -0.5,
            0.05,
            0.000001,
            -0.000123,
            1.1,
            100.01,
            0.1,
            0.2,
            0.3,
            2.675,
            1e-6,
            123456.789,
            1099511.627776,
            0.1 + 0.2,
            1.0 / 3.0,
            4.35,
            8.675,
            1e15 + 0.5,
            562949953.421311,
            562949953.421313,
            -9.999999,
            0.0000015,
            1e-7,
            7e-7,
        ] {
            assert_eq!(js(x), ryu(x), "{x:e}");
        }
        assert!(short_decimal(62.875).is_some());
        assert!(short_decimal(0.000001).is_some());
        assert!(short_decimal(1.0 / 3.0).is_none());
        assert!(short_decimal(0.1 + 0.2).is_none());
    }

    proptest::proptest! {
        /// The short-decimal path prints what ryu-js prints: decimals of up to six places
        /// made from integers, and any double's bits.
        #[test]
        fn written_floats_are_ryus(
            m in -(1i64 << 52)..(1i64 << 52),
            k in 0usize..9,
            bits in proptest::num::u64::ANY,
        ) {
            let x = m as f64 / POW10[k];
            proptest::prop_assert_eq!(js(x), ryu(x));
            let y = f64::from_bits(bits);
            if y.is_finite() {
                proptest::prop_assert_eq!(js(y), ryu(y));
            }
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
