//! WIRE.md §11: streamed framing equals the unframed build for 0, 1 and many chunks; the size
//! cap is checked before the first byte and never truncates; dropping the stream stops the work.

use futures_util::StreamExt;
use proptest::prelude::*;
use toolwire::Sink;
use toolwire::frame::{
    self, Id, Protocol, StreamOptions, check_size, frame_capped, framed_len_bound, stream_frame,
};
use toolwire::json::{ParseOptions, parse};
use toolwire::sink::{ChunkedSink, CountingSink};
use toolwire::toon::Delimiter;
use toolwire::wire::{self, Data, Format, ui};
use toolwire_oracles::values::Values;
use toolwire_tests::doc_from_serde;

fn rows_json(n: usize) -> Vec<u8> {
    let rows: Vec<serde_json::Value> = (0..n)
        .map(|i| serde_json::json!({"id": i, "name": format!("row \"{i}\"\n"), "ok": i % 3 == 0, "x": 1.5}))
        .collect();
    serde_json::to_vec(&rows).unwrap()
}

fn framed(bytes: &[u8], format: Format) -> Vec<u8> {
    let doc = parse(bytes, &ParseOptions::default()).unwrap();
    let r = wire::response(doc.root())
        .format(format)
        .ui_block(ui::summary("s"))
        .build()
        .unwrap();
    let mut out = Vec::new();
    frame::write_frame(
        &Id::number_or_string("1"),
        &r,
        Protocol::default(),
        &mut out,
    );
    out
}

#[test]
fn chunked_sink_output_equals_frame_for_any_chunking() {
    for n in [0, 1, 40, 3000] {
        let input = rows_json(n);
        for format in [Format::Pretty, Format::Toon(Delimiter::Comma)] {
            let whole = framed(&input, format);
            let doc = parse(&input, &ParseOptions::default()).unwrap();
            let r = wire::response(doc.root())
                .format(format)
                .ui_block(ui::summary("s"))
                .build()
                .unwrap();
            let mut chunks = Vec::new();
            let mut sink = ChunkedSink::new(1024, |c| {
                chunks.push(c);
                true
            });
            frame::write_frame(
                &Id::number_or_string("1"),
                &r,
                Protocol::default(),
                &mut sink,
            );
            assert!(sink.finish());
            assert_eq!(chunks.concat(), whole);
            let expected_chunks = whole.len().div_ceil(1024);
            assert!(
                chunks.len() >= expected_chunks.min(1) && chunks.len() <= whole.len() / 1024 + 1,
                "{}",
                chunks.len()
            );
            assert!(chunks.iter().all(|c| !c.is_empty()));
        }
    }
}

#[test]
fn a_cancelled_consumer_stops_the_encoder() {
    let input = rows_json(200_000);
    let doc = parse(&input, &ParseOptions::default()).unwrap();
    for format in [Format::Pretty, Format::Toon(Delimiter::Pipe)] {
        let r = wire::response(doc.root()).format(format).build().unwrap();
        let mut full = CountingSink::new();
        frame::write_frame(
            &Id::number_or_string("1"),
            &r,
            Protocol::default(),
            &mut full,
        );
        let mut offered = 0;
        let mut sink = ChunkedSink::new(64 << 10, |c| {
            offered += c.len();
            false // the reader is gone after the first chunk
        });
        frame::write_frame(
            &Id::number_or_string("1"),
            &r,
            Protocol::default(),
            &mut sink,
        );
        let written = sink.written();
        assert!(!sink.finish());
        // One chunk: at least 64 KiB, at most one parallel batch of rows more.
        assert!(
            offered < 512 << 10,
            "only the first chunk was handed out: {offered}"
        );
        assert!(
            written < full.written() / 4,
            "{format:?}: encoder went on: {written} of {}",
            full.written()
        );
    }
}

#[test]
fn size_cap_is_exact_and_never_truncates() {
    let input = rows_json(500);
    let doc = parse(&input, &ParseOptions::default()).unwrap();
    let r = wire::response(doc.root()).build().unwrap();
    let id = Id::number_or_string("9");
    let mut whole = Vec::new();
    frame::write_frame(&id, &r, Protocol::default(), &mut whole);
    let exact = whole.len();
    let bound = framed_len_bound(&id, &r);
    assert!(bound >= exact);
    // Under the bound: the exact size is computed and decides.
    assert_eq!(
        check_size(&id, &r, Protocol::default(), exact).unwrap(),
        Some(exact)
    );
    let mut out = Vec::new();
    let e = frame_capped(&id, &r, Protocol::default(), exact - 1, &mut out).unwrap_err();
    assert_eq!(e.classify(), toolwire::Category::Limit);
    assert_eq!(
        e.message(),
        format!(
            "the framed response is {exact} bytes, over the cap of {} bytes",
            exact - 1
        )
    );
    assert!(out.is_empty(), "nothing written when over the cap");
    // A cap above the bound needs no counting pass.
    assert_eq!(
        check_size(&id, &r, Protocol::default(), bound).unwrap(),
        None
    );
    frame_capped(&id, &r, Protocol::default(), exact, &mut out).unwrap();
    assert_eq!(out, whole);
}

