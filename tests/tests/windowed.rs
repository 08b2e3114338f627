//! `Data::Json`: a root array read window by window equals the whole document in every format,
//! framed, streamed and on error (`engine/src/wire/windowed.rs`).

use proptest::prelude::*;
use toolwire::frame::{Id, Protocol, write_frame};
use toolwire::json::{ParseOptions, parse};
use toolwire::sink::ChunkedSink;
use toolwire::test_hooks::*;
use toolwire::toon::Delimiter;
use toolwire::wire::{self, Data, Format, ToolResponse};

const FORMATS: [Format; 5] = [
    Format::Pretty,
    Format::Compact,
    Format::Toon(Delimiter::Comma),
    Format::Toon(Delimiter::Pipe),
    Format::Toon(Delimiter::Tab),
];

/// Everything observable about a built response: texts, format, both framings; or the error.
fn observe(r: toolwire::Result<ToolResponse<'_>>) -> String {
    match r {
        Err(e) => format!("error: {e}"),
        Ok(r) => {
            let mut framed = Vec::new();
            write_frame(
                &Id::Number("7".into()),
                &r,
                Protocol::default(),
                &mut framed,
            );
            write_frame(
                &Id::String("x".into()),
                &r,
                Protocol::Since20260728,
                &mut framed,
            );
            format!(
                "{:?}\n{:?}\n{}",
                r.meta().format,
                r.texts(),
                String::from_utf8_lossy(&framed)
            )
        }
    }
}

/// The response of `json` in `format`, windowed with `window` bytes per window.
fn windowed(json: &[u8], format: Format, window: usize) -> String {
    let r = wire::response(Data::Json(json))
        .format(format)
        .llm_hint("hint")
        .window_bytes(window)
        .build();
    if let Ok(r) = &r {
        let expect = json.len() > window && json.trim_ascii_start().first() == Some(&b'[');
        assert_eq!(
            r.data_is_windowed(),
            expect,
            "windowed when larger than a window"
        );
    }
    observe(r)
}

/// The response of the whole parsed document.
fn whole(json: &[u8], format: Format) -> String {
    match parse(json, &ParseOptions::default()) {
        Err(e) => format!("error: {e}"),
        Ok(doc) => observe(
            wire::response(Data::Doc(doc))
                .format(format)
                .llm_hint("hint")
                .build(),
        ),
    }
}

fn assert_same(json: &[u8]) {
    for format in FORMATS {
        let expect = whole(json, format);
        for window in [1, 2, 7, 33, 200] {
            assert_eq!(
                windowed(json, format, window),
                expect,
                "{format:?}, windows of {window} bytes, input {:?}",
                String::from_utf8_lossy(json)
            );
        }
    }
}

#[test]
fn every_form_of_root_array_equals_the_whole_document() {
    let cases: &[&str] = &[
        "[]",
        " [ ]\n",
        "[1]",
        r#"[1, "a", true, null, -0.5, 123456789012345678901234567890]"#,
        r#"["a|b", "c,d", "e	f", "", " pad "]"#,
        r#"[{"id":1,"name":"a"},{"id":2,"name":"b"},{"id":3,"name":"c|d"}]"#,
        // Later rows list the keys in another order: the header keeps the first row's.
        r#"[{"id":1,"name":"a"},{"name":"b","id":2},{"id":3,"name":"c"}]"#,
        // Nested groups.
        r#"[{"id":1,"at":{"x":1,"y":2}},{"id":2,"at":{"y":4,"x":3}},{"id":3,"at":{"x":5,"y":6}}]"#,
        // A late row breaks the table: the list form.
        r#"[{"id":1,"name":"a"},{"id":2,"name":"b"},{"id":3,"name":"c"},{"id":4}]"#,
        r#"[{"id":1,"name":"a"},{"id":2,"name":"b"},{"id":3,"name":[1,2]}]"#,
        r#"[{"id":1,"at":{"x":1}},{"id":2,"at":{"x":2}},{"id":3,"at":7}]"#,
        r#"[{"id":1},{"id":2},3]"#,
        r#"[1,2,{"id":3}]"#,
        r#"[{}, {}, {"a":1}]"#,
        r#"[[1,2],[3],[]]"#,
        r#"[{"a":1,"a":2},{"a":3}]"#,
        // WIRE.md §2: TOON falls back to compact JSON, whichever window holds the tag.
        r#"[{"id":1,"t":"x"},{"id":2,"t":"y"},{"id":3,"t":"<tool_error>"}]"#,
        r#"[{"id":1,"t":"x"},{"id":2,"t":"y"},{"id":3,"t":"\ud800"}]"#,
        r#"[{"id":1,"t":"x"},{"id":2,"t":"y"},{"id":3,"</Domain_Rules>":1}]"#,
        // Errors: the same message at the same place.
        "[1,2,",
        "[1,2,]",
        "[1 2]",
        "[1,2] x",
        "[1,\"\u{7}\"]",
        r#"[{"a":1},{"a":"\x"}]"#,
        "[1,2,3,4,5,6,7,8,9,01]",
        "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
        // Not arrays: parsed whole.
        r#"{"a":[1,2]}"#,
        "\"text\"",
        "",
    ];
    for json in cases {
        assert_same(json.as_bytes());
    }
}

