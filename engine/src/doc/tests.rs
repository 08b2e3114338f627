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
fn a_cell_is_8_bytes_and_every_node_reads_back_as_written() {
    use super::tape::{Cell, Tape};
    assert_eq!(std::mem::size_of::<Cell>(), 8);
    assert_eq!(std::mem::align_of::<Cell>(), 4);
    let s = |start, len| Span { start, len };
    // Lengths around the head's 27 bits: the longer ones go to the length table.
    let lens = [0, 1, (1 << 27) - 2, (1 << 27) - 1, 1 << 27, u32::MAX];
    let mut nodes = vec![
        Node::Null,
        Node::Bool(false),
        Node::Bool(true),
        Node::Float(F64::new(-0.0)),
        Node::Float(F64::new(2.5)),
    ];
    for len in lens {
        let x = u32::MAX - len;
        nodes.extend([
            Node::IntSrc(s(x, len)),
            Node::IntHeap(s(x, len)),
            Node::FloatSrc(s(x, len)),
            Node::StrSrc(s(x, len)),
            Node::StrPlain(s(x, len)),
            Node::StrBare(s(x, len)),
            Node::StrQuoted(s(x, len)),
            Node::StrHeap(s(x, len)),
            Node::Array { len, end: x },
        ]);
        for (same_keys, flat) in [(false, false), (true, false), (false, true), (true, true)] {
            nodes.push(Node::Object {
                len,
                end: x,
                same_keys,
                flat,
            });
        }
    }
    let mut tape = Tape::default();
    for &n in &nodes {
        tape.push(n);
    }
    let view = tape.view();
    assert_eq!(view.len(), nodes.len());
    assert_eq!(view.iter().collect::<Vec<_>>(), nodes);
    assert_eq!(view.iter().rev().collect::<Vec<_>>(), {
        let mut r = nodes.clone();
        r.reverse();
        r
    });
    for (i, &n) in nodes.iter().enumerate() {
        assert_eq!(view.at(i), n, "node {i}");
        assert_eq!(view.get(i), Some(n), "node {i}");
        let want = match n {
            Node::Array { end, .. } | Node::Object { end, .. } => end as usize,
            _ => i + 1,
        };
        assert_eq!(view.next_sibling(i), want, "next sibling of {n:?}");
        let string = match n {
            Node::StrSrc(s) | Node::StrPlain(s) | Node::StrBare(s) | Node::StrQuoted(s) => {
                Some((false, s))
            }
            Node::StrHeap(s) => Some((true, s)),
            _ => None,
        };
        assert_eq!(view.string(i), string, "string of {n:?}");
    }
    assert_eq!(view.get(nodes.len()), None);
    assert_eq!(view.slice(3..5).iter().collect::<Vec<_>>(), nodes[3..5]);
    assert!(view.get_slice(0..nodes.len() + 1).is_none());
    // The marks set the bit of objects only, long ones too, and keep the length.
    for (i, &n) in nodes.iter().enumerate() {
        tape.mark_same_keys(i);
        tape.mark_flat(i);
        let want = match n {
            Node::Object { len, end, .. } => Node::Object {
                len,
                end,
                same_keys: true,
                flat: true,
            },
            n => n,
        };
        assert_eq!(tape.view().at(i), want, "{n:?} marked");
    }
    // A container closed again (set) reads back as its last node.
    let last = nodes.len() - 1;
    tape.set(
        last,
        Node::Array {
            len: u32::MAX,
            end: 7,
        },
    );
    assert_eq!(
        tape.view().at(last),
        Node::Array {
            len: u32::MAX,
            end: 7
        }
    );
}

