//! Unit tests of the encoder's internals.

use super::*;

#[test]
fn parallel_table_equals_the_sequential_analysis() {
    // Tables (flat, nested groups, keys in another order, one row, a tail shorter than a
    // chunk) and arrays that are not: rows whose sizes differ but whose nodes divide
    // evenly (spans 3 and 5 alternate, so the computed starts are wrong for odd chunks),
    // a last row with an extra field, a last row whose group turns into a leaf, arrays.
    let rows = |n: usize, row: &dyn Fn(usize) -> String| {
        let rows: Vec<String> = (0..n).map(row).collect();
        format!("[{}]", rows.join(","))
    };
    let flat = |n: usize| rows(n, &|i| format!(r#"{{"a":{i},"b":"x"}}"#));
    let cases = [
        flat(1),
        flat(10),
        flat(41),
        rows(41, &|i| {
            format!(r#"{{"a":{i},"g":{{"x":{i},"y":{{"z":1}}}},"b":2}}"#)
        }),
        rows(30, &|i| {
            if i % 7 == 3 {
                r#"{"b":"x","a":1}"#.into()
            } else {
                r#"{"a":1,"b":"x"}"#.into()
            }
        }),
        rows(40, &|i| {
            if i % 2 == 0 {
                r#"{"a":1}"#.into()
            } else {
                r#"{"a":1,"b":2}"#.into()
            }
        }),
        flat(39).replace("]", r#",{"a":1,"b":"x","c":3}]"#),
        rows(20, &|i| {
            if i == 19 {
                r#"{"a":1,"g":7}"#.into()
            } else {
                r#"{"a":1,"g":{"x":1}}"#.into()
            }
        }),
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

#[test]
fn parallel_list_items_equal_the_sequential_encoding() {
    // List-form arrays (rows with nested arrays, mixed shapes, nested list forms, empty
    // objects), at the root and under a key, cut into runs of every size: the same bytes as
    // one thread, into a plain and into an escaping sink.
    let row = |i: usize| match i % 4 {
        0 => format!(r#"{{"id":{i},"lines":[{{"sku":"A","q":{i}}},{{"sku":"B","q":2}}]}}"#),
        1 => format!(r#"{{"id":{i},"tags":["x","y|z"],"n":null}}"#),
        2 => "{}".to_string(),
        _ => format!(r#"[{i},{{"k":"v\n"}},[1,2]]"#),
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
