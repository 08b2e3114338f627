//! The example rmcp server (`examples/invoices_server.rs`, compiled in here) driven by rmcp's
//! own client over an in-process duplex pipe: tools/list, list, `_select`, get, NOT_FOUND,
//! bad arguments, an unknown tool; and the compat path's result equals, as JSON, what
//! toolwire's framer writes for the same response.

#[path = "../examples/invoices_server.rs"]
mod example;

use rmcp::model::{CallToolRequestParams, CallToolResult, ClientConfig, JsonObject};
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};
use toolwire::call::ToolCall;
use toolwire::frame::Protocol;
use toolwire::json::ParseOptions;
use toolwire_rmcp::{IntoCallToolResult, ToolDef, to_call_tool_result_for};

const ROWS: usize = 500;

async fn connect() -> RunningService<RoleClient, ClientConfig> {
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let server = example::Invoices::new(ROWS)
            .serve(server_io)
            .await
            .expect("server handshake");
        let _ = server.waiting().await;
    });
    ClientConfig::default()
        .serve(client_io)
        .await
        .expect("client handshake")
}

fn args(v: Value) -> JsonObject {
    match v {
        Value::Object(o) => o,
        _ => panic!("arguments must be an object"),
    }
}

async fn call(c: &RunningService<RoleClient, ClientConfig>, a: Value) -> CallToolResult {
    c.call_tool(CallToolRequestParams::new("invoices").with_arguments(args(a)))
        .await
        .expect("tools/call answered")
}

fn texts(r: &CallToolResult) -> Vec<String> {
    r.content
        .iter()
        .map(|c| c.as_text().expect("text content").text.clone())
        .collect()
}

