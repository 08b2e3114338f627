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
