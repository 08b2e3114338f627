//! An rmcp server (the official Rust MCP SDK) whose one tool answers through a toolwire
//! presenter: `toolwire demo`'s invoices and Invoice presenter, over stdio.
//!
//! ```text
//! cargo run -p toolwire-rmcp --example invoices_server -- [ROWS]
//! ```
//!
//! The tool `invoices` has the actions `list` (`limit`, `format`, `_select`: the first rows,
//! truncated by the presenter with its notice) and `get` (`id`). Its `Tool` (input schema with
//! `_select`, output schema, TOON description) comes from [`toolwire_rmcp::ToolDef`]; every
//! result is a presenter response converted by [`toolwire_rmcp::to_call_tool_result_for`]
//! (the compat path: rmcp serialises it with serde_json).

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, JsonObject, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Value, json};
use toolwire::call::{Input, ToolCall};
use toolwire::frame::Protocol;
use toolwire::json::ParseOptions;
use toolwire::present::{ActionDescription, Presenter};
use toolwire::wire::{self, FieldProblem, Format};
use toolwire::{Doc, toon::Delimiter};
use toolwire_rmcp::{ToolDef, to_call_tool_result_for};

/// The server: the parsed collection, its presenter and its tool.
#[derive(Clone)]
pub struct Invoices {
    doc: Arc<Doc<'static>>,
    presenter: Presenter,
    tool: Tool,
}

impl Invoices {
    /// `rows` invoices of `toolwire demo`'s generator.
    pub fn new(rows: usize) -> Invoices {
        // The collection lives as long as the server: leaked once, parsed once.
        let json: &'static [u8] = Box::leak(toolwire_mcp::demo::invoices(rows).into_boxed_slice());
        let doc = toolwire::json::parse(json, &ParseOptions::default())
            .expect("the generator writes valid JSON");
        let presenter =
            toolwire_mcp::demo::invoice_presenter(Some(50), Format::Toon(Delimiter::Pipe))
                .expect("the built-in presenter is valid");
        let input_schema = json!({
            "type": "object",
            "properties": {
                "action": {"type": "string", "enum": ["list", "get"]},
                "limit": {"type": "integer", "minimum": 0, "description": "list: at most this many rows (at most 50)"},
                "format": {"type": "string", "enum": Format::NAMES},
                "id": {"type": "string", "description": "get: the invoice id"}
            },
            "required": ["action"]
        });
        let Value::Object(input_schema) = input_schema else {
            unreachable!("an object literal")
        };
        let tool = ToolDef::new("invoices", &presenter)
            .description(format!("Query the invoices ({rows} rows)"))
            .actions(
                "action",
                [
                    ActionDescription {
                        name: "list".into(),
                        description: "The first invoices, truncated by the presenter".into(),
                        ..ActionDescription::default()
                    },
                    ActionDescription {
                        name: "get".into(),
                        description: "One invoice by id".into(),
                        required: vec!["id".into()],
                        destructive: false,
                    },
                ],
            )
            .input_schema(input_schema)
            .collection(true)
            // The responses carry no structuredContent: declaring an output schema would make
            // clients validate a result that has none.
            .output_schema(false)
            .read_only(true)
            .tool();
        Invoices {
            doc: Arc::new(doc),
            presenter,
            tool,
        }
    }

    /// One call of the tool, as a toolwire response converted for rmcp.
    pub fn call(&self, args: &JsonObject, protocol: Protocol) -> rmcp::model::CallToolResult {
        let invalid = |name: &str, what: &str, sent: &Value| {
            let detail = format!(
                "{what} You sent: {}.",
                wire::you_sent_string(&sent.to_string())
            );
            let problem = FieldProblem {
                name: name.into(),
                detail,
            };
            to_call_tool_result_for(&wire::validation_error("invoices", &[problem]), protocol)
        };
        let mut call = ToolCall::new().presenter(&self.presenter);
        if let Some(sel) = args.get("_select") {
            // The agent's `_select` as sent: the engine checks it (WIRE.md §4).
            let text = sel.to_string();
            match toolwire::json::parse(text.as_bytes(), &ParseOptions::default()) {
                Ok(d) => call = call.select_value(d.root()),
                Err(_) => return invalid("_select", "Not JSON.", sel),
            }
        }
        if let Some(f) = args.get("format") {
            match f.as_str().and_then(|s| s.parse::<Format>().ok()) {
                Some(f) => call = call.format(f),
                None => return invalid("format", "Unknown format.", f),
            }
        }
        let root = self.doc.root();
        let input = match args.get("action").and_then(Value::as_str) {
            Some("list") => {
                if let Some(l) = args.get("limit") {
                    match l.as_u64() {
                        Some(n) => call = call.limit(usize::try_from(n).unwrap_or(usize::MAX)),
                        None => return invalid("limit", "Expected an integer >= 0.", l),
                    }
                }
                Input::value(root)
            }
            Some("get") => {
                let Some(id) = args.get("id").and_then(Value::as_str) else {
                    let sent = args.get("id").cloned().unwrap_or(Value::Null);
                    return invalid("id", "Expected a string.", &sent);
                };
                let row = root.as_array().and_then(|rows| {
                    rows.iter().find(|r| {
                        r.as_object()
                            .and_then(|o| o.get(b"id"))
                            .and_then(|v| v.as_str())
                            .is_some_and(|s| s.as_bytes() == id.as_bytes())
                    })
                });
                match row {
                    Some(row) => Input::value(row),
                    None => {
                        let msg = format!(
                            "No invoice with id {}. List them with action 'list'.",
                            wire::you_sent_string(id)
                        );
                        return to_call_tool_result_for(
                            &wire::error_with_code("NOT_FOUND", &msg),
                            protocol,
                        );
                    }
                }
            }
            _ => {
                let sent = args.get("action").cloned().unwrap_or(Value::Null);
                return invalid("action", "Expected 'list' or 'get'.", &sent);
            }
        };
        match call.respond(&input) {
            Ok(reply) => to_call_tool_result_for(reply.response(), protocol),
            Err(e) => to_call_tool_result_for(
                &wire::error_with_code("INTERNAL_ERROR", &e.to_string()),
                protocol,
            ),
        }
    }
}

impl ServerHandler for Invoices {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build()).with_server_info(
            Implementation::new("toolwire-rmcp-example", env!("CARGO_PKG_VERSION")),
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(vec![self.tool.clone()]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        if request.name != self.tool.name {
            return Err(McpError::invalid_params(
                format!("Unknown tool: {}", wire::you_sent_string(&request.name)),
                None,
            ));
        }
        let protocol = context
            .peer
            .peer_info()
            .map(|p| Protocol::from_revision(p.protocol_version.as_str()))
            .unwrap_or_default();
        let args = request.arguments.unwrap_or_default();
        let this = self.clone();
        // Presenting is CPU work: off the runtime's worker threads.
        tokio::task::spawn_blocking(move || this.call(&args, protocol).into())
            .await
            .map_err(|e| McpError::internal_error(e.to_string(), None))
    }
}

#[allow(dead_code)]
#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rows = match std::env::args().nth(1) {
        Some(n) => n.parse()?,
        None => 100_000,
    };
    let server = Invoices::new(rows).serve(rmcp::transport::stdio()).await?;
    server.waiting().await?;
    Ok(())
}
