//! Unit tests of the encoder's internals.

use super::*;

/// A JSON array of `n` rows, row `i` written by `row`.
fn rows(n: usize, row: &dyn Fn(usize) -> String) -> String {
    let rows: Vec<String> = (0..n).map(row).collect();
    format!("[{}]", rows.join(","))
}

/// A table row with a nested group (itself holding a group).
fn nested_row(i: usize) -> String {
    format!(r#"{{"a":{i},"g":{{"x":{i},"y":{{"z":1}}}},"b":2}}"#)
}

/// A table row whose keys come in another order every seventh row.
fn reordered_row(i: usize) -> String {
    if i % 7 == 3 {
        r#"{"b":"x","a":1}"#.into()
    } else {
        r#"{"a":1,"b":"x"}"#.into()
    }
}

/// `n` rows whose group `g` turns into a leaf in the last one: not a table.
fn group_then_leaf(n: usize) -> String {
    rows(n, &|i| {
        if i == n - 1 {
            r#"{"a":1,"g":7}"#.into()
        } else {
            r#"{"a":1,"g":{"x":1}}"#.into()
        }
    })
}

#[test]
fn parallel_table_equals_the_sequential_analysis() {
    // Tables (flat, nested groups, keys in another order, one row, a tail shorter than a
    // chunk) and arrays that are not: rows whose sizes differ but whose nodes divide
    // evenly (spans 3 and 5 alternate, so the computed starts are wrong for odd chunks),
    // a last row with an extra field, a last row whose group turns into a leaf, arrays.
    let flat = |n: usize| rows(n, &|i| format!(r#"{{"a":{i},"b":"x"}}"#));
    let cases = [
        flat(1),
        flat(10),
        flat(41),
        rows(41, &nested_row),
        rows(30, &reordered_row),
        rows(40, &|i| {
            if i % 2 == 0 {
                r#"{"a":1}"#.into()
            } else {
                r#"{"a":1,"b":2}"#.into()
            }
        }),
        flat(39).replace("]", r#",{"a":1,"b":"x","c":3}]"#),
        group_then_leaf(20),
        r#"[[1,[2]],[3,[4]],[5,[6]],[7,[8]],[9,[10]]]"#.to_string(),
    ];
    let mut tables = 0;
    for src in &cases {
        let doc = crate::json::parse(src.as_bytes(), &crate::json::ParseOptions::new()).unwrap();
        let arr = doc.root().as_array().unwrap();
        let seq = tabular_shape(arr, None);
        for threshold in [2, 4, 6, 8, 100] {
            let chunk = (threshold / 2).clamp(1, 4096);
            let par = parallel_table(arr, threshold);
            assert_eq!(par.is_some(), seq.is_some(), "{src} {threshold}");
            let (Some((shape, parts)), Some(want)) = (&par, &seq) else {
                continue;
            };
            tables += 1;
            assert_eq!(
                format!("{shape:?}"),
                format!("{want:?}"),
                "{src} {threshold}"
            );
            // The chunk starts are the walk's; each iterator runs to the array's end.
            let mut it = arr.iter();
            for (k, (start, n)) in parts.iter().enumerate() {
                assert_eq!(start.position(), it.position(), "{src} {threshold} {k}");
                assert_eq!((*n, start.len()), (chunk.min(it.len()), it.len()));
                it.nth(n - 1);
            }
            assert_eq!(it.len(), 0);
        }
    }
    assert_eq!(
        tables,
        5 * 5,
        "every table case was a table for every threshold"
    );
}

#[test]
fn numeric_like_grammar() {
    for yes in [
        "0", "05", "+1", "-1", "1.5", "1e5", "1E+5", "1.5e-05", "00.00",
    ] {
        assert!(is_numeric_like(yes.as_bytes()), "{yes}");
    }
    for no in [
        "", "+", "-", "1.", ".5", "1e", "1e+", "1.e5", "1x", "0x10", "1_0", "١",
    ] {
        assert!(!is_numeric_like(no.as_bytes()), "{no}");
    }
}

#[test]
fn tables_hold_exactly_the_spec_bytes() {
    for (table, delim) in [
        (&QUOTE_COMMA, b','),
        (&QUOTE_TAB, b'\t'),
        (&QUOTE_PIPE, b'|'),
    ] {
        for b in 0..=255u8 {
            let want = b < 0x20 || b":\"\\[]{}".contains(&b) || b == delim;
            assert_eq!(
                table[b as usize], want,
                "byte {b:#04x}, delimiter {delim:#04x}"
            );
        }
    }
    for b in 0..=255u8 {
        let want = b.is_ascii_alphanumeric() || b == b'_' || b == b'.';
        assert_eq!(KEY_REST[b as usize], want, "byte {b:#04x}");
    }
}

/// The word-at-a-time checks against one lookup per byte: every byte value at every place of
/// strings of every length up to 40 (each check reads 8-byte words, overlapping at the end,
/// and shorter strings as a padded word).
#[test]
fn word_checks_equal_byte_by_byte_checks() {
    let escapes = |s: &[u8]| s.iter().any(|&b| ESCAPE[b as usize] != 0);
    for n in 0..=40 {
        for at in 0..n.max(1) {
            for b in 0..=255u8 {
                let mut s = vec![b'a'; n];
                if n > 0 {
                    s[at] = b;
                }
                for table in [&QUOTE_COMMA, &QUOTE_TAB, &QUOTE_PIPE] {
                    let want = s.iter().any(|&b| table[b as usize]);
                    assert_eq!(any_in_table(&s, table), want, "{s:?}");
                }
                assert_eq!(has_escape(&s), escapes(&s), "{s:?}");
            }
        }
    }
    // Several special bytes, non-ASCII around them.
    for s in [
        "é\"x",
        "ab\\cdefghij",
        "\u{1F600}\u{1F600}\n",
        "aaaaaaaa\u{7}",
        "本本本本",
    ] {
        let s = s.as_bytes();
        assert_eq!(has_escape(s), escapes(s), "{s:?}");
        let want = s.iter().any(|&b| QUOTE_COMMA[b as usize]);
        assert_eq!(any_in_table(s, &QUOTE_COMMA), want, "{s:?}");
    }
}

#[test]
fn parallel_list_items_equal_the_sequential_encoding() {
    // List-form arrays (rows with nested arrays, mixed shapes, nested list forms, empty
    // objects), at the root and under a key, cut into runs of every size: the same bytes as
    // one thread, into a plain and into an escaping sink.
    let row = |i: usize| match i % 4 {
        0 => format!(r#"{{"id":{i},"lines":[{{"sku":"A","q":{i}}},{{"sku":"B","q":2}}]}}"#),
        1 => format!(r#"{{"id":{i},"tags":["x","y|z"],"n":null}}"#),
        2 => "{}".to_string(),
        // Every escape TOON writes, framed too.
        _ => format!(r#"[{i},{{"k":"v\n\"q\" \\ \t\r\u0001"}},[1,2]]"#),
    };
    for n in [1, 2, 7, 64, 301] {
        let rows: Vec<String> = (0..n).map(row).collect();
        let src = format!(r#"[{0}]"#, rows.join(","));
        let nested = format!(r#"{{"data":[{0}],"more":[{0}]}}"#, rows.join(","));
        for src in [src, nested] {
            let doc =
                crate::json::parse(src.as_bytes(), &crate::json::ParseOptions::new()).unwrap();
            let seq = to_vec(doc.root(), &EncodeOptions::new().parallel(false)).unwrap();
            for threshold in [1, 2, 3, 8, 100] {
                let opts = EncodeOptions::new().parallel_threshold(threshold);
                let par = to_vec(doc.root(), &opts).unwrap();
                assert_eq!(
                    String::from_utf8_lossy(&par),
                    String::from_utf8_lossy(&seq),
                    "{n} rows, threshold {threshold}"
                );
                let mut esc = Vec::new();
                let mut sink = crate::escape::EscapingSink::new(&mut esc);
                encode(doc.root(), &opts, &mut sink).unwrap();
                let mut want = Vec::new();
                crate::escape::EscapingSink::new(&mut want).write(&seq);
                assert_eq!(esc, want, "{n} rows, threshold {threshold}, escaped");
            }
        }
    }
}

/// `src` parsed (its objects marked `same_keys` by the builder) and the same tape copied
/// (every mark cleared, so the shape analysis compares every key).
fn marked_and_unmarked(src: &str) -> (crate::doc::Doc<'_>, crate::doc::Doc<'_>) {
    let doc = crate::json::parse(src.as_bytes(), &crate::json::ParseOptions::new()).unwrap();
    let mut b = crate::doc::DocBuilder::new(src.as_bytes());
    b.copy_from(&doc, 0);
    (doc, b.finish())
}

/// The shape analysis and the encoding of `src` do not depend on the builder's marks.
fn assert_marks_change_nothing(src: &str) {
    let (marked, _) = marked_and_unmarked(src);
    assert_doc_marks_change_nothing(&marked, src);
}

/// [`assert_marks_change_nothing`] of a built document.
fn assert_doc_marks_change_nothing(marked: &crate::doc::Doc<'_>, what: &str) {
    let mut b = crate::doc::DocBuilder::new(b"");
    b.copy_from(marked, 0);
    let plain = b.finish();
    let (a, b) = (marked.root(), plain.root());
    if let (Some(x), Some(y)) = (a.as_array(), b.as_array()) {
        assert_eq!(
            format!("{:?}", tabular_shape(x, None)),
            format!("{:?}", tabular_shape(y, None)),
            "{what}"
        );
        for threshold in [2, 8, 64] {
            assert_eq!(
                format!("{:?}", parallel_table(x, threshold).map(|t| t.0)),
                format!("{:?}", parallel_table(y, threshold).map(|t| t.0)),
                "{what} {threshold}"
            );
        }
    }
    let opts = EncodeOptions::new();
    let (mut x, mut y) = (Vec::new(), Vec::new());
    encode(a, &opts, &mut x).unwrap();
    encode(b, &opts, &mut y).unwrap();
    assert_eq!(
        String::from_utf8_lossy(&x),
        String::from_utf8_lossy(&y),
        "{what}"
    );
}

#[test]
fn marks_are_cleared_where_dropped_or_copied_objects_were_the_last_at_a_level() {
    // A merged duplicate drops `g`'s object, the last one closed at the level of `h`: the
    // second row's `h` has its keys, not the first row's `h`'s.
    assert_marks_change_nothing(
        r#"[{"h":{"p":1,"q":1},"g":{"a":1,"b":1},"g":2},{"h":{"a":1,"b":1},"g":3}]"#,
    );
    // A copied row hides its `h` from the builder: the next row's `h` follows it, not the
    // `h` of another array closed at the same depth before.
    let other = crate::json::parse(br#"{"h":{"p":1,"q":1}}"#, &Default::default()).unwrap();
    // A row `{"h": {"a": null, "b": null}}`, built.
    let row_ab = |b: &mut crate::doc::DocBuilder<'_>| {
        let row = b.begin_object();
        b.string(b"h");
        let h = b.begin_object();
        b.string(b"a");
        b.null();
        b.string(b"b");
        b.null();
        b.end_object(h, 2);
        b.end_object(row, 1);
    };
    let mut b = crate::doc::DocBuilder::new(b"");
    let root = b.begin_object();
    b.string(b"x");
    let x = b.begin_array();
    row_ab(&mut b);
    b.end_array(x, 1);
    b.string(b"rows");
    let rows = b.begin_array();
    b.copy_from(&other, 0);
    row_ab(&mut b);
    b.end_array(rows, 2);
    b.end_object(root, 2);
    let doc = b.finish();
    assert_doc_marks_change_nothing(&doc, "copied row");
}

#[test]
fn shape_analysis_trusts_same_keys_only_where_it_names_the_previous_row() {
    // Two groups per row: the second row's `c` is marked for the first row's `s` (same keys)
    // but differs from the first row's `c`: not a table.
    let two_groups =
        r#"[{"c":{"a":1,"b":2},"s":{"x":1,"y":2}},{"c":{"x":1,"y":2},"s":{"x":1,"y":2}}]"#;
    let (marked, _) = marked_and_unmarked(two_groups);
    assert!(tabular_shape(marked.root().as_array().unwrap(), None).is_none());
    assert_marks_change_nothing(two_groups);
    // Long enough for the parallel column scan, a deviation in the nested column near the
    // end, at a chunk start, and in the rows.
    let rows = |n: usize, odd: usize, row_odd: bool| {
        let rows: Vec<String> = (0..n)
            .map(|i| match (i == odd, row_odd) {
                (true, false) => format!(r#"{{"id":{i},"g":{{"y":1,"x":2}},"t":"s"}}"#),
                (true, true) => format!(r#"{{"id":{i},"t":"s","g":{{"x":1,"y":2}}}}"#),
                _ => format!(r#"{{"id":{i},"g":{{"x":{i},"y":2}},"t":"s"}}"#),
            })
            .collect();
        format!("[{}]", rows.join(","))
    };
    let n = PARALLEL_COLUMN + 100;
    for (odd, row_odd) in [
        (n - 1, false),
        (n / 2, false),
        (PARALLEL_COLUMN / 2, false),
        (n + 1, false),
        (n - 2, true),
    ] {
        assert_marks_change_nothing(&rows(n, odd, row_odd));
    }
}

#[test]
fn list_items_with_the_keys_of_the_item_before_copy_its_heads() {
    // Object items of a list (not a table: a nested value in each) whose keys repeat, change
    // at the same count, need quotes, or follow an array, a primitive or an empty object;
    // at the root and deeper, in every delimiter and two indents.
    let items = [
        r#"{"id":1,"name":"a","tags":[1,2]}"#,
        r#"{"id":2,"name":"b","tags":[{"x":1},{"x":2}]}"#,
        r#"{"id":3,"nom":"c","tags":[]}"#,
        r#"{"id":4,"nom":"d","tags":{"k":1}}"#,
        r#"[1,{"id":5,"nom":"e","tags":[1]}]"#,
        r#"{"id":6,"nom":"f","tags":[1]}"#,
        r#""text""#,
        r#"{"id":7,"nom":"g","tags":[1]}"#,
        r#"{}"#,
        r#"{"id":8,"nom":"h","tags":[1]}"#,
        r#"{"my key":9,"1st":"i","tags":[{"a":1,"b":{"c":2}}]}"#,
        r#"{"my key":10,"1st":"j","tags":[{"a":1,"b":{"c":3}}]}"#,
        r#"{"id":11,"nom":"k","tags":[[1,2],[3]]}"#,
        r#"{"id":12,"nom":"l","tags":[[1,2],[3]]}"#,
        // Nested tables of leaves: the same keys, other keys of the same count (one row:
        // no mark to go by), reordered, quoted, a row with a nested value, an empty row.
        r#"{"id":13,"nom":"m","tags":[{"a":1,"b":2},{"a":3,"b":4}]}"#,
        r#"{"id":14,"nom":"n","tags":[{"a":5,"b":6},{"a":7,"b":8}]}"#,
        r#"{"id":15,"nom":"o","tags":[{"a":9,"c":1}]}"#,
        r#"{"id":16,"nom":"p","tags":[{"c":2,"a":3}]}"#,
        r#"{"id":17,"nom":"q","tags":[{"c":4,"a":5},{"a":6,"c":7}]}"#,
        r#"{"id":18,"nom":"r","tags":[{"x y":1,"z":2},{"x y":3,"z":4}]}"#,
        r#"{"id":19,"nom":"s","tags":[{"x y":5,"z":6},{"x y":7,"z":[8]}]}"#,
        r#"{"id":20,"nom":"t","tags":[{"x y":9,"z":1},{}]}"#,
        r#"{"id":21,"nom":"u","tags":[{"x y":2,"z":3}],"more":[{"x y":4,"z":5}]}"#,
    ];
    let list = format!("[{}]", items.join(","));
    for src in [
        list.clone(),
        format!(r#"{{"outer":{{"rows":{list}}},"again":[{list},{list}]}}"#),
    ] {
        let (marked, plain) = marked_and_unmarked(&src);
        for delimiter in [Delimiter::Comma, Delimiter::Tab, Delimiter::Pipe] {
            for indent in [2, 4] {
                let opts = EncodeOptions::new().delimiter(delimiter).indent(indent);
                let (mut x, mut y) = (Vec::new(), Vec::new());
                encode(marked.root(), &opts, &mut x).unwrap();
                encode(plain.root(), &opts, &mut y).unwrap();
                assert_eq!(String::from_utf8_lossy(&x), String::from_utf8_lossy(&y));
                // The heads are the keys as the items have them.
                let text = String::from_utf8(x).unwrap();
                assert!(text.contains("- \"my key\": 10"), "{text}");
                assert!(text.contains("nom: l"), "{text}");
                let d = opts.delimiter.as_byte() as char;
                let tab = if d == ',' {
                    String::new()
                } else {
                    d.to_string()
                };
                for header in [
                    format!("tags[1{tab}]{{a{d}c}}:"),
                    format!("tags[1{tab}]{{c{d}a}}:"),
                    format!("more[1{tab}]{{\"x y\"{d}z}}:"),
                ] {
                    assert!(text.contains(&header), "{header} in {text}");
                }
                // Not tables: a row with a nested value, an empty row.
                for line in ["- \"x y\": 7", "- \"x y\": 9"] {
                    assert!(text.contains(line), "{line} in {text}");
                }
            }
        }
    }
}

proptest::proptest! {
    #[test]
    fn marks_never_change_a_shape_or_an_encoding(
        rows in proptest::collection::vec(
            proptest::collection::vec(
                (0usize..4, proptest::option::of(proptest::collection::vec(0usize..3, 1..3))),
                0..4,
            ),
            1..30,
        )
    ) {
        // Rows of keys from {a, b, c, d}, each value a number or an object of keys from
        // {x, y, z}: repeated key sets, orders and nested groups in every mix.
        let key = |k: usize| ["a", "b", "c", "d"][k];
        let sub = |k: usize| ["x", "y", "z"][k];
        let row = |fields: &Vec<(usize, Option<Vec<usize>>)>| {
            let mut seen = Vec::new();
            let members: Vec<String> = fields
                .iter()
                .filter(|(k, _)| {
                    let fresh = !seen.contains(k);
                    seen.push(*k);
                    fresh
                })
                .map(|(k, v)| match v {
                    None => format!(r#""{}":1"#, key(*k)),
                    Some(ks) => {
                        let mut inner: Vec<usize> = Vec::new();
                        for k in ks {
                            if !inner.contains(k) {
                                inner.push(*k);
                            }
                        }
                        let inner: Vec<String> =
                            inner.iter().map(|k| format!(r#""{}":2"#, sub(*k))).collect();
                        format!(r#""{}":{{{}}}"#, key(*k), inner.join(","))
                    }
                })
                .collect();
            format!("{{{}}}", members.join(","))
        };
        let rows: Vec<String> = rows.iter().map(row).collect();
        assert_marks_change_nothing(&format!("[{}]", rows.join(",")));
        // The same rows as the nested arrays of a collection (each outer row's `lines`,
        // cut at every third row): the first row of each is marked for the last row of the
        // one before, and a string or an array among the values of every fifth outer row.
        let outer: Vec<String> = rows
            .chunks(3)
            .enumerate()
            .map(|(i, lines)| {
                let extra = match i % 5 {
                    3 => r#","s":"x""#,
                    4 => r#","s":[1]"#,
                    _ => "",
                };
                format!(r#"{{"id":{i}{extra},"lines":[{}]}}"#, lines.join(","))
            })
            .collect();
        assert_marks_change_nothing(&format!("[{}]", outer.join(",")));
    }
}

#[test]
fn a_table_shown_by_the_marks_is_the_analysed_one() {
    // Leaf rows marked by the parser (the marked shape) against the analysis of the same
    // rows: tables of one to many rows, and arrays the marks alone do not show.
    let cases = [
        r#"[{"a":1,"b":"x"}]"#.to_string(),
        rows(3, &|i| format!(r#"{{"sku":"S{i}","qty":{i},"ok":true}}"#)),
        rows(50, &|i| format!(r#"{{"a":{i},"b":"x","c":null}}"#)),
        // One key: not marked, analysed.
        rows(4, &|i| format!(r#"{{"a":{i}}}"#)),
        // A nested group in the first row, in a later row, a last row with another key.
        rows(4, &|i| {
            if i == 0 {
                r#"{"a":{"x":1},"b":2}"#.into()
            } else {
                r#"{"a":1,"b":2}"#.into()
            }
        }),
        rows(4, &|i| {
            if i == 2 {
                r#"{"a":{"x":1},"b":2}"#.into()
            } else {
                r#"{"a":1,"b":2}"#.into()
            }
        }),
        rows(4, &|i| {
            if i == 3 {
                r#"{"a":1,"c":2}"#.into()
            } else {
                r#"{"a":1,"b":2}"#.into()
            }
        }),
        rows(4, &|i| {
            if i == 1 {
                r#"{"b":2,"a":1}"#.into()
            } else {
                r#"{"a":1,"b":2}"#.into()
            }
        }),
        // One row holding a group or an array.
        r#"[{"a":{"x":1,"y":2},"b":3}]"#.to_string(),
        r#"[{"a":[1,2],"b":3}]"#.to_string(),
        // A non-object element after the rows.
        r#"[{"a":1,"b":2},{"a":1,"b":2},7]"#.to_string(),
        // Escaped keys.
        rows(3, &|i| format!(r#"{{"\u0061":{i},"b\"q":2}}"#)),
    ];
    let mut marked_tables = 0;
    for src in &cases {
        let (marked, _) = marked_and_unmarked(src);
        let x = marked.root().as_array().unwrap();
        let first = x.iter().next().unwrap().as_object().unwrap();
        marked_tables += usize::from(marked_leaf_table(x, first).is_some());
        // The analysis alone, as `tabular_shape` runs it without the marks' shortcut.
        let mut analysed = Shape {
            fields: Vec::new(),
            ordered: true,
        };
        let analysed = analyze(x.iter(), true, None, &mut analysed).then_some(analysed);
        assert_eq!(
            format!("{:?}", tabular_shape(x, None)),
            format!("{analysed:?}"),
            "{src}"
        );
        assert_marks_change_nothing(src);
    }
    assert!(
        marked_tables >= 3,
        "the marks showed {marked_tables} tables"
    );
}

#[test]
fn a_root_table_kept_with_its_document_encodes_as_a_fresh_analysis() {
    let cases = [
        rows(50, &|i| format!(r#"{{"a":{i},"b":"x"}}"#)),
        rows(50, &nested_row),
        rows(50, &reordered_row),
        // Not tables: the memo keeps that too.
        group_then_leaf(50),
        rows(50, &|i| format!(r#"{{"a":[{i}]}}"#)),
        r#"[1,2,3]"#.to_string(),
        r#"{"a":[{"x":1},{"x":2}]}"#.to_string(),
    ];
    for src in &cases {
        let doc = crate::json::parse(src.as_bytes(), &crate::json::ParseOptions::new()).unwrap();
        let encode_with = |doc: &crate::doc::Doc<'_>, threshold: usize| {
            let opts = EncodeOptions::new().parallel_threshold(threshold);
            let mut out = Vec::new();
            encode(doc.root(), &opts, &mut out).unwrap();
            out
        };
        // A clone starts with an empty memo: each of these analyses afresh.
        let fresh: Vec<Vec<u8>> = [2, 8, 1 << 20]
            .iter()
            .map(|&t| encode_with(&doc.clone(), t))
            .collect();
        prepare(&doc);
        // Kept for every root array of objects, table or not (as the analysis found).
        let objects = src.starts_with("[{");
        let kept = doc.kept::<RootTable>().map(|t| t.0.is_some());
        let table = doc
            .root()
            .as_array()
            .and_then(|a| tabular_shape(a, None))
            .is_some();
        assert_eq!(kept, objects.then_some(table), "{src}");
        for (&t, want) in [2, 8, 1 << 20].iter().zip(&fresh) {
            // Twice: the first reads the prepared memo, the second too.
            assert_eq!(&encode_with(&doc, t), want, "{src} {t}");
            assert_eq!(&encode_with(&doc, t), want, "{src} {t}");
        }
        // An encoding keeps nothing by itself.
        let other = doc.clone();
        assert_eq!(encode_with(&other, 8), fresh[1], "{src}");
        assert!(other.kept::<RootTable>().is_none(), "{src}");
    }
}

/// A member of a test row: a leaf (its JSON) or a group of members.
enum Member {
    Leaf(&'static str, String),
    Group(&'static str, Vec<Member>),
}

/// `members` as a JSON object, in their order or (`reversed`) the other way round at every
/// level.
fn object_json(members: &[Member], reversed: bool) -> String {
    let mut parts: Vec<String> = members
        .iter()
        .map(|m| match m {
            Member::Leaf(k, v) => format!("\"{k}\":{v}"),
            Member::Group(k, g) => format!("\"{k}\":{}", object_json(g, reversed)),
        })
        .collect();
    if reversed {
        parts.reverse();
    }
    format!("{{{}}}", parts.join(","))
}

#[test]
fn rows_with_groups_read_at_fixed_offsets_equal_rows_read_by_key() {
    use Member::{Group, Leaf};
    // Tables with groups first, last, two of them, one inside another, and cells that need
    // quotes or escapes. The same rows with one row's keys reversed at every level are not
    // in order: their cells are found by key, one field at a time, and must come out the
    // same.
    let shapes: [&dyn Fn(usize) -> Vec<Member>; 5] = [
        &|i| {
            vec![
                Group(
                    "g",
                    vec![Leaf("x", i.to_string()), Leaf("y", "\"s\"".into())],
                ),
                Leaf("a", i.to_string()),
            ]
        },
        &|i| {
            vec![
                Leaf("a", format!("\"v{i}\"")),
                Group(
                    "g",
                    vec![Leaf("x", "\"q,u\"".into()), Leaf("y", "true".into())],
                ),
            ]
        },
        &|i| {
            vec![
                Group("g", vec![Leaf("x", "1".into())]),
                Leaf("a", "\"t\"".into()),
                Group(
                    "h",
                    vec![Leaf("p", "null".into()), Leaf("q", format!("{i}.5"))],
                ),
            ]
        },
        &|i| {
            vec![
                Leaf("a", i.to_string()),
                Group(
                    "g",
                    vec![
                        Leaf("x", i.to_string()),
                        Group(
                            "y",
                            vec![Leaf("z", "\"-1\"".into()), Leaf("w", "\"\"".into())],
                        ),
                    ],
                ),
                Leaf("b", "2".into()),
            ]
        },
        &|i| {
            vec![
                Group(
                    "n",
                    vec![
                        Leaf("s", r#""he said \"hi\"\n""#.into()),
                        Leaf("t", format!("\"a|b\\t{i}\"")),
                    ],
                ),
                Leaf("m", "\"-x\"".into()),
            ]
        },
    ];
    for (s, shape) in shapes.iter().enumerate() {
        for n in [1, 7, 40] {
            let table = rows(n, &|i| object_json(&shape(i), false));
            let by_key = rows(n, &|i| object_json(&shape(i), n > 1 && i == n / 2));
            let a = crate::json::parse(table.as_bytes(), &Default::default()).unwrap();
            let b = crate::json::parse(by_key.as_bytes(), &Default::default()).unwrap();
            let sa = a.root().as_array().and_then(|r| tabular_shape(r, None));
            let sb = b.root().as_array().and_then(|r| tabular_shape(r, None));
            let (sa, sb) = (sa.unwrap(), sb.unwrap());
            assert!(
                sa.ordered && sa.fields.iter().any(|f| f.span > 1),
                "shape {s}"
            );
            assert_eq!(sb.ordered, n == 1, "shape {s}: one reversed row of {n}");
            for delimiter in [Delimiter::Comma, Delimiter::Pipe, Delimiter::Tab] {
                for threshold in [2, 1 << 20] {
                    let opts = EncodeOptions::new()
                        .delimiter(delimiter)
                        .parallel_threshold(threshold);
                    let encode_of = |d: &crate::doc::Doc<'_>| {
                        let mut out = Vec::new();
                        encode(d.root(), &opts, &mut out).unwrap();
                        String::from_utf8(out).unwrap()
                    };
                    let (x, y) = (encode_of(&a), encode_of(&b));
                    assert!(x.starts_with(&format!("[{n}")), "shape {s}: {x}");
                    assert_eq!(
                        x, y,
                        "shape {s}, {n} rows, {delimiter:?}, threshold {threshold}"
                    );
                }
            }
        }
    }
}

/// [`to_vec`] of the JSON array of `rows`.
fn whole(rows: &[String], opts: &EncodeOptions) -> Result<Vec<u8>> {
    let text = format!("[{}]", rows.join(","));
    let doc = crate::json::parse(text.as_bytes(), &Default::default()).unwrap();
    to_vec(doc.root(), opts)
}

/// [`WindowedEncoder`] of the JSON array `rows`, cut before each index of `cuts`, each window
/// after the first with the first row in front (a cut at 0 is none: the first window holds
/// the first row); the header written ahead with `declared` rows.
fn encoded_in_windows(
    rows: &[String],
    cuts: &[usize],
    declared: usize,
    opts: &EncodeOptions,
) -> Result<Vec<u8>> {
    let mut w = WindowedEncoder::new(declared, opts);
    let mut bounds: Vec<usize> = cuts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| c.min(rows.len()))
        .collect();
    bounds.push(rows.len());
    bounds.sort_unstable();
    let mut from = 0;
    for to in bounds {
        let mut part: Vec<&str> = Vec::new();
        if from > 0 {
            part.push(&rows[0]);
        }
        part.extend(rows[from..to].iter().map(String::as_str));
        let text = format!("[{}]", part.join(","));
        let doc = crate::json::parse(text.as_bytes(), &Default::default()).unwrap();
        let mut owned = crate::doc::DocBuilder::new(b"");
        owned.copy_value(doc.root());
        w.push(owned.finish());
        from = to;
    }
    w.finish()
}

#[test]
fn a_windowed_encoder_writes_what_the_whole_array_encodes() {
    let table: Vec<String> = (0..40).map(nested_row).collect();
    let reordered: Vec<String> = (0..40).map(reordered_row).collect();
    let broken: Vec<String> = (0..40)
        .map(|i| {
            if i == 33 {
                r#"{"a":1}"#.into()
            } else {
                nested_row(i)
            }
        })
        .collect();
    let numbers: Vec<String> = (0..40).map(|i| i.to_string()).collect();
    let mut then_object = numbers.clone();
    then_object.push(r#"{"a":1}"#.into());
    for rows in [table, reordered, broken, numbers, then_object, Vec::new()] {
        for threshold in [2, 1 << 20] {
            let opts = EncodeOptions::new().parallel_threshold(threshold);
            let want = whole(&rows, &opts).unwrap();
            for cuts in [vec![], vec![1], vec![5, 20], vec![39, 40]] {
                for declared in [rows.len(), rows.len() + 1, 0] {
                    let got = encoded_in_windows(&rows, &cuts, declared, &opts).unwrap();
                    assert_eq!(
                        String::from_utf8_lossy(&got),
                        String::from_utf8_lossy(&want),
                        "cuts {cuts:?}, declared {declared}, threshold {threshold}"
                    );
                }
            }
        }
    }
}

#[test]
fn a_windowed_encoder_hands_back_the_windows_it_was_given() {
    let opts = EncodeOptions::new();
    let texts = [
        r#"[{"a":1},{"a":2}]"#,
        r#"[{"a":1},{"b":"x"}]"#,
        r#"[{"a":1},{"a":3}]"#,
    ];
    let mut w = WindowedEncoder::new(4, &opts);
    for t in texts {
        let doc = crate::json::parse(t.as_bytes(), &Default::default()).unwrap();
        let mut owned = crate::doc::DocBuilder::new(b"");
        owned.copy_value(doc.root());
        w.push(owned.finish());
    }
    let (text, windows) = w.finish_keeping();
    // The second window broke the table written ahead: the text was rewritten from them.
    assert_eq!(
        String::from_utf8(text.unwrap()).unwrap(),
        "[4]:\n  - a: 1\n  - a: 2\n  - b: x\n  - a: 3"
    );
    let kept: Vec<String> = windows
        .iter()
        .map(|d| String::from_utf8(crate::json::to_vec_compact(d.root())).unwrap())
        .collect();
    assert_eq!(kept, texts);
}

#[test]
fn a_windowed_encoder_fails_as_the_whole_array_does() {
    let rows: Vec<String> = (0..10)
        .map(|i| {
            if i == 7 {
                r#"{"a":[[[1]]]}"#.into()
            } else {
                format!(r#"{{"a":{i}}}"#)
            }
        })
        .collect();
    let opts = EncodeOptions::new().max_depth(3);
    let want = whole(&rows, &opts).unwrap_err();
    let got = encoded_in_windows(&rows, &[4], 10, &opts).unwrap_err();
    assert_eq!(
        (got.classify(), got.message()),
        (want.classify(), want.message())
    );
}

proptest::proptest! {
    #[test]
    fn a_windowed_encoder_matches_the_encoder_on_any_rows(
        rows in proptest::collection::vec(
            (0usize..8, proptest::collection::vec((0usize..4, 0usize..3), 0..4)),
            0..30,
        ),
        cuts in proptest::collection::vec(0usize..30, 0..4),
        off in 0usize..2,
    ) {
        // Rows of keys from {a, b, c, d} in any order, each value a number, a string or an
        // object; a few rows a primitive or an array: tables, broken tables, lists, inline.
        let key = |k: usize| ["a", "b", "c", "d"][k];
        let value = |v: usize| [r#"1"#, r#""s""#, r#"{"x":2}"#][v];
        let rows: Vec<String> = rows
            .iter()
            .map(|(kind, fields)| match kind {
                6 => "7".into(),
                7 => "[1,2]".into(),
                _ => {
                    let mut seen = Vec::new();
                    let members: Vec<String> = fields
                        .iter()
                        .filter(|(k, _)| {
                            let fresh = !seen.contains(k);
                            seen.push(*k);
                            fresh
                        })
                        .map(|(k, v)| format!(r#""{}":{}"#, key(*k), value(*v)))
                        .collect();
                    format!("{{{}}}", members.join(","))
                }
            })
            .collect();
        let opts = EncodeOptions::new().parallel_threshold(2);
        let want = whole(&rows, &opts).unwrap();
        let got = encoded_in_windows(&rows, &cuts, rows.len() + off, &opts).unwrap();
        proptest::prop_assert_eq!(String::from_utf8_lossy(&got), String::from_utf8_lossy(&want));
    }
}
