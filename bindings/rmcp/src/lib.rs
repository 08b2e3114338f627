//! # toolwire-rmcp
//!
//! toolwire for MCP servers built on [`rmcp`], the official Rust SDK (SERVE.md §5):
//!
//! * [`to_call_tool_result`] (and the [`IntoCallToolResult`] extension): a toolwire
//!   [`ToolResponse`] as rmcp's [`CallToolResult`], the **compat path**. rmcp serialises every
//!   result through `serde_json`, so each block is materialised as a `String` and
//!   `structuredContent` as a `serde_json::Value`: correct, but it gives up toolwire's
//!   streaming framer. Servers that answer huge collections should serve them with
//!   `toolwire serve` (or write [`toolwire::frame::write_frame`] straight into their transport),
//!   which writes the same bytes chunk by chunk.
//! * [`ToolDef`]: a [`Presenter`] as rmcp's [`Tool`]: the handler's input schema plus the
//!   presenter's `_select` property (WIRE.md §4), the presenter's `outputSchema` (WIRE.md §7)
//!   and a description (the TOON description of WIRE.md §6 for a grouped tool). Every schema
//!   is the engine's own ([`Presenter::input_schema_property`], [`Presenter::output_schema`],
//!   [`toon_description`]); this crate only moves them into rmcp's types.
//!
//! The example `examples/invoices_server.rs` is an rmcp server whose tool answers through a
//! presenter; the tests drive it with rmcp's own client.
//!
//! ```
//! use toolwire::call::ToolCall;
//! use toolwire::present::Presenter;
//! use toolwire_rmcp::{IntoCallToolResult, ToolDef};
//!
//! let presenter = Presenter::from_json(
//!     br#"{"name": "Invoice", "select": true,
//!          "schema": {"type": "object", "properties": {"id": {"type": "string"}}}}"#,
//! )?;
//! let tool = ToolDef::new("invoices", &presenter).collection(true).description("Invoices").tool();
//! assert_eq!(tool.name, "invoices");
//! assert!(tool.input_schema["properties"].get("_select").is_some());
//!
//! let call = ToolCall::new().presenter(&presenter);
//! let input = call.read(br#"[{"id": "A", "x": 1}]"#)?;
//! let result = call.respond(&input)?.response().to_call_tool_result();
//! let text = result.content[0].as_text().map(|t| t.text.as_str());
//! assert_eq!(text, Some("[\n  {\n    \"id\": \"A\"\n  }\n]"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]

use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock, JsonObject, ResultType, Tool, ToolAnnotations};
use serde_json::Value;
use toolwire::ValueRef;
use toolwire::frame::Protocol;
use toolwire::present::{ActionDescription, Presenter, toon_description};
use toolwire::wire::{Structured, ToolResponse};

pub use rmcp;

/// The protocol revision whose result shapes [`to_call_tool_result`] and [`ToolDef`] follow
/// unless told otherwise: the newest `initialize` revision rmcp's clients negotiate.
pub const DEFAULT_REVISION: &str = "2025-11-25";

/// `response` as rmcp's [`CallToolResult`] for a client at revision [`DEFAULT_REVISION`].
/// See [`to_call_tool_result_for`].
pub fn to_call_tool_result(response: &ToolResponse<'_>) -> CallToolResult {
    to_call_tool_result_for(response, Protocol::from_revision(DEFAULT_REVISION))
}

/// `response` as rmcp's [`CallToolResult`] (the compat path): one text content block per
/// toolwire block, in order (the data block first, then `<ui_passthrough>`,
/// `<llm_directives>`, … exactly as the framer writes them), `isError` as the response
/// says (absent on success, `false` for warnings), and `structuredContent` when the response
/// is structured, wrapped as `{"items": …}` / `{"value": …}` before 2026-07-28 as
/// [`toolwire::frame::write_result`] does, and `resultType` from 2026-07-28 on. rmcp
/// serialises this result to the same JSON as toolwire's framer (compare `serde_json`
/// values: rmcp orders keys its own way).
pub fn to_call_tool_result_for(response: &ToolResponse<'_>, protocol: Protocol) -> CallToolResult {
    let content = (0..response.block_count())
        .map(|i| ContentBlock::text(response.block_text(i)))
        .collect();
    let mut result = match response.is_error() {
        Some(true) => CallToolResult::error(content),
        _ => CallToolResult::success(content),
    };
    // rmcp's constructors write `isError: false`; toolwire omits it on a plain success.
    result.is_error = response.is_error();
    // `resultType` exists from 2026-07-28 on (rmcp's server clears it for older peers too;
    // a result converted for another transport must already be right).
    result.result_type = (protocol == Protocol::Since20260728).then_some(ResultType::COMPLETE);
    if response.is_structured() {
        result.structured_content = structured(response, protocol);
    }
    result
}

