//! Inputs the fuzz targets (`fuzz/`) found, replayed with the check of the target that found
//! them. Each test names the target and what was wrong.

use toolwire::json::{ParseOptions, Selector, parse, parse_selected};

/// `json_select`, crash-104e2bf2…: the selecting parser reuses the previous row's key lexing
/// when the bytes repeat, and did not check that the byte where the opening quote belongs is
/// a quote. `{(" \r:2` repeated the empty key `""` of the row before, so `(` was taken for its
/// quote and the error moved from the `(` to a later byte (select must fail exactly where the
/// full parse fails).
#[test]
fn json_select_repeated_key_without_its_opening_quote() {
    // The fuzz input: the first byte picks the selector ("name", "id", ""), the rest is JSON.
    let json = b"[-7,\n{\"\" \r:2},\n{(\" \r:2-2\x1c[\n";
    let sel = Selector::new(["name", "id", ""]);
    let opts = ParseOptions::new();
    let full = parse(json, &opts).unwrap_err();
    let selected = parse_selected(json, &sel, &opts).unwrap_err();
    assert_eq!(selected.to_string(), full.to_string());
    assert_eq!((selected.line(), selected.column()), (3, 2));
}

/// `toon_roundtrip`, crash-9f76f2e5…: not an engine bug but an oracle that was too strict.
/// Rows of a tabular array are written in the header's field order (the first row's, as the
/// reference encoder does), so the second row's `name`/`x` come back swapped. The round trip
/// keeps every value, and encoding the decoded document gives the same text again.
#[test]
fn toon_roundtrip_tabular_rows_take_the_header_order() {
    use toolwire::toon::{DecodeOptions, EncodeOptions, decode, to_vec};
    let json = br#"[{"id":"tx","x":"a10","name":" pad:b"},{"id":"10","name":" pad ","x":"[1]"}]"#;
    let doc = parse(json, &ParseOptions::new()).unwrap();
    let text = to_vec(doc.root(), &EncodeOptions::new()).unwrap();
    assert_eq!(
        String::from_utf8(text.clone()).unwrap(),
        "[2]{id,x,name}:\n  tx,a10,\" pad:b\"\n  \"10\",\"[1]\",\" pad \""
    );
    let back = decode(&text, &DecodeOptions::new()).unwrap();
    assert_eq!(
        toolwire::json::to_vec_compact(back.root()),
        br#"[{"id":"tx","x":"a10","name":" pad:b"},{"id":"10","x":"[1]","name":" pad "}]"#
    );
    assert_eq!(to_vec(back.root(), &EncodeOptions::new()).unwrap(), text);
}
