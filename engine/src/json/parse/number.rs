//! Non-integer JSON numbers to the nearest f64 (WIRE.md §1.3): Clinger's fast path, then
//! Rust's correctly rounded parser.

/// Exact powers of ten for Clinger's fast path.
pub(super) const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// The nearest f64 of a JSON number lexeme (grammar already checked). Infinite on overflow.
pub(super) fn float_value(lex: &[u8]) -> f64 {
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
