//! The presenter's row view (rows encoded straight from the input tape, `present::view`) is
//! byte-identical to the general path (a derived document, then the encoders).
//!
//! Oracle: `with_general_path` runs a presentation with the row view
//! switched off on this thread, so the same presenter and input go through the general writer.
//! `test_hooks::ResponseHooks::data_is_view` says which path a response took; the property test checks that
//! the view was taken often enough to mean something.

use std::sync::atomic::{AtomicUsize, Ordering};

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use toolwire::frame::{Id, Protocol, framed_len_bound, write_frame};
use toolwire::json::{ParseOptions, parse};
use toolwire::present::{Presenter, Schema, Type};
use toolwire::sink::ChunkedSink;
use toolwire::test_hooks::*;
use toolwire::toon::Delimiter;
use toolwire::wire::{Format, Suggestion, ToolResponse};

/// Declared fields, in schema order.
const FIELDS: [&str; 5] = ["id", "name", "amount", "paid", "note"];

fn presenter(
    format: Format,
    censor: &str,
    budget: Option<usize>,
    limit: Option<usize>,
) -> Presenter {
    with_stages(format, censor, budget, limit, 0)
}

/// The rows' schema of these tests' presenters.
fn inv_schema() -> Schema {
    Schema::object()
        .property("id", Schema::string())
        .property("name", Schema::string())
        .property("amount", Schema::of(Type::Integer))
        .property("paid", Schema::boolean())
        .property(
            "note",
            Schema::types([Type::String, Type::Null, Type::Number]),
        )
        .required(["id", "amount"])
}

/// `stages`: 0 static rules only; 1 item rules and item suggestion callbacks (read the first
/// row: the view serves them); 2 a static collection suggestion; 3 collection rules (read
/// every row: the general path).
fn with_stages(
    format: Format,
    censor: &str,
    budget: Option<usize>,
    limit: Option<usize>,
    stages: u8,
) -> Presenter {
    let mut b = Presenter::builder("Inv")
        .schema(inv_schema())
        .redact(["name"], Some(censor))
        .rules(["Amounts are in cents."])
        .select(true)
        .format(format);
    if let Some(n) = budget {
        b = b.token_budget(n);
    }
    if let Some(n) = limit {
        b = b.limit(n);
    }
    match stages {
        1 => {
            b = b
                .item_rules(|v| vec![format!("first: {}", toolwire::json::to_string_compact(v))])
                .item_suggestions(|v| {
                    vec![Suggestion {
                        tool: "open".into(),
                        reason: toolwire::json::to_string_compact(v),
                    }]
                });
        }
        2 => b = b.collection_suggestion("next_page", "more rows"),
        3 => {
            b = b
                .collection_rules(|v| vec![format!("{} rows", v.as_array().map_or(0, |a| a.len()))])
        }
        _ => {}
    }
    b.build().unwrap()
}

/// Everything observable about a presentation: the texts, the frame (through a chunked
/// sink), the size bound, the side door's format and data.
fn observe(r: &Result<ToolResponse<'_>, toolwire::present::PresentError>) -> String {
    let r = match r {
        Ok(r) => r,
        Err(e) => return format!("error: {e}"),
    };
    let mut framed = Vec::new();
    let mut sink = ChunkedSink::new(1024, |b| {
        framed.extend_from_slice(&b);
        true
    });
    write_frame(
        &Id::Number("7".into()),
        r,
        Protocol::Before20260728,
        &mut sink,
    );
    assert!(sink.finish());
    let mut plain = Vec::new();
    write_frame(
        &Id::Number("7".into()),
        r,
        Protocol::Before20260728,
        &mut plain,
    );
    assert_eq!(framed, plain, "chunked frame equals the plain frame");
    let bound = framed_len_bound(&Id::Number("7".into()), r);
    assert!(
        bound >= framed.len(),
        "bound {bound} < framed {}",
        framed.len()
    );
    let data = r.data().map(toolwire::json::to_string_compact);
    format!(
        "texts: {:?}\nframe: {}\nbound: {bound}\nformat: {:?}\ndata: {data:?}",
        r.texts(),
        String::from_utf8_lossy(&framed),
        r.meta().format
    )
}

