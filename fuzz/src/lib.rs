//! Oracles shared by the fuzz targets in `fuzz_targets/`.
//!
//! Each target is one line that hands libFuzzer's bytes to a function here. A function
//! returns normally when every property holds and panics (which libFuzzer reports as a
//! crash, with the input saved under `artifacts/`) when one does not.
//!
//! The checks are written once and meant to be reused by every decoder/parser target:
//!
//! * [`check_error`]: an input error carries a position inside the input, and its line and
//!   column agree with a naive recount of the bytes before the offset;
//! * [`check_doc`]: a decoded [`Doc`] is a well-formed tree (lengths match iteration,
//!   object keys are unique, the tape holds exactly the nodes the tree reaches, nesting stays
//!   within the configured limit);
//! * [`same_value`] / [`assert_same`]: exact equality of two documents (determinism,
//!   strict versus lenient, and later parse versus re-parse).

pub mod engine;
pub mod serve;
pub mod serve_budget;
pub mod serve_http;
pub mod toon_model;

use libfuzzer_sys::arbitrary::Unstructured;
use toolwire::doc::{Array, Number, Object};
use toolwire::toon::{DecodeOptions, decode};
use toolwire::{Doc, Error, Value, ValueRef};

/// One decoder configuration tried on every input by [`toon_decode`].
#[derive(Clone, Copy, Debug)]
pub struct ToonConfig {
    /// Strict (`true`) or lenient mode.
    pub strict: bool,
    /// Spaces per indentation level.
    pub indent: usize,
    /// Nesting limit.
    pub max_depth: usize,
}

impl ToonConfig {
    /// The decoder options of this configuration.
    pub fn options(self) -> DecodeOptions {
        DecodeOptions::new()
            .strict(self.strict)
            .indent(self.indent)
            .max_depth(self.max_depth)
    }
}

/// Every configuration [`toon_decode`] runs: both modes, indent sizes 1, 2 and 4 at the
/// default depth limit, and a small depth limit (3) to reach the depth checks of every
/// construct with short inputs. Listed as (strict, lenient) pairs that differ only in the
/// mode: [`toon_decode`] compares the two results of each pair.
pub const TOON_CONFIGS: [ToonConfig; 8] = [
    ToonConfig {
        strict: true,
        indent: 2,
        max_depth: 128,
    },
    ToonConfig {
        strict: false,
        indent: 2,
        max_depth: 128,
    },
    ToonConfig {
        strict: true,
        indent: 4,
        max_depth: 128,
    },
    ToonConfig {
        strict: false,
        indent: 4,
        max_depth: 128,
    },
    ToonConfig {
        strict: true,
        indent: 1,
        max_depth: 128,
    },
    ToonConfig {
        strict: false,
        indent: 1,
        max_depth: 128,
    },
    ToonConfig {
        strict: true,
        indent: 2,
        max_depth: 3,
    },
    ToonConfig {
        strict: false,
        indent: 2,
        max_depth: 3,
    },
];

/// Target `toon_decode`: arbitrary bytes through `toon::decode` in every [`TOON_CONFIGS`]
/// configuration.
///
/// Properties, per configuration:
///
/// * no panic, no hang, bounded memory (the last two are enforced by libFuzzer's
///   `-timeout` and `-rss_limit_mb`);
/// * an error is positioned inside the input ([`check_error`]);
/// * a success is a well-formed document ([`check_doc`]) whose strings and keys are all
///   UTF-8 (TOON has no `\u` escape, so no lone surrogate can appear), and decoding the same
///   bytes again gives the same document;
/// * what strict mode accepts, lenient mode accepts with the same result (lenient mode only
///   adds recoveries for input strict mode rejects).
pub fn toon_decode(data: &[u8]) {
    for pair in TOON_CONFIGS.chunks(2) {
        let (strict, lenient) = (pair[0], pair[1]);
        debug_assert!(
            strict.strict
                && !lenient.strict
                && (strict.indent, strict.max_depth) == (lenient.indent, lenient.max_depth)
        );
        let strict_doc = toon_decode_one(data, strict);
        let lenient_doc = toon_decode_one(data, lenient);
        if let Some(s) = strict_doc {
            let Some(l) = lenient_doc else {
                panic!("lenient mode ({lenient:?}) rejects a strict-valid input");
            };
            assert_same(
                &s,
                &l,
                "lenient mode decodes a strict-valid input differently",
            );
        }
    }
}

