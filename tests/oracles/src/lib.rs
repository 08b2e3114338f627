//! The test oracles of toolwire, in one place: the conformance tests (`tests/`) and the fuzz
//! targets (`fuzz/`) both depend on this crate, so an oracle is written once and cannot
//! drift between them.
//!
//! * [`model_eq`]: JSON-model equality (numbers by value, keys in order).
//! * [`rows_in_first_order`]: the key order TOON tables give their rows.
//! * [`project`]: `_select` as WIRE.md §4 defines it, on a document's value.
//! * [`reserved_tags`]: every reserved tag sequence of a text (WIRE.md §2).
//! * [`alloc`]: counting global allocators for memory tests.
//! * [`invoices`]: the deterministic invoice corpus of the benches and the tests.
//! * `values` (feature `values`): the generator of arbitrary JSON values of the property
//!   tests.
//!
//! # Crate features
//!
//! * `json` (default): the oracles over `serde_json::Value` ([`model_eq`],
//!   [`rows_in_first_order`]). Without it the crate needs no serde_json (the benches use only
//!   [`invoices`]).
//! * `values`: the module `values`, the generator of arbitrary JSON values (proptest).

pub mod alloc;
pub mod invoices;
#[cfg(feature = "values")]
pub mod values;

#[cfg(feature = "json")]
use serde_json::Value as V;

/// JSON-model equality as the TOON fixtures define it: numbers by value (as f64, and integers
/// that both sides spell identically also equal, however long), strings and booleans
/// exactly, arrays element by element, objects by keys in order.
///
/// ```
/// use serde_json::json;
/// assert!(toolwire_oracles::model_eq(&json!({"a": 1.0, "b": [2]}), &json!({"a": 1, "b": [2]})));
/// assert!(!toolwire_oracles::model_eq(&json!({"a": 1, "b": 2}), &json!({"b": 2, "a": 1})));
/// ```
#[cfg(feature = "json")]
pub fn model_eq(a: &V, b: &V) -> bool {
    match (a, b) {
        (V::Null, V::Null) => true,
        (V::Bool(x), V::Bool(y)) => x == y,
        (V::String(x), V::String(y)) => x == y,
        (V::Number(x), V::Number(y)) => {
            x.to_string() == y.to_string() || number_f64(x) == number_f64(y)
        }
        (V::Array(x), V::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| model_eq(p, q))
        }
        (V::Object(x), V::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((k1, v1), (k2, v2))| k1 == k2 && model_eq(v1, v2))
        }
        _ => false,
    }
}

/// A number as JavaScript reads it (`-0` is `0`). With `arbitrary_precision` the lexeme is
/// kept; an unreadable one is NaN, which equals nothing.
#[cfg(feature = "json")]
fn number_f64(n: &serde_json::Number) -> f64 {
    let x: f64 = n.to_string().parse().unwrap_or(f64::NAN);
    if x == 0.0 { 0.0 } else { x }
}

/// Puts the keys of every object in an array of objects that share one key set into the
/// first object's key order, at every depth: what TOON's tabular form does to rows (the header
/// lists the first row's fields, every row is written in that order). A TOON round trip is
/// compared with both sides in this order (arrays in list form keep each row's own order, so
/// the expected value cannot simply be normalised alone). Arrays of objects with different key
/// sets are left alone (they are never tabular).
///
/// ```
/// let mut v = serde_json::json!([{"a": 1, "b": 2}, {"b": 3, "a": 4}]);
/// toolwire_oracles::rows_in_first_order(&mut v);
/// assert_eq!(v.to_string(), r#"[{"a":1,"b":2},{"a":4,"b":3}]"#);
/// ```
#[cfg(feature = "json")]
pub fn rows_in_first_order(v: &mut V) {
    match v {
        V::Array(items) => {
            items.iter_mut().for_each(rows_in_first_order);
            let Some(V::Object(first)) = items.first() else {
                return;
            };
            let order: Vec<String> = first.keys().cloned().collect();
            let same_set = |it: &V| {
                matches!(it, V::Object(o) if o.len() == order.len()
                    && order.iter().all(|k| o.contains_key(k)))
            };
            if items.iter().all(same_set) {
                for item in items.iter_mut() {
                    if let V::Object(o) = item {
                        let mut old = std::mem::take(o);
                        o.extend(order.iter().filter_map(|k| old.remove_entry(k)));
                    }
                }
            }
        }
        V::Object(members) => members.values_mut().for_each(rows_in_first_order),
        _ => {}
    }
}

