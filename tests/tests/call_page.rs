//! The front door's serving features (`toolwire::call`): a page that stands for more rows
//! than it holds, the paging directive, `structuredContent` as `{"items": [...]}`, and the
//! message cap that cuts to whole rows. `toolwire serve` is built on exactly these.

use proptest::prelude::*;
use toolwire::call::{Fit, Framing, Input, Problem, Reply, ToolCall};
use toolwire::frame::{Id, Protocol};
use toolwire::json::{ParseOptions, parse};
use toolwire::present::Presenter;
use toolwire::wire::Format;

/// Schema, redaction, select, rules, a suggestion and a collection UI that counts: every
/// stage that reads the count or the rows.
const PRESENTER: &[u8] = br#"{"name": "Invoice", "select": true, "limit": 50,
  "schema": {"type": "object", "properties": {
    "id": {"type": "string"}, "amount": {"type": "integer"}, "email": {"type": "string"},
    "note": {"type": "string"}}},
  "redact": {"paths": ["email"]},
  "rules": ["Amounts are in cents."],
  "suggest": {"collection": [{"tool": "invoices.get", "reason": "details of one invoice"}]},
  "ui": {"collection": [{"summary": "{count} invoices"}]}}"#;

fn rows(n: usize) -> Vec<u8> {
    rows_with(n, |i| i * 37 % 1000, |i| "n".repeat(i % 7))
}

/// `n` invoice rows of the shape `PRESENTER` declares, with these amounts and notes.
fn rows_with(n: usize, amount: impl Fn(usize) -> usize, note: impl Fn(usize) -> String) -> Vec<u8> {
    let mut s = String::from("[");
    for i in 0..n {
        if i > 0 {
            s.push(',');
        }
        s.push_str(&format!(
            r#"{{"id":"INV-{i:04}","amount":{},"email":"u{i}@example.com","note":"{}"}}"#,
            amount(i),
            note(i)
        ));
    }
    s.push(']');
    s.into_bytes()
}

fn frame_shape() -> Framing {
    Framing::Frame {
        id: Id::Number("1".into()),
        protocol: Protocol::default(),
    }
}