/// Presents `json` both ways (with the `_select` names `select`); returns whether the subject
/// took the row view.
fn same_both_ways(json: &[u8], p: &Presenter, select: Option<&[&str]>) -> bool {
    let doc = parse(json, &ParseOptions::new()).unwrap();
    let subject = p.present(doc.root(), select);
    let oracle = with_general_path(|| p.present(doc.root(), select));
    if let Ok(o) = &oracle {
        assert!(!o.data_is_view(), "the oracle must take the general path");
    }
    let took_view = subject.as_ref().is_ok_and(|r| r.data_is_view());
    assert_eq!(
        observe(&subject),
        observe(&oracle),
        "input {}",
        String::from_utf8_lossy(json)
    );
    took_view
}

const FORMATS: [Format; 6] = [
    Format::Pretty,
    Format::Compact,
    Format::Toon(Delimiter::Comma),
    Format::Toon(Delimiter::Tab),
    Format::Toon(Delimiter::Pipe),
    Format::Auto,
];

/// JSON text of a string: pieces that need quotes or escapes in some format, reserved tags and
/// lone surrogates (as JSON escapes).
fn string_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        4 => "[a-z]{1,5}",
        1 => Just(" ".to_owned()),
        1 => Just("<tool_error>".to_owned()),
        1 => Just("\\ud800".to_owned()),
        1 => Just("\\\"".to_owned()),
        1 => Just("\\\\".to_owned()),
        1 => Just("\\n".to_owned()),
        1 => Just("|".to_owned()),
        1 => Just(",".to_owned()),
        1 => Just("\\t".to_owned()),
        1 => Just(":".to_owned()),
        1 => Just("-".to_owned()),
        1 => Just("12".to_owned()),
        1 => Just("true".to_owned()),
        1 => Just("é".to_owned()),
        1 => Just("[x]".to_owned()),
    ];
    prop::collection::vec(piece, 0..4).prop_map(|p| format!("\"{}\"", p.concat()))
}

fn number_text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<i32>().prop_map(|x| x.to_string()),
        Just("12345678901234567890123".to_owned()),
        Just("-0".to_owned()),
        Just("1.5".to_owned()),
        Just("1e21".to_owned()),
        Just("2.0".to_owned()),
    ]
}

/// Any value's JSON text (containers shallow).
fn value_text() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => string_text(),
        2 => number_text(),
        1 => any::<bool>().prop_map(|b| b.to_string()),
        1 => Just("null".to_owned()),
        1 => Just("[1,\"a\"]".to_owned()),
        1 => Just("{\"k\":\"v\"}".to_owned()),
        1 => Just("[]".to_owned()),
    ]
}

/// A value of the declared field's type (what a well-behaved handler returns).
fn typed_text(field: &str) -> BoxedStrategy<String> {
    match field {
        "id" | "name" => string_text().boxed(),
        "amount" => prop_oneof![
            any::<i32>().prop_map(|x| x.to_string()),
            Just("12345678901234567890123".to_owned()),
            Just("2.0".to_owned()),
        ]
        .boxed(),
        "paid" => any::<bool>().prop_map(|b| b.to_string()).boxed(),
        _ => prop_oneof![string_text(), number_text(), Just("null".to_owned())].boxed(),
    }
}