/// One configuration of [`toon_decode`]; returns the document on success.
fn toon_decode_one(data: &[u8], cfg: ToonConfig) -> Option<Doc<'_>> {
    let opts = cfg.options();
    match decode(data, &opts) {
        Err(e) => {
            check_error(data, &e);
            // Errors are deterministic too.
            let again = decode(data, &opts).err();
            assert_eq!(
                again.map(|e| e.to_string()),
                Some(e.to_string()),
                "{cfg:?}: second decode differs"
            );
            None
        }
        Ok(doc) => {
            check_doc(&doc, cfg.max_depth);
            assert!(
                !doc.has_lone_surrogate(),
                "{cfg:?}: lone surrogate from TOON"
            );
            match decode(data, &opts) {
                Ok(again) => assert_same(&doc, &again, "second decode differs"),
                Err(e) => panic!("{cfg:?}: second decode fails: {e}"),
            }
            Some(doc)
        }
    }
}

/// Target `toon_structured`: the fuzzer's bytes choose a value ([`toon_model::Model`]) and
/// how to write it as TOON ([`toon_model::render`]: array forms, delimiters, indent size,
/// quoting, CRLF, comments). Properties: strict and lenient decoding both give back exactly
/// the value, and the text passes every [`toon_decode`] check.
pub fn toon_structured(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let (Ok(&indent), Ok(crlf)) = (u.choose(&[2usize, 4, 1]), u.ratio(1u8, 8)) else {
        return;
    };
    let Ok(model) = toon_model::Model::generate(&mut u, 4) else {
        return;
    };
    let layout = toon_model::Layout { indent, crlf };
    let Ok(text) = toon_model::render(&model, &mut u, layout) else {
        return;
    };
    for strict in [true, false] {
        let opts = DecodeOptions::new().strict(strict).indent(indent);
        match decode(&text, &opts) {
            Ok(doc) => assert!(
                toon_model::matches(doc.root(), &model),
                "strict={strict} indent={indent}: decoded {} from\n{}\nexpected {model:?}",
                doc_text(&doc),
                String::from_utf8_lossy(&text)
            ),
            Err(e) => panic!(
                "strict={strict} indent={indent}: valid TOON rejected: {e}\n{}\nmodel {model:?}",
                String::from_utf8_lossy(&text)
            ),
        }
    }
    toon_decode(&text);
}

/// Checks an error about `input`: it has a position, the offset is at most `input.len()`,
/// line and column are 1-based and equal to a naive recount (lines end at LF, columns count
/// bytes), and the message is not empty.
pub fn check_error(input: &[u8], e: &Error) {
    assert!(!e.message().is_empty(), "empty error message: {e:?}");
    let Some(p) = e.position() else {
        panic!("input error without a position: {e:?}");
    };
    assert!(
        p.offset <= input.len(),
        "error offset {} past the input ({} bytes): {e:?}",
        p.offset,
        input.len()
    );
    let mut line = 1;
    let mut line_start = 0;
    for (i, &b) in input[..p.offset].iter().enumerate() {
        if b == b'\n' {
            line += 1;
            line_start = i + 1;
        }
    }
    let column = p.offset - line_start + 1;
    assert!(p.line >= 1 && p.column >= 1, "zero line or column: {e:?}");
    assert_eq!(
        (p.line, p.column),
        (line, column),
        "line:column disagrees with offset {}: {e:?}",
        p.offset
    );
    assert!(
        e.to_string().starts_with(&format!("{line}:{column}: ")),
        "display lacks the position: {e}"
    );
}

