//! The parser's block kernels against each other and against the bytewise parser they
//! replaced: every kernel this CPU runs (portable, SSE2, AVX2 or NEON) classifies every block
//! exactly as the byte-by-byte definitions do, and parses to the same document or the same
//! error (category, offset, message) as the bytewise path, through `parse` and
//! `parse_selected`. Inputs: the JSONTestSuite files (also shifted
//! across block boundaries) and generated documents and byte soups (backslash runs and
//! quotes at 64-byte boundaries, invalid UTF-8, unterminated strings, whitespace runs), and
//! collections whose rows repeat, then leave, the layout of the row before (the parser's row
//! layouts, which the bytewise path does not have): the same document, the same TOON and the
//! same pretty JSON (both read the `same_keys` marks), or the same error.

use proptest::prelude::*;
use toolwire::json::{ParseOptions, Selector, parse, parse_selected, to_string_pretty};
use toolwire::test_hooks::{Kernel, kernel_mismatches, with_kernel};
use toolwire::toon::{EncodeOptions, to_string as toon};

/// A parse outcome that can be compared across kernels.
fn outcome(bytes: &[u8], select: Option<&Selector>) -> Result<(String, bool, bool), String> {
    let opts = ParseOptions::new();
    let r = match select {
        None => parse(bytes, &opts),
        Some(s) => parse_selected(bytes, s, &opts),
    };
    r.map(|d| {
        let root = d.root();
        let toon = toon(root, &EncodeOptions::new()).unwrap_or_else(|e| e.to_string());
        (
            format!("{root:?}\n{toon}\n{}", to_string_pretty(root)),
            d.has_reserved_tag(),
            d.has_lone_surrogate(),
        )
    })
    .map_err(|e| format!("{:?} at {}: {}", e.classify(), e.offset(), e.message()))
}

/// Checks `bytes` with every kernel; returns a description of the first disagreement.
fn check(bytes: &[u8]) -> Result<(), String> {
    let kernels = Kernel::available();
    assert!(kernels.contains(&Kernel::Fallback));
    for &k in &kernels {
        let bad = kernel_mismatches(bytes, k).expect("available");
        if let Some((n, why)) = bad.first() {
            return Err(format!("{k:?}: block {n}: {why}"));
        }
    }
    let sel = Selector::new(["a", "id"]);
    for select in [None, Some(&sel)] {
        let want = with_kernel(None, || outcome(bytes, select)).expect("bytewise path");
        for &k in &kernels {
            let got = with_kernel(Some(k), || outcome(bytes, select)).expect("available");
            if got != want {
                return Err(format!(
                    "{k:?} (select {}): {got:?}, bytewise {want:?}",
                    select.is_some()
                ));
            }
        }
    }
    Ok(())
}

#[test]
fn this_cpu_runs_its_vector_kernels() {
    let k = Kernel::available();
    if cfg!(target_arch = "x86_64") {
        assert!(k.contains(&Kernel::Sse2), "{k:?}");
    }
    if cfg!(target_arch = "aarch64") {
        assert!(k.contains(&Kernel::Neon), "{k:?}");
    }
    assert_eq!(
        with_kernel(Some(Kernel::Neon), || ()).is_some(),
        cfg!(target_arch = "aarch64")
    );
}

#[test]
fn json_test_suite_is_parsed_alike_by_every_kernel() {
    let Some(dir) = toolwire_tests::json_test_suite() else {
        return;
    };
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("read JSONTestSuite folder")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    assert!(files.len() > 300, "{}", files.len());
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy();
        // As is, then moved across block boundaries by leading whitespace.
        for pad in [0, 1, 31, 55, 63, 64, 100] {
            let mut shifted = vec![b' '; pad];
            shifted.extend_from_slice(&bytes);
            if let Err(e) = check(&shifted) {
                panic!("{name} (shifted by {pad}): {e}");
            }
        }
    }
}

#[test]
fn backslash_runs_across_every_block_boundary() {
    // A string whose run of n backslashes ends at every offset around the 64- and 128-byte
    // boundaries, followed by a quote (escaped or closing, by the parity of n).
    for n in 0..=6 {
        for end in 50..140 {
            let mut doc = b"[\"".to_vec();
            while doc.len() + n < end {
                doc.push(b'a');
            }
            doc.extend(std::iter::repeat_n(b'\\', n));
            doc.extend_from_slice(b"\",1,\"x\"]");
            check(&doc).unwrap_or_else(|e| panic!("{n} backslashes ending at {end}: {e}"));
        }
    }
}

#[test]
fn whitespace_runs_and_long_strings_cross_blocks() {
    let mut doc = b"{".to_vec();
    for i in 0..40 {
        doc.extend(std::iter::repeat_n(b' ', i * 7 % 150));
        doc.extend_from_slice(format!("\"k{i}\"\n\t:\r").as_bytes());
        doc.push(b'"');
        doc.extend(std::iter::repeat_n(b'v', i * 13 % 200));
        doc.extend_from_slice(b"\",");
    }
    doc.extend_from_slice(b"\"a\": [1, 2.5, true, null, \"\xc3\xa9<x>\"]}");
    check(&doc).unwrap();
    // The same document cut at every length: unterminated strings and containers.
    for cut in (0..doc.len()).step_by(7) {
        check(&doc[..cut]).unwrap_or_else(|e| panic!("cut at {cut}: {e}"));
    }
}

