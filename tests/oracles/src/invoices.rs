//! The deterministic invoice corpus: what the benches measure (`benches/`, whose figures
//! README.md and docs/ quote: its bytes must not change) and the tests read as large realistic
//! input.
//!
//! Rows are generated from a fixed-seed xorshift generator, so every run and every machine
//! sees the same bytes. About one row in eight has a customer name that needs TOON quoting
//! (commas, quotes, colons) and one in eight has non-ASCII text.
//!
//! * [`Shape::Flat`]: `{id, customer, amount_cents, currency, paid, issued_at}`, the shape of a
//!   database table, which TOON encodes in tabular form.
//! * [`Shape::Nested`]: the same plus `lines`: three order lines `{sku, qty, unit_cents}`.
//!
//! `toolwire demo` and `toolwire serve` generate their own invoices (`toolwire_mcp::demo`):
//! the product's built-in collection, of another shape (an embedded `client`, a `status`).

use toolwire::json::write_json_string;

/// Which variant of the corpus to generate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// One flat object per invoice.
    Flat,
    /// Each invoice also has three order lines.
    Nested,
}

const CUSTOMERS: [&str; 16] = [
    "Acme Corp",
    "Globex",
    "Initech",
    "Umbrella Holdings",
    "Acme, Inc.",
    "Stark Industries",
    "Wayne Enterprises",
    "\"Quoted\" Traders",
    "Hooli",
    "Zoë Café",
    "Vandelay Industries",
    "Soylent: Foods",
    "Tyrell Corporation",
    "日本商事",
    "Cyberdyne Systems",
    "Wonka Industries",
];

const CURRENCIES: [&str; 4] = ["USD", "EUR", "GBP", "JPY"];

/// A small deterministic PRNG (xorshift64*), so the corpus needs no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// The corpus as a JSON array of `rows` invoices (compact JSON text).
///
/// ```
/// use toolwire_oracles::invoices::{self, Shape};
/// let text = invoices::json(2, Shape::Flat);
/// assert!(text.starts_with(br#"[{"id":"INV-0000001","customer":"#));
/// ```
pub fn json(rows: usize, shape: Shape) -> Vec<u8> {
    let per_row = if shape == Shape::Nested { 300 } else { 140 };
    let mut out = Vec::with_capacity(rows * per_row + 2);
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    out.push(b'[');
    for i in 0..rows {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"id\":\"INV-");
        let mut id = itoa_buf(i as u64 + 1);
        while id.len() < 7 {
            id.insert(0, b'0');
        }
        out.extend_from_slice(&id);
        out.extend_from_slice(b"\",\"customer\":");
        write_json_string(&mut out, CUSTOMERS[rng.below(16) as usize].as_bytes());
        out.extend_from_slice(b",\"amount_cents\":");
        write_u64(&mut out, 100 + rng.below(5_000_000));
        out.extend_from_slice(b",\"currency\":\"");
        out.extend_from_slice(CURRENCIES[rng.below(4) as usize].as_bytes());
        out.extend_from_slice(b"\",\"paid\":");
        out.extend_from_slice(if rng.below(3) == 0 { b"false" } else { b"true" });
        let day = rng.below(365);
        let (month, dom) = (1 + day / 31 % 12, 1 + day % 28);
        out.extend_from_slice(
            format!(
                ",\"issued_at\":\"2026-{month:02}-{dom:02}T{:02}:{:02}:00Z\"",
                rng.below(24),
                rng.below(60)
            )
            .as_bytes(),
        );
        if shape == Shape::Nested {
            out.extend_from_slice(b",\"lines\":[");
            for l in 0..3 {
                if l > 0 {
                    out.push(b',');
                }
                out.extend_from_slice(b"{\"sku\":\"SKU-");
                write_u64(&mut out, 1000 + rng.below(9000));
                out.extend_from_slice(b"\",\"qty\":");
                write_u64(&mut out, 1 + rng.below(20));
                out.extend_from_slice(b",\"unit_cents\":");
                write_u64(&mut out, 50 + rng.below(100_000));
                out.push(b'}');
            }
            out.push(b']');
        }
        out.push(b'}');
    }
    out.push(b']');
    out
}

fn itoa_buf(x: u64) -> Vec<u8> {
    let mut v = Vec::new();
    write_u64(&mut v, x);
    v
}

/// `x` in decimal digits.
fn write_u64(out: &mut Vec<u8>, x: u64) {
    use std::io::Write;
    write!(out, "{x}").expect("writing to a Vec cannot fail");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corpus_is_deterministic_valid_json_with_tricky_rows() {
        let a = json(200, Shape::Flat);
        assert_eq!(a, json(200, Shape::Flat));
        let text = std::str::from_utf8(&a).unwrap();
        assert!(
            text.starts_with(r#"[{"id":"INV-0000001","customer":"#),
            "{}",
            &text[..60]
        );
        assert!(text.contains(r#""Acme, Inc.""#));
        assert!(text.contains(r#""\"Quoted\" Traders""#));
        assert!(text.contains("日本商事"));
        let n = json(3, Shape::Nested);
        let n = std::str::from_utf8(&n).unwrap();
        assert_eq!(n.matches("\"sku\"").count(), 9);
        assert_eq!(n.matches("\"id\"").count(), 3);
    }
}
