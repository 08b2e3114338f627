//! Property tests of the TOON encoder against plain oracles:
//! (a) a string is quoted exactly when the spec's rules, written out naively here, say so;
//!     keys likewise; and what is written reads back as the original text;
//! (b) parallel chunked encoding of tabular arrays is byte-identical to sequential encoding.

use proptest::prelude::*;
use toolwire::toon::{self, Delimiter, EncodeOptions};
use toolwire_tests::doc_from_serde;

const DELIMS: [(Delimiter, char); 3] = [
    (Delimiter::Comma, ','),
    (Delimiter::Tab, '\t'),
    (Delimiter::Pipe, '|'),
];

/// `[+-]? digits ( . digits )? ( [eE] [+-]? digits )?`, checked piece by piece.
fn oracle_numeric(s: &str) -> bool {
    let all_digits = |t: &str| !t.is_empty() && t.chars().all(|c| c.is_ascii_digit());
    let body = s
        .strip_prefix('+')
        .or_else(|| s.strip_prefix('-'))
        .unwrap_or(s);
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    let (int, frac) = match mantissa.find('.') {
        Some(i) => (&mantissa[..i], Some(&mantissa[i + 1..])),
        None => (mantissa, None),
    };
    if !all_digits(int) || frac.is_some_and(|f| !all_digits(f)) {
        return false;
    }
    match exponent {
        None => true,
        Some(e) => {
            let e = e
                .strip_prefix('+')
                .or_else(|| e.strip_prefix('-'))
                .unwrap_or(e);
            all_digits(e)
        }
    }
}

/// The spec's quoting rules for a string value, one by one.
fn oracle_must_quote(s: &str, delim: char, root: bool) -> bool {
    if s.is_empty() {
        return true;
    }
    if s.starts_with([' ', '\t']) || s.ends_with([' ', '\t']) {
        return true;
    }
    if s == "true" || s == "false" || s == "null" {
        return true;
    }
    if oracle_numeric(s) {
        return true;
    }
    for c in s.chars() {
        if matches!(c, ':' | '"' | '\\' | '[' | ']' | '{' | '}') || (c as u32) < 0x20 || c == delim
        {
            return true;
        }
    }
    if s.starts_with('-') || s.starts_with('#') {
        return true;
    }
    root && s.starts_with('\u{feff}')
}

/// `^[A-Za-z_][A-Za-z0-9_.]*$`
fn oracle_plain_key(k: &str) -> bool {
    let mut chars = k.chars();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' => {}
        _ => return false,
    }
    chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
}