#[test]
fn depth_past_the_toon_limit_is_the_same_error() {
    // 128 levels parse; TOON's default limit is the same, so build the case from the parser's
    // side: nesting the parser accepts and TOON rejects does not exist with the defaults, and
    // one level more is a parse error in both paths.
    let deep = format!("[1,{}{}]", "[".repeat(127), "]".repeat(127));
    assert_same(deep.as_bytes());
    let deeper = format!("[1,{}{}]", "[".repeat(128), "]".repeat(128));
    assert!(whole(deeper.as_bytes(), Format::Compact).starts_with("error: "));
    assert_same(deeper.as_bytes());
}

#[test]
fn auto_and_small_inputs_are_parsed_whole() {
    let json = br#"[{"id":1},{"id":2}]"#;
    let r = wire::response(Data::Json(json))
        .format(Format::Auto)
        .window_bytes(1)
        .build()
        .unwrap();
    assert!(!r.data_is_windowed());
    let r = wire::response(Data::Json(json)).build().unwrap();
    assert!(!r.data_is_windowed(), "inputs up to 8 MiB are parsed whole");
    assert_eq!(
        r.texts(),
        ["[\n  {\n    \"id\": 1\n  },\n  {\n    \"id\": 2\n  }\n]"]
    );
}

/// A large invoice table: windowed by default, equal to the whole document in every format
/// (parallel chunks inside windows), streamed in chunks, structured output in both protocols.
#[test]
fn large_inputs_stream_windowed_and_equal_the_whole_document() {
    let json = toolwire_oracles::invoices::json(64_000, toolwire_oracles::invoices::Shape::Flat);
    assert!(json.len() > 8 << 20, "windowed by default");
    for format in FORMATS {
        let r = wire::response(Data::Json(&json))
            .format(format)
            .build()
            .unwrap();
        assert!(r.data_is_windowed());
        let doc = parse(&json, &ParseOptions::default()).unwrap();
        let w = wire::response(Data::Doc(doc))
            .format(format)
            .build()
            .unwrap();
        assert_eq!(r.texts(), w.texts(), "{format:?}");
        let mut framed = Vec::new();
        write_frame(
            &Id::Number("1".into()),
            &w,
            Protocol::default(),
            &mut framed,
        );
        let mut streamed = Vec::new();
        let mut chunks = 0;
        let mut sink = ChunkedSink::new(64 << 10, |c| {
            streamed.extend_from_slice(&c);
            chunks += 1;
            true
        });
        write_frame(&Id::Number("1".into()), &r, Protocol::default(), &mut sink);
        assert!(sink.finish());
        assert!(chunks > 10, "{chunks} chunks");
        assert_eq!(streamed, framed, "{format:?} streamed");
        let bound = toolwire::frame::framed_len_bound(&Id::Number("1".into()), &r);
        assert!(bound >= framed.len(), "the size bound bounds");
        assert_ne!(bound, usize::MAX, "{format:?}: computed");
        size_bound_off_counts_exactly(&json, format, &framed);
    }
    for protocol in [Protocol::default(), Protocol::Since20260728] {
        let r = wire::success_structured(Data::Json(&json)).unwrap();
        assert!(r.data_is_windowed());
        let doc = parse(&json, &ParseOptions::default()).unwrap();
        let w = wire::success_structured(Data::Doc(doc)).unwrap();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        write_frame(&Id::Number("2".into()), &r, protocol, &mut a);
        write_frame(&Id::Number("2".into()), &w, protocol, &mut b);
        assert!(a == b, "structured output, {protocol:?}");
    }
    // The side door parses the whole input on demand.
    let r = wire::response(Data::Json(&json)).build().unwrap();
    let doc = parse(&json, &ParseOptions::default()).unwrap();
    assert_eq!(
        toolwire::json::to_string_compact(r.data().unwrap()),
        toolwire::json::to_string_compact(doc.root())
    );
}

