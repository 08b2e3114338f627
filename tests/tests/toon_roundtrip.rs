//! `decode(encode(v)) == v` for arbitrary JSON values, for every delimiter, sequential and
//! parallel; and parallel bytes == sequential bytes. "Equal" up to one thing TOON does by
//! design: the rows of a tabular array are written in the header's field order, the first
//! row's (as the reference encoder does), so a row whose keys came in another order comes
//! back in that order: both sides are compared after [`rows_in_first_order`]. And decoding
//! the text and encoding it again gives the same text.

use proptest::prelude::*;
use serde_json::Value;
use toolwire::toon::{DecodeOptions, Delimiter, EncodeOptions, decode, to_vec};
use toolwire_oracles::values::Values;
use toolwire_tests::{doc_from_serde, doc_to_serde, json_model_eq, rows_in_first_order};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn decode_of_encode_is_identity(v in Values::new().depth(4).size(48).value()) {
        round_trip(&v)?;
    }
}

/// Cases the generator found before it was `toolwire_oracles::values` (their seeds in
/// `toon_roundtrip.proptest-regressions` now draw other values).
#[test]
fn found_cases_round_trip() {
    let v = serde_json::json!([[{"a": "", "a-b": ""}, {"a-b": "", "a": ""}]]);
    round_trip(&v).unwrap();
}

fn round_trip(v: &Value) -> Result<(), TestCaseError> {
    let doc = doc_from_serde(v);
    for delimiter in [Delimiter::Comma, Delimiter::Tab, Delimiter::Pipe] {
        let seq = EncodeOptions::new().delimiter(delimiter).parallel(false);
        let par = EncodeOptions::new()
            .delimiter(delimiter)
            .parallel(true)
            .parallel_threshold(2);
        let text = to_vec(doc.root(), &seq).unwrap();
        prop_assert_eq!(
            &to_vec(doc.root(), &par).unwrap(),
            &text,
            "parallel differs"
        );
        let back = decode(&text, &DecodeOptions::new())
            .unwrap_or_else(|e| panic!("decode failed: {e}\n{}", String::from_utf8_lossy(&text)));
        // Tabular rows come back in the header's field order (the first row's); rows
        // in list form keep theirs: compare both sides in that order.
        let mut got = doc_to_serde(back.root());
        let mut want = v.clone();
        rows_in_first_order(&mut got);
        rows_in_first_order(&mut want);
        let again = to_vec(back.root(), &seq).unwrap();
        prop_assert_eq!(&again, &text, "encode(decode(text)) != text");
        prop_assert!(
            json_model_eq(&got, &want),
            "{delimiter:?}\ntext:\n{}\ngot: {got}\nwant: {v}",
            String::from_utf8_lossy(&text)
        );
    }
    Ok(())
}