/// Reads a quoted TOON string back (the escapes the encoder may write).
fn unquote(q: &str) -> String {
    let inner = q
        .strip_prefix('"')
        .and_then(|q| q.strip_suffix('"'))
        .unwrap_or_else(|| panic!("not quoted: {q:?}"));
    let mut out = String::new();
    let mut it = inner.chars();
    while let Some(c) = it.next() {
        if c != '\\' {
            assert!(c != '"', "bare quote inside {q:?}");
            out.push(c);
            continue;
        }
        match it.next() {
            Some('\\') => out.push('\\'),
            Some('"') => out.push('"'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            Some('u') => {
                let hex: String = it.by_ref().take(4).collect();
                let cp = u32::from_str_radix(&hex, 16).expect("hex escape");
                out.push(char::from_u32(cp).expect("scalar"));
            }
            other => panic!("bad escape {other:?} in {q:?}"),
        }
    }
    out
}

fn interesting_char() -> impl Strategy<Value = char> {
    prop_oneof![
        6 => prop::sample::select(vec![
            ' ', '-', ':', ',', '|', '\t', '"', '\\', '[', ']', '{', '}', '#', '.', '+', 'e', 'E',
            '0', '1', '5', '9', 'a', 'z', '_', '\n', '\r', '\u{0}', '\u{1f}', '\u{7f}', '\u{a0}',
            '\u{feff}', '\u{301}', 'é', '한', '🚀',
        ]),
        1 => any::<char>(),
    ]
}

fn interesting_string() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::collection::vec(interesting_char(), 0..8).prop_map(|v| v.into_iter().collect()),
        1 => (
            prop::sample::select(vec![
                "true", "false", "null", "42", "-3.14", "1e-6", "+1", "05", "1E+9", ".5", "-",
                "#", "a", "", " ", "1.", "0e0", "True",
            ]),
            prop::sample::select(vec!["", "", "", " ", "x", "0", ",", "e5", "-"]),
        )
            .prop_map(|(a, b)| format!("{a}{b}")),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn string_values_are_quoted_iff_the_spec_says(s in interesting_string()) {
        for (d, dc) in DELIMS {
            let opts = EncodeOptions::new().delimiter(d);
            // As a field value.
            let doc = doc_from_serde(&serde_json::json!({ "k": s }));
            let out = toon::to_string(doc.root(), &opts).unwrap();
            let v = out.strip_prefix("k: ").expect("field line");
            let must = oracle_must_quote(&s, dc, false);
            // `unquote` fails unless the text is wrapped in quotes; unquoted text must be `s`.
            if must {
                prop_assert_eq!(unquote(v), s.clone());
            } else {
                prop_assert_eq!(v, s.as_str());
            }
            // As the root value.
            let doc = doc_from_serde(&serde_json::json!(s));
            let out = toon::to_string(doc.root(), &opts).unwrap();
            let must = oracle_must_quote(&s, dc, true);
            if must {
                prop_assert_eq!(unquote(&out), s.clone(), "root {:?}", s);
            } else {
                prop_assert_eq!(&out, &s);
            }
            // As an inline array element (the active delimiter is the document's).
            let doc = doc_from_serde(&serde_json::json!([s, 1]));
            let out = toon::to_string(doc.root(), &opts).unwrap();
            let head = match d {
                Delimiter::Comma => "[2]: ",
                Delimiter::Tab => "[2\t]: ",
                Delimiter::Pipe => "[2|]: ",
            };
            let tail = format!("{dc}1");
            let cell = out
                .strip_prefix(head)
                .and_then(|r| r.strip_suffix(&tail))
                .expect("inline array");
            if oracle_must_quote(&s, dc, false) {
                prop_assert_eq!(unquote(cell), s.clone());
            } else {
                prop_assert_eq!(cell, s.as_str());
            }
        }
    }

    #[test]
    fn keys_are_quoted_iff_not_identifiers(k in interesting_string()) {
        let doc = doc_from_serde(&serde_json::json!({ k.clone(): 1 }));
        let out = toon::to_string(doc.root(), &EncodeOptions::new()).unwrap();
        let key = out.strip_suffix(": 1").expect("one member line");
        if oracle_plain_key(&k) {
            prop_assert_eq!(key, k.as_str());
        } else {
            prop_assert_eq!(unquote(key), k);
        }
    }
}