/// Built without the size bound (`ResponseBuilder::size_bound(false)`, what `ToolCall::respond`
/// asks): the same bytes, the bound `usize::MAX`, and the cap checks count exactly.
fn size_bound_off_counts_exactly(json: &[u8], format: Format, framed: &[u8]) {
    use toolwire::frame::{check_size, frame_capped, framed_len_bound};
    let id = Id::Number("1".into());
    let r = wire::response(Data::Json(json))
        .format(format)
        .size_bound(false)
        .build()
        .unwrap();
    assert!(r.data_is_windowed());
    assert_eq!(r.block_len_bound(0), usize::MAX, "{format:?}");
    assert_eq!(framed_len_bound(&id, &r), usize::MAX, "{format:?}");
    let mut out = Vec::new();
    write_frame(&id, &r, Protocol::default(), &mut out);
    assert!(
        out == framed,
        "{format:?}: the same bytes without the bound"
    );
    let exact = framed.len();
    assert_eq!(
        check_size(&id, &r, Protocol::default(), exact).unwrap(),
        Some(exact)
    );
    assert!(check_size(&id, &r, Protocol::default(), exact - 1).is_err());
    let mut capped = Vec::new();
    frame_capped(&id, &r, Protocol::default(), exact, &mut capped).unwrap();
    assert!(capped == framed, "{format:?}: capped");
}

/// The front door: `respond` skips the bound of windowed JSON bytes, `respond_within`
/// computes it (its cheap check passes without counting) and still cuts when over the cap.
#[test]
fn the_front_door_computes_the_size_bound_only_for_a_cap() {
    use toolwire::call::{Framing, ToolCall};
    use toolwire::frame::framed_len_bound;
    let json = toolwire_oracles::invoices::json(64_000, toolwire_oracles::invoices::Shape::Flat);
    let id = Id::Number("1".into());
    let shape = Framing::Frame {
        id: id.clone(),
        protocol: Protocol::default(),
    };
    let call = ToolCall::new().format(Format::Pretty);
    let input = call.read(&json).unwrap();
    let plain = call.respond(&input).unwrap();
    assert!(plain.response().data_is_windowed());
    assert_eq!(framed_len_bound(&id, plain.response()), usize::MAX);
    let mut framed = Vec::new();
    plain.write(&shape, &mut framed);
    let capped = call
        .respond_within(&input, &shape, usize::MAX >> 1)
        .unwrap();
    let bound = framed_len_bound(&id, capped.response());
    assert!(bound >= framed.len() && bound != usize::MAX, "{bound}");
    let mut out = Vec::new();
    capped.write(&shape, &mut out);
    assert!(out == framed, "the same bytes under a cap they fit");
    // Exactly the message's size: fits (the bound is over it, so the bytes are counted).
    let exact = call.respond_within(&input, &shape, framed.len()).unwrap();
    assert!(!exact.is_error());
    // One byte less: JSON bytes are not a collection to cut, so the call is TOO_LARGE.
    let over = call
        .respond_within(&input, &shape, framed.len() - 1)
        .unwrap();
    assert!(over.is_error());
}

