//! A JSON scalar from the client (a `where` value, a `get` id) and the server's equality rules:
//! when a row's value equals one. The `where` and `get` of every collection answer by these
//! rules; `filter`'s indexes only propose candidates and check each with them.

use serde_json::Value;
use toolwire::ValueRef;
use toolwire::doc::Number;

/// A JSON scalar from the client: a `where` value or an id.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Scalar {
    Null,
    Bool(bool),
    /// A number by its lexeme (serde_json keeps it with `arbitrary_precision`).
    Number(String),
    String(String),
}

impl Scalar {
    pub(crate) fn from_json(v: &Value) -> Option<Scalar> {
        Some(match v {
            Value::Null => Scalar::Null,
            Value::Bool(b) => Scalar::Bool(*b),
            Value::Number(n) => Scalar::Number(n.to_string()),
            Value::String(s) => Scalar::String(s.clone()),
            Value::Array(_) | Value::Object(_) => return None,
        })
    }

    /// Back to JSON, for the next-call hint.
    pub(crate) fn to_json(&self) -> Value {
        match self {
            Scalar::Null => Value::Null,
            Scalar::Bool(b) => Value::Bool(*b),
            Scalar::Number(n) => serde_json::from_str(n).unwrap_or(Value::Null),
            Scalar::String(s) => Value::String(s.clone()),
        }
    }
}

/// Does the row's field equal the client's scalar? Strings exactly, numbers by value
/// (integer lexemes digit for digit, else as f64), booleans and null as themselves; a missing
/// field equals nothing.
pub(crate) fn field_equals(row: toolwire::Value<'_>, field: &str, want: &Scalar) -> bool {
    let Some(v) = row.as_object().and_then(|o| o.get(field.as_bytes())) else {
        return false;
    };
    match (v.get(), want) {
        (ValueRef::Null, Scalar::Null) => true,
        (ValueRef::Bool(a), Scalar::Bool(b)) => a == *b,
        (ValueRef::String(s), Scalar::String(w)) => s.as_bytes() == w.as_bytes(),
        (ValueRef::Number(n), Scalar::Number(w)) => number_equals(n, w),
        _ => false,
    }
}

pub(crate) fn is_integer_lexeme(s: &str) -> bool {
    let d = s.strip_prefix('-').unwrap_or(s);
    !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()) && (d == "0" || !d.starts_with('0'))
}

fn number_equals(n: Number<'_>, want: &str) -> bool {
    if let Number::Int(lexeme) = n {
        if is_integer_lexeme(want) {
            let w = if want == "-0" { "0" } else { want };
            return lexeme == w.as_bytes();
        }
    }
    // By value, where both are finite (an integer too long for f64 equals only its digits).
    want.parse::<f64>()
        .is_ok_and(|w| w.is_finite() && n.as_f64() == w)
}

/// `get`'s key match: as `where`, plus a string id equal to an integer key's lexeme and an
/// integer id equal to a string key's text (agents send ids either way).
pub(crate) fn key_equals(row: toolwire::Value<'_>, key: &str, id: &Scalar) -> bool {
    if field_equals(row, key, id) {
        return true;
    }
    let Some(v) = row.as_object().and_then(|o| o.get(key.as_bytes())) else {
        return false;
    };
    match (v.get(), id) {
        (ValueRef::Number(Number::Int(l)), Scalar::String(s)) => l == s.as_bytes(),
        (ValueRef::String(s), Scalar::Number(n)) => s.as_bytes() == n.as_bytes(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_lexemes_compare_digit_for_digit() {
        assert!(number_equals(
            Number::Int(b"12345678901234567890123"),
            "12345678901234567890123"
        ));
        assert!(!number_equals(
            Number::Int(b"12345678901234567890123"),
            "12345678901234567890124"
        ));
        assert!(number_equals(Number::Int(b"5"), "5.0"));
        assert!(number_equals(Number::Float(2.5), "2.5"));
        assert!(number_equals(Number::Int(b"0"), "-0"));
        // An integer beyond f64 is not "infinity".
        let huge = format!("1{}", "0".repeat(400));
        assert!(number_equals(Number::Int(huge.as_bytes()), &huge));
        assert!(!number_equals(Number::Int(huge.as_bytes()), "1e400"));
    }
}
