//! Shared helpers for the conformance and acceptance tests.
//!
//! Third-party suites are read in place, never copied into the repository:
//!
//! * `TOOLWIRE_TOON_SPEC` (default `../shared/toon-spec` beside the checkout): the official
//!   TOON 4.4 fixtures.
//! * `TOOLWIRE_JSON_TEST_SUITE` (default `../shared/json-test-suite`): JSONTestSuite.
//!
//! When a suite is missing, its tests say so plainly on stderr and pass, unless
//! `TOOLWIRE_REQUIRE_EXTERNAL=1` (set by `.ci/run`), in which case they fail.

use std::path::PathBuf;

/// Where an external suite lives: `$var`, or `<workspace>/../shared/<default_dir>`.
///
/// Returns `None` (after saying so on stderr) when the folder does not exist and external
/// suites are not required.
///
/// # Panics
///
/// When the folder is missing and `TOOLWIRE_REQUIRE_EXTERNAL=1`.
pub fn external_suite(var: &str, default_dir: &str) -> Option<PathBuf> {
    let path = std::env::var_os(var).map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../shared")
            .join(default_dir)
    });
    if path.is_dir() {
        return Some(path);
    }
    let required = std::env::var("TOOLWIRE_REQUIRE_EXTERNAL").is_ok_and(|v| v == "1");
    assert!(
        !required,
        "external suite {var} not found at {} (required by TOOLWIRE_REQUIRE_EXTERNAL=1)",
        path.display()
    );
    eprintln!(
        "NOTE: external suite not found at {} (set {var}); its tests DID NOT RUN",
        path.display()
    );
    None
}

/// The TOON spec fixtures folder (`…/toon-spec/tests/fixtures`), if present.
pub fn toon_fixtures() -> Option<PathBuf> {
    external_suite("TOOLWIRE_TOON_SPEC", "toon-spec").map(|p| p.join("tests/fixtures"))
}

/// The JSONTestSuite `test_parsing` folder, if present.
pub fn json_test_suite() -> Option<PathBuf> {
    external_suite("TOOLWIRE_JSON_TEST_SUITE", "json-test-suite").map(|p| p.join("test_parsing"))
}

pub use toolwire_oracles::{
    model_eq as json_model_eq, project, reserved_tags, rows_in_first_order,
};

/// Builds a [`toolwire::Doc`] from a `serde_json::Value` (test oracle plumbing, independent of
/// the crate's own parser). Integer lexemes keep their digits; other numbers become f64.
pub fn doc_from_serde(v: &serde_json::Value) -> toolwire::Doc<'static> {
    let mut b = toolwire::DocBuilder::new(b"");
    push_serde(&mut b, v);
    b.finish()
}

fn push_serde(b: &mut toolwire::DocBuilder<'_>, v: &serde_json::Value) {
    use serde_json::Value as V;
    match v {
        V::Null => b.null(),
        V::Bool(x) => b.bool(*x),
        V::Number(n) => {
            let lex = n.to_string();
            if toolwire::json::is_int_lexeme(lex.as_bytes()) {
                b.int_lexeme(lex.as_bytes());
            } else {
                b.float(
                    lex.parse()
                        .expect("serde_json numbers are valid f64 syntax"),
                );
            }
        }
        V::String(s) => b.string(s.as_bytes()),
        V::Array(a) => {
            let m = b.begin_array();
            for x in a {
                push_serde(b, x);
            }
            b.end_array(m, a.len());
        }
        V::Object(o) => {
            let m = b.begin_object();
            for (k, x) in o {
                b.string(k.as_bytes());
                push_serde(b, x);
            }
            b.end_object(m, o.len());
        }
    }
}

/// Converts a [`toolwire::Value`] to a `serde_json::Value` (test oracle plumbing). Strings
/// holding lone surrogates are converted lossily; floats keep their ECMAScript form.
pub fn doc_to_serde(v: toolwire::Value<'_>) -> serde_json::Value {
    use serde_json::Value as V;
    use toolwire::ValueRef as R;
    match v.get() {
        R::Null => V::Null,
        R::Bool(x) => V::Bool(x),
        R::Number(toolwire::doc::Number::Int(lex)) => V::Number(
            std::str::from_utf8(lex)
                .unwrap()
                .parse()
                .expect("integer lexeme"),
        ),
        R::Number(toolwire::doc::Number::Float(x)) => {
            let mut buf = Vec::new();
            toolwire::test_hooks::write_f64(&mut buf, x);
            serde_json::from_slice(&buf).expect("ECMAScript number form is JSON")
        }
        R::String(s) => V::String(String::from_utf8_lossy(s.as_bytes()).into_owned()),
        R::Array(a) => V::Array(a.iter().map(doc_to_serde).collect()),
        R::Object(o) => V::Object(
            o.iter()
                .map(|(k, x)| {
                    (
                        String::from_utf8_lossy(k.as_bytes()).into_owned(),
                        doc_to_serde(x),
                    )
                })
                .collect(),
        ),
    }
}

/// serde_json text with the writers' reserved-tag deviation applied: in JSON output a `<`
/// occurs only inside strings, so escaping it where it starts a reserved tag is exact.
pub fn with_tag_deviation(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut last = 0;
    for (i, _) in s.match_indices('<') {
        if toolwire::test_hooks::starts_reserved_tag(s.as_bytes(), i) {
            out.push_str(&s[last..i]);
            out.push_str("\\u003c");
            last = i + 1;
        }
    }
    out.push_str(&s[last..]);
    out
}

/// The README's Rust examples, compiled and run as doc-tests of this crate.
#[doc = include_str!("../../README.md")]
mod readme {}