#[test]
fn dropping_the_consumer_stops_the_windowed_work() {
    let json = toolwire_oracles::invoices::json(30_000, toolwire_oracles::invoices::Shape::Flat);
    let r = wire::response(Data::Json(&json))
        .format(Format::Toon(Delimiter::Pipe))
        .build()
        .unwrap();
    let mut got = 0;
    let mut sink = ChunkedSink::new(16 << 10, |_| {
        got += 1;
        got < 3
    });
    write_frame(&Id::Number("1".into()), &r, Protocol::default(), &mut sink);
    assert!(!sink.finish(), "the consumer went away");
    assert!(
        got < 40,
        "the encoder stopped within a window ({got} chunks offered)"
    );
}

// ---------------------------------------------------------------------------------------------
// Property: any root array, in any window size, intact or damaged.

fn string_text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z]{0,6}",
        Just("<tool_error>".to_string()),
        Just("</UI_PASSTHROUGH x".to_string()),
        Just("a|b,c\td".to_string()),
        Just("\\ud800".to_string()),
        Just("\\\"q\\\" \\n \\u00e9 \\ud83d\\ude00".to_string()),
        Just("true".to_string()),
        Just("12".to_string()),
        Just(" - x: [y]".to_string()),
        // A guessed split point inside a string.
        Just("}, {".to_string()),
    ]
    .prop_map(|s| format!("\"{s}\""))
}

fn scalar_text() -> impl Strategy<Value = String> {
    prop_oneof![
        string_text(),
        (-1000i64..1000).prop_map(|n| n.to_string()),
        Just("12345678901234567890123".to_string()),
        Just("-0.0".to_string()),
        Just("1.5e300".to_string()),
        Just("true".to_string()),
        Just("null".to_string()),
    ]
}