/// A row: all declared fields in order (typed), then edits: fields dropped, extra undeclared
/// fields, a shuffle, a wrong-typed value.
fn row_text() -> impl Strategy<Value = String> {
    let typed: Vec<BoxedStrategy<String>> = FIELDS.iter().map(|f| typed_text(f)).collect();
    (
        typed,
        prop::collection::vec(any::<bool>(), FIELDS.len()),
        prop::collection::vec(
            (
                prop::sample::select(&["x", "y", "id2", "<b>"][..]),
                value_text(),
            ),
            0..2,
        ),
        0u8..8,
        prop::option::weighted(0.15, (0..FIELDS.len(), value_text())),
        any::<prop::sample::Index>(),
    )
        .prop_map(|(vals, keep, extras, mode, wrong, shuffle_seed)| {
            let mut members: Vec<(String, String)> = FIELDS
                .iter()
                .zip(vals)
                .zip(&keep)
                // Mostly complete rows, so that the view has work to do.
                .filter(|((f, _), k)| mode < 5 || **k || **f == "id")
                .map(|((f, v), _)| ((*f).to_owned(), v))
                .collect();
            if mode >= 6 {
                for (k, v) in extras {
                    members.push((k.to_owned(), v));
                }
            }
            if mode == 7 && members.len() > 1 {
                let i = shuffle_seed.index(members.len());
                members.rotate_left(i.max(1));
            }
            if let Some((i, v)) = wrong {
                let f = FIELDS[i];
                match members.iter_mut().find(|(k, _)| k == f) {
                    Some(m) => m.1 = v,
                    None => members.push((f.to_owned(), v)),
                }
            }
            // A declared key spelled with an escape is the same key.
            let escaped = |k: &str| match (mode, k) {
                (4, "id") => "\\u0069d".to_owned(),
                (4, "name") => "n\\u0061me".to_owned(),
                _ => k.to_owned(),
            };
            let body: Vec<String> = members
                .iter()
                .map(|(k, v)| format!("\"{}\":{v}", escaped(k)))
                .collect();
            format!("{{{}}}", body.join(","))
        })
}

fn rows_text() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => prop::collection::vec(row_text(), 0..6).prop_map(|r| format!("[{}]", r.join(","))),
        // Uniform complete rows (the TOON table case).
        3 => (1usize..6, "[a-z]{0,3}")
            .prop_map(|(rows, s)| {
                let r: Vec<String> = (0..rows)
                    .map(|i| {
                        format!(
                            "{{\"id\":\"{s}{i}\",\"name\":\"n{i}\",\"amount\":{i},\"paid\":true,\"note\":null}}"
                        )
                    })
                    .collect();
                format!("[{}]", r.join(","))
            }),
        1 => Just("{\"id\":\"a\",\"amount\":1}".to_owned()),
        1 => Just("null".to_owned()),
        1 => Just("[1,2]".to_owned()),
    ]
}

#[test]
fn view_equals_general_path_in_every_format() {
    static VIEWS: AtomicUsize = AtomicUsize::new(0);
    static CASES: AtomicUsize = AtomicUsize::new(0);
    let mut runner = TestRunner::new(Config::with_cases(400));
    let censors = ["[REDACTED]", "", "<tool_error>", "a|b,c", "***"];
    runner
        .run(
            &(
                rows_text(),
                0..FORMATS.len(),
                0..censors.len(),
                prop::option::of(0usize..4),
                prop::option::weighted(0.2, 10usize..200),
                prop::option::weighted(
                    0.3,
                    prop::collection::vec(prop::sample::select(&FIELDS[..]), 0..4),
                ),
                prop_oneof![3 => Just(0u8), 1 => Just(1u8), 1 => Just(2u8), 1 => Just(3u8)],
            ),
            |(json, f, c, limit, budget, select, stages)| {
                let p = with_stages(FORMATS[f], censors[c], budget, limit, stages);
                CASES.fetch_add(1, Ordering::Relaxed);
                if same_both_ways(json.as_bytes(), &p, select.as_deref()) {
                    VIEWS.fetch_add(1, Ordering::Relaxed);
                }
                Ok(())
            },
        )
        .unwrap();
    let (views, cases) = (VIEWS.load(Ordering::Relaxed), CASES.load(Ordering::Relaxed));
    assert!(
        views * 4 >= cases,
        "the row view was taken in {views} of {cases} cases"
    );
}