proptest! {
    /// The cheap bound is an upper bound of the exact framed size, in every format.
    #[test]
    fn bound_is_an_upper_bound(v in Values::new().value(), id in "[a-z0-9\"]{0,5}") {
        let doc = doc_from_serde(&v);
        let id = Id::number_or_string(&id);
        for format in [Format::Pretty, Format::Compact, Format::Toon(Delimiter::Comma), Format::Toon(Delimiter::Tab), Format::Toon(Delimiter::Pipe)] {
            let r = wire::response(doc.root()).format(format).llm_hint("h\n\"x\"").build().unwrap();
            let mut exact = CountingSink::new();
            frame::write_frame(&id, &r, Protocol::Since20260728, &mut exact);
            prop_assert!(framed_len_bound(&id, &r) >= exact.written());
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stream_equals_frame_and_errors_come_first() {
    for n in [0, 1, 20_000] {
        let input = rows_json(n);
        let whole = framed(&input, Format::Toon(Delimiter::Pipe));
        let opts = StreamOptions {
            chunk_bytes: 4096,
            ..StreamOptions::default()
        };
        let stream = stream_frame(
            bytes::Bytes::from(input),
            Id::number_or_string("1"),
            opts,
            |bytes| {
                let doc = parse(bytes, &ParseOptions::default())?;
                wire::response(Data::Doc(doc))
                    .format(Format::Toon(Delimiter::Pipe))
                    .ui_block(ui::summary("s"))
                    .build()
            },
        );
        let chunks: Vec<bytes::Bytes> = stream.map(|c| c.unwrap()).collect().await;
        assert_eq!(chunks.concat(), whole);
        if n == 20_000 {
            assert!(chunks.len() > 10, "{} chunks", chunks.len());
        }
    }
    // Malformed input: the only item is the positioned error.
    let stream = stream_frame(
        bytes::Bytes::from_static(b"[1,"),
        Id::number_or_string("1"),
        StreamOptions::default(),
        |bytes| {
            let doc = parse(bytes, &ParseOptions::default())?;
            wire::response(Data::Doc(doc)).build()
        },
    );
    let items: Vec<_> = stream.collect().await;
    assert_eq!(items.len(), 1);
    assert_eq!(
        items[0].as_ref().unwrap_err().to_string(),
        "1:4: unexpected end of input, expected a value"
    );
    // Over the cap: the only item is the error, no partial message.
    let input = rows_json(2000);
    let opts = StreamOptions {
        max_message_bytes: 10_000,
        ..StreamOptions::default()
    };
    let stream = stream_frame(
        bytes::Bytes::from(input),
        Id::number_or_string("1"),
        opts,
        |bytes| {
            let doc = parse(bytes, &ParseOptions::default())?;
            wire::response(Data::Doc(doc)).build()
        },
    );
    let items: Vec<_> = stream.collect().await;
    assert_eq!(items.len(), 1);
    assert_eq!(
        items[0].as_ref().unwrap_err().classify(),
        toolwire::Category::Limit
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_the_stream_ends_the_producer() {
    let input = rows_json(100_000);
    let (tx, rx) = std::sync::mpsc::channel();
    let opts = StreamOptions {
        chunk_bytes: 1024,
        chunks_ahead: 1,
        ..StreamOptions::default()
    };
    let mut stream = stream_frame(
        bytes::Bytes::from(input),
        Id::number_or_string("1"),
        opts,
        move |bytes| {
            let doc = parse(bytes, &ParseOptions::default())?;
            let r = wire::response(Data::Doc(doc)).build();
            tx.send(()).unwrap();
            r
        },
    );
    let first = stream.next().await.unwrap().unwrap();
    assert!(!first.is_empty());
    drop(stream);
    rx.recv().unwrap();
    // The blocking task sees the closed channel at its next chunk and stops; the runtime's
    // shutdown at the end of this test would hang on a producer that never finished.
}

/// Found by the `frame` fuzz target: `structuredContent` repeats the data, and the bound
/// once counted it only once.
#[test]
fn bound_covers_structured_content() {
    let digits = format!("[{}]", "3".repeat(300));
    let doc = parse(digits.as_bytes(), &ParseOptions::default()).unwrap();
    let r = wire::success_structured(doc.root()).unwrap();
    let id = Id::number_or_string("1");
    let mut line = Vec::new();
    frame::write_frame(&id, &r, Protocol::default(), &mut line);
    assert!(
        framed_len_bound(&id, &r) >= line.len(),
        "{} < {}",
        framed_len_bound(&id, &r),
        line.len()
    );
}