fn row_text() -> impl Strategy<Value = String> {
    let uniform = (
        scalar_text(),
        scalar_text(),
        scalar_text(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(a, b, c, swap, group)| {
            let inner = if group {
                format!("{{\"x\":{c},\"y\":1}}")
            } else {
                c
            };
            if swap {
                format!("{{\"b\":{b}, \"a\":{a},\"g\":{inner}}}")
            } else {
                format!("{{\"a\":{a},\"b\":{b},\"g\":{inner}}}")
            }
        });
    prop_oneof![
        8 => uniform,
        1 => scalar_text(),
        1 => (scalar_text(), scalar_text()).prop_map(|(a, b)| format!("[{a},{b}]")),
        1 => scalar_text().prop_map(|a| format!("{{\"a\":{a}}}")),
        1 => Just("{}".to_string()),
        // A guessed split point inside a nested array.
        1 => (scalar_text(), scalar_text())
            .prop_map(|(a, b)| format!("{{\"a\":[{{\"x\":{a}}}, {{\"x\":{b}}}],\"b\":1}}")),
    ]
}

fn array_text() -> impl Strategy<Value = String> {
    (
        prop_oneof![
            3 => prop::collection::vec(row_text(), 0..24),
            1 => prop::collection::vec(scalar_text(), 0..24),
        ],
        prop::sample::select(vec!["", " ", "\n  "]),
    )
        .prop_map(|(rows, ws)| format!("[{ws}{}{ws}]", rows.join(&format!(",{ws}"))))
}

/// `toon::encode_json` in windows of `window` bytes: the text, or the error's.
fn toon_windowed(json: &[u8], opts: &toolwire::toon::EncodeOptions, window: usize) -> String {
    let mut out = Vec::new();
    match encode_json_windows(json, opts, window, &mut out) {
        Ok(()) => String::from_utf8(out).unwrap(),
        Err(e) => {
            assert!(out.is_empty(), "nothing is written on error");
            format!("error: {e}")
        }
    }
}

/// `toon::encode` of the whole parsed document; an error as `toon::encode_json` of the whole
/// text gives it (the same error, placed in the text: the lone-surrogate error names the
/// string's position, which the document alone does not know).
fn toon_whole(json: &[u8], opts: &toolwire::toon::EncodeOptions) -> String {
    let encoded = parse(json, &ParseOptions::default())
        .and_then(|doc| toolwire::toon::to_string(doc.root(), opts));
    match encoded {
        Ok(text) => text,
        Err(e) => {
            let mut out = Vec::new();
            // Below the windowing threshold: the whole-document path.
            let text_error = toolwire::toon::encode_json(json, opts, &mut out).unwrap_err();
            assert_eq!(text_error.message(), e.message());
            format!("error: {text_error}")
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// Plain TOON text (no fallback: reserved tags stay, a lone surrogate is the encoder's
    /// error) with every delimiter and indent.
    #[test]
    fn toon_encode_json_equals_whole(
        json in array_text(),
        window in 1usize..300,
        indent in 1usize..4,
        cut in prop::option::of(any::<prop::sample::Index>()),
    ) {
        let mut bytes = json.into_bytes();
        if let Some(at) = cut {
            bytes.truncate(at.index(bytes.len() + 1));
        }
        for d in [Delimiter::Comma, Delimiter::Pipe, Delimiter::Tab] {
            let opts = toolwire::toon::EncodeOptions::new().delimiter(d).indent(indent);
            prop_assert_eq!(toon_windowed(&bytes, &opts, window), toon_whole(&bytes, &opts));
        }
    }

    #[test]
    fn windowed_equals_whole(json in array_text(), window in 1usize..300) {
        for format in FORMATS {
            prop_assert_eq!(windowed(json.as_bytes(), format, window), whole(json.as_bytes(), format));
        }
    }

    #[test]
    fn damaged_input_fails_the_same_way(
        json in array_text(),
        at in any::<prop::sample::Index>(),
        byte in prop::sample::select(b"[]{},:\"\\ x0-e\x01\xff".to_vec()),
        cut in any::<bool>(),
        window in 1usize..300,
    ) {
        let mut bytes = json.into_bytes();
        let i = at.index(bytes.len() + 1);
        if cut {
            bytes.truncate(i);
        } else {
            bytes.insert(i, byte);
        }
        for format in [Format::Compact, Format::Toon(Delimiter::Pipe)] {
            prop_assert_eq!(windowed(&bytes, format, window), whole(&bytes, format));
        }
    }
}

/// The tokio stream of a windowed response: the same bytes as framing the whole document;
/// malformed input and an exceeded size cap are the stream's only item.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stream_frame_of_windowed_json() {
    use futures_util::StreamExt;
    use toolwire::frame::{StreamOptions, stream_frame};

    let input = toolwire_oracles::invoices::json(5_000, toolwire_oracles::invoices::Shape::Flat);
    let toon = Format::Toon(Delimiter::Pipe);
    let doc = parse(&input, &ParseOptions::default()).unwrap();
    let whole = wire::response(Data::Doc(doc)).format(toon).build().unwrap();
    let mut expect = Vec::new();
    write_frame(
        &Id::number_or_string("1"),
        &whole,
        Protocol::default(),
        &mut expect,
    );
    fn build(bytes: &[u8]) -> toolwire::Result<ToolResponse<'_>> {
        let r = wire::response(Data::Json(bytes))
            .format(Format::Toon(Delimiter::Pipe))
            .window_bytes(64 << 10)
            .build()?;
        assert!(r.data_is_windowed());
        Ok(r)
    }
    let opts = StreamOptions {
        chunk_bytes: 4096,
        max_message_bytes: usize::MAX,
        ..StreamOptions::default()
    };
    let stream = stream_frame(
        input.clone().into(),
        Id::number_or_string("1"),
        opts.clone(),
        build,
    );
    let chunks: Vec<bytes::Bytes> = stream.map(|c| c.unwrap()).collect().await;
    assert!(chunks.len() > 10);
    assert!(
        chunks.concat() == expect,
        "streamed == framed whole document"
    );

    let capped = StreamOptions {
        max_message_bytes: expect.len() - 1,
        ..opts.clone()
    };
    let items: Vec<_> = stream_frame(
        input.clone().into(),
        Id::number_or_string("1"),
        capped,
        build,
    )
    .collect()
    .await;
    assert_eq!(items.len(), 1);
    assert_eq!(
        items[0].as_ref().unwrap_err().classify(),
        toolwire::Category::Limit
    );

    let mut broken = input.clone();
    let at = broken.len() - 1000;
    broken[at] = b'\x01';
    let expect_err = parse(&broken, &ParseOptions::default())
        .unwrap_err()
        .to_string();
    let items: Vec<_> = stream_frame(broken.into(), Id::number_or_string("1"), opts, build)
        .collect()
        .await;
    assert_eq!(items.len(), 1);
    assert_eq!(items[0].as_ref().unwrap_err().to_string(), expect_err);
}

// ---------------------------------------------------------------------------------------------
// Read once: the first reading keeps its windows for the writing while their tapes fit in the
// budget (docs/DECISIONS.md, "Read once"), and the second parses again only the rows it did
// not keep. The same bytes as the whole document and as the two-pass reading, on every window
// size and every budget.

/// The response of `json` in `format`, windowed with `window` bytes per window, keeping up to
/// `keep` bytes of window tapes.
fn windowed_keeping(
    json: &[u8],
    format: Format,
    window: usize,
    keep: usize,
) -> toolwire::Result<ToolResponse<'_>> {
    wire::response(Data::Json(json))
        .format(format)
        .llm_hint("hint")
        .window_bytes(window)
        .keep_tape(keep)
        .build()
}

