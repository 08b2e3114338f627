//! The front door (`toolwire::call`): every interface's one way from a tool call to its
//! response bytes. These pin what the CLI, the server and the bindings rely on.

use toolwire::call::{Framing, Input, Problem, ToolCall};
use toolwire::frame::{Id, Protocol};
use toolwire::json::{ParseOptions, parse};
use toolwire::present::{Overrides, Presenter};
use toolwire::toon::Delimiter;
use toolwire::wire::Format;

const PRESENTER: &[u8] = br#"{"name": "Invoice", "select": true, "limit": 2, "format": "toon",
  "schema": {"type": "object", "properties": {"id": {"type": "string"}, "amount": {"type": "integer"}}}}"#;

const ROWS: &[u8] = br#"[{"id":"A","amount":1,"x":0},{"id":"B","amount":2},{"id":"C","amount":3}]"#;

fn texts(call: &ToolCall, input: &[u8]) -> Vec<String> {
    let prepared = call.read(input).unwrap();
    call.respond(&prepared).unwrap().response().texts()
}

#[test]
fn overrides_replace_the_presenter_files_values_without_rereading_it() {
    let p = Presenter::from_json(PRESENTER).unwrap();
    let base = ToolCall::new().presenter(&p);
    assert_eq!(
        texts(&base, ROWS)[0],
        "[2|]{id|amount}:\n  A|1\n  B|2",
        "the file's limit and format"
    );
    let call = base.clone().overrides(Overrides {
        format: Some(Format::Compact),
        limit: Some(1),
        token_budget: None,
    });
    assert_eq!(texts(&call, ROWS)[0], r#"[{"id":"A","amount":1}]"#);
    // Later overrides win, earlier ones stay where not replaced.
    let call = call.limit(3);
    assert_eq!(
        texts(&call, ROWS)[0],
        r#"[{"id":"A","amount":1},{"id":"B","amount":2},{"id":"C","amount":3}]"#
    );
    // The presenter itself is unchanged.
    assert_eq!(
        (p.limit(), p.format()),
        (Some(2), Format::Toon(Delimiter::Pipe))
    );
}

#[test]
fn auto_is_a_format_of_presenter_files_and_calls() {
    let p = Presenter::from_json(br#"{"name": "X", "format": "auto"}"#).unwrap();
    assert_eq!(p.format(), Format::Auto);
    let table =
        br#"[{"id":1,"name":"A"},{"id":2,"name":"B"},{"id":3,"name":"C"},{"id":4,"name":"D"}]"#;
    let call = ToolCall::new().presenter(&p);
    let prepared = call.read(table).unwrap();
    let reply = call.respond(&prepared).unwrap();
    assert_eq!(
        reply.response().texts()[0],
        "[4]{id,name}:\n  1,A\n  2,B\n  3,C\n  4,D"
    );
    assert_eq!(
        reply.response().meta().format,
        Format::Toon(Delimiter::Comma)
    );
}

#[test]
fn select_is_checked_ignored_or_applied_as_the_presenter_says() {
    let p = Presenter::from_json(PRESENTER).unwrap();
    // Request order, on the data block only.
    let call = ToolCall::new()
        .presenter(&p)
        .select(["amount", "id"])
        .limit(1);
    assert_eq!(texts(&call, ROWS)[0], "[1|]{amount|id}:\n  1|A");
    // An unknown name: the validation error response, the problem beside it.
    let call = ToolCall::new().presenter(&p).select(["nope"]);
    let prepared = call.read(ROWS).unwrap();
    let reply = call.respond(&prepared).unwrap();
    assert!(reply.is_error());
    assert!(matches!(reply.problem(), Some(Problem::Select(p)) if p[0].name == "_select"));
    assert!(
        reply.response().texts()[0].starts_with("<validation_error action=\"Invoice/present\">")
    );
    // The raw argument as a client sent it: a non-array is a validation error too.
    let arg = parse(br#""id""#, &ParseOptions::default()).unwrap();
    let call = ToolCall::new()
        .presenter(&p)
        .select_value(arg.root())
        .action("invoices/list");
    let prepared = call.read(ROWS).unwrap();
    let reply = call.respond(&prepared).unwrap();
    assert!(matches!(reply.problem(), Some(Problem::Select(_))));
    assert!(reply.response().texts()[0].starts_with("<validation_error action=\"invoices/list\">"));
    // A presenter that does not enable select: ignored, and the reply says so.
    let plain = Presenter::from_json(br#"{"name": "P"}"#).unwrap();
    let call = ToolCall::new().presenter(&plain).select(["id"]);
    let prepared = call.read(br#"{"id":1,"b":2}"#).unwrap();
    let reply = call.respond(&prepared).unwrap();
    assert!(reply.select_ignored());
    assert_eq!(
        reply.response().texts()[0],
        "{\n  \"id\": 1,\n  \"b\": 2\n}"
    );
}

#[test]
fn without_a_presenter_strings_are_text_and_select_picks_root_keys() {
    let call = ToolCall::new().format(Format::Compact);
    assert_eq!(texts(&call, br#""hello <x>""#), ["hello <x>"]);
    assert_eq!(texts(&call, br#""""#), ["OK"]);
    let call = call.select(["c", "a"]);
    assert_eq!(
        texts(&call, br#"{"a":1,"b":2,"c":3}"#),
        [r#"{"c":3,"a":1}"#]
    );
    // A lone surrogate cannot be a text result: the only error of `respond`.
    let call = ToolCall::new();
    let prepared = call.read(br#""\ud800""#).unwrap();
    let err = call.respond(&prepared).unwrap_err();
    assert_eq!(
        err.message(),
        "a string result cannot hold a lone surrogate"
    );
    // Read from JSON text, it names where the string starts (issue #17: it had no position).
    let prepared = call.read(b"\n  \"ok \\ud800\"").unwrap();
    let err = call.respond(&prepared).unwrap_err();
    assert_eq!(
        err.to_string(),
        "2:3: a string result cannot hold a lone surrogate"
    );
    // A limit without a presenter: truncation and its notice.
    let call = ToolCall::new().limit(1).format(Format::Compact);
    assert_eq!(
        texts(&call, b"[1,2,3]"),
        [
            "[1]",
            "<ui_passthrough type=\"summary\">\n📊 **Summary**: ⚠️ Dataset truncated. 1 shown, 2 hidden. Use filters to narrow results.\n</ui_passthrough>"
        ]
    );
}

#[test]
fn a_plain_root_array_is_read_as_json_text_and_equals_the_document() {
    let call = ToolCall::new().format(Format::Toon(Delimiter::Comma));
    let prepared = call.read(ROWS).unwrap();
    assert!(prepared.root().is_none(), "kept as JSON text");
    let doc = parse(ROWS, &ParseOptions::default()).unwrap();
    let whole = Input::value(doc.root());
    assert_eq!(
        call.respond(&prepared).unwrap().response().texts(),
        call.respond(&whole).unwrap().response().texts()
    );
    // Anything that needs the document up front is parsed.
    for call in [
        ToolCall::new().format(Format::Auto),
        ToolCall::new().limit(2),
        ToolCall::new().token_budget(100),
        ToolCall::new().select(["id"]),
    ] {
        assert!(call.read(ROWS).unwrap().root().is_some());
    }
    // Malformed input is an error, positioned: of `respond` for JSON text kept as it is
    // (validated before the first byte), of `read` for what it parses.
    let call = ToolCall::new();
    let prepared = call.read(b"[1,2,]").unwrap();
    let err = call.respond(&prepared).unwrap_err();
    assert_eq!(err.to_string(), "1:6: expected a value, found ']'");
    let err = ToolCall::new().limit(1).read(b"[1,2,]").unwrap_err();
    assert_eq!(err.to_string(), "1:6: expected a value, found ']'");
}

#[test]
fn replies_write_as_result_frame_or_blocks_in_chunks() {
    let p = Presenter::from_json(PRESENTER).unwrap();
    let call = ToolCall::new().presenter(&p);
    let prepared = call.read(ROWS).unwrap();
    let reply = call.respond(&prepared).unwrap();
    let shapes = [
        Framing::result(),
        Framing::Frame {
            id: Id::number_or_string("7"),
            protocol: Protocol::Since20260728,
        },
        Framing::Blocks,
    ];
    for shape in &shapes {
        let mut direct = Vec::new();
        reply.write(shape, &mut direct);
        let mut io = Vec::new();
        reply.write_io(shape, &mut io).unwrap();
        assert_eq!(direct, io);
    }
    let mut line = Vec::new();
    reply.write(&shapes[1], &mut line);
    let v: serde_json::Value = serde_json::from_slice(&line).unwrap();
    assert_eq!(v["id"], 7);
    assert_eq!(v["result"]["resultType"], "complete");
    let mut blocks = Vec::new();
    reply.write(&Framing::Blocks, &mut blocks);
    assert!(blocks.ends_with(b"\n-----\n"));
}

/// An `io::Write` that fails after `ok` bytes.
struct FailAfter {
    ok: usize,
    seen: usize,
}

impl std::io::Write for FailAfter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.seen + buf.len() > self.ok {
            return Err(std::io::Error::new(std::io::ErrorKind::BrokenPipe, "gone"));
        }
        self.seen += buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_failing_writer_stops_the_encoding_with_its_error() {
    let rows: Vec<String> = (0..50_000)
        .map(|i| format!(r#"{{"id":"R{i}","amount":{i}}}"#))
        .collect();
    let json = format!("[{}]", rows.join(","));
    let call = ToolCall::new().format(Format::Pretty);
    let prepared = call.read(json.as_bytes()).unwrap();
    let reply = call.respond(&prepared).unwrap();
    let err = reply
        .write_io(
            &Framing::result(),
            FailAfter {
                ok: 300_000,
                seen: 0,
            },
        )
        .unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::BrokenPipe);
}

#[tokio::test]
async fn write_async_equals_write() {
    let p = Presenter::from_json(PRESENTER).unwrap();
    let bytes: &'static [u8] = ROWS;
    let call = ToolCall::new().presenter(&p).limit(3);
    let doc: &'static toolwire::Doc<'static> =
        Box::leak(Box::new(parse(bytes, &ParseOptions::default()).unwrap()));
    let input: &'static Input<'static> = Box::leak(Box::new(Input::value(doc.root())));
    let reply = call.respond(input).unwrap();
    let mut want = Vec::new();
    reply.write(&Framing::result(), &mut want);
    let mut got = Vec::new();
    reply
        .write_async(Framing::result(), &mut got)
        .await
        .unwrap();
    assert_eq!(got, want);
}

/// "No value" (a Node handler's `undefined`, Python's `None`) is `OK`, with or without a
/// presenter (WIRE.md §1.3).
#[test]
fn nothing_is_ok_with_or_without_presenter() {
    use toolwire::call::{Input, ToolCall};
    use toolwire::present::Presenter;
    let p = Presenter::from_json(br#"{"name": "P", "rules": ["r"]}"#).unwrap();
    for call in [ToolCall::new(), ToolCall::new().presenter(&p)] {
        let input = Input::nothing();
        let reply = call.respond(&input).unwrap();
        assert_eq!(reply.response().texts(), ["OK"]);
        assert_eq!(reply.response().is_error(), None);
        assert!(reply.problem().is_none());
    }
}

#[test]
fn a_plain_format_is_named_only_when_the_response_is_the_data_block_alone() {
    let rows: &[u8] = br#"[{"id":"A","n":1.5},{"id":"<ui_passthrough>","n":2}]"#;
    let p = Presenter::from_json(PRESENTER).unwrap();
    let plain = [
        (ToolCall::new(), Format::Pretty),
        (ToolCall::new().format(Format::Compact), Format::Compact),
        (
            ToolCall::new().format(Format::Toon(Delimiter::Tab)),
            Format::Toon(Delimiter::Tab),
        ),
    ];
    for (call, format) in plain {
        assert_eq!(call.plain_format(), Some(format));
        // What the binding would write: the one block is the value in that format.
        let doc = parse(ROWS, &ParseOptions::default()).unwrap();
        let want = toolwire::wire::response(toolwire::wire::Data::Value(doc.root()))
            .format(format)
            .build()
            .unwrap()
            .texts();
        assert_eq!(texts(&call, ROWS), want);
        assert_eq!(want.len(), 1);
        assert_eq!(texts(&call, rows).len(), 1);
    }
    let not_plain = [
        ToolCall::new().presenter(&p),
        ToolCall::new().select(["id"]),
        ToolCall::new().limit(1),
        ToolCall::new().token_budget(100),
        ToolCall::new().structured(true),
        ToolCall::new().paging(|offset, _| format!("next {offset}")),
        ToolCall::new().format(Format::Auto),
    ];
    for call in not_plain {
        assert_eq!(call.plain_format(), None, "{call:?}");
    }
}