/// The `structuredContent` of a structured response, as `write_result` shapes it.
fn structured(response: &ToolResponse<'_>, protocol: Protocol) -> Option<Value> {
    let data = response.data()?;
    let mut json = Vec::new();
    toolwire::json::write_compact(data, &mut json);
    // The engine's compact JSON is valid JSON; a failure would be an engine bug, and an
    // absent `structuredContent` is then the honest answer.
    let value: Value = serde_json::from_slice(&json).ok()?;
    if response.structured() == Some(Structured::Items) {
        // Always `{"items": [...]}`, one item as a list of one (a presenter's outputSchema).
        let items = match data.get() {
            ValueRef::Array(_) => value,
            _ => Value::Array(vec![value]),
        };
        let mut o = serde_json::Map::new();
        o.insert("items".to_owned(), items);
        return Some(Value::Object(o));
    }
    let wrap = match data.get() {
        ValueRef::Object(_) => None,
        _ if protocol == Protocol::Since20260728 => None,
        ValueRef::Array(_) => Some("items"),
        _ => Some("value"),
    };
    Some(match wrap {
        Some(key) => {
            let mut o = serde_json::Map::new();
            o.insert(key.to_owned(), value);
            Value::Object(o)
        }
        None => value,
    })
}

/// The compat conversion as a method: `response.to_call_tool_result()`.
pub trait IntoCallToolResult {
    /// See [`to_call_tool_result`].
    fn to_call_tool_result(&self) -> CallToolResult;
    /// See [`to_call_tool_result_for`].
    fn to_call_tool_result_for(&self, protocol: Protocol) -> CallToolResult;
}

impl IntoCallToolResult for ToolResponse<'_> {
    fn to_call_tool_result(&self) -> CallToolResult {
        to_call_tool_result(self)
    }
    fn to_call_tool_result_for(&self, protocol: Protocol) -> CallToolResult {
        to_call_tool_result_for(self, protocol)
    }
}

/// A [`Presenter`] described as an rmcp [`Tool`]: build with [`ToolDef::new`], finish with
/// [`ToolDef::tool`].
#[derive(Clone, Debug)]
pub struct ToolDef<'p> {
    name: String,
    presenter: &'p Presenter,
    description: String,
    actions: Option<(String, Vec<ActionDescription>)>,
    input_schema: JsonObject,
    collection: bool,
    output_schema: bool,
    revision: String,
    read_only: Option<bool>,
}

impl<'p> ToolDef<'p> {
    /// A tool named `name` whose responses `presenter` makes: by default an input schema
    /// `{"type": "object"}` (plus `_select`), the output schema of one item, no description.
    pub fn new(name: impl Into<String>, presenter: &'p Presenter) -> ToolDef<'p> {
        let mut input_schema = JsonObject::new();
        input_schema.insert("type".into(), "object".into());
        ToolDef {
            name: name.into(),
            presenter,
            description: String::new(),
            actions: None,
            input_schema,
            collection: false,
            output_schema: true,
            revision: DEFAULT_REVISION.into(),
            read_only: None,
        }
    }

    /// The description (layer one of WIRE.md §6 when [`ToolDef::actions`] is given).
    pub fn description(mut self, text: impl Into<String>) -> Self {
        self.description = text.into();
        self
    }

    /// A grouped tool: its actions, selected by the `discriminator` argument (e.g.
    /// `action`); the description becomes the TOON description of WIRE.md §6.
    pub fn actions(
        mut self,
        discriminator: impl Into<String>,
        actions: impl IntoIterator<Item = ActionDescription>,
    ) -> Self {
        self.actions = Some((discriminator.into(), actions.into_iter().collect()));
        self
    }

    /// The handler's own input schema (a JSON Schema object); `_select` is added to its
    /// `properties` when the presenter enables select.
    pub fn input_schema(mut self, schema: JsonObject) -> Self {
        self.input_schema = schema;
        self
    }

    /// Whether the tool returns a collection of the presenter's items (the output schema is
    /// then of an array, wrapped as `{"items": [...]}` before 2026-07-28).
    pub fn collection(mut self, yes: bool) -> Self {
        self.collection = yes;
        self
    }

    /// Whether to declare the `outputSchema` (default yes). Declare it only when the tool's
    /// responses carry `structuredContent`: clients validate one against the other.
    pub fn output_schema(mut self, yes: bool) -> Self {
        self.output_schema = yes;
        self
    }

    /// The revision the output schema's shape follows (default [`DEFAULT_REVISION`]).
    pub fn revision(mut self, revision: impl Into<String>) -> Self {
        self.revision = revision.into();
        self
    }

    /// The `readOnlyHint` annotation.
    pub fn read_only(mut self, yes: bool) -> Self {
        self.read_only = Some(yes);
        self
    }

    /// The rmcp [`Tool`].
    pub fn tool(&self) -> Tool {
        let mut input = self.input_schema.clone();
        if let Some(select) = self.presenter.input_schema_property() {
            // The engine writes the property as JSON text; it always parses.
            if let Ok(select) = serde_json::from_str::<Value>(&select) {
                let props = input
                    .entry("properties")
                    .or_insert_with(|| Value::Object(JsonObject::new()));
                if let Value::Object(props) = props {
                    props.insert("_select".into(), select);
                }
            }
        }
        let description = match &self.actions {
            Some((disc, actions)) => toon_description(&self.name, &self.description, disc, actions),
            None => self.description.clone(),
        };
        let description = (!description.is_empty()).then(|| description.into());
        let mut tool = Tool::new_with_raw(self.name.clone(), description, Arc::new(input));
        if self.output_schema {
            let text = self
                .presenter
                .output_schema(&self.revision, self.collection);
            if let Ok(Value::Object(schema)) = serde_json::from_str::<Value>(&text) {
                tool = tool.with_raw_output_schema(Arc::new(schema));
            }
        }
        if let Some(ro) = self.read_only {
            tool = tool.annotate(ToolAnnotations::new().read_only(ro));
        }
        tool
    }
}