/// [`windowed_keeping`] observed, and the input ranges of the kept windows' rows.
fn kept(json: &[u8], format: Format, window: usize, keep: usize) -> (String, Vec<(usize, usize)>) {
    let r = windowed_keeping(json, format, window, keep);
    let ranges = r.as_ref().map(|r| r.data_kept_ranges()).unwrap_or_default();
    (observe(r), ranges)
}

/// [`kept`], asserting whether every window was kept (the input read once).
fn read_once(json: &[u8], format: Format, window: usize, keep: usize, once: bool) -> String {
    let r = windowed_keeping(json, format, window, keep);
    if let Ok(r) = &r {
        let windowed = json.len() > window && json.trim_ascii_start().first() == Some(&b'[');
        assert_eq!(r.data_is_windowed(), windowed);
        assert_eq!(r.data_is_read_once(), windowed && once, "read once");
    }
    observe(r)
}

/// `toon::encode_json` in windows of `window` bytes keeping every window's tape.
fn toon_read_once(json: &[u8], opts: &toolwire::toon::EncodeOptions, window: usize) -> String {
    toon_kept(json, opts, window, usize::MAX)
}

/// `toon::encode_json` in windows of `window` bytes keeping up to `keep` bytes of tape.
fn toon_kept(
    json: &[u8],
    opts: &toolwire::toon::EncodeOptions,
    window: usize,
    keep: usize,
) -> String {
    let mut out = Vec::new();
    match encode_json_windows_kept(json, opts, window, keep, &mut out) {
        Ok(()) => String::from_utf8(out).unwrap(),
        Err(e) => {
            assert!(out.is_empty(), "nothing is written on error");
            format!("error: {e}")
        }
    }
}

