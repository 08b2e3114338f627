//! `decode(encode(v)) == v` for arbitrary JSON values, for every delimiter, sequential and
//! parallel; and parallel bytes == sequential bytes. "Equal" up to one thing TOON does by
//! design: the rows of a tabular array are written in the header's field order, the first
//! row's (as the reference encoder does), so a row whose keys came in another order comes
//! back in that order: both sides are compared after [`rows_in_first_order`]. And decoding
//! the text and encoding it again gives the same text.

use proptest::prelude::*;
use serde_json::{Map, Value};
use toolwire::toon::{DecodeOptions, Delimiter, EncodeOptions, decode, to_vec};
use toolwire_tests::{doc_from_serde, doc_to_serde, json_model_eq, rows_in_first_order};

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z_][a-z0-9_.]{0,6}",
        "[ -~]{0,6}",
        Just(String::new()),
        Just("a-b".to_owned()),
        Just("0".to_owned()),
        Just("x:y".to_owned()),
        Just("é".to_owned()),
    ]
}

fn string() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z ]{0,8}",
        "[ -~]{0,10}",
        "\\PC{0,6}",
        Just(String::new()),
        Just("true".to_owned()),
        Just("null".to_owned()),
        Just("-1".to_owned()),
        Just("1e5".to_owned()),
        Just("05".to_owned()),
        Just(" pad ".to_owned()),
        Just("a,b|c\td".to_owned()),
        Just("line\nbreak\r\"q\"\\".to_owned()),
        Just("- item".to_owned()),
        Just("[3]: x".to_owned()),
        Just("{a}".to_owned()),
        Just("#".to_owned()),
    ]
}

fn number() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (-1e6f64..1e6).prop_map(|x| serde_json::from_str(&format!("{x}")).unwrap()),
        prop_oneof![
            Just("1e21"),
            Just("1.5e-7"),
            Just("123456789012345678901234567890"),
            Just("-0"),
            Just("0.1")
        ]
        .prop_map(|s| serde_json::from_str(s).unwrap()),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        number(),
        string().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((key(), inner.clone()), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
            // Uniform rows: the tabular form; `rotate` turns some rows' keys to another
            // order (same key set: still tabular, written in the header's order).
            (
                prop::collection::vec(key(), 1..4),
                prop::collection::vec((prop::collection::vec(string(), 4), 0..3usize), 0..12)
            )
                .prop_map(|(keys, rows)| {
                    Value::Array(
                        rows.into_iter()
                            .map(|(r, rotate)| {
                                let mut kv: Vec<(String, Value)> = keys
                                    .iter()
                                    .cloned()
                                    .zip(r.into_iter().map(Value::String))
                                    .collect();
                                let n = kv.len();
                                kv.rotate_left(rotate % n);
                                Value::Object(kv.into_iter().collect())
                            })
                            .collect(),
                    )
                }),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn decode_of_encode_is_identity(v in value()) {
        let doc = doc_from_serde(&v);
        for delimiter in [Delimiter::Comma, Delimiter::Tab, Delimiter::Pipe] {
            let seq = EncodeOptions::new().delimiter(delimiter).parallel(false);
            let par = EncodeOptions::new().delimiter(delimiter).parallel(true).parallel_threshold(2);
            let text = to_vec(doc.root(), &seq).unwrap();
            prop_assert_eq!(&to_vec(doc.root(), &par).unwrap(), &text, "parallel differs");
            let back = decode(&text, &DecodeOptions::new()).unwrap_or_else(|e| {
                panic!("decode failed: {e}\n{}", String::from_utf8_lossy(&text))
            });
            // Tabular rows come back in the header's field order (the first row's); rows
            // in list form keep theirs: compare both sides in that order.
            let mut got = doc_to_serde(back.root());
            let mut want = v.clone();
            rows_in_first_order(&mut got);
            rows_in_first_order(&mut want);
            let again = to_vec(back.root(), &seq).unwrap();
            prop_assert_eq!(&again, &text, "encode(decode(text)) != text");
            prop_assert!(json_model_eq(&got, &want), "{delimiter:?}\ntext:\n{}\ngot: {got}\nwant: {v}", String::from_utf8_lossy(&text));
        }
    }
}