/// Large uniform tables: the parallel TOON chunks (4096 rows and more) and the JSON writers.
#[test]
fn large_tables_equal_both_ways() {
    // (rows, which rows list their keys in another order): the row scan runs in parallel
    // chunks of 4096 rows from 8192 rows on, so some chunks need an offset table and others not.
    // Row shapes: 0 the schema's order, 1 another order with an extra field, 2 two fields only
    // (not a table: the TOON list form).
    let every_third = |i: usize| u8::from(i % 3 == 0);
    let last_chunk_only = |i: usize| u8::from(i == 10_000);
    let none = |_: usize| 0;
    let sparse = |i: usize| if i % 11 == 5 { 2 } else { 0 };
    let cases: [(usize, &dyn Fn(usize) -> u8); 5] = [
        (5000, &none),
        (9000, &every_third),
        (12_000, &last_chunk_only),
        (12_000, &none),
        (9000, &sparse),
    ];
    for (rows, shape) in cases {
        let mut json = String::from("[");
        for i in 0..rows {
            if i > 0 {
                json.push(',');
            }
            if shape(i) == 2 {
                json.push_str(&format!("{{\"amount\":{i},\"id\":\"S{i}\"}}"));
            } else if shape(i) == 1 {
                json.push_str(&format!(
                    "{{\"paid\":false,\"amount\":{i},\"x\":[1],\"id\":\"I{i}\",\"note\":\"a,b\",\"name\":\"N\"}}"
                ));
            } else {
                json.push_str(&format!(
                    "{{\"id\":\"I{i}\",\"name\":\"N\",\"amount\":{i},\"paid\":true,\"note\":{}}}",
                    if i % 7 == 0 {
                        "null".to_owned()
                    } else {
                        format!("\"t {i}\"")
                    }
                ));
            }
        }
        json.push(']');
        for format in FORMATS {
            let p = presenter(format, "[REDACTED]", None, None);
            assert!(
                same_both_ways(json.as_bytes(), &p, None),
                "{format:?} took the view"
            );
            let select = ["note", "amount", "name"];
            assert!(
                same_both_ways(json.as_bytes(), &p, Some(&select)),
                "{format:?} select"
            );
            // Parallel chunks (3 threads) equal the sequential encoding (1 thread).
            let doc = parse(json.as_bytes(), &ParseOptions::new()).unwrap();
            let run = |threads: usize| {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap();
                pool.install(|| {
                    let r = p.present(doc.root(), None).unwrap();
                    assert!(r.data_is_view());
                    r.texts()
                })
            };
            assert_eq!(run(1), run(3), "{format:?}");
        }
    }
}

fn texts(p: &Presenter, json: &str) -> (Vec<String>, bool) {
    let doc = parse(json.as_bytes(), &ParseOptions::new()).unwrap();
    let r = p.present(doc.root(), None).unwrap();
    (r.texts(), r.data_is_view())
}

