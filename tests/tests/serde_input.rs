//! serde input: `toolwire::ser::to_doc` over the whole serde data model, with exact output.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use toolwire::Category;
use toolwire::json::{to_string_compact, to_string_pretty};
use toolwire::ser::{DEFAULT_MAX_DEPTH, to_doc, to_doc_with_depth};

fn compact<T: Serialize + ?Sized>(v: &T) -> String {
    to_string_compact(to_doc(v).unwrap().root())
}

#[derive(Serialize)]
struct Unit;

#[derive(Serialize)]
struct Newtype(i32);

#[derive(Serialize)]
struct Tuple(i32, &'static str);

#[derive(Serialize)]
enum E {
    Unit,
    Newtype(u8),
    Tuple(u8, bool),
    Struct { a: u8, b: Option<&'static str> },
}

#[derive(Serialize)]
struct Skips {
    kept: u8,
    #[serde(skip_serializing_if = "Option::is_none")]
    gone: Option<u8>,
    #[serde(rename = "<tool_error>")]
    renamed: bool,
}

struct Bytes(&'static [u8]);

impl Serialize for Bytes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(self.0)
    }
}

#[test]
fn data_model_table() {
    let cases: Vec<(String, &str)> = vec![
        (compact(&true), "true"),
        (compact(&false), "false"),
        (compact(&-5i8), "-5"),
        (compact(&i16::MIN), "-32768"),
        (compact(&i32::MAX), "2147483647"),
        (compact(&i64::MIN), "-9223372036854775808"),
        (
            compact(&i128::MIN),
            "-170141183460469231731687303715884105728",
        ),
        (compact(&255u8), "255"),
        (compact(&u16::MAX), "65535"),
        (compact(&u32::MAX), "4294967295"),
        (compact(&u64::MAX), "18446744073709551615"),
        (
            compact(&u128::MAX),
            "340282366920938463463374607431768211455",
        ),
        (compact(&3.0f64), "3"),
        (compact(&-0.0f64), "0"),
        (compact(&0.1f64), "0.1"),
        (compact(&1e21f64), "1e+21"),
        (compact(&1e-7f64), "1e-7"),
        (compact(&5e-324f64), "5e-324"),
        (compact(&0.1f32), "0.1"),
        (compact(&16777217f32), "16777216"),
        (compact(&f32::MAX), "3.4028235e+38"),
        (compact(&f64::NAN), "null"),
        (compact(&f64::INFINITY), "null"),
        (compact(&f64::NEG_INFINITY), "null"),
        (compact(&f32::NAN), "null"),
        (compact(&'x'), r#""x""#),
        (compact(&'"'), r#""\"""#),
        (compact("a\nb"), r#""a\nb""#),
        (compact(&String::from("😀")), "\"😀\""),
        (compact(&Bytes(b"\x00\x7f\xff")), "[0,127,255]"),
        (compact(&Bytes(b"")), "[]"),
        (compact(&None::<u8>), "null"),
        (compact(&Some(7u8)), "7"),
        (compact(&Some(None::<u8>)), "null"),
        (compact(&()), "null"),
        (compact(&Unit), "null"),
        (compact(&Newtype(-1)), "-1"),
        (compact(&Tuple(1, "two")), r#"[1,"two"]"#),
        (compact(&E::Unit), r#""Unit""#),
        (compact(&E::Newtype(9)), r#"{"Newtype":9}"#),
        (compact(&E::Tuple(1, true)), r#"{"Tuple":[1,true]}"#),
        (
            compact(&E::Struct { a: 1, b: Some("x") }),
            r#"{"Struct":{"a":1,"b":"x"}}"#,
        ),
        (compact(&vec![1u8, 2, 3]), "[1,2,3]"),
        (compact(&Vec::<u8>::new()), "[]"),
        (compact(&(1u8, "a", ())), r#"[1,"a",null]"#),
        (compact(&[[1u8; 2]; 2]), "[[1,1],[1,1]]"),
        (compact(&BTreeMap::<String, u8>::new()), "{}"),
        (
            compact(&Skips {
                kept: 1,
                gone: None,
                renamed: true,
            }),
            r#"{"kept":1,"\u003ctool_error>":true}"#,
        ),
    ];
    for (i, (got, want)) in cases.iter().enumerate() {
        assert_eq!(got, want, "case {i}");
    }
}

#[test]
fn map_keys_are_stringified_as_serde_json_does() {
    let m: BTreeMap<i64, u8> = [(-3, 1), (10, 2)].into();
    assert_eq!(compact(&m), r#"{"-3":1,"10":2}"#);
    let m: BTreeMap<u128, u8> = [(u128::MAX, 1)].into();
    assert_eq!(
        compact(&m),
        r#"{"340282366920938463463374607431768211455":1}"#
    );
    let m: BTreeMap<bool, u8> = [(false, 0), (true, 1)].into();
    assert_eq!(compact(&m), r#"{"false":0,"true":1}"#);
    let m: BTreeMap<char, u8> = [('é', 1)].into();
    assert_eq!(compact(&m), r#"{"é":1}"#);

    #[derive(Serialize, PartialEq, Eq, PartialOrd, Ord)]
    enum K {
        Alpha,
    }
    #[derive(Serialize, PartialEq, Eq, PartialOrd, Ord)]
    struct Id(u32);
    let m: BTreeMap<K, u8> = [(K::Alpha, 1)].into();
    assert_eq!(compact(&m), r#"{"Alpha":1}"#);
    let m: BTreeMap<Id, u8> = [(Id(4), 1)].into();
    assert_eq!(compact(&m), r#"{"4":1}"#);
    let m: BTreeMap<Option<u8>, u8> = [(Some(4), 1)].into();
    assert_eq!(compact(&m), r#"{"4":1}"#);

    // The same as serde_json for every accepted key type.
    let m: BTreeMap<i8, bool> = [(-1, true), (2, false)].into();
    assert_eq!(compact(&m), serde_json::to_string(&m).unwrap());

    let bad: &[(&str, toolwire::Error)] = &[
        (
            "float",
            to_doc(&HashMap::from([(KeyF(1.5), 1)])).unwrap_err(),
        ),
        (
            "none",
            to_doc(&BTreeMap::from([(None::<u8>, 1)])).unwrap_err(),
        ),
        ("unit", to_doc(&BTreeMap::from([((), 1)])).unwrap_err()),
        (
            "seq",
            to_doc(&BTreeMap::from([(vec![1u8], 1)])).unwrap_err(),
        ),
    ];
    for (what, e) in bad {
        assert_eq!(e.classify(), Category::Encode, "{what}");
        assert_eq!(
            e.message(),
            "map key must be a string, integer, char or bool",
            "{what}"
        );
        assert_eq!(e.position(), None);
    }
}

/// A float map key (no `Eq`/`Hash` for f64, so a wrapper).
#[derive(PartialEq)]
struct KeyF(f64);
impl Eq for KeyF {}
impl std::hash::Hash for KeyF {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.0.to_bits().hash(h);
    }
}
impl Serialize for KeyF {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(self.0)
    }
}

#[derive(Serialize)]
enum Status {
    Open,
    Closed { reason: String },
}

#[derive(Serialize)]
struct Line {
    sku: String,
    qty: u32,
    price: f64,
}

#[derive(Serialize)]
struct Invoice {
    id: u64,
    lines: Vec<Line>,
    tags: HashMap<String, Vec<u8>>,
    note: Option<String>,
    status: Status,
    history: Vec<Status>,
}

#[test]
fn nested_struct() {
    let inv = Invoice {
        id: 42,
        lines: vec![
            Line {
                sku: "A-1".into(),
                qty: 2,
                price: 9.99,
            },
            Line {
                sku: "B<2>".into(),
                qty: 0,
                price: 0.1 + 0.2,
            },
        ],
        // One key: HashMap iteration order is unspecified.
        tags: HashMap::from([("k".to_string(), vec![1, 2])]),
        note: None,
        status: Status::Closed {
            reason: "paid".into(),
        },
        history: vec![Status::Open],
    };
    let doc = to_doc(&inv).unwrap();
    assert!(!doc.has_reserved_tag());
    assert_eq!(
        to_string_compact(doc.root()),
        r#"{"id":42,"lines":[{"sku":"A-1","qty":2,"price":9.99},{"sku":"B<2>","qty":0,"price":0.30000000000000004}],"tags":{"k":[1,2]},"note":null,"status":{"Closed":{"reason":"paid"}},"history":["Open"]}"#
    );
    assert_eq!(
        to_string_pretty(doc.root()),
        r#"{
  "id": 42,
  "lines": [
    {
      "sku": "A-1",
      "qty": 2,
      "price": 9.99
    },
    {
      "sku": "B<2>",
      "qty": 0,
      "price": 0.30000000000000004
    }
  ],
  "tags": {
    "k": [
      1,
      2
    ]
  },
  "note": null,
  "status": {
    "Closed": {
      "reason": "paid"
    }
  },
  "history": [
    "Open"
  ]
}"#
    );
    // serde_json agrees wherever floats print alike.
    let json = serde_json::to_string(&inv).unwrap();
    let back: serde_json::Value = serde_json::from_str(&to_string_compact(doc.root())).unwrap();
    let want: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert!(toolwire_tests::json_model_eq(&back, &want));
}

/// `[[[…]]]`, `n` arrays deep.
struct Nest(usize);

impl Serialize for Nest {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = s.serialize_seq(Some(1))?;
        if self.0 > 1 {
            seq.serialize_element(&Nest(self.0 - 1))?;
        }
        seq.end()
    }
}

#[test]
fn depth_limit() {
    assert_eq!(DEFAULT_MAX_DEPTH, 128);
    let doc = to_doc(&Nest(128)).unwrap();
    let out = to_string_compact(doc.root());
    assert_eq!(out, format!("{}{}", "[".repeat(128), "]".repeat(128)));
    let e = to_doc(&Nest(129)).unwrap_err();
    assert_eq!(e.classify(), Category::Depth);
    assert_eq!(e.message(), "value nested deeper than 128 levels");
    assert_eq!(e.to_string(), "value nested deeper than 128 levels");

    // The `{"Variant": …}` wrapper counts as a level.
    assert!(to_doc_with_depth(&E::Tuple(1, true), 2).is_ok());
    let e = to_doc_with_depth(&E::Tuple(1, true), 1).unwrap_err();
    assert_eq!(e.classify(), Category::Depth);
    assert_eq!(e.message(), "value nested deeper than 1 levels");
    assert_eq!(
        to_doc_with_depth(&Bytes(b"x"), 0).unwrap_err().classify(),
        Category::Depth
    );
    assert!(to_doc_with_depth(&"scalar", 0).is_ok());
    // A higher limit is honoured (serde itself recurses once per level, so the caller's
    // stack bounds how far this can go).
    let doc = to_doc_with_depth(&Nest(500), 500).unwrap();
    assert_eq!(to_string_compact(doc.root()).len(), 1_000);
    assert_eq!(
        to_doc_with_depth(&Nest(501), 500).unwrap_err().message(),
        "value nested deeper than 500 levels"
    );
}

#[test]
fn reserved_tags_and_custom_errors() {
    let doc = to_doc(&vec!["ok", "x<tool_error>y"]).unwrap();
    assert!(doc.has_reserved_tag());
    assert_eq!(
        to_string_compact(doc.root()),
        r#"["ok","x\u003ctool_error>y"]"#
    );
    let doc = to_doc(&BTreeMap::from([("</Domain_Rules>", 1)])).unwrap();
    assert!(doc.has_reserved_tag());
    assert!(
        !to_doc(&vec!["<b>", "<tool_errors>"])
            .unwrap()
            .has_reserved_tag()
    );

    struct Fails;
    impl Serialize for Fails {
        fn serialize<S: Serializer>(&self, _s: S) -> Result<S::Ok, S::Error> {
            Err(serde::ser::Error::custom("cannot serialize Fails"))
        }
    }
    let e = to_doc(&vec![Fails]).unwrap_err();
    assert_eq!(e.classify(), Category::Encode);
    assert_eq!(e.message(), "cannot serialize Fails");
}

#[test]
fn duplicate_keys_merge_like_json_parse() {
    struct Dup;
    impl Serialize for Dup {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut m = s.serialize_map(None)?;
            m.serialize_entry("a", &1)?;
            m.serialize_entry("b", &2)?;
            m.serialize_entry("a", &[3])?;
            m.end()
        }
    }
    assert_eq!(compact(&Dup), r#"{"a":[3],"b":2}"#);
}

#[test]
fn serde_json_values_keep_their_numbers() {
    // The workspace enables serde_json's `arbitrary_precision`: numbers arrive as lexemes.
    let v: serde_json::Value = serde_json::from_str(
        r#"{"big":123456789012345678901234567890,"neg":-0,"f":1.50,"e":1E2,"s":"<tool_error>","a":[null,true,{}]}"#,
    )
    .unwrap();
    let doc = to_doc(&v).unwrap();
    assert!(doc.has_reserved_tag());
    assert_eq!(
        to_string_compact(doc.root()),
        r#"{"big":123456789012345678901234567890,"neg":0,"f":1.5,"e":100,"s":"\u003ctool_error>","a":[null,true,{}]}"#
    );
    // serde_json keeps the lexeme in its own normal form (`1e+400`).
    let v: serde_json::Value = serde_json::from_str("[1e400]").unwrap();
    let e = to_doc(&v).unwrap_err();
    assert_eq!(e.classify(), Category::Number);
    assert_eq!(e.message(), "number 1e+400 cannot be represented");
}

// ---------------------------------------------------------------------------------------------
// Properties: `to_doc(&serde_json::Value)` against serde_json's own writer.

use proptest::prelude::*;

use toolwire_oracles::values::Values;
use toolwire_tests::with_tag_deviation;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn serde_json_values_without_floats_write_as_serde_json_does(v in Values::new().floats(false).value()) {
        let doc = to_doc(&v).unwrap();
        prop_assert_eq!(
            to_string_compact(doc.root()),
            with_tag_deviation(&serde_json::to_string(&v).unwrap())
        );
        prop_assert_eq!(
            doc.has_reserved_tag(),
            toolwire::test_hooks::contains_reserved_tag(serde_json::to_string(&v).unwrap().as_bytes())
        );
    }

    #[test]
    fn serde_json_values_read_back_equal(v in Values::new().value()) {
        let doc = to_doc(&v).unwrap();
        let back: serde_json::Value =
            serde_json::from_str(&to_string_compact(doc.root())).unwrap();
        prop_assert!(toolwire_tests::json_model_eq(&v, &back), "{v}");
    }
}
