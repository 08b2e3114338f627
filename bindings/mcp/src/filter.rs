//! `where` and `get` without a scan per call: an index per field of a collection, built by
//! the first call that filters on that field and shared by every later one.
//!
//! An index is the collection's `(hash of the field's value, row)` pairs sorted, 16 bytes a
//! row that has the field. A value hashes by what `where` compares: strings by their bytes,
//! numbers by their value as f64 (two integer lexemes that are equal digit for digit are
//! equal as f64 too), booleans and null as themselves. The hash only proposes candidates;
//! each is checked with the exact comparison of `scalar` (`field_equals`, `key_equals`), so
//! collisions and f64's rounding of long integers never change an answer. Candidates come
//! in row order, so pages and offsets are those of a scan.
//!
//! The field names come from clients, so the cache is keyed by the data, not by them: an
//! index that holds no row (a field no row has, however it is spelled) is not kept, and the
//! kept ones are at most one per field name the rows hold, each 16 bytes a row holding it.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::{Arc, Mutex, OnceLock};

use toolwire::ValueRef;
use toolwire::doc::Number;

use crate::scalar::Scalar;

/// The indexes of one collection, by field name.
#[derive(Default)]
pub(crate) struct Indexes {
    fields: Mutex<HashMap<String, Arc<OnceLock<FieldIndex>>>>,
}

/// One field's index: `(hash, row)` sorted (rows ascending within a hash), and which hashes
/// are held by one value only.
pub(crate) struct FieldIndex {
    entries: Vec<(u64, u32)>,
    /// Hashes whose rows all hold the same value, byte for byte (the common case: a status,
    /// a currency): when its first row matches, they all do, unchecked.
    pure: std::collections::HashSet<u64>,
}

impl Indexes {
    /// The index of `field` over `rows`, built now if no call has built it (`progress` is
    /// told `(rows read, rows)` while building; concurrent first calls wait for one build).
    /// An index of no row is dropped once built (see the module docs).
    pub(crate) fn field(
        &self,
        field: &str,
        rows: &[toolwire::Value<'static>],
        progress: &mut dyn FnMut(usize, usize),
    ) -> Arc<OnceLock<FieldIndex>> {
        let slot = {
            let mut fields = self.fields.lock().unwrap_or_else(|e| e.into_inner());
            Arc::clone(fields.entry(field.to_owned()).or_default())
        };
        let ix = slot.get_or_init(|| FieldIndex::build(field, rows, progress));
        if ix.entries.is_empty() {
            let mut fields = self.fields.lock().unwrap_or_else(|e| e.into_inner());
            if fields.get(field).is_some_and(|s| Arc::ptr_eq(s, &slot)) {
                fields.remove(field);
            }
        }
        slot
    }

    /// How many indexes are kept, and their bytes (for the tests of the bound).
    #[cfg(test)]
    fn held(&self) -> (usize, usize) {
        let fields = self.fields.lock().unwrap_or_else(|e| e.into_inner());
        let bytes = fields
            .values()
            .filter_map(|s| s.get())
            .map(|ix| ix.entries.capacity() * std::mem::size_of::<(u64, u32)>())
            .sum();
        (fields.len(), bytes)
    }
}

impl FieldIndex {
    fn build(
        field: &str,
        rows: &[toolwire::Value<'static>],
        progress: &mut dyn FnMut(usize, usize),
    ) -> FieldIndex {
        let step = (rows.len() / 10).max(1);
        let mut entries = Vec::with_capacity(rows.len());
        for (i, row) in rows.iter().enumerate() {
            if i > 0 && i % step == 0 {
                progress(i, rows.len());
            }
            let v = row.as_object().and_then(|o| o.get(field.as_bytes()));
            if let Some(h) = v.and_then(|v| value_hash(v.get())) {
                entries.push((h, i as u32));
            }
        }
        progress(rows.len(), rows.len());
        // Sized for every row, kept for the rows that hold the field.
        entries.shrink_to_fit();
        entries.sort_unstable();
        let value = |i: u32| {
            rows[i as usize]
                .as_object()
                .and_then(|o| o.get(field.as_bytes()))
                .map(|v| v.get())
        };
        let mut pure = std::collections::HashSet::new();
        for group in entries.chunk_by(|a, b| a.0 == b.0) {
            let first = value(group[0].1);
            if group[1..].iter().all(|e| same_value(value(e.1), first)) {
                pure.insert(group[0].0);
            }
        }
        FieldIndex { entries, pure }
    }

    /// The rows whose value hashes as `h`, ascending.
    fn rows(&self, h: u64) -> impl Iterator<Item = usize> + '_ {
        let start = self.entries.partition_point(|e| e.0 < h);
        self.entries[start..]
            .iter()
            .take_while(move |e| e.0 == h)
            .map(|e| e.1 as usize)
    }