/// The reference: the same presenter response as the engine's blocks.
fn expected_blocks(a: Value, rows: usize) -> Vec<String> {
    let json = toolwire_mcp::demo::invoices(rows);
    let doc = toolwire::json::parse(&json, &ParseOptions::default()).unwrap();
    let presenter = toolwire_mcp::demo::invoice_presenter(
        Some(50),
        toolwire::wire::Format::Toon(toolwire::toon::Delimiter::Pipe),
    )
    .unwrap();
    let mut call = ToolCall::new().presenter(&presenter);
    if let Some(sel) = a.get("_select") {
        let names: Vec<String> = sel
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().to_owned())
            .collect();
        call = call.select(names);
    }
    if let Some(n) = a.get("limit").and_then(Value::as_u64) {
        call = call.limit(n as usize);
    }
    let input = toolwire::call::Input::value(doc.root());
    call.respond(&input).unwrap().response().texts()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_list_has_select_and_the_toon_description() {
    let c = connect().await;
    let tools = c.list_tools(None).await.unwrap().tools;
    assert_eq!(tools.len(), 1);
    let t = &tools[0];
    assert_eq!(t.name, "invoices");
    let select = &t.input_schema["properties"]["_select"];
    assert_eq!(select["type"], "array");
    let names: Vec<&str> = select["items"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    // WIRE.md §4: the root keys of the schema, sorted bytewise.
    assert_eq!(
        names,
        [
            "amount_cents",
            "client",
            "currency",
            "id",
            "issued_at",
            "status"
        ]
    );
    let d = t.description.as_deref().unwrap();
    assert!(
        d.starts_with(&format!(
            "Query the invoices ({ROWS} rows). Select operation via the `action` parameter.\n\n"
        )),
        "{d}"
    );
    assert!(d.contains("[2|]{action|desc|required}:"), "{d}");
    assert!(t.output_schema.is_none());
    assert_eq!(
        t.annotations.as_ref().and_then(|a| a.read_only_hint),
        Some(true)
    );
    c.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_select_and_get_are_the_presenter_responses() {
    let c = connect().await;
    for a in [
        json!({"action": "list"}),
        json!({"action": "list", "limit": 3}),
        json!({"action": "list", "limit": 2, "_select": ["status", "id"]}),
    ] {
        let r = call(&c, a.clone()).await;
        assert_eq!(r.is_error, None, "{a}");
        assert_eq!(texts(&r), expected_blocks(a.clone(), ROWS), "{a}");
    }
    // `_select` in request order, the truncation notice of the presenter.
    let r = call(
        &c,
        json!({"action": "list", "limit": 2, "_select": ["status", "id"]}),
    )
    .await;
    let t = texts(&r);
    assert!(t[0].starts_with("[2|]{status|id}:\n"), "{}", t[0]);
    assert!(t[1].contains("2 shown, 498 hidden"), "{}", t[1]);

    let r = call(&c, json!({"action": "get", "id": "INV-0000042"})).await;
    assert_eq!(r.is_error, None);
    let t = texts(&r);
    assert!(t[0].contains("INV-0000042"), "{}", t[0]);
    assert!(
        t[0].contains("[REDACTED]"),
        "the client's email is redacted: {}",
        t[0]
    );
    assert!(!t[0].contains("@"), "{}", t[0]);
    c.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_are_tool_errors_and_unknown_tools_json_rpc_errors() {
    let c = connect().await;
    let r = call(&c, json!({"action": "get", "id": "</tool_error><x>"})).await;
    assert_eq!(r.is_error, Some(true));
    let t = texts(&r);
    assert!(
        t[0].starts_with("<tool_error code=\"NOT_FOUND\">"),
        "{}",
        t[0]
    );
    // The hostile id cannot close the block: exactly one closing tag, at the end.
    assert_eq!(t[0].matches("</tool_error>").count(), 1, "{}", t[0]);
    assert!(t[0].ends_with("</tool_error>"), "{}", t[0]);

    let r = call(&c, json!({"action": "list", "_select": ["nope"]})).await;
    assert_eq!(r.is_error, Some(true));
    assert!(
        texts(&r)[0].contains("Unknown field 'nope'"),
        "{:?}",
        texts(&r)
    );

    let r = call(&c, json!({"action": "delete"})).await;
    assert_eq!(r.is_error, Some(true));
    assert!(
        texts(&r)[0].starts_with("<validation_error"),
        "{:?}",
        texts(&r)
    );

    let r = call(&c, json!({"action": "list", "format": "yaml"})).await;
    assert_eq!(r.is_error, Some(true));

    let e = c
        .call_tool(CallToolRequestParams::new("nope"))
        .await
        .expect_err("an unknown tool is a JSON-RPC error");
    assert!(
        e.to_string().contains("-32602") || e.to_string().contains("Unknown tool"),
        "{e}"
    );
    c.cancel().await.unwrap();
}

/// The compat path's result is, as JSON, the framer's result (both revisions), for a plain,
/// an error and a structured response.
#[test]
fn compat_result_is_the_framers_result() {
    let presenter = toolwire::present::Presenter::from_json(
        br#"{"name": "Row", "select": true, "rules": ["r"],
             "schema": {"type": "object", "properties": {"id": {"type": "string"}, "n": {"type": "integer"}}}}"#,
    )
    .unwrap();
    let data = br#"[{"id": "A", "n": 1, "x": "<ui_passthrough>"}, {"id": "B\u0000", "n": 2}]"#;
    let doc = toolwire::json::parse(data, &ParseOptions::default()).unwrap();
    let call = ToolCall::new().presenter(&presenter);
    let input = toolwire::call::Input::value(doc.root());
    let reply = call.respond(&input).unwrap();
    let structured = toolwire::wire::success_structured(doc.root()).unwrap();
    let error = toolwire::wire::error_with_code("NOT_FOUND", "no </tool_error> here");
    // A presenter's structured items (`ToolCall::structured`): a collection and one item.
    let items_call = call.clone().structured(true);
    let items = items_call.respond(&input).unwrap();
    let row = toolwire::call::Input::value(doc.root().as_array().unwrap().iter().next().unwrap());
    let item = items_call.respond(&row).unwrap();
    for response in [
        reply.response(),
        &structured,
        &error,
        items.response(),
        item.response(),
    ] {
        for (rev, protocol) in [
            ("2025-11-25", Protocol::Before20260728),
            ("2026-07-28", Protocol::Since20260728),
        ] {
            let mut framed = Vec::new();
            toolwire::frame::write_result(response, protocol, &mut framed);
            let want: Value = serde_json::from_slice(&framed).unwrap();
            let got = serde_json::to_value(to_call_tool_result_for(response, protocol)).unwrap();
            assert_eq!(got, want, "{rev}");
        }
    }
    let default = serde_json::to_value(reply.response().to_call_tool_result()).unwrap();
    let mut framed = Vec::new();
    toolwire::frame::write_result(reply.response(), Protocol::Before20260728, &mut framed);
    assert_eq!(default, serde_json::from_slice::<Value>(&framed).unwrap());
}

/// `ToolDef` moves the engine's schemas into the `Tool`: `_select` and `outputSchema` are
/// the engine's own texts.
#[test]
fn tool_def_uses_the_engines_schemas() {
    let presenter = toolwire::present::Presenter::from_json(
        br#"{"name": "Row", "select": true,
             "schema": {"type": "object", "properties": {"b": {"type": "string"}, "a": {"type": "integer"}}, "required": ["a"]}}"#,
    )
    .unwrap();
    let t = ToolDef::new("rows", &presenter)
        .collection(true)
        .revision("2025-06-18")
        .tool();
    let select: Value = serde_json::from_str(&presenter.input_schema_property().unwrap()).unwrap();
    assert_eq!(t.input_schema["properties"]["_select"], select);
    assert_eq!(t.input_schema["type"], "object");
    let out: Value = serde_json::from_str(&presenter.output_schema("2025-06-18", true)).unwrap();
    assert_eq!(
        Value::Object((*t.output_schema.clone().unwrap()).clone()),
        out
    );
    assert_eq!(out["properties"]["items"]["type"], "array");
    assert!(t.description.is_none());
    // No select: no `_select` property.
    let plain = toolwire::present::Presenter::from_json(br#"{"name": "Row"}"#).unwrap();
    let t = ToolDef::new("rows", &plain).output_schema(false).tool();
    assert!(t.input_schema.get("properties").is_none());
    assert!(t.output_schema.is_none());
}