#[test]
fn small_view_exact_texts() {
    let json = r#"[{"amount":5,"id":"A","x":{"deep":1},"name":"Bob","paid":true},
                   {"id":"B-1","name":"Eve","amount":12345678901234567890123,"paid":false,"note":null}]"#;
    let compact = presenter(Format::Compact, "[REDACTED]", None, None);
    assert_eq!(
        texts(&compact, json),
        (
            vec![
                r#"[{"id":"A","name":"[REDACTED]","amount":5,"paid":true},{"id":"B-1","name":"[REDACTED]","amount":12345678901234567890123,"paid":false,"note":null}]"#.to_owned(),
                "<domain_rules>\n- Amounts are in cents.\n</domain_rules>".to_owned(),
            ],
            true
        )
    );
    let pretty = presenter(Format::Pretty, "[REDACTED]", None, Some(1));
    let (t, view) = texts(&pretty, json);
    assert!(view);
    assert_eq!(
        t[0],
        "[\n  {\n    \"id\": \"A\",\n    \"name\": \"[REDACTED]\",\n    \"amount\": 5,\n    \"paid\": true\n  }\n]"
    );
    assert_eq!(t.len(), 3, "{t:?}");
    assert!(
        t[1].contains("Dataset truncated. 1 shown, 1 hidden."),
        "{}",
        t[1]
    );
    // The second row has a field the first lacks: not a table, the list form.
    let toon = presenter(Format::Toon(Delimiter::Pipe), "[REDACTED]", None, None);
    let (t, view) = texts(&toon, json);
    assert!(view);
    assert_eq!(
        t[0],
        "[2|]:\n  - id: A\n    name: \"[REDACTED]\"\n    amount: 5\n    paid: true\n  - id: B-1\n    name: \"[REDACTED]\"\n    amount: 12345678901234567890123\n    paid: false\n    note: null"
    );
    let uniform = r#"[{"id":"A","name":"Bob","amount":5,"paid":true,"note":"x|y"},
                      {"note":null,"paid":false,"amount":-7,"name":"Eve","id":"true"}]"#;
    let (t, view) = texts(&toon, uniform);
    assert!(view);
    assert_eq!(
        t[0],
        "[2|]{id|name|amount|paid|note}:\n  A|\"[REDACTED]\"|5|true|\"x|y\"\n  \"true\"|\"[REDACTED]\"|-7|false|null"
    );
    // A reserved tag in the censor: TOON falls back to compact JSON, escaped.
    let tagged = presenter(Format::Toon(Delimiter::Comma), "<tool_error>", None, None);
    let doc = parse(uniform.as_bytes(), &ParseOptions::new()).unwrap();
    let r = tagged.present(doc.root(), None).unwrap();
    assert!(r.data_is_view());
    assert_eq!(r.meta().format, Format::Compact);
    assert_eq!(
        r.texts()[0],
        r#"[{"id":"A","name":"\u003ctool_error>","amount":5,"paid":true,"note":"x|y"},{"id":"true","name":"\u003ctool_error>","amount":-7,"paid":false,"note":null}]"#
    );
}

#[test]
fn failing_rows_keep_the_exact_validation_message() {
    let p = presenter(Format::Compact, "[REDACTED]", None, None);
    let json = r#"[{"id":"A","amount":1},{"id":2,"amount":"x"},{"name":"n"},
                   {"id":"A","name":"n","amount":"x","paid":true,"note":null}]"#;
    let doc = parse(json.as_bytes(), &ParseOptions::new()).unwrap();
    let e = p.present(doc.root(), None).unwrap_err();
    assert_eq!(
        e.to_string(),
        with_general_path(|| p.present(doc.root(), None))
            .unwrap_err()
            .to_string()
    );
    // Only a row in the canonical layout fails.
    let json = r#"[{"id":"A","name":"n","amount":1,"paid":true,"note":null},
                   {"id":"A","name":"n","amount":"x","paid":true,"note":null}]"#;
    let doc = parse(json.as_bytes(), &ParseOptions::new()).unwrap();
    assert_eq!(
        p.present(doc.root(), None).unwrap_err().to_string(),
        "<tool_error code=\"OUTPUT_VALIDATION_FAILED\" severity=\"error\">\n<message>[Inv presenter] 1 problem(s): item 1 'amount': expected integer, got string</message>\n<recovery>The server returned data that does not match its declared schema. Retrying the same call will not help.</recovery>\n</tool_error>"
    );
    assert!(
        e.to_string().contains(
            "[Inv presenter] 5 problem(s): item 1 'id': expected string, got number; item 1 'amount': expected integer, got string; item 2 'id': expected string, got missing; item 2 'amount': expected integer, got missing; item 3 'amount': expected integer, got string"
        ),
        "{e}"
    );
}

#[test]
fn select_folds_into_the_field_list() {
    let json = r#"[{"id":"A","name":"Bob","amount":5,"paid":true,"note":"x"},
                   {"id":"B","name":"Eve","amount":6,"paid":false}]"#;
    let doc = parse(json.as_bytes(), &ParseOptions::new()).unwrap();
    let p = presenter(Format::Toon(Delimiter::Comma), "<tool_error>", None, None);
    // The redacted field selected: its censor's reserved tag makes TOON fall back to JSON.
    let r = p
        .present(doc.root(), Some(&["name", "id", "name"]))
        .unwrap();
    assert!(r.data_is_view());
    assert_eq!(r.meta().format, Format::Compact);
    assert_eq!(
        r.texts()[0],
        r#"[{"name":"\u003ctool_error>","id":"A"},{"name":"\u003ctool_error>","id":"B"}]"#
    );
    // The general path too (its projected document keeps the censor's flag).
    let g = with_general_path(|| p.present(doc.root(), Some(&["name", "id"]))).unwrap();
    assert!(!g.data_is_view());
    assert_eq!(g.meta().format, Format::Compact);
    assert_eq!(g.texts(), r.texts());
    let p = presenter(Format::Toon(Delimiter::Comma), "[REDACTED]", None, None);
    let r = p.present(doc.root(), Some(&["amount", "name"])).unwrap();
    assert!(r.data_is_view());
    assert_eq!(
        r.texts()[0],
        "[2]{amount,name}:\n  5,\"[REDACTED]\"\n  6,\"[REDACTED]\""
    );
}

