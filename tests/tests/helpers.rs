//! The shared helpers of `tests/src/lib.rs`.

use toolwire_tests::{doc_from_serde, doc_to_serde};

#[test]
fn serde_round_trip_through_doc() {
    let text =
        r#"{"a":[1,-0,2.5,1e21,123456789012345678901234567890],"b":{"c":null,"d":"x"},"e":true}"#;
    let v: serde_json::Value = serde_json::from_str(text).unwrap();
    let doc = doc_from_serde(&v);
    let back = doc_to_serde(doc.root());
    assert_eq!(
        back.to_string(),
        r#"{"a":[1,0,2.5,1e+21,123456789012345678901234567890],"b":{"c":null,"d":"x"},"e":true}"#
    );
}