    /// How many rows hash as `h` (to start from the most selective field).
    fn count(&self, h: u64) -> usize {
        let start = self.entries.partition_point(|e| e.0 < h);
        let end = self.entries.partition_point(|e| e.0 <= h);
        end - start
    }
}

/// The same scalar, byte for byte (strings and integer lexemes by their bytes, floats by
/// their bits), so any comparison answers the same for both.
fn same_value(a: Option<ValueRef<'_>>, b: Option<ValueRef<'_>>) -> bool {
    match (a, b) {
        (Some(ValueRef::Null), Some(ValueRef::Null)) => true,
        (Some(ValueRef::Bool(x)), Some(ValueRef::Bool(y))) => x == y,
        (Some(ValueRef::String(x)), Some(ValueRef::String(y))) => x.as_bytes() == y.as_bytes(),
        (Some(ValueRef::Number(Number::Int(x))), Some(ValueRef::Number(Number::Int(y)))) => x == y,
        (Some(ValueRef::Number(Number::Float(x))), Some(ValueRef::Number(Number::Float(y)))) => {
            x.to_bits() == y.to_bits()
        }
        _ => false,
    }
}

fn hashed(tag: u8, bytes: &[u8]) -> u64 {
    let mut s = DefaultHasher::new();
    tag.hash(&mut s);
    bytes.hash(&mut s);
    s.finish()
}

fn number_hash(x: f64) -> u64 {
    // 0.0 and -0.0 compare equal.
    let x = if x == 0.0 { 0.0 } else { x };
    hashed(3, &x.to_bits().to_le_bytes())
}

/// A number by value: its f64 when finite; an integer too long for f64 (which `where`
/// matches digit for digit only) by its lexeme.
fn lexeme_hash(lexeme: &[u8], x: f64) -> u64 {
    if x.is_finite() {
        number_hash(x)
    } else {
        hashed(4, lexeme)
    }
}

/// A row value's hash (`None` for containers, which no `where` value equals).
fn value_hash(v: ValueRef<'_>) -> Option<u64> {
    Some(match v {
        ValueRef::Null => hashed(0, b""),
        ValueRef::Bool(b) => hashed(1, &[u8::from(b)]),
        ValueRef::String(s) => hashed(2, s.as_bytes()),
        ValueRef::Number(n @ Number::Int(l)) => lexeme_hash(l, n.as_f64()),
        ValueRef::Number(n) => number_hash(n.as_f64()),
        ValueRef::Array(_) | ValueRef::Object(_) => return None,
    })
}

/// The hash a row value equal to `want` by `where`'s rules has (`None`: none can be).
fn scalar_hash(want: &Scalar) -> Option<u64> {
    Some(match want {
        Scalar::Null => hashed(0, b""),
        Scalar::Bool(b) => hashed(1, &[u8::from(*b)]),
        Scalar::String(s) => hashed(2, s.as_bytes()),
        Scalar::Number(n) => {
            let x = n.parse::<f64>().ok()?;
            if x.is_finite() {
                number_hash(x)
            } else if crate::scalar::is_integer_lexeme(n) {
                hashed(4, n.as_bytes())
            } else {
                return None;
            }
        }
    })
}

/// The rows of `rows` (their positions) for which every `(field, value)` of `filter` holds
/// by `equals`, in row order: the candidates of the field whose value is rarest, checked.
pub(crate) fn matching(
    indexes: &Indexes,
    rows: &[toolwire::Value<'static>],
    filter: &[(String, Scalar)],
    equals: impl Fn(toolwire::Value<'_>, &str, &Scalar) -> bool,
    progress: &mut dyn FnMut(usize, usize),
) -> Vec<usize> {
    // (candidates, index, hash, position in `filter`) of the rarest value.
    let mut best: Option<(usize, Arc<OnceLock<FieldIndex>>, u64, usize)> = None;
    for (at, (field, want)) in filter.iter().enumerate() {
        let Some(h) = scalar_hash(want) else {
            return Vec::new();
        };
        let slot = indexes.field(field, rows, progress);
        let n = slot.get().map_or(0, |ix| ix.count(h));
        if best.as_ref().is_none_or(|b| n < b.0) {
            best = Some((n, slot, h, at));
        }
    }
    let Some((_, slot, h, at)) = best else {
        return (0..rows.len()).collect();
    };
    let Some(ix) = slot.get() else {
        return Vec::new();
    };
    // The field the candidates come from needs no check per row when its hash is held by
    // one value and the first candidate matches.
    let (field, want) = &filter[at];
    let first = ix.rows(h).next();
    let unchecked = ix.pure.contains(&h) && first.is_some_and(|i| equals(rows[i], field, want));
    ix.rows(h)
        .filter(|&i| {
            filter
                .iter()
                .enumerate()
                .all(|(k, (f, v))| (unchecked && k == at) || equals(rows[i], f, v))
        })
        .collect()
}

/// The first row whose `key` equals `id` by `get`'s rules (`key_equals`): the candidates of
/// every hash such a row's key can have.
pub(crate) fn find_key(
    indexes: &Indexes,
    rows: &[toolwire::Value<'static>],
    key: &str,
    id: &Scalar,
    key_equals: impl Fn(toolwire::Value<'_>, &str, &Scalar) -> bool,
) -> Option<usize> {
    let slot = indexes.field(key, rows, &mut |_, _| {});
    let ix = slot.get()?;
    // As `where`, plus a string id against an integer key with those digits, and an
    // integer id against a string key with that text.
    let mut hashes: Vec<u64> = scalar_hash(id).into_iter().collect();
    match id {
        Scalar::String(s) => {
            if let Some(x) = s.parse::<f64>().ok().filter(|x| x.is_finite()) {
                hashes.push(number_hash(x));
            }
        }
        Scalar::Number(n) => hashes.push(hashed(2, n.as_bytes())),
        Scalar::Null | Scalar::Bool(_) => {}
    }
    hashes
        .iter()
        .filter_map(|&h| ix.rows(h).find(|&i| key_equals(rows[i], key, id)))
        .min()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scalar::{field_equals, key_equals};
    use proptest::prelude::*;

    /// Values that `where` can confuse: the same number written four ways, a long integer,
    /// strings that look like numbers, booleans, null, containers, absence.
    fn huge() -> &'static str {
        static HUGE: std::sync::LazyLock<String> =
            std::sync::LazyLock::new(|| format!("1{}", "0".repeat(400)));
        &HUGE
    }

    fn value() -> impl Strategy<Value = Option<&'static str>> {
        prop::sample::select(vec![
            Some(huge()),
            None,
            Some("1"),
            Some("1.0"),
            Some("1e0"),
            Some("-0"),
            Some("0"),
            Some("12345678901234567890123"),
            Some("12345678901234567890124"),
            Some("\"1\""),
            Some("\"a\""),
            Some("\"12345678901234567890123\""),
            Some("true"),
            Some("false"),
            Some("null"),
            Some("[1]"),
            Some("{\"x\":1}"),
        ])
    }

    fn scalar() -> impl Strategy<Value = Scalar> {
        prop_oneof![
            Just(Scalar::Null),
            any::<bool>().prop_map(Scalar::Bool),
            prop::sample::select(vec![
                "1",
                "1.0",
                "0",
                "-0",
                "2",
                "12345678901234567890123",
                "1e400"
            ])
            .prop_map(|s| Scalar::Number(s.into())),
            prop::sample::select(vec!["1", "a", "12345678901234567890123", ""])
                .prop_map(|s| Scalar::String(s.into())),
        ]
    }

    fn collection(rows: &[(Option<&str>, Option<&str>)]) -> Vec<toolwire::Value<'static>> {
        let mut src = String::from("[");
        for (i, (a, b)) in rows.iter().enumerate() {
            if i > 0 {
                src.push(',');
            }
            src.push('{');
            let mut fields = Vec::new();
            if let Some(a) = a {
                fields.push(format!("\"a\":{a}"));
            }
            if let Some(b) = b {
                fields.push(format!("\"b\":{b}"));
            }
            src.push_str(&fields.join(","));
            src.push('}');
        }
        src.push(']');
        let src: &'static [u8] = Box::leak(src.into_bytes().into_boxed_slice());
        let doc = Box::leak(Box::new(
            toolwire::json::parse(src, &Default::default()).unwrap(),
        ));
        doc.root().as_array().unwrap().iter().collect()
    }

    proptest! {
        /// The index answers exactly what a scan answers, in the same order.
        #[test]
        fn the_index_answers_as_a_scan(
            rows in prop::collection::vec((value(), value()), 0..40),
            filter in prop::collection::vec((prop::sample::select(vec!["a", "b"]), scalar()), 1..3),
            id in scalar(),
        ) {
            let rows = collection(&rows);
            let filter: Vec<(String, Scalar)> =
                filter.into_iter().map(|(f, v)| (f.to_owned(), v)).collect();
            let indexes = Indexes::default();
            let got = matching(&indexes, &rows, &filter, field_equals, &mut |_, _| {});
            let want: Vec<usize> = (0..rows.len())
                .filter(|&i| filter.iter().all(|(f, v)| field_equals(rows[i], f, v)))
                .collect();
            prop_assert_eq!(got, want);
            let found = find_key(&indexes, &rows, "a", &id, key_equals);
            let scan = (0..rows.len()).find(|&i| key_equals(rows[i], "a", &id));
            prop_assert_eq!(found, scan);
        }
    }
}

#[cfg(test)]
mod fixed {
    use super::*;
    use crate::scalar::{field_equals, key_equals};

    #[test]
    fn an_integer_beyond_f64_is_found_by_its_digits() {
        let huge = format!("1{}", "0".repeat(400));
        let src = format!(r#"[{{"a":1}},{{"a":{huge}}},{{"a":"x"}}]"#);
        let src: &'static [u8] = Box::leak(src.into_bytes().into_boxed_slice());
        let doc = Box::leak(Box::new(
            toolwire::json::parse(src, &Default::default()).unwrap(),
        ));
        let rows: Vec<_> = doc.root().as_array().unwrap().iter().collect();
        let ix = Indexes::default();
        let want = Scalar::Number(huge.clone());
        let filter = vec![("a".to_owned(), want.clone())];
        assert_eq!(
            matching(&ix, &rows, &filter, field_equals, &mut |_, _| {}),
            [1]
        );
        assert_eq!(find_key(&ix, &rows, "a", &want, key_equals), Some(1));
        let inf = vec![("a".to_owned(), Scalar::Number("1e400".into()))];
        assert!(matching(&ix, &rows, &inf, field_equals, &mut |_, _| {}).is_empty());
    }

    /// D5: every distinct `where` field name kept an index of 16 bytes for every row, even a
    /// name no row has, for the life of the server.
    #[test]
    fn d5_where_names_from_clients_keep_no_index_of_their_own() {
        let src: String = std::iter::once("[".to_owned())
            .chain((0..1000).map(|i| {
                let sep = if i == 0 { "" } else { "," };
                // Every tenth row has `rare`.
                if i % 10 == 0 {
                    format!(r#"{sep}{{"a":{i},"rare":"r"}}"#)
                } else {
                    format!(r#"{sep}{{"a":{i}}}"#)
                }
            }))
            .chain(std::iter::once("]".to_owned()))
            .collect();
        let src: &'static [u8] = Box::leak(src.into_bytes().into_boxed_slice());
        let doc = Box::leak(Box::new(
            toolwire::json::parse(src, &Default::default()).unwrap(),
        ));
        let rows: Vec<_> = doc.root().as_array().unwrap().iter().collect();
        let ix = Indexes::default();
        for k in 0..500 {
            let filter = vec![(format!("missing{k}"), Scalar::String("x".into()))];
            assert!(matching(&ix, &rows, &filter, field_equals, &mut |_, _| {}).is_empty());
        }
        assert_eq!(ix.held(), (0, 0), "no index for names no row has");
        let filter = vec![("rare".to_owned(), Scalar::String("r".into()))];
        assert_eq!(
            matching(&ix, &rows, &filter, field_equals, &mut |_, _| {}).len(),
            100
        );
        let (n, bytes) = ix.held();
        assert_eq!(n, 1);
        assert!(
            bytes <= 100 * 16,
            "{bytes} bytes for the 100 rows holding the field"
        );
    }
}