#[test]
fn first_row_stages_read_the_censored_row() {
    let json = r#"[{"id":"A","name":"Bob","amount":5,"x":1},{"id":"B","name":"Eve","amount":6}]"#;
    let doc = parse(json.as_bytes(), &ParseOptions::new()).unwrap();
    let p = with_stages(Format::Compact, "***", None, None, 1);
    let r = p.present(doc.root(), Some(&["amount"])).unwrap();
    assert!(r.data_is_view());
    assert_eq!(
        r.texts(),
        vec![
            r#"[{"amount":5},{"amount":6}]"#.to_owned(),
            "<domain_rules>\n- Amounts are in cents.\n- first: {\"id\":\"A\",\"name\":\"***\",\"amount\":5}\n</domain_rules>".to_owned(),
            "<action_suggestions>\n- open: {\"id\":\"A\",\"name\":\"***\",\"amount\":5}\n</action_suggestions>".to_owned(),
        ]
    );
    let p = with_stages(Format::Compact, "***", None, None, 3);
    let r = p.present(doc.root(), None).unwrap();
    assert!(!r.data_is_view(), "collection rules read every row");
    assert_eq!(
        r.texts()[1],
        "<domain_rules>\n- Amounts are in cents.\n- 2 rows\n</domain_rules>"
    );
}

#[test]
fn a_failing_row_in_a_late_parallel_chunk_fails_the_call() {
    let mut json = String::from("[");
    for i in 0..12_000 {
        if i > 0 {
            json.push(',');
        }
        let amount = if i == 11_000 {
            "\"x\"".to_owned()
        } else {
            i.to_string()
        };
        json.push_str(&format!(
            "{{\"id\":\"I{i}\",\"name\":\"N\",\"amount\":{amount},\"paid\":true,\"note\":null}}"
        ));
    }
    json.push(']');
    let p = presenter(Format::Compact, "[REDACTED]", None, None);
    let doc = parse(json.as_bytes(), &ParseOptions::new()).unwrap();
    // Sequential and parallel row scans (the latter from 3 threads).
    for threads in [1, 3] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let e = pool.install(|| p.present(doc.root(), None).unwrap_err().to_string());
        assert!(
            e.contains(
                "[Inv presenter] 1 problem(s): item 11000 'amount': expected integer, got string"
            ),
            "{e}"
        );
    }
}

/// A presenter whose collection stages read every kept row (rules and suggestions as the
/// rows' compact JSON, a UI block counting them), with no redaction.
fn reading_all(format: Format, limit: Option<usize>) -> Presenter {
    let mut b = Presenter::builder("Inv")
        .schema(inv_schema())
        .select(true)
        .format(format)
        .collection_rules(|v| vec![toolwire::json::to_string_compact(v)])
        .collection_ui(|v| {
            vec![toolwire::wire::ui::summary(&format!(
                "{} rows",
                v.as_array().map_or(0, |a| a.len())
            ))]
        })
        .collection_suggestions(|v| {
            vec![Suggestion {
                tool: "last".into(),
                reason: v
                    .as_array()
                    .and_then(|a| a.iter().last())
                    .map(toolwire::json::to_string_compact)
                    .unwrap_or_default(),
            }]
        });
    if let Some(n) = limit {
        b = b.limit(n);
    }
    b.build().unwrap()
}

