//! JSONTestSuite (`test_parsing`), read in place: every `y_` file parses, every `n_` file is
//! rejected with a positioned error, every `i_` file follows the decision table below (the
//! same table as in the parser's module docs).

use toolwire::Category;
use toolwire::json::{ParseOptions, Selector, parse, parse_selected};

/// `i_` file → `Ok(())` (accept) or `Err(category)` (reject), with the reason.
const I_DECISIONS: &[(&str, Result<(), Category>, &str)] = &[
    (
        "i_number_double_huge_neg_exp.json",
        Ok(()),
        "123.456e-789 underflows to 0, as JSON.parse",
    ),
    (
        "i_number_huge_exp.json",
        Err(Category::Number),
        "0.4e006699… overflows f64",
    ),
    (
        "i_number_neg_int_huge_exp.json",
        Err(Category::Number),
        "-1e+9999 overflows f64",
    ),
    (
        "i_number_pos_double_huge_exp.json",
        Err(Category::Number),
        "1.5e+9999 overflows f64",
    ),
    (
        "i_number_real_neg_overflow.json",
        Err(Category::Number),
        "-123123e100000 overflows f64",
    ),
    (
        "i_number_real_pos_overflow.json",
        Err(Category::Number),
        "123123e100000 overflows f64",
    ),
    (
        "i_number_real_underflow.json",
        Ok(()),
        "123e-10000000 underflows to 0",
    ),
    (
        "i_number_too_big_neg_int.json",
        Ok(()),
        "integers keep all their digits",
    ),
    (
        "i_number_too_big_pos_int.json",
        Ok(()),
        "integers keep all their digits",
    ),
    (
        "i_number_very_big_negative_int.json",
        Ok(()),
        "integers keep all their digits",
    ),
    (
        "i_object_key_lone_2nd_surrogate.json",
        Ok(()),
        "lone surrogate kept as WTF-8, flagged",
    ),
    (
        "i_string_1st_surrogate_but_2nd_missing.json",
        Ok(()),
        "lone surrogate kept as WTF-8",
    ),
    (
        "i_string_1st_valid_surrogate_2nd_invalid.json",
        Ok(()),
        "lone high surrogate, then a BMP char",
    ),
    (
        "i_string_UTF-16LE_with_BOM.json",
        Err(Category::Utf8),
        "UTF-16 is not UTF-8",
    ),
    (
        "i_string_UTF-8_invalid_sequence.json",
        Err(Category::Utf8),
        "invalid UTF-8",
    ),
    (
        "i_string_UTF8_surrogate_U+D800.json",
        Err(Category::Utf8),
        "raw ED A0 80 is not UTF-8",
    ),
    (
        "i_string_incomplete_surrogate_and_escape_valid.json",
        Ok(()),
        "lone surrogate, then \\n",
    ),
    (
        "i_string_incomplete_surrogate_pair.json",
        Ok(()),
        "lone surrogate, then text",
    ),
    (
        "i_string_incomplete_surrogates_escape_valid.json",
        Ok(()),
        "two lone surrogates, then \\n",
    ),
    (
        "i_string_invalid_lonely_surrogate.json",
        Ok(()),
        "lone surrogate kept as WTF-8",
    ),
    (
        "i_string_invalid_surrogate.json",
        Ok(()),
        "lone surrogate, then text",
    ),
    (
        "i_string_invalid_utf-8.json",
        Err(Category::Utf8),
        "byte FF",
    ),
    (
        "i_string_inverted_surrogates_U+1D11E.json",
        Ok(()),
        "low then high: two lone surrogates",
    ),
    (
        "i_string_iso_latin_1.json",
        Err(Category::Utf8),
        "Latin-1 byte E9",
    ),
    (
        "i_string_lone_second_surrogate.json",
        Ok(()),
        "lone low surrogate kept as WTF-8",
    ),
    (
        "i_string_lone_utf8_continuation_byte.json",
        Err(Category::Utf8),
        "stray continuation byte",
    ),
    (
        "i_string_not_in_unicode_range.json",
        Err(Category::Utf8),
        "beyond U+10FFFF",
    ),
    (
        "i_string_overlong_sequence_2_bytes.json",
        Err(Category::Utf8),
        "overlong encoding",
    ),
    (
        "i_string_overlong_sequence_6_bytes.json",
        Err(Category::Utf8),
        "overlong encoding",
    ),
    (
        "i_string_overlong_sequence_6_bytes_null.json",
        Err(Category::Utf8),
        "overlong encoding",
    ),
    (
        "i_string_truncated-utf-8.json",
        Err(Category::Utf8),
        "truncated sequence",
    ),
    (
        "i_string_utf16BE_no_BOM.json",
        Err(Category::Syntax),
        "starts with a NUL byte",
    ),
    (
        "i_string_utf16LE_no_BOM.json",
        Err(Category::Syntax),
        "NUL byte after '['",
    ),
    (
        "i_structure_500_nested_arrays.json",
        Err(Category::Depth),
        "deeper than the default 128",
    ),
    (
        "i_structure_UTF-8_BOM_empty_object.json",
        Err(Category::Syntax),
        "byte order mark, as JSON.parse",
    ),
];