/// `_select` on a value (WIRE.md §4), as a document of its own: an object keeps the
/// requested keys present in it, in request order, a repeated name once; a collection applies
/// that to each object element; anything else passes unchanged. Built with
/// [`toolwire::DocBuilder`], so the result carries the marks a parse would give it (the rows'
/// same keys, which the TOON encoder trusts), and strings of any bytes (lone surrogates
/// included) are kept.
///
/// ```
/// let doc = toolwire::json::parse(br#"[{"a": 1, "b": 2, "c": 3}, 7]"#, &Default::default()).unwrap();
/// let p = toolwire_oracles::project(doc.root(), &["c", "a", "c", "x"]);
/// assert_eq!(toolwire::json::to_string_compact(p.root()), r#"[{"c":3,"a":1},7]"#);
/// ```
pub fn project(v: toolwire::Value<'_>, names: &[&str]) -> toolwire::Doc<'static> {
    let mut b = toolwire::DocBuilder::new(b"");
    let pick = |b: &mut toolwire::DocBuilder<'static>, v: toolwire::Value<'_>| match v.as_object() {
        Some(o) => {
            let m = b.begin_object();
            let mut n = 0;
            for (i, k) in names.iter().enumerate() {
                if names[..i].contains(k) {
                    continue;
                }
                if let Some(x) = o.get(k.as_bytes()) {
                    b.string(k.as_bytes());
                    b.copy_value(x);
                    n += 1;
                }
            }
            b.end_object(m, n);
        }
        None => b.copy_value(v),
    };
    match v.as_array() {
        Some(a) => {
            let m = b.begin_array();
            for x in a.iter() {
                pick(&mut b, x);
            }
            b.end_array(m, a.len());
        }
        None => pick(&mut b, v),
    }
    b.finish()
}

/// Every reserved tag sequence of `text` (WIRE.md §2), in order, as written: `<name` or
/// `</name` (the name's case as in the text). Compare with [`str::to_ascii_lowercase`] when
/// case does not matter.
///
/// ```
/// let t = toolwire_oracles::reserved_tags("a <tool_error> b </TOOL_ERROR> <ui_passthroughx>");
/// assert_eq!(t, ["<tool_error", "</TOOL_ERROR"]);
/// ```
pub fn reserved_tags(text: &str) -> Vec<String> {
    let b = text.as_bytes();
    memchr_lt(b)
        .filter(|&i| toolwire::test_hooks::starts_reserved_tag(b, i))
        .map(|i| {
            let end = b[i + 1..]
                .iter()
                .position(|c| !(c.is_ascii_alphanumeric() || *c == b'_' || *c == b'/'))
                .map_or(b.len(), |p| p + i + 1);
            text[i..end].to_owned()
        })
        .collect()
}

/// Offsets of every `<` in `b`.
fn memchr_lt(b: &[u8]) -> impl Iterator<Item = usize> + '_ {
    b.iter()
        .enumerate()
        .filter(|&(_, &c)| c == b'<')
        .map(|(i, _)| i)
}

/// The test files of `dir` (Rust files, and folders with a `mod.rs`) that no `roots` text
/// names with a `mod NAME;` line, the root files themselves (`root_names`) aside: in a test
/// crate with `autotests = false`, such a file is never compiled and its tests never run.
/// Panics when `dir` holds no test module at all (the wrong folder was read).
pub fn unlisted_test_modules(
    dir: &std::path::Path,
    roots: &[&str],
    root_names: &[&str],
) -> Vec<String> {
    let (mut modules, mut unlisted) = (0, Vec::new());
    for entry in std::fs::read_dir(dir).expect("the test folder") {
        let path = entry.expect("a directory entry").path();
        let Some(name) = path.file_stem().and_then(|n| n.to_str()) else {
            continue;
        };
        let module = if path.is_dir() {
            path.join("mod.rs").is_file()
        } else {
            path.extension().is_some_and(|e| e == "rs") && !root_names.contains(&name)
        };
        if !module {
            continue;
        }
        modules += 1;
        let line = format!("mod {name};");
        if !roots.iter().any(|root| root.lines().any(|l| l == line)) {
            unlisted.push(name.to_owned());
        }
    }
    assert!(modules > 0, "no test module in {}", dir.display());
    unlisted
}

#[cfg(all(test, feature = "json"))]
mod tests {
    use super::*;

    #[test]
    fn model_equality_compares_numbers_by_value_and_keys_in_order() {
        let a: V = serde_json::from_str(r#"{"x":1.0,"y":[1e2,-0]}"#).unwrap();
        let b: V = serde_json::from_str(r#"{"x":1,"y":[100,0]}"#).unwrap();
        assert!(model_eq(&a, &b));
        let c: V = serde_json::from_str(r#"{"y":[100,0],"x":1}"#).unwrap();
        assert!(!model_eq(&a, &c));
        let big: V = serde_json::from_str("123456789012345678901234567890").unwrap();
        let near: V = serde_json::from_str("123456789012345678901234567891").unwrap();
        // Beyond f64 precision both read the same value: equal by the model.
        assert!(model_eq(&big, &near));
        assert!(!model_eq(&V::Null, &V::Bool(false)));
    }

    #[test]
    fn tags_are_found_at_every_position_and_only_there() {
        assert_eq!(reserved_tags("<domain_rules>"), ["<domain_rules"]);
        assert_eq!(reserved_tags("x</llm_directives"), ["</llm_directives"]);
        assert!(reserved_tags("<domain_rulesx> <b> &lt;tool_error>").is_empty());
    }
}