/// Stages that read every kept row read the input rows themselves when the row view finds
/// each one canonical (the declared fields in schema order) and nothing is redacted: the
/// same bytes as the general path's derived rows, in every format, with `_select` and limits.
#[test]
fn collection_stages_read_canonical_input_rows_as_the_derived_ones() {
    static VIEWS: AtomicUsize = AtomicUsize::new(0);
    let mut runner = TestRunner::new(Config::with_cases(300));
    runner
        .run(
            &(
                rows_text(),
                0..FORMATS.len(),
                prop::option::weighted(0.2, 0usize..4),
                prop::option::weighted(
                    0.3,
                    prop::collection::vec(prop::sample::select(&FIELDS[..]), 0..4),
                ),
            ),
            |(json, f, limit, select)| {
                let p = reading_all(FORMATS[f], limit);
                if same_both_ways(json.as_bytes(), &p, select.as_deref()) {
                    VIEWS.fetch_add(1, Ordering::Relaxed);
                }
                Ok(())
            },
        )
        .unwrap();
    assert!(
        VIEWS.load(Ordering::Relaxed) >= 30,
        "the row view was taken too rarely"
    );
    // Canonical rows, reserved tags and a lone surrogate included: the view.
    let canonical = br#"[{"id":"<tool_error>","name":"\ud800","amount":1,"paid":true,"note":null},{"id":"b","name":"n","amount":2,"paid":false,"note":"x"}]"#;
    assert!(same_both_ways(
        canonical,
        &reading_all(Format::Pretty, None),
        None
    ));
    // An undeclared field (stripped), a missing one, another order, a truncation: the writer.
    for json in [
        &br#"[{"id":"a","name":"n","amount":1,"paid":true,"note":null,"x":1}]"#[..],
        br#"[{"id":"a","amount":1,"paid":true,"note":null}]"#,
        br#"[{"name":"n","id":"a","amount":1,"paid":true,"note":null}]"#,
    ] {
        assert!(!same_both_ways(
            json,
            &reading_all(Format::Pretty, None),
            None
        ));
    }
    let two = br#"[{"id":"a","name":"n","amount":1,"paid":true,"note":null},{"id":"b","name":"n","amount":2,"paid":true,"note":null}]"#;
    assert!(!same_both_ways(
        two,
        &reading_all(Format::Pretty, Some(1)),
        None
    ));
}

/// An `enum` on a leaf property is checked by the row view: rows whose values are in the
/// lists take the view, any other row the writer and its message; the same bytes both ways,
/// with and without stages that read every row.
#[test]
fn enum_leaves_are_checked_by_the_view() {
    let with = |all: bool| {
        let mut b = Presenter::builder("Inv")
            .schema(
                Schema::object()
                    .property("id", Schema::string())
                    .property("status", Schema::string().enum_values(["paid", "open"]))
                    .property("n", Schema::of(Type::Integer).enum_values([1i64, 2])),
            )
            .select(true);
        if all {
            b = b.collection_rules(|v| vec![toolwire::json::to_string_compact(v)]);
        }
        b.build().unwrap()
    };
    for all in [false, true] {
        let p = with(all);
        let good = br#"[{"id":"a","status":"paid","n":1},{"id":"b","status":"open","n":2}]"#;
        assert!(same_both_ways(good, &p, None), "all rows: {all}");
        for json in [
            &br#"[{"id":"a","status":"paid","n":1},{"id":"b","status":"closed","n":2}]"#[..],
            br#"[{"id":"a","status":"paid","n":3}]"#,
            br#"[{"id":"a","status":1,"n":1}]"#,
        ] {
            assert!(!same_both_ways(json, &p, None), "all rows: {all}");
        }
        for json in [
            &br#"[{"id":"a","status":"p\u0061id","n":2.0}]"#[..],
            br#"[{"n":1,"id":"a","status":"open"}]"#,
        ] {
            same_both_ways(json, &p, Some(&["status"]));
        }
    }
}

