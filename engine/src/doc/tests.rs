//! Unit tests of the tape.

use super::*;

#[test]
fn key_eq_matches_slice_equality_at_every_length_and_position() {
    for n in 0..40usize {
        let a: Vec<u8> = (0..n as u8).map(|i| b'a' + i % 26).collect();
        assert!(key_eq(&a, &a.clone()), "len {n}");
        for p in 0..n {
            let mut b = a.clone();
            b[p] ^= 0x20;
            assert!(!key_eq(&a, &b), "len {n}, byte {p}");
        }
        let longer = [a.as_slice(), b"x"].concat();
        assert!(!key_eq(&a, &longer), "len {n} vs {}", n + 1);
    }
}

#[test]
fn max_depth_bounds_every_value() {
    // [[{"a": []}], 1] has depth 4; a sibling closing does not lower the record.
    let mut b = DocBuilder::new(b"");
    let root = b.begin_array();
    let inner = b.begin_array();
    let o = b.begin_object();
    b.string(b"a");
    let e = b.begin_array();
    b.end_array(e, 0);
    b.end_object(o, 1);
    b.end_array(inner, 1);
    b.i64(1);
    b.end_array(root, 2);
    let doc = b.finish();
    assert_eq!(doc.max_depth(), 4);
    assert_eq!(DocBuilder::new(b"").finish().max_depth(), 0);
    // A copied subtree carries its document's bound.
    let mut c = DocBuilder::new(b"");
    let m = c.begin_array();
    c.copy_from(&doc, 0);
    c.end_array(m, 1);
    assert!(c.finish().max_depth() >= 5);
}

#[test]
fn node_is_16_bytes() {
    assert_eq!(std::mem::size_of::<Node>(), 16);
}

fn sample(src: &[u8]) -> Doc<'_> {
    // {"a": [1, "x", {"b": null}], "c": 2.5, "d": true}
    let mut b = DocBuilder::new(src);
    let o = b.begin_object();
    b.string(b"a");
    let a = b.begin_array();
    b.int_src(0, 1);
    b.str_src(1, 1);
    let inner = b.begin_object();
    b.string(b"b");
    b.null();
    b.end_object(inner, 1);
    b.end_array(a, 3);
    b.string(b"c");
    b.float(2.5);
    b.string(b"d");
    b.bool(true);
    b.end_object(o, 3);
    b.finish()
}

#[test]
fn builds_and_walks() {
    let doc = sample(b"1x");
    assert_eq!(
        format!("{:?}", doc.root()),
        r#"{"a": [1, "x", {"b": null}], "c": 2.5, "d": true}"#
    );
    let o = doc.root().as_object().unwrap();
    assert_eq!(o.len(), 3);
    assert!(o.get(b"d").is_some());
    assert!(o.get(b"zz").is_none());
    let a = o.get(b"a").unwrap().as_array().unwrap();
    assert_eq!(a.iter().len(), 3);
    assert!(!doc.has_reserved_tag());
}

#[test]
fn duplicate_keys_last_wins_at_first_position() {
    // {"k": [1, 2], "m": {"x": 1}, "k": {"z": [true]}, "m": 3}
    let mut b = DocBuilder::new(b"");
    let o = b.begin_object();
    b.string(b"k");
    let a = b.begin_array();
    b.i64(1);
    b.i64(2);
    b.end_array(a, 2);
    b.string(b"m");
    let m = b.begin_object();
    b.string(b"x");
    b.i64(1);
    b.end_object(m, 1);
    b.string(b"k");
    let z = b.begin_object();
    b.string(b"z");
    let za = b.begin_array();
    b.bool(true);
    b.end_array(za, 1);
    b.end_object(z, 1);
    b.string(b"m");
    b.i64(3);
    b.end_object(o, 4);
    let doc = b.finish();
    assert_eq!(
        format!("{:?}", doc.root()),
        r#"{"k": {"z": [true]}, "m": 3}"#
    );
    assert_eq!(doc.next_sibling(0), doc.node_count());
}

#[test]
fn many_keys_dedup_is_linear_and_correct() {
    let mut b = DocBuilder::new(b"");
    let o = b.begin_object();
    for i in 0..1000u64 {
        b.string(format!("k{}", i % 500).as_bytes());
        b.u64(i);
    }
    b.end_object(o, 1000);
    let doc = b.finish();
    let obj = doc.root().as_object().unwrap();
    assert_eq!(obj.len(), 500);
    assert_eq!(format!("{:?}", obj.get(b"k7").unwrap()), "507");
}

#[test]
fn flags_and_negative_zero() {
    let mut b = DocBuilder::new(b"-0");
    let a = b.begin_array();
    b.int_src(0, 2);
    b.string(b"x<Tool_Error>");
    b.end_array(a, 2);
    let doc = b.finish();
    assert!(doc.has_reserved_tag());
    assert!(!doc.has_lone_surrogate());
    let first = doc.root().as_array().unwrap().iter().next().unwrap();
    assert!(matches!(first.get(), ValueRef::Number(Number::Int(b"0"))));
    assert!(DocBuilder::new(b"").finish().root().is_null());
}

#[test]
fn rows_with_the_previous_rows_keys_skip_the_pair_check_and_duplicates_still_merge() {
    let parse = |s: &str| {
        let doc = crate::json::parse(s.as_bytes(), &crate::json::ParseOptions::new()).unwrap();
        crate::json::to_string_compact(doc.root())
    };
    // The same keys as the row before: unique (and remembered).
    assert_eq!(
        parse(r#"[{"a":1,"b":2},{"a":3,"b":4},{"a":5,"b":6}]"#),
        r#"[{"a":1,"b":2},{"a":3,"b":4},{"a":5,"b":6}]"#
    );
    // As many keys as the remembered row, but not the same ones: still checked.
    assert_eq!(
        parse(r#"[{"a":1,"b":2},{"b":3,"b":4},{"a":5,"a":6}]"#),
        r#"[{"a":1,"b":2},{"b":4},{"a":6}]"#
    );
    // A prefix of the remembered keys, then a repeat of the first.
    assert_eq!(
        parse(r#"[{"a":1,"b":2,"c":3},{"a":1,"b":2,"a":3}]"#),
        r#"[{"a":1,"b":2,"c":3},{"a":3,"b":2}]"#
    );
    // Keys from the heap (escaped) and from the input compare by their bytes.
    assert_eq!(
        parse(r#"[{"\u0061":1,"b":2},{"a":3,"b":4},{"a":5,"\u0061":6}]"#),
        r#"[{"a":1,"b":2},{"a":3,"b":4},{"a":6}]"#
    );
}