#[test]
fn large_inputs_read_once_or_in_part_equal_the_whole_document() {
    let json = toolwire_oracles::invoices::json(20_000, toolwire_oracles::invoices::Shape::Nested);
    let doc = parse(&json, &ParseOptions::default()).unwrap();
    for format in FORMATS {
        let expect = whole(&json, format);
        // 64 KiB windows (tens of them, the second half read on another thread), all kept.
        assert_eq!(read_once(&json, format, 64 << 10, usize::MAX, true), expect);
        // A budget of a few windows: those are kept, the rest is parsed again.
        assert_eq!(read_once(&json, format, 64 << 10, 256 << 10, false), expect);
    }
    // Every budget, from none to all: the same bytes; more budget keeps more windows; a
    // budget below the tape keeps some and parses the rest again.
    let flat = toolwire_oracles::invoices::json(40_000, toolwire_oracles::invoices::Shape::Flat);
    let budgets = [0, 100 << 10, 1 << 20, 2 << 20, 4 << 20, 8 << 20, usize::MAX];
    let mut gap = false;
    for (json, format) in [
        (&json, Format::Pretty),
        (&json, Format::Toon(Delimiter::Comma)),
        (&flat, Format::Compact),
        (&flat, Format::Toon(Delimiter::Pipe)),
    ] {
        let expect = whole(json, format);
        let mut counts = Vec::new();
        for keep in budgets {
            let (text, ranges) = kept(json, format, 64 << 10, keep);
            assert_eq!(text, expect, "keep {keep}, {format:?}");
            assert!(ranges.is_sorted() && ranges.windows(2).all(|w| w[0].1 <= w[1].0));
            // Rows after the last kept window (whether the second half's reading kept some
            // of its start too, leaving a gap in the middle, depends on the threads' timing:
            // the unit tests of `json/windows/readings.rs` keep gaps on purpose).
            gap |= ranges.last().is_some_and(|r| r.1 < json.len());
            counts.push(ranges.len());
        }
        assert!(
            counts.is_sorted(),
            "{format:?}: windows kept by budget {counts:?}"
        );
        let all = counts[counts.len() - 1];
        assert!(
            counts.iter().any(|&n| n > 0 && n < all),
            "{format:?}: some budget keeps part of the windows {counts:?}"
        );
    }
    assert!(gap, "rows parsed again after the kept windows");
    let opts = toolwire::toon::EncodeOptions::new().delimiter(Delimiter::Tab);
    for keep in budgets {
        assert_eq!(
            toon_kept(&json, &opts, 64 << 10, keep),
            toon_whole(&json, &opts),
            "keep {keep}"
        );
    }
    let r = wire::response(Data::Json(&json))
        .format(Format::Toon(Delimiter::Pipe))
        .window_bytes(64 << 10)
        .keep_tape(usize::MAX)
        .build()
        .unwrap();
    assert!(r.data_is_read_once());
    let mut streamed = Vec::new();
    let mut sink = ChunkedSink::new(16 << 10, |c| {
        streamed.extend_from_slice(&c);
        true
    });
    write_frame(&Id::Number("1".into()), &r, Protocol::default(), &mut sink);
    assert!(sink.finish());
    let w = wire::response(Data::Doc(doc))
        .format(Format::Toon(Delimiter::Pipe))
        .build()
        .unwrap();
    let mut framed = Vec::new();
    write_frame(
        &Id::Number("1".into()),
        &w,
        Protocol::default(),
        &mut framed,
    );
    assert_eq!(streamed, framed);
    // A 9 MiB table (above the windowed threshold) has a tape of about 0.8x its size with
    // 8-byte nodes, within the default budget: read once, on the heap and off it. Off the
    // heap the input's size is added to the budget: with 2 MiB of budget the table is read
    // once off the heap and twice on it.
    let json = toolwire_oracles::invoices::json(75_000, toolwire_oracles::invoices::Shape::Flat);
    assert!(json.len() > 8 << 20);
    let w = wire::response(Data::Doc(parse(&json, &ParseOptions::default()).unwrap()))
        .format(Format::Toon(Delimiter::Comma))
        .build()
        .unwrap();
    for (keep, off_heap, once) in [
        (None, false, true),
        (None, true, true),
        (Some(2 << 20), false, false),
        (Some(2 << 20), true, true),
    ] {
        let b = wire::response(Data::Json(&json))
            .format(Format::Toon(Delimiter::Comma))
            .input_off_heap(off_heap);
        let r = match keep {
            Some(keep) => b.keep_tape(keep),
            None => b,
        }
        .build()
        .unwrap();
        let at = format!("budget {keep:?}, off heap: {off_heap}");
        assert_eq!(r.data_is_read_once(), once, "{at}");
        // Windows of 1 MiB: each cut into parallel chunks, the repeated first row skipped.
        assert!(r.texts() == w.texts(), "{at}");
    }
    let mut once = Vec::new();
    let opts = toolwire::toon::EncodeOptions::new();
    let off_heap = opts.clone().json_input(toolwire::toon::JsonInput::OffHeap);
    toolwire::toon::encode_json(&json, &off_heap, &mut once).unwrap();
    assert!(once == toolwire::toon::to_vec(w.data().unwrap(), &opts).unwrap());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn read_once_equals_whole(json in array_text(), window in 1usize..300, keep in 0usize..6000) {
        for format in FORMATS {
            prop_assert_eq!(
                read_once(json.as_bytes(), format, window, usize::MAX, true),
                whole(json.as_bytes(), format)
            );
            // Some windows kept, the rest parsed again.
            prop_assert_eq!(
                kept(json.as_bytes(), format, window, keep).0,
                whole(json.as_bytes(), format)
            );
        }
        let opts = toolwire::toon::EncodeOptions::new();
        prop_assert_eq!(toon_kept(json.as_bytes(), &opts, window, keep), toon_whole(json.as_bytes(), &opts));
        for indent in 1..3 {
            for d in [Delimiter::Comma, Delimiter::Pipe, Delimiter::Tab] {
                let opts = toolwire::toon::EncodeOptions::new().delimiter(d).indent(indent);
                prop_assert_eq!(toon_read_once(json.as_bytes(), &opts, window), toon_whole(json.as_bytes(), &opts));
            }
        }
    }

    #[test]
    fn damaged_input_read_once_fails_the_same_way(
        json in array_text(),
        at in any::<prop::sample::Index>(),
        byte in prop::sample::select(b"[]{},:\"\\ x0-e\x01\xff".to_vec()),
        window in 1usize..300,
    ) {
        let mut bytes = json.into_bytes();
        let i = at.index(bytes.len() + 1);
        bytes.insert(i, byte);
        for format in [Format::Compact, Format::Toon(Delimiter::Pipe)] {
            prop_assert_eq!(read_once(&bytes, format, window, usize::MAX, true), whole(&bytes, format));
        }
    }
}