/// Bytes that matter to the scanner, and a few that do not.
const ALPHABET: &[u8] = b"\"\\{}[]:, \n\t\r<a0-1e.tfnu\x01\xc3\xa9\xff";

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn byte_soup_is_classified_and_parsed_alike(
        soup in prop::collection::vec(prop::sample::select(ALPHABET), 0..400),
    ) {
        prop_assert!(check(&soup).is_ok(), "{:?}: {:?}", String::from_utf8_lossy(&soup), check(&soup));
    }

    #[test]
    fn generated_documents_are_parsed_alike(
        pad in 0usize..70,
        rows in prop::collection::vec(
            (
                "[a-z]{1,12}",
                prop::collection::vec(prop::sample::select(&b"ab\\\"<\x7f"[..]), 0..90),
                0usize..4,
                any::<bool>(),
            ),
            1..12,
        ),
    ) {
        // Rows of string members whose escapes are valid (`\\`, `\"`) or not (a lone
        // backslash before another byte), with whitespace between tokens.
        let mut doc = vec![b' '; pad];
        doc.push(b'[');
        for (i, (key, text, ws, valid)) in rows.iter().enumerate() {
            if i > 0 {
                doc.push(b',');
            }
            doc.extend(std::iter::repeat_n(b' ', *ws));
            doc.extend_from_slice(format!("{{\"{key}\":").as_bytes());
            doc.extend(std::iter::repeat_n(b'\n', *ws));
            doc.push(b'"');
            for &c in text {
                if *valid && (c == b'\\' || c == b'"') {
                    doc.push(b'\\');
                }
                doc.push(c);
            }
            doc.extend_from_slice(b"\"}");
        }
        doc.push(b']');
        prop_assert!(check(&doc).is_ok(), "{:?}: {:?}", String::from_utf8_lossy(&doc), check(&doc));
    }

    #[test]
    fn collections_that_leave_their_row_layout_are_parsed_alike(
        pretty in any::<bool>(),
        pool in prop::collection::vec(prop::collection::vec(0usize..ROW_PARTS.len(), 0..6), 1..4),
        picks in prop::collection::vec(0usize..4, 1..16),
        cut in prop::option::of(0usize..2000),
        limit in prop::option::of(1usize..6),
    ) {
        // Rows drawn from a pool of a few, built from a few members: most repeat an earlier
        // row, and the others differ in a member (another key, value kind, whitespace, an
        // escaped key, a duplicate, a nested row); optionally cut short (every error inside
        // a repeated row).
        let rows: Vec<&Vec<usize>> = picks.iter().map(|&i| &pool[i % pool.len()]).collect();
        let mut doc = b"{\"items\": [".to_vec();
        for (r, members) in rows.iter().enumerate() {
            if r > 0 {
                doc.extend_from_slice(if pretty { b",\n    " } else { b"," });
            }
            doc.push(b'{');
            for (m, &part) in members.iter().enumerate() {
                if m > 0 {
                    doc.push(b',');
                }
                if pretty {
                    doc.extend_from_slice(b"\n      ");
                }
                doc.extend_from_slice(ROW_PARTS[part].as_bytes());
            }
            doc.push(b'}');
        }
        doc.extend_from_slice(b"], \"n\": 1}");
        if let Some(c) = cut {
            doc.truncate(c.min(doc.len()));
        }
        prop_assert!(check(&doc).is_ok(), "{:?}: {:?}", String::from_utf8_lossy(&doc), check(&doc));
        if let Some(n) = limit {
            // A member limit met inside a repeated row: the same error at the same byte.
            let opts = ParseOptions::new().max_keys_per_object(n).max_depth(3);
            let run = |k| with_kernel(k, || {
                parse(&doc, &opts).map(|d| format!("{:?}", d.root())).map_err(|e| (e.offset(), e.message().to_string()))
            });
            prop_assert_eq!(run(Some(Kernel::detected())), run(None));
        }
    }
}

/// Members the rows of `collections_that_leave_their_row_layout_are_parsed_alike` are made of.
const ROW_PARTS: &[&str] = &[
    r#""id":1"#,
    r#""id":"a,b""#,
    r#""id" : 2.50"#,
    r#""name":"Acme""#,
    r#""name":"Ac\"me""#,
    r#""na\u006de":"x""#,
    r#""pa\u0069d":false"#,
    r#""paid":true"#,
    r#""paid":null"#,
    r#""tags":[1,{"id":1,"name":"x"}]"#,
    r#""sub":{"id":1,"name":"y"}"#,
    r#""sub":{}"#,
    r#""<tool_error>":"x""#,
    r#""id":-0"#,
    r#""name":"é""#,
];