/// Rows of a tabular array: an integer, a string (quoted or not), a float, and sometimes a
/// nested group; some rows list their keys in another order.
fn rows_strategy() -> impl Strategy<Value = (Vec<serde_json::Value>, bool)> {
    (
        prop::collection::vec(
            (
                any::<i64>(),
                interesting_string(),
                any::<f64>(),
                any::<bool>(),
            ),
            0..200,
        ),
        any::<bool>(),
    )
        .prop_map(|(cells, nested)| {
            let rows = cells
                .into_iter()
                .enumerate()
                .map(|(i, (n, s, x, flip))| {
                    let x = if x.is_finite() { x } else { 0.5 };
                    let mut m = serde_json::Map::new();
                    let mut put = |k: &str, v: serde_json::Value| {
                        m.insert(k.to_string(), v);
                    };
                    if flip {
                        put("s", serde_json::json!(s));
                        put("id", serde_json::json!(n));
                    } else {
                        put("id", serde_json::json!(n));
                        put("s", serde_json::json!(s));
                    }
                    put("x", serde_json::json!(x));
                    if nested {
                        put("g", serde_json::json!({"a": i, "b": format!("r{i}")}));
                    }
                    serde_json::Value::Object(m)
                })
                .collect();
            (rows, nested)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn parallel_equals_sequential(
        (mut rows, _nested) in rows_strategy(),
        threads in 2usize..5,
        breaker in proptest::option::of((any::<prop::sample::Index>(), 0u8..5)),
    ) {
        // Sometimes break uniformity in one row (anywhere, so often in a later chunk than the
        // first): the parallel shape analysis must then reject the table exactly as the
        // sequential one does.
        let mut broken = false;
        if let Some((at, how)) = breaker {
            if !rows.is_empty() {
                let i = at.index(rows.len());
                if how == 4 {
                    // A whole suffix turns column `x` into objects: whole chunks then agree
                    // among themselves and only the merge of chunk results can see the clash.
                    for row in &mut rows[i..] {
                        let row = row.as_object_mut().unwrap();
                        row.insert("x".into(), serde_json::json!({"q": 1}));
                    }
                }
                let broken_suffix = how == 4 && i > 0;
                let row = rows[i].as_object_mut().unwrap();
                match how {
                    4 => {}
                    0 => { row.remove("x"); }
                    1 => { row.insert("x".into(), serde_json::json!({"q": 1})); }
                    2 => { row.insert("x".into(), serde_json::json!([1])); }
                    _ => { row.insert("extra".into(), serde_json::json!(1)); }
                }
                broken = if how == 4 { broken_suffix } else { rows.len() > 1 || how == 2 };
            }
        }
        let n = rows.len();
        let doc = doc_from_serde(&serde_json::json!({ "t": rows, "after": 1 }));
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        for (d, _) in DELIMS {
            let seq_opts = EncodeOptions::new().delimiter(d).parallel(false);
            let par_opts = EncodeOptions::new().delimiter(d).parallel_threshold(8);
            let seq = toon::to_string(doc.root(), &seq_opts).unwrap();
            let par = pool.install(|| {
                toon::to_string(doc.root(), &par_opts).unwrap()
            });
            prop_assert_eq!(&par, &seq, "rows {}", n);
            // Sequential output is itself tabular (or `t: []`), then the trailing member.
            if n > 0 {
                prop_assert!(seq.starts_with("t["));
                let header = seq.lines().next().unwrap();
                prop_assert_eq!(header.ends_with("]:"), broken, "header {}", header);
            }
            prop_assert!(seq.ends_with("\nafter: 1"));
        }
    }
}

/// Large tables: batches of encoded chunks above 256 KiB are stitched into the output by a
/// parallel copy (into one growing buffer) or one by one (streaming sinks); both must give the
/// sequential bytes, for 1, 2 and 3 threads, into `Vec`, `BytesMut`, a chunked streaming sink,
/// and through the framing sink (chunks escaped by their workers).
#[test]
fn large_tables_stitch_byte_identical() {
    use toolwire::sink::ChunkedSink;
    use toolwire::test_hooks::EscapingSink;
    let rows: Vec<serde_json::Value> = (0..30_000)
        .map(|i| {
            serde_json::json!({
                "id": i,
                "s": format!("row {i}: \"q\" \\ | \t é"),
                "n": i as f64 / 8.0,
                "b": i % 3 == 0,
            })
        })
        .collect();
    let doc = doc_from_serde(&serde_json::json!({ "t": rows }));
    let seq_opts = EncodeOptions::new().parallel(false);
    let par_opts = EncodeOptions::new();
    let seq = toon::to_vec(doc.root(), &seq_opts).unwrap();
    assert!(seq.len() > 1 << 20, "large enough for parallel stitching");
    let mut seq_framed = Vec::new();
    toon::encode(
        doc.root(),
        &seq_opts,
        &mut EscapingSink::new(&mut seq_framed),
    )
    .unwrap();
    for threads in 1..=3 {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            assert_eq!(
                toon::to_vec(doc.root(), &par_opts).unwrap(),
                seq,
                "{threads}"
            );
            let mut b = bytes::BytesMut::new();
            toon::encode(doc.root(), &par_opts, &mut b).unwrap();
            assert_eq!(&b[..], &seq[..], "BytesMut {threads}");
            let mut streamed = Vec::new();
            let mut sink = ChunkedSink::new(64 << 10, |c| {
                streamed.extend_from_slice(&c);
                true
            });
            toon::encode(doc.root(), &par_opts, &mut sink).unwrap();
            sink.finish();
            assert_eq!(streamed, seq, "chunked {threads}");
            let mut framed = Vec::new();
            toon::encode(doc.root(), &par_opts, &mut EscapingSink::new(&mut framed)).unwrap();
            assert_eq!(framed, seq_framed, "framed {threads}");
        });
    }
}