/// Rows of the tests' schema: `kind` 0 ASCII, 1 non-ASCII names and notes (accents, CJK,
/// emoji), 2 notes that are numbers with fractions or null, 3 strings that need escapes.
fn corpus(rows: usize, kind: u8) -> String {
    let rows: Vec<String> = (0..rows)
        .map(|i| {
            let (name, note) = match kind {
                0 => (format!("\"Acme {i}\""), format!("\"net 30, batch {i}\"")),
                1 => (
                    format!("\"Société Générale 東京 {i}\""),
                    format!("\"Café 🍰 Zoë {i}\""),
                ),
                2 => (
                    format!("\"N{i}\""),
                    if i % 5 == 0 {
                        "null".to_owned()
                    } else {
                        format!("{}.{:03}", i * 7, i % 1000)
                    },
                ),
                _ => (
                    format!("\"say \\\"hi\\\" {i}\""),
                    format!("\"line\\nbreak\\t{i} \\\\ <b>\""),
                ),
            };
            format!(
                "{{\"id\":\"INV-{i:07}\",\"name\":{name},\"amount\":{},\"paid\":{},\"note\":{note}}}",
                i * 7919,
                i % 3 == 0
            )
        })
        .collect();
    format!("[{}]", rows.join(","))
}

#[test]
fn the_room_made_for_a_view_holds_its_text() {
    // `block_bytes` writes a view into room it guesses from the first rows: enough for the
    // whole text (no buffer grown while the rows are written, its copy and fresh pages),
    // and not far more.
    for kind in 0..4 {
        let json = corpus(3000, kind);
        let doc = parse(json.as_bytes(), &ParseOptions::new()).unwrap();
        for format in FORMATS {
            for (select, limit) in [(None, None), (Some(&["amount", "id"][..]), Some(500))] {
                let p = presenter(format, "[REDACTED]", None, limit);
                let r = p.present(doc.root(), select).unwrap();
                assert!(r.data_is_view(), "{kind} {format:?}");
                let len = r.texts()[0].len();
                let likely = r.data_likely_len();
                let at =
                    format!("corpus {kind}, {format:?}, select {select:?}: {likely} for {len}");
                assert!(likely >= len, "{at}");
                assert!(likely <= 3 * len, "{at}");
            }
        }
    }
}

#[test]
fn field_names_that_need_escapes_are_written_as_the_general_path_writes_them() {
    // The view writes each field's member prefix once and copies it into every row: names
    // with quotes, backslashes, controls, a reserved tag and non-ASCII, plain and framed.
    let names = [
        "q\"uote",
        "back\\slash",
        "line\nbreak",
        "<tool_error>",
        "名前 é",
        "plain",
    ];
    let mut schema = Schema::object();
    for name in names {
        schema = schema.property(
            name,
            Schema::types([Type::String, Type::Integer, Type::Null]),
        );
    }
    let rows: Vec<String> = (0..300)
        .map(|i| {
            let cells: Vec<String> = names
                .iter()
                .enumerate()
                .filter(|&(k, _)| i % 7 != 0 || k != 2)
                .map(|(k, n)| {
                    let key = toolwire::json::to_string_compact(
                        parse(format!("{:?}", n).as_bytes(), &ParseOptions::new())
                            .unwrap()
                            .root(),
                    );
                    let value = if k % 2 == 0 {
                        format!("{}", i * k)
                    } else {
                        format!("\"v{i}\"")
                    };
                    format!("{key}:{value}")
                })
                .collect();
            format!("{{{}}}", cells.join(","))
        })
        .collect();
    let json = format!("[{}]", rows.join(","));
    for format in [Format::Pretty, Format::Compact] {
        let p = Presenter::builder("Odd")
            .schema(schema.clone())
            .redact(["plain"], None)
            .select(true)
            .format(format)
            .build()
            .unwrap();
        assert!(
            same_both_ways(json.as_bytes(), &p, None),
            "{format:?} took the view"
        );
        let select = ["<tool_error>", "q\"uote"];
        assert!(
            same_both_ways(json.as_bytes(), &p, Some(&select)),
            "{format:?} select"
        );
    }
}