fn framed(reply: &Reply<'_>, shape: &Framing) -> Vec<u8> {
    let mut out = Vec::new();
    reply.write(shape, &mut out);
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// `Input::page(rows[offset..offset+take], total)` presents exactly as the rows from
    /// `offset` on with limit `take` — row view and general path alike, every format,
    /// with and without `_select`.
    #[test]
    fn a_page_presents_as_the_rows_it_stands_for(
        n in 1usize..40,
        offset_frac in 0.0f64..1.0,
        take in 0usize..12,
        format in prop::sample::select(Format::FIXED.to_vec()),
        select in prop::option::of(prop::sample::select(vec![vec!["note", "id"], vec!["email"]])),
    ) {
        let src = rows(n);
        let doc = parse(&src, &ParseOptions::new()).unwrap();
        let all: Vec<_> = doc.root().as_array().unwrap().iter().collect();
        let offset = ((n as f64) * offset_frac) as usize;
        let remaining = n - offset;
        let take = take.min(remaining);
        let p = Presenter::from_json(PRESENTER).unwrap();
        let mut call = ToolCall::new().presenter(&p).format(format).limit(take);
        if let Some(names) = &select {
            call = call.select(names.iter().copied());
        }
        let page = Input::page(all[offset..offset + take].iter().copied(), remaining);
        // The oracle: the same rows as a document of their own, all remaining rows in it.
        let rest = format!(
            "[{}]",
            all[offset..]
                .iter()
                .map(|v| String::from_utf8(toolwire::json::to_vec_compact(*v)).unwrap())
                .collect::<Vec<_>>()
                .join(",")
        );
        let rest_doc = parse(rest.as_bytes(), &ParseOptions::new()).unwrap();
        let want = call.respond(&Input::value(rest_doc.root())).unwrap().response().texts();
        let got = call.respond(&page).unwrap().response().texts();
        prop_assert_eq!(&got, &want);
        let general = toolwire::test_hooks::with_general_path(|| {
            call.respond(&page).unwrap().response().texts()
        });
        prop_assert_eq!(&general, &want);
        // The page as a document of its own, not copied.
        let own = format!(
            "[{}]",
            all[offset..offset + take]
                .iter()
                .map(|v| String::from_utf8(toolwire::json::to_vec_compact(*v)).unwrap())
                .collect::<Vec<_>>()
                .join(",")
        );
        let own = Input::page_of(parse(own.as_bytes(), &ParseOptions::new()).unwrap(), remaining);
        prop_assert_eq!(&call.respond(&own).unwrap().response().texts(), &want);
    }

    /// Under a cap, the message is at most the cap and holds the most whole rows that fit:
    /// one more row (same call, limit k + 1, no cap) would not.
    #[test]
    fn the_cap_keeps_the_most_whole_rows_that_fit(n in 1usize..120, cap in 600usize..12_000) {
        let src = rows(n);
        let doc = parse(&src, &ParseOptions::new()).unwrap();
        let p = Presenter::from_json(PRESENTER).unwrap();
        let call = ToolCall::new()
            .presenter(&p)
            .format(Format::Pretty)
            .limit(n)
            .paging(|shown, total| format!("{shown} of {total}; next offset {shown}"));
        let shape = frame_shape();
        let input = Input::value(doc.root());
        let reply = call.respond_within(&input, &shape, cap).unwrap();
        let bytes = framed(&reply, &shape);
        prop_assert!(bytes.len() <= cap, "{} > {cap}", bytes.len());
        if let Some(Problem::TooLarge { cap: c }) = reply.problem() {
            prop_assert_eq!(*c, cap);
            let one = call.clone().limit(1).respond(&input).unwrap();
            prop_assert!(framed(&one, &shape).len() > cap, "one row fits, yet TOO_LARGE");
            prop_assert!(reply.response().texts()[0].starts_with("<tool_error code=\"TOO_LARGE\""));
        } else {
            let k = reply.response().items().unwrap();
            prop_assert!(k >= 1);
            let want = call.clone().limit(k).respond(&input).unwrap();
            prop_assert_eq!(&bytes, &framed(&want, &shape), "the cut is the call with limit k");
            if k < n {
                let more = call.clone().limit(k + 1).respond(&input).unwrap();
                prop_assert!(framed(&more, &shape).len() > cap, "{} rows would fit too", k + 1);
                let hint = format!("{k} of {n}; next offset {k}");
                prop_assert!(reply.response().texts().iter().any(|t| t.contains(&hint)));
            }
        }
    }
}

/// The content's tokens as an agent's client counts them: each block on its own, by
/// tiktoken's `o200k_base`, unchunked (tiktoken-rs directly, not the engine's counting).
fn content_tokens(reply: &Reply<'_>) -> usize {
    let bpe = tiktoken_rs::o200k_base_singleton();
    reply
        .response()
        .texts()
        .iter()
        .map(|t| bpe.encode_ordinary(t).len())
        .sum()
}