/// Checks that `doc` is a well-formed tree: array and object lengths equal what iteration
/// yields, keys within an object are unique, every string and key is UTF-8 unless the
/// document says it holds a lone surrogate, the tree reaches exactly [`Doc::node_count`]
/// nodes (a key is a node), and containers nest at most `max_depth` levels (the root
/// container is level 1).
pub fn check_doc(doc: &Doc<'_>, max_depth: usize) {
    let mut walk = Walk {
        nodes: 0,
        deepest: 0,
        allow_wtf8: doc.has_lone_surrogate(),
    };
    walk.value(doc.root(), 0);
    assert_eq!(walk.nodes, doc.node_count(), "tape holds unreachable nodes");
    assert!(
        walk.deepest <= max_depth,
        "document nests {} levels, limit {max_depth}",
        walk.deepest
    );
}

struct Walk {
    nodes: usize,
    deepest: usize,
    allow_wtf8: bool,
}

impl Walk {
    fn value(&mut self, v: Value<'_>, depth: usize) {
        self.nodes += 1;
        match v.get() {
            ValueRef::Null | ValueRef::Bool(_) | ValueRef::Number(_) => {}
            ValueRef::String(s) => self.text(s.as_bytes()),
            ValueRef::Array(a) => self.array(a, depth + 1),
            ValueRef::Object(o) => self.object(o, depth + 1),
        }
    }

    fn text(&self, bytes: &[u8]) {
        assert!(
            self.allow_wtf8 || std::str::from_utf8(bytes).is_ok(),
            "string is not UTF-8: {bytes:?}"
        );
    }

    fn array(&mut self, a: Array<'_>, depth: usize) {
        self.deepest = self.deepest.max(depth);
        let mut n = 0;
        for item in a.iter() {
            self.value(item, depth);
            n += 1;
        }
        assert_eq!(n, a.len(), "array length disagrees with its items");
    }

    fn object(&mut self, o: Object<'_>, depth: usize) {
        self.deepest = self.deepest.max(depth);
        let mut keys = std::collections::HashSet::new();
        for (k, v) in o.iter() {
            self.nodes += 1;
            self.text(k.as_bytes());
            assert!(keys.insert(k.as_bytes()), "duplicate key {k:?}");
            assert!(
                o.get(k.as_bytes()).map(|g| g.index()) == Some(v.index()),
                "lookup of {k:?} does not find its member"
            );
            self.value(v, depth);
        }
        assert_eq!(
            keys.len(),
            o.len(),
            "object length disagrees with its members"
        );
    }
}

/// The canonical text of a document (its `Debug` form), for messages. Lossy for strings
/// that are not UTF-8; compare documents with [`same_value`].
pub fn doc_text(doc: &Doc<'_>) -> String {
    format!("{:?}", doc.root())
}

/// Panics with both documents' text unless they hold the same value ([`same_value`]).
pub fn assert_same(a: &Doc<'_>, b: &Doc<'_>, what: &str) {
    assert!(
        same_value(a.root(), b.root()),
        "{what}:\n  {}\n  {}",
        doc_text(a),
        doc_text(b)
    );
}

/// Exact equality of two values: same kinds, same bytes for strings, keys and integer
/// lexemes, same bits for floats, same members in the same order.
pub fn same_value(a: Value<'_>, b: Value<'_>) -> bool {
    match (a.get(), b.get()) {
        (ValueRef::Null, ValueRef::Null) => true,
        (ValueRef::Bool(x), ValueRef::Bool(y)) => x == y,
        (ValueRef::Number(Number::Int(x)), ValueRef::Number(Number::Int(y))) => x == y,
        (ValueRef::Number(Number::Float(x)), ValueRef::Number(Number::Float(y))) => {
            x.to_bits() == y.to_bits()
        }
        (ValueRef::String(x), ValueRef::String(y)) => x.as_bytes() == y.as_bytes(),
        (ValueRef::Array(x), ValueRef::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| same_value(p, q))
        }
        (ValueRef::Object(x), ValueRef::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y.iter())
                    .all(|((kp, p), (kq, q))| kp.as_bytes() == kq.as_bytes() && same_value(p, q))
        }
        _ => false,
    }
}