#[test]
fn json_test_suite() {
    let Some(dir) = toolwire_tests::json_test_suite() else {
        return;
    };
    let opts = ParseOptions::new();
    let sel = Selector::new(["a", "b"]);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("read JSONTestSuite folder")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let (mut y, mut n, mut i) = (0, 0, 0);
    let mut seen_i = Vec::new();
    for path in &files {
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        let bytes = std::fs::read(path).unwrap();
        let full = parse(&bytes, &opts);
        // Selection accepts and rejects exactly the same inputs, with the same error.
        let selected = parse_selected(&bytes, &sel, &opts);
        match (&full, &selected) {
            (Ok(_), Ok(_)) => {}
            (Err(a), Err(b)) => {
                assert_eq!(
                    (a.classify(), a.offset(), a.message()),
                    (b.classify(), b.offset(), b.message()),
                    "{name}: parse and parse_selected disagree"
                );
            }
            _ => panic!("{name}: parse {full:?} but parse_selected {selected:?}"),
        }
        if name.starts_with("y_") {
            y += 1;
            if let Err(e) = &full {
                panic!("{name} must parse: {e}");
            }
        } else if name.starts_with("n_") {
            n += 1;
            match &full {
                Ok(doc) => panic!("{name} must be rejected, got {:?}", doc.root()),
                Err(e) => {
                    assert!(e.line() >= 1 && e.column() >= 1, "{name}: {e:?}");
                    assert!(e.offset() <= bytes.len(), "{name}: {e:?}");
                }
            }
        } else if name.starts_with("i_") {
            i += 1;
            let Some((_, want, why)) = I_DECISIONS.iter().find(|(f, _, _)| *f == name) else {
                panic!("{name} has no entry in I_DECISIONS");
            };
            seen_i.push(name.clone());
            let got = full.as_ref().map(|_| ()).map_err(|e| e.classify());
            assert_eq!(&got, want, "{name} ({why}): {full:?}");
        }
    }
    for (f, _, _) in I_DECISIONS {
        assert!(
            seen_i.iter().any(|s| s == f),
            "{f} is in the table but not in the suite"
        );
    }
    eprintln!("JSONTestSuite: y_ {y} parsed, n_ {n} rejected, i_ {i} as decided");
    assert!(y >= 95 && n >= 188 && i == I_DECISIONS.len(), "{y} {n} {i}");
}

#[test]
fn deep_i_file_is_accepted_with_a_higher_limit() {
    let Some(dir) = toolwire_tests::json_test_suite() else {
        return;
    };
    let bytes = std::fs::read(dir.join("i_structure_500_nested_arrays.json")).unwrap();
    let doc = parse(&bytes, &ParseOptions::new().max_depth(500)).unwrap();
    assert_eq!(doc.node_count(), 500);
    let e = parse(&bytes, &ParseOptions::new().max_depth(499)).unwrap_err();
    assert_eq!((e.classify(), e.offset()), (Category::Depth, 499));
}

#[test]
fn lone_surrogate_i_files_are_flagged() {
    let Some(dir) = toolwire_tests::json_test_suite() else {
        return;
    };
    for (f, want, _) in I_DECISIONS {
        if f.contains("surrogate") && want.is_ok() {
            let bytes = std::fs::read(dir.join(f)).unwrap();
            let doc = parse(&bytes, &ParseOptions::new()).unwrap();
            assert!(doc.has_lone_surrogate(), "{f}");
            let doc = parse_selected(&bytes, &Selector::new(["zz"]), &ParseOptions::new()).unwrap();
            assert!(doc.has_lone_surrogate(), "{f} (selected)");
        }
    }
}