#[test]
fn a_float_keeps_every_f64() {
    for x in [
        0.0,
        -0.0,
        1.5,
        -2.25e-308,
        f64::MIN_POSITIVE,
        f64::MAX,
        5e-324,
        f64::NAN,
    ] {
        let mut b = DocBuilder::new(b"");
        b.float(x);
        let doc = b.finish();
        match doc.root().get() {
            ValueRef::Number(Number::Float(y)) => assert_eq!(y.to_bits(), x.to_bits(), "{x:e}"),
            other => panic!("{x:e} came back as {other:?}"),
        }
    }
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

/// The `same_keys` flag of every object node, in tape order.
fn same_keys_flags(doc: &Doc<'_>) -> Vec<bool> {
    doc.nodes()
        .iter()
        .filter_map(|n| match n {
            Node::Object { same_keys, .. } => Some(same_keys),
            _ => None,
        })
        .collect()
}

#[test]
fn same_keys_marks_an_object_with_the_keys_of_the_last_one_closed_at_its_depth() {
    fn parse(s: &str) -> Doc<'_> {
        crate::json::parse(s.as_bytes(), &Default::default()).unwrap()
    }
    // Rows: the second repeats the first, the third has them in another order, the fourth
    // repeats the third; a one-key object is never marked and forgets the keys.
    let doc =
        parse(r#"[{"a":1,"b":2},{"a":3,"b":4},{"b":5,"a":6},{"b":7,"a":8},{"a":1},{"b":7,"a":8}]"#);
    assert_eq!(
        same_keys_flags(&doc),
        [false, true, false, true, false, false]
    );
    // Nested objects are compared level by level: each row's `g` with the previous row's,
    // the rows with each other across them.
    let doc = parse(r#"[{"g":{"x":1,"y":2},"k":1},{"g":{"x":1,"y":2},"k":2}]"#);
    assert_eq!(same_keys_flags(&doc), [false, false, true, true]);
    // At one depth the last object closed is the reference, whichever field held it: the
    // second row's `c` is marked for the first row's `s`.
    let doc =
        parse(r#"[{"c":{"a":1,"b":2},"s":{"x":1,"y":2}},{"c":{"x":1,"y":2},"s":{"x":1,"y":2}}]"#);
    assert_eq!(
        same_keys_flags(&doc),
        [false, false, false, true, true, true]
    );
    // A duplicate key merged: that object is not remembered, the next one is not marked.
    let doc = parse(r#"[{"a":1,"b":2},{"a":1,"a":2},{"a":1,"b":2}]"#);
    assert_eq!(same_keys_flags(&doc), [false, false, false]);
    // Wider than SMALL_OBJECT (a hash-set duplicate check) is still remembered.
    let wide = |v: usize| {
        let fields: Vec<String> = (0..40).map(|i| format!(r#""k{i}":{v}"#)).collect();
        format!("{{{}}}", fields.join(","))
    };
    let src = format!("[{},{}]", wide(1), wide(2));
    let doc = parse(&src);
    assert_eq!(same_keys_flags(&doc), [false, true]);
}

/// The parser guesses each key from the last object remembered at its level
/// (`DocBuilder::remembered_key`): a wrong guess must fall back to lexing, never change a key,
/// a mark, an error or a flag.
#[test]
fn guessed_keys_change_nothing_but_the_work() {
    fn parse(s: &str) -> crate::Result<Doc<'_>> {
        crate::json::parse(s.as_bytes(), &Default::default())
    }
    let keys = |doc: &Doc<'_>| -> Vec<Vec<String>> {
        let root = doc.root();
        let rows = root.as_array().expect("an array");
        rows.iter()
            .map(|r| {
                let o = r.as_object().expect("an object");
                o.iter()
                    .map(|(k, _)| String::from_utf8_lossy(k.as_bytes()).into_owned())
                    .collect()
            })
            .collect()
    };
    // Each row against the one before: the same keys spelled with whitespace before the `:`
    // (marked), a key that is a prefix or an extension of the guess, one escaped to the same
    // text (marked: equal keys), fewer keys, more keys, and a different key in the middle.
    let doc = parse(
        r#"[{"ab":1,"cd":2},{"ab" :1,"cd"	:2},{"ab":1,"cd":2},{"a":1,"cd":2},{"abc":1,"cd":2},
            {"abc":1,"cd":2},{"ab\u0063":1,"cd":2},{"abc":1},{"abc":1,"cd":2,"ef":3},
            {"abc":1,"xx":2,"ef":3},{"abc":1,"xx":2,"ef":3}]"#,
    )
    .unwrap();
    assert_eq!(
        same_keys_flags(&doc),
        [
            false, true, true, false, false, true, true, false, false, false, true
        ]
    );
    assert_eq!(keys(&doc)[1], ["ab", "cd"]);
    assert_eq!(keys(&doc)[3], ["a", "cd"]);
    assert_eq!(keys(&doc)[6], ["abc", "cd"]);
    assert_eq!(keys(&doc)[9], ["abc", "xx", "ef"]);
    // A repeat of a guessed key in the same object is still a duplicate, merged.
    let doc = parse(r#"[{"a":1,"b":2},{"a":3,"a":4}]"#).unwrap();
    assert_eq!(keys(&doc)[1], ["a"]);
    assert_eq!(same_keys_flags(&doc), [false, false]);
    // A key with a reserved tag marks the document whether lexed or guessed.
    let doc = parse(r#"[{"<tool_error>":1,"b":2},{"<tool_error>":1,"b":2}]"#).unwrap();
    assert!(doc.has_reserved_tag());
    assert_eq!(same_keys_flags(&doc), [false, true]);
    // Errors are those of lexing, at the same place: each text against the same text whose
    // first row has other keys of the same lengths (nothing to guess from).
    let unguessed = |t: &str| t.replacen("ab", "AB", 1).replacen("cd", "CD", 1);
    let limit = crate::json::ParseOptions::new().max_keys_per_object(2);
    for (text, opts) in [
        (r#"[{"ab":1,"cd":2},{"ab":1,"cd":2,"ef":3}]"#, &limit),
        (r#"[{"ab":1,"cd":2},{"ab":1,"cd""#, &Default::default()),
        (r#"[{"ab":1,"cd":2},{"ab":1,"cd"x"#, &Default::default()),
        (r#"[{"ab":1,"cd":2},{"ab":1,"c"#, &Default::default()),
        (r#"[{"ab":1,"cd":2},{"ab":1,"cd":"#, &Default::default()),
    ] {
        let guessed = crate::json::parse(text.as_bytes(), opts).unwrap_err();
        let other = unguessed(text);
        let lexed = crate::json::parse(other.as_bytes(), opts).unwrap_err();
        assert_eq!(guessed.message(), lexed.message(), "{text}");
        assert_eq!(guessed.position(), lexed.position(), "{text}");
    }
}

#[test]
fn same_keys_is_forgotten_where_the_previous_object_is_not_the_builders() {
    let two = |b: &mut DocBuilder<'_>, k: &[u8]| {
        let o = b.begin_object();
        b.string(k);
        b.null();
        b.string(b"z");
        b.null();
        b.end_object(o, 2);
    };
    let other = crate::json::parse(br#"{"q":1,"z":2}"#, &Default::default()).unwrap();
    // built {a,z}, copied {q,z}, built {a,z}: the third does not follow the first.
    let mut b = DocBuilder::new(b"");
    let root = b.begin_array();
    two(&mut b, b"a");
    b.copy_from(&other, 0);
    two(&mut b, b"a");
    b.end_array(root, 3);
    assert_eq!(same_keys_flags(&b.finish()), [false, false, false]);
    // A dropped object is not a reference either.
    let mut b = DocBuilder::new(b"");
    let root = b.begin_array();
    two(&mut b, b"a");
    let dropped = b.begin_object();
    b.truncate_to(dropped);
    two(&mut b, b"a");
    b.end_array(root, 2);
    assert_eq!(same_keys_flags(&b.finish()), [false, false]);
    // Copies never carry a mark: their neighbours change.
    let marked =
        crate::json::parse(br#"[{"a":1,"b":2},{"a":3,"b":4}]"#, &Default::default()).unwrap();
    let mut b = DocBuilder::new(b"");
    let root = b.begin_array();
    b.copy_from(&marked, 6);
    b.end_array(root, 1);
    assert_eq!(same_keys_flags(&b.finish()), [false]);
}

/// `end_object_keyed` marks an object whose token is the one of the object closed last at its
/// level, and only then: another close there, a copy, a drop or another token breaks the chain.
#[test]
fn keyed_objects_are_marked_after_an_equal_token_at_their_level() {
    use super::KeysToken;
    const AB: KeysToken = KeysToken {
        owner: 1,
        keys: 0b11,
    };
    const A: KeysToken = KeysToken {
        owner: 1,
        keys: 0b01,
    };
    /// A row `{a, b?, g: {x, y}}` closed with `token` (its nested `g` keyed too, or not).
    fn row(b: &mut DocBuilder<'_>, token: KeysToken, nested_keyed: bool) {
        let o = b.begin_object();
        b.string(b"a");
        b.null();
        let mut n = 1;
        if token.keys & 0b10 != 0 {
            b.string(b"b");
            b.null();
            n += 1;
        }
        b.string(b"g");
        let g = b.begin_object();
        b.string(b"x");
        b.null();
        b.string(b"y");
        b.null();
        if nested_keyed {
            b.end_object_keyed(
                g,
                2,
                KeysToken {
                    owner: 2,
                    keys: 0b11,
                },
            );
        } else {
            b.end_object_unique(g, 2);
        }
        b.end_object_keyed(o, n + 1, token);
    }
    let flags = |f: &dyn Fn(&mut DocBuilder<'_>)| {
        let mut b = DocBuilder::new(b"");
        let root = b.begin_array();
        f(&mut b);
        b.end_array(root, 0);
        same_keys_flags(&b.finish())
    };
    // Flags in tape order: row, its g, row, its g, ...
    // Equal tokens chain, at each level on its own (a row's `g` does not break the rows).
    assert_eq!(
        flags(&|b| {
            row(b, AB, true);
            row(b, AB, true);
            row(b, AB, false);
        }),
        [false, false, true, true, true, false]
    );
    // Another token is another key list; the one after it follows it, not the first.
    assert_eq!(
        flags(&|b| {
            row(b, AB, false);
            row(b, A, false);
            row(b, AB, false);
            row(b, AB, false);
        }),
        [false, false, false, false, false, false, true, false]
    );
    // An object closed at the level by another call (here one the builder checks itself),
    // a copied value and a dropped one each break the chain.
    let other = crate::json::parse(br#"{"a":1,"b":2}"#, &Default::default()).unwrap();
    assert_eq!(
        flags(&|b| {
            row(b, AB, false);
            let o = b.begin_object();
            b.end_object(o, 0);
            row(b, AB, false);
            b.copy_from(&other, 0);
            row(b, AB, false);
            let dropped = b.begin_object();
            b.truncate_to(dropped);
            row(b, AB, false);
            row(b, AB, false);
        }),
        [
            false, false, false, false, false, false, false, false, false, false, true, false
        ]
    );
}

/// Equal tokens on objects with other keys are a caller's bug, caught in debug builds.
#[test]
#[cfg(debug_assertions)]
#[should_panic(expected = "unequal keys, equal tokens")]
fn equal_tokens_on_unequal_keys_are_caught_in_debug_builds() {
    let token = super::KeysToken { owner: 7, keys: 3 };
    let mut b = DocBuilder::new(b"");
    let root = b.begin_array();
    for key in [&b"a"[..], b"c"] {
        let o = b.begin_object();
        b.string(key);
        b.null();
        b.string(b"b");
        b.null();
        b.end_object_keyed(o, 2, token);
    }
    b.end_array(root, 2);
}

/// An object rebuilt without its duplicate keys, at every level of a deep document, and a
/// dropped value: the float table keeps one entry per float of the finished document.
#[test]
fn dropped_and_rebuilt_nodes_give_back_their_float_entries() {
    const LEVELS: usize = 60;
    const FLOATS: usize = 2_000;
    let mut json = String::new();
    for _ in 0..LEVELS {
        json.push_str(r#"{"x":1e0,"x":2.5,"v":"#);
    }
    json.push('[');
    for i in 0..FLOATS {
        if i > 0 {
            json.push(',');
        }
        json.push_str(&format!("{i}e-1"));
    }
    json.push(']');
    json.push_str(&"}".repeat(LEVELS));
    let doc = crate::json::parse(json.as_bytes(), &Default::default()).unwrap();
    // The "x" kept at each level is its last, 2.5: written as read, so no table entry.
    assert_eq!(doc.nodes.side_lens(), (FLOATS, 0));
    let mut v = doc.root();
    for _ in 0..LEVELS {
        let o = v.as_object().unwrap();
        assert_eq!(o.len(), 2);
        v = o.get(b"v").unwrap();
    }
    let a = v.as_array().unwrap();
    assert_eq!(a.len(), FLOATS);
    let float = |v: Value<'_>| match v.get() {
        ValueRef::Number(Number::Float(x)) => Some(x),
        _ => None,
    };
    for (i, x) in a.iter().enumerate() {
        assert_eq!(float(x), Some(i as f64 / 10.0), "float {i}");
    }

    // A dropped value's floats go too; the ones before it stay and read back.
    let mut b = DocBuilder::new(b"");
    let root = b.begin_array();
    b.float(0.5);
    let dropped = b.begin_array();
    b.float(1.5);
    b.float(2.5);
    b.truncate_to(dropped);
    b.float(3.5);
    b.end_array(root, 2);
    let doc = b.finish();
    assert_eq!(doc.nodes.side_lens(), (2, 0));
    let xs: Vec<_> = doc.root().as_array().unwrap().iter().map(float).collect();
    assert_eq!(xs, [Some(0.5), Some(3.5)]);
}

#[test]
fn kept_heap_strings_are_pushed_again_without_a_copy() {
    // Rows whose keys are pushed once and then again by their place in the heap, after a
    // reservation and a dropped value: the same document as keys copied for every row.
    let build = |again: bool| {
        let mut b = DocBuilder::new(b"");
        let root = b.begin_array();
        b.reserve(100, 1000);
        let mut kept = Vec::new();
        for row in 0..3 {
            let o = b.begin_object();
            for (j, k) in ["id", "naïve key", ""].into_iter().enumerate() {
                match (again, kept.get(j)) {
                    (true, Some(&h)) => b.str_heap_again(h),
                    (true, None) => kept.push(b.str_heap_kept(k.as_bytes())),
                    (false, _) => b.str_heap(k.as_bytes()),
                }
                b.i64(row * 10 + j as i64);
            }
            b.end_object(o, 3);
            if row == 1 {
                // A value dropped after the keys were kept: their bytes stay.
                let dropped = b.begin_array();
                b.str_heap(b"gone");
                b.truncate_to(dropped);
            }
        }
        b.end_array(root, 3);
        b.finish()
    };
    let (kept, copied) = (build(true), build(false));
    let text = |d: &Doc<'_>| crate::json::to_string_compact(d.root());
    assert_eq!(text(&kept), text(&copied));
    assert!(kept.heap.len() < copied.heap.len());
    assert_eq!(
        text(&kept),
        r#"[{"id":0,"naïve key":1,"":2},{"id":10,"naïve key":11,"":12},{"id":20,"naïve key":21,"":22}]"#
    );
}