#[test]
fn an_empty_root_array_is_read_once() {
    // No window to keep, nothing to parse again (the proptest `read_once_equals_whole` found
    // `[  ]` reported as read twice).
    for json in [&b"[  ]"[..], b"[]", b" [ \n ] "] {
        for format in FORMATS {
            assert_eq!(
                read_once(json, format, 1, usize::MAX, true),
                whole(json, format)
            );
        }
    }
}

#[test]
fn a_binding_reads_a_table_once_that_the_heap_budget_reads_twice() {
    use toolwire::call::ToolCall;
    use toolwire::present::Overrides;
    use toolwire::toon::JsonInput;
    // 150k flat rows of 6 fields: a tape of 15.6 MB (13 nodes a row), over the engine's
    // 11 MiB budget; a binding's room (the input's size, at most 16 MiB more) keeps it all.
    let json = toolwire_oracles::invoices::json(150_000, toolwire_oracles::invoices::Shape::Flat);
    let whole = wire::response(Data::Doc(parse(&json, &ParseOptions::default()).unwrap()))
        .format(Format::Pretty)
        .build()
        .unwrap()
        .texts();
    for format in [Format::Pretty, Format::Toon(Delimiter::Comma)] {
        let call = ToolCall::new().overrides(Overrides {
            format: Some(format),
            limit: None,
            token_budget: None,
        });
        let mut texts = Vec::new();
        for (held, once) in [
            (JsonInput::Heap, false),
            (JsonInput::Binding, true),
            (JsonInput::OffHeap, true),
        ] {
            let input = call.read_held(&json, held).unwrap();
            let reply = call.respond(&input).unwrap();
            let r = reply.response();
            assert!(r.data_is_windowed(), "{format:?} {held:?}");
            assert_eq!(r.data_is_read_once(), once, "{format:?} {held:?}");
            texts.push(r.texts());
        }
        assert!(texts.iter().all(|t| *t == texts[0]), "{format:?}");
        if format == Format::Pretty {
            assert!(texts[0] == whole);
        }
    }
}

#[test]
fn the_room_made_for_windows_holds_their_text() {
    // `block_bytes` writes windows into room guessed from the input and its tape: enough for
    // the whole text in every format, flat and nested rows, and not far more.
    use toolwire_oracles::invoices::{Shape, json};
    for shape in [Shape::Flat, Shape::Nested] {
        let json = json(4000, shape);
        for format in FORMATS {
            let r = wire::response(Data::Json(&json))
                .format(format)
                .window_bytes(64 << 10)
                .keep_tape(usize::MAX)
                .build()
                .unwrap();
            assert!(r.data_is_read_once());
            let len = r.texts()[0].len();
            let likely = r.data_likely_len();
            let at = format!("{shape:?} {format:?}: {likely} for {len}");
            assert!(likely >= len, "{at}");
            assert!(likely <= 3 * len, "{at}");
        }
    }
}