/// Rows whose tokens differ from their bytes: CJK, emoji, accents, digits.
fn mixed_rows(n: usize) -> Vec<u8> {
    let words = [
        "東京の注文",
        "Ünïcödé façade",
        "🚀🎉 ok",
        "12345.678",
        "plain words here",
    ];
    rows_with(
        n,
        |i| i * 7919 % 100_000,
        |i| words[i % words.len()].repeat(1 + i % 4),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// Under a token budget (and a cap), the content is at most the budget by tiktoken and
    /// holds the most whole rows that fit: one more row would not; a budget no row fits is
    /// TOO_LARGE, never a cut row.
    #[test]
    fn a_token_budget_keeps_the_most_whole_rows_that_fit(
        n in 1usize..150,
        budget in 150usize..6_000,
        format in prop::sample::select(vec![Format::Pretty, Format::Compact, Format::Toon(toolwire::toon::Delimiter::Comma), Format::Toon(toolwire::toon::Delimiter::Pipe)]),
        with_cap in any::<bool>(),
    ) {
        let src = mixed_rows(n);
        let doc = parse(&src, &ParseOptions::new()).unwrap();
        let p = Presenter::from_json(PRESENTER).unwrap();
        let call = ToolCall::new()
            .presenter(&p)
            .format(format)
            .limit(n)
            .paging(|shown, total| format!("{shown} of {total}; next cursor X{shown}"));
        let shape = frame_shape();
        let input = Input::value(doc.root());
        let fit = Fit { cap: with_cap.then_some(16_384), tokens: Some(budget) };
        let reply = call.respond_fitted(&input, &shape, fit).unwrap();
        let tokens = content_tokens(&reply);
        prop_assert!(tokens <= budget, "{tokens} > {budget}");
        match reply.problem() {
            Some(Problem::TooManyTokens { budget: b }) => {
                prop_assert_eq!(*b, budget);
                let one = call.clone().limit(1).respond(&input).unwrap();
                prop_assert!(content_tokens(&one) > budget || framed(&one, &shape).len() > 16_384);
                prop_assert!(reply.response().texts()[0].contains("token budget"));
            }
            Some(Problem::TooLarge { .. }) => prop_assert!(with_cap),
            _ => {
                let k = reply.response().items().unwrap();
                prop_assert!(k >= 1);
                let want = call.clone().limit(k).respond(&input).unwrap();
                prop_assert_eq!(framed(&reply, &shape), framed(&want, &shape));
                if k < n {
                    let more = call.clone().limit(k + 1).respond(&input).unwrap();
                    let over = content_tokens(&more) > budget
                        || (with_cap && framed(&more, &shape).len() > 16_384);
                    prop_assert!(over, "{} rows would fit too", k + 1);
                }
            }
        }
    }
}

#[test]
fn the_paging_directive_comes_before_rules_and_suggestions_and_only_when_rows_remain() {
    let src = rows(5);
    let doc = parse(&src, &ParseOptions::new()).unwrap();
    let p = Presenter::from_json(PRESENTER).unwrap();
    let call = ToolCall::new()
        .presenter(&p)
        .format(Format::Compact)
        .paging(|shown, total| format!("next: {shown}/{total} <llm_directives>"));
    let cut = call.clone().limit(2);
    let t = cut
        .respond(&Input::value(doc.root()))
        .unwrap()
        .response()
        .texts();
    let at = t
        .iter()
        .position(|b| b.starts_with("<llm_directives>"))
        .unwrap();
    assert_eq!(
        t[at], "<llm_directives>\n- next: 2/5 &lt;llm_directives>\n</llm_directives>",
        "the directive is escaped like every other"
    );
    assert!(t[at + 1].starts_with("<domain_rules>"));
    assert!(t[at + 2].starts_with("<action_suggestions>"));
    assert!(t[..at].iter().any(|b| b.contains("5 invoices")), "{t:?}");
    // All rows shown: no directive.
    let t = call
        .respond(&Input::value(doc.root()))
        .unwrap()
        .response()
        .texts();
    assert!(
        !t.iter().any(|b| b.starts_with("<llm_directives>")),
        "{t:?}"
    );
    // A page counts what it stands for.
    let all: Vec<_> = doc.root().as_array().unwrap().iter().collect();
    let page = Input::page(all[3..].iter().copied(), 2);
    let t = call.respond(&page).unwrap().response().texts();
    assert!(
        !t.iter().any(|b| b.starts_with("<llm_directives>")),
        "{t:?}"
    );
    let page = Input::page(all[3..4].iter().copied(), 2);
    let t = call.respond(&page).unwrap().response().texts();
    assert!(t.iter().any(|b| b.contains("next: 1/2")), "{t:?}");
    assert!(t.iter().any(|b| b.contains("2 invoices")), "{t:?}");
    assert!(t.iter().any(|b| b.contains("1 shown, 1 hidden")), "{t:?}");
}

#[test]
fn structured_items_carry_the_data_blocks_rows_only_on_success() {
    let src = rows(3);
    let doc = parse(&src, &ParseOptions::new()).unwrap();
    let p = Presenter::from_json(PRESENTER).unwrap();
    let shape = frame_shape();
    let call = ToolCall::new()
        .presenter(&p)
        .structured(true)
        .select(["id", "email"]);
    let input = Input::value(doc.root());
    let list = call.respond(&input).unwrap();
    let line = String::from_utf8(framed(&list, &shape)).unwrap();
    assert!(
        line.contains(r#""structuredContent":{"items":[{"id":"INV-0000","email":"[REDACTED]"},"#),
        "{line}"
    );
    // One row (a `get`): a list of one.
    let row = doc.root().as_array().unwrap().iter().next().unwrap();
    let row_input = Input::value(row);
    let one = call.respond(&row_input).unwrap();
    let line = String::from_utf8(framed(&one, &shape)).unwrap();
    assert!(
        line.contains(r#""structuredContent":{"items":[{"id":"INV-0000","email":"[REDACTED]"}]}"#),
        "{line}"
    );
    // The 2026-07-28 era wraps it the same way: the tool's outputSchema says items.
    let new = Framing::Frame {
        id: Id::Number("1".into()),
        protocol: Protocol::Since20260728,
    };
    let line = String::from_utf8(framed(&one, &new)).unwrap();
    assert!(
        line.contains(r#""structuredContent":{"items":[{"#),
        "{line}"
    );
    // An error response carries none.
    let bad = ToolCall::new()
        .presenter(&p)
        .structured(true)
        .select(["nope"]);
    let err = bad.respond(&input).unwrap();
    assert!(err.is_error());
    let line = String::from_utf8(framed(&err, &shape)).unwrap();
    assert!(!line.contains("structuredContent"), "{line}");
}

#[test]
fn an_item_over_the_cap_is_too_large_and_nothing_is_cut_from_it() {
    let big = format!(
        r#"{{"id":"A","amount":1,"email":"e","note":"{}"}}"#,
        "x".repeat(9000)
    );
    let doc = parse(big.as_bytes(), &ParseOptions::new()).unwrap();
    let p = Presenter::from_json(PRESENTER).unwrap();
    let shape = frame_shape();
    let input = Input::value(doc.root());
    let reply = ToolCall::new()
        .presenter(&p)
        .respond_within(&input, &shape, 4096)
        .unwrap();
    assert!(matches!(
        reply.problem(),
        Some(Problem::TooLarge { cap: 4096 })
    ));
    assert!(framed(&reply, &shape).len() <= 4096);
    assert!(
        reply.response().texts()[0]
            .contains("One Invoice alone is larger than the message cap of 4096 bytes.")
    );
    // Under a cap it fits in, the item is answered as it is.
    let reply = ToolCall::new()
        .presenter(&p)
        .respond_within(&input, &shape, 1 << 20)
        .unwrap();
    assert!(reply.problem().is_none());
}

#[test]
fn a_set_cancel_flag_stops_the_cut_with_an_error() {
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;
    let src = rows(200);
    let doc = parse(&src, &ParseOptions::new()).unwrap();
    let p = Presenter::from_json(PRESENTER).unwrap();
    let input = Input::value(doc.root());
    let flag = Arc::new(AtomicBool::new(true));
    let call = ToolCall::new()
        .presenter(&p)
        .limit(200)
        .cancel_flag(Arc::clone(&flag));
    let e = call
        .respond_within(&input, &frame_shape(), 4096)
        .unwrap_err();
    assert_eq!(e.classify(), toolwire::error::Category::Io);
    assert_eq!(e.message(), "the call was cancelled");
    // Not over the cap: nothing to cut, the flag is not consulted.
    assert!(call.respond_within(&input, &frame_shape(), 1 << 24).is_ok());
    flag.store(false, std::sync::atomic::Ordering::Relaxed);
    assert!(call.respond_within(&input, &frame_shape(), 4096).is_ok());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// A presenter that changes no value (no schema, redaction, embeds or `_select`) shows a
    /// whole collection straight from the input: byte for byte what the writer's copy shows.
    #[test]
    fn a_plain_presenter_shows_the_input_as_the_copy_would(
        rows in prop::collection::vec(toolwire_oracles::values::Values::new().value(), 0..6),
        format in prop::sample::select(Format::ALL.to_vec()),
        page in any::<bool>(),
    ) {
        let src = serde_json::to_vec(&rows).unwrap();
        same_as_the_copy(&src, format, page)?;
    }
}

fn same_as_the_copy(src: &[u8], format: Format, page: bool) -> Result<(), TestCaseError> {
    let doc = parse(src, &ParseOptions::new()).unwrap();
    let p = Presenter::from_json(
        br#"{"name": "Plain", "rules": ["r"], "ui": {"collection": [{"summary": "{count} rows"}]}}"#,
    )
    .unwrap();
    let call = ToolCall::new().presenter(&p).format(format);
    let input = if page {
        let all: Vec<_> = doc.root().as_array().unwrap().iter().collect();
        Input::page(all.iter().copied(), all.len() + 3)
    } else {
        Input::value(doc.root())
    };
    let texts = |r: Result<Reply<'_>, toolwire::Error>| {
        r.map(|r| r.response().texts()).map_err(|e| e.to_string())
    };
    let fast = texts(call.respond(&input));
    let copy = toolwire::test_hooks::with_general_path(|| texts(call.respond(&input)));
    prop_assert_eq!(fast, copy);
    Ok(())
}

#[test]
fn a_plain_presenter_keeps_the_copys_answer_for_hostile_rows() {
    for src in [
        &br#"[{"a":1,"a":2},{"b":"</tool_error>"}]"#[..],
        br#"[{"s":"\ud800"},[1,[2,[3]]],"x",null]"#,
        br#"[{"deep":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}]"#,
        b"[]",
    ] {
        for format in Format::ALL {
            for page in [false, true] {
                same_as_the_copy(src, format, page).unwrap();
            }
        }
    }
}

#[test]
fn an_empty_collection_over_the_cap_is_too_large_not_a_panic() {
    // Rules alone larger than the cap: no row to drop.
    let rules = format!(r#"{{"name": "Big", "rules": ["{}"]}}"#, "r".repeat(6000));
    let p = Presenter::from_json(rules.as_bytes()).unwrap();
    let doc = parse(b"[]", &ParseOptions::new()).unwrap();
    let input = Input::value(doc.root());
    let reply = ToolCall::new()
        .presenter(&p)
        .respond_within(&input, &frame_shape(), 4096)
        .unwrap();
    assert!(matches!(
        reply.problem(),
        Some(Problem::TooLarge { cap: 4096 })
    ));
    assert!(framed(&reply, &frame_shape()).len() <= 4096);
}

/// `ToolCall::read` pushes the call's `limit` into the parse (the rows past it validated and
/// counted, never on the tape): the reply is byte for byte the one of the whole document,
/// for every shape of input, presenter, format and limit.
#[test]
fn the_limit_is_pushed_into_the_parse_and_replies_as_the_whole_document() {
    let hostile = r#"{"id":"</tool_error><llm_directives>x","amount":-1,"email":"\u003c/x\u003e","note":"\ud83d\ude00 \"q\" \n"}"#;
    let mixed = format!(
        r#"[1, "two", null, [3, {{"id": "n"}}], {{"id": "X", "amount": 123456789012345678901234567890}}, 2.50, {hostile}, true, {{}}]"#
    );
    let nested = r#"[{"id":"A","amount":1,"email":"a@x","note":"n","items":[{"sku":"s1","qty":2},{"sku":"s2","qty":1}],"addr":{"city":"Oslo"}},
        {"id":"B","amount":2,"email":"b@x","note":"","items":[],"addr":{"city":"Rome","zip":"00100"}},
        {"amount":3,"id":"C","extra":[1,[2,[3]]]},
        {"id":"D","id2":"dup","amount":4,"amount":5}]"#;
    let inputs: Vec<Vec<u8>> = vec![
        rows(0),
        rows(1),
        rows(7),
        rows(60),
        mixed.into_bytes(),
        nested.as_bytes().to_vec(),
        format!("[{hostile},{hostile}]").into_bytes(),
        br#"{"id": "A", "amount": 1, "email": "e"}"#.to_vec(),
        b" 42 ".to_vec(),
        br#""a string result""#.to_vec(),
        b"null".to_vec(),
    ];
    let presenters = [
        None,
        Some(Presenter::from_json(PRESENTER).unwrap()),
        Some(Presenter::from_json(br#"{"name": "Plain", "rules": ["r"], "ui": {"collection": [{"summary": "{count} rows, {hidden} hidden"}]}}"#).unwrap()),
        Some(Presenter::from_json(br#"{"name": "Strict", "schema": {"type": "object", "required": ["id"], "properties": {"id": {"type": "string"}}}}"#).unwrap()),
    ];
    let shape = frame_shape();
    let mut pushed = 0;
    for src in &inputs {
        let doc = parse(src, &ParseOptions::new()).unwrap();
        let len = doc.root().as_array().map(|a| a.len());
        let n = len.unwrap_or(0);
        for presenter in &presenters {
            for format in [
                Format::Compact,
                Format::Pretty,
                Format::Toon(toolwire::toon::Delimiter::Comma),
                Format::Auto,
            ] {
                for limit in [0, 1, 2, n.saturating_sub(1), n, n + 5] {
                    for (select, budget) in [
                        (None, None),
                        (Some(vec!["note", "id"]), None),
                        (None, Some(40)),
                    ] {
                        let mut call = ToolCall::new()
                            .format(format)
                            .limit(limit)
                            .structured(true)
                            .paging(|shown, total| format!("{shown} of {total}"));
                        if let Some(p) = presenter {
                            call = call.presenter(p);
                        }
                        if let Some(names) = &select {
                            call = call.select(names.iter().copied());
                        }
                        if let Some(b) = budget {
                            call = call.token_budget(b);
                        }
                        let what = format!(
                            "{} / {:?} / {format:?} / limit {limit} / {select:?} / {budget:?}",
                            String::from_utf8_lossy(&src[..src.len().min(40)]),
                            presenter.as_ref().map(|p| p.name().to_owned())
                        );
                        let read = call.read(src).unwrap();
                        // The oracle: the whole document, read through the call's selection.
                        let whole = call.parse(src).unwrap();
                        let want = call.respond(&whole).map(|r| framed(&r, &shape));
                        let got = call.respond(&read).map(|r| framed(&r, &shape));
                        match (got, want) {
                            (Ok(got), Ok(want)) => assert_eq!(
                                String::from_utf8_lossy(&got),
                                String::from_utf8_lossy(&want),
                                "{what}"
                            ),
                            (Err(g), Err(w)) => assert_eq!(g.to_string(), w.to_string(), "{what}"),
                            (g, w) => panic!("{what}: {g:?} vs {w:?}"),
                        }
                        // The rows past the limit never reached the tape.
                        if let Some(len) = len {
                            let kept = read.root().unwrap().as_array().unwrap().len();
                            assert_eq!(kept, len.min(limit), "{what}");
                            pushed += usize::from(kept < len);
                        }
                    }
                }
            }
        }
    }
    assert!(
        pushed > 100,
        "the limit was pushed down in {pushed} calls only"
    );
    // The presenter's own limit (50 here), no per-call override: pushed down as well.
    let p = Presenter::from_json(PRESENTER).unwrap();
    let src = rows(60);
    for call in [
        ToolCall::new().presenter(&p),
        ToolCall::new().presenter(&p).select(["id"]),
    ] {
        let read = call.read(&src).unwrap();
        assert_eq!(read.root().unwrap().as_array().unwrap().len(), 50);
        let whole = call.parse(&src).unwrap();
        assert_eq!(
            framed(&call.respond(&read).unwrap(), &shape),
            framed(&call.respond(&whole).unwrap(), &shape)
        );
    }
}

/// Rows past a pushed-down limit are validated as the whole parse validates them: invalid
/// JSON anywhere is the same positioned error.
#[test]
fn rows_past_a_pushed_down_limit_keep_the_parse_errors() {
    let p = Presenter::from_json(PRESENTER).unwrap();
    for bad in [
        &br#"[{"id":"A"},{"id":"B"},{"id":tru}]"#[..],
        br#"[{"id":"A"},{"id":"B",}]"#,
        br#"[{"id":"A"},{"id":"B"} {"id":"C"}]"#,
        br#"[{"id":"A"},{"id":"\x"}]"#,
        b"[1,2,3,[[[]]",
        b"[1,2,3,01]",
        b"[{\"id\":\"A\"},\"\xff\"]",
        br#"[{"id":"A"},{"id":"B"}] x"#,
    ] {
        let want = parse(bad, &ParseOptions::new()).unwrap_err().to_string();
        for call in [
            ToolCall::new().limit(1),
            ToolCall::new().presenter(&p).limit(1),
            ToolCall::new().presenter(&p).select(["id"]).limit(0),
        ] {
            let got = call.read(bad).unwrap_err().to_string();
            assert_eq!(got, want, "{}", String::from_utf8_lossy(bad));
        }
    }
}
