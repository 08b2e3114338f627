//! Every call of the server into the engine's serving path: presenting a page or a row,
//! the message cap, tool descriptions and schemas, and writing a `tools/call` result as one
//! JSON-RPC message into a sink (the transport's chunked sink).
//!
//! ## What this module would want from the engine's "front door"
//!
//! * **A window with a stated total.** `Presenter::present` takes one array and counts its
//!   length for `{count}` and the truncation notice. A page is `offset`/`limit` over the rows
//!   matching `where`, so the server copies the page's rows into a small document and pads
//!   it with `null`s up to the number of matching rows after `offset` (the presenter never
//!   reads past its `limit`; `padding_never_changes_a_response` pins it). Only an unfiltered
//!   page at offset 0 is presented straight from the collection. The copy goes through
//!   `DocBuilder`'s public methods (`copy_from` is crate-private), so strings are copied and
//!   rescanned: 300k rows of a large page cost ≈ 100 ms before the first byte. The front door
//!   should take "these rows (by index or an iterator of values), out of N".
//! * **Overrides without rebuilding the presenter.** `limit` and `format` per call mean a
//!   new `Presenter` per call (the builder for the built-in invoices, a rewritten presenter
//!   file otherwise); `auto` means presenting twice (once to see the data, once in the chosen
//!   format).
//! * **Directives on a presented response.** A built `ToolResponse` cannot take an extra
//!   `<llm_directives>` bullet, so the next-call hint is rendered by a throw-away response
//!   and spliced in by this module's own envelope writer, at the block position WIRE.md §1.1
//!   gives it (before rules and suggestions, known from the side door's `rules` and
//!   `suggestions`).
//! * **`structuredContent` for presenter responses.** `frame::write_result` writes it only for
//!   `success_structured`; here it is written from the side door's `data()`.
//! * **A cap that cuts to whole rows.** `frame::check_size` answers yes or no; the largest
//!   fitting number of rows is found by a binary search that re-presents and counts each
//!   probe.
//! * **Progress and cancellation hooks** around encoding: today cancellation is the chunked
//!   sink's consumer returning `false`, and progress can only be reported before the first
//!   byte (the result is one message).

use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::Value;
use toolwire::doc::Number;
use toolwire::escape::EscapingSink;
use toolwire::escape::write_json_string;
use toolwire::frame::{Id, Protocol, framed_len_bound};
use toolwire::present::{ActionDescription, PresentError, Presenter};
use toolwire::sink::CountingSink;
use toolwire::wire::{self, FieldProblem, ToolError, ToolResponse};
use toolwire::{Doc, DocBuilder, Sink, ValueRef};

use crate::args::{Action, Call, Problem, Scalar};
use crate::collection::{Collection, DEFAULT_LIST_LIMIT, FORMATS, Server, format_name};

/// The ` You sent: <value>` rendering of WIRE.md §8 for a JSON value from the client.
pub(crate) fn you_sent(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => {
            let s = n.to_string();
            if s.chars().count() > 50 {
                wire::you_sent_string(&s).trim_matches('\'').to_owned()
            } else {
                s
            }
        }
        Value::String(s) => wire::you_sent_string(s),
        Value::Array(a) => format!("array({})", a.len()),
        Value::Object(_) => {
            let s = serde_json::to_string(v).unwrap_or_default();
            s.chars().take(50).collect()
        }
    }
}

/// Collections of at least this many rows report progress while a `where` filter scans them.
const PROGRESS_SCAN_ROWS: usize = 10_000;
/// Pages of at least this many rows report progress before their result.
const PROGRESS_PAGE_ROWS: usize = 1_000;

/// What a call reports on its way: progress, and whether the client went away.
pub(crate) struct Hooks<'a> {
    /// `(progress, total)` notifications; `None` when the call has no progress token.
    pub(crate) progress: Option<&'a mut (dyn FnMut(u64, u64) + 'a)>,
    /// Set when the call is cancelled (or its connection closed).
    pub(crate) cancel: &'a AtomicBool,
}

impl Hooks<'_> {
    fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }
    fn report(&mut self, done: usize, total: usize) {
        if let Some(p) = self.progress.as_mut() {
            p(done as u64, total as u64);
        }
    }
}

/// How a call ended, for the log line.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// A result was written (`true` when `isError`).
    Written { is_error: bool },
    /// Cancelled before the first byte: nothing was written.
    Cancelled,
}

/// Answers `tools/call` of `coll` with `arguments`: writes the whole JSON-RPC response line
/// into `out`, or nothing when cancelled before the first byte.
pub(crate) fn tools_call<S: Sink + ?Sized>(
    server: &Server,
    coll: &Collection,
    id: &Id,
    protocol: Protocol,
    arguments: Option<&Value>,
    hooks: &mut Hooks<'_>,
    out: &mut S,
) -> Outcome {
    let env = Envelope {
        id,
        protocol,
        structured: server.structured,
    };
    let call = match crate::args::parse(arguments, coll) {
        Ok(c) => c,
        Err((action, problems)) => return env.write_error(&validation(&action, &problems), out),
    };
    // `_select` as the engine reads it: its JSON text parsed into a small document.
    let select_bytes = call
        .select
        .as_ref()
        .map(|v| serde_json::to_vec(v).unwrap_or_default());
    let select_doc = select_bytes
        .as_deref()
        .and_then(|b| toolwire::json::parse(b, &Default::default()).ok());
    let select = select_doc.as_ref().map(Doc::root);
    match &call.action {
        Action::Get { id: key } => get(server, coll, &env, &call, key, select, hooks, out),
        Action::List {
            filter,
            offset,
            limit,
        } => list(
            server,
            coll,
            &env,
            &call,
            Page {
                filter,
                offset: *offset,
                limit: *limit,
            },
            select,
            hooks,
            out,
        ),
    }
}

struct Page<'a> {
    filter: &'a [(String, Scalar)],
    offset: usize,
    limit: Option<usize>,
}

fn validation(action: &str, problems: &[Problem]) -> ToolResponse<'static> {
    let p: Vec<FieldProblem> = problems
        .iter()
        .map(|p| FieldProblem {
            name: p.name.clone(),
            detail: p.detail.clone(),
        })
        .collect();
    wire::validation_error(action, &p)
}

fn internal(message: &str) -> ToolResponse<'static> {
    wire::error_with_code("INTERNAL_ERROR", message)
}

/// Does the row's field equal the client's scalar? Strings exactly, numbers by value
/// (integer lexemes digit for digit, else as f64), booleans and null as themselves; a missing
/// field equals nothing.
fn field_equals(row: toolwire::Value<'_>, field: &str, want: &Scalar) -> bool {
    let Some(v) = row.as_object().and_then(|o| o.get(field.as_bytes())) else {
        return false;
    };
    match (v.get(), want) {
        (ValueRef::Null, Scalar::Null) => true,
        (ValueRef::Bool(a), Scalar::Bool(b)) => a == *b,
        (ValueRef::String(s), Scalar::String(w)) => s.as_bytes() == w.as_bytes(),
        (ValueRef::Number(n), Scalar::Number(w)) => number_equals(n, w),
        _ => false,
    }
}

fn is_integer_lexeme(s: &str) -> bool {
    let d = s.strip_prefix('-').unwrap_or(s);
    !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()) && (d == "0" || !d.starts_with('0'))
}

fn number_equals(n: Number<'_>, want: &str) -> bool {
    if let Number::Int(lexeme) = n {
        if is_integer_lexeme(want) {
            let w = if want == "-0" { "0" } else { want };
            return lexeme == w.as_bytes();
        }
    }
    want.parse::<f64>().is_ok_and(|w| n.as_f64() == w)
}

/// `get`'s key match: as `where`, plus a string id equal to an integer key's lexeme and an
/// integer id equal to a string key's text (agents send ids either way).
fn key_equals(row: toolwire::Value<'_>, key: &str, id: &Scalar) -> bool {
    if field_equals(row, key, id) {
        return true;
    }
    let Some(v) = row.as_object().and_then(|o| o.get(key.as_bytes())) else {
        return false;
    };
    match (v.get(), id) {
        (ValueRef::Number(Number::Int(l)), Scalar::String(s)) => l == s.as_bytes(),
        (ValueRef::String(s), Scalar::Number(n)) => s.as_bytes() == n.as_bytes(),
        _ => false,
    }
}

/// The page document: the first `take` of `rows`, then `null`s up to `remaining` elements
/// (see the module docs: the presenter counts them and never reads them).
fn window<'r>(
    rows: impl Iterator<Item = toolwire::Value<'r>>,
    take: usize,
    remaining: usize,
) -> Doc<'static> {
    let mut b = DocBuilder::with_capacity(b"", remaining + take * 16 + 1, take * 64);
    let m = b.begin_array();
    for r in rows.take(take) {
        b.copy_value(r);
    }
    for _ in take..remaining {
        b.null();
    }
    b.end_array(m, remaining);
    b.finish()
}

/// The concrete format of a call: its `format`, else the presenter's; `auto` resolved by the
/// engine's estimator over what the data block would hold in the presenter's own format.
fn resolve_format(
    coll: &Collection,
    call: &Call,
    limit: usize,
    data: toolwire::Value<'_>,
    select: Option<toolwire::Value<'_>>,
) -> Result<&'static str, Box<ToolResponse<'static>>> {
    let f = call.format.unwrap_or(coll.format);
    if f != "auto" {
        return Ok(f);
    }
    let base = if coll.format == "auto" {
        "pretty"
    } else {
        coll.format
    };
    let p = coll
        .presenter(limit, base)
        .map_err(|e| internal(&e.to_string()))?;
    match p.present_with_select_arg(data, select) {
        Ok(r) => Ok(r
            .data()
            .map(|d| format_name(toolwire::wire::choose_auto(d)))
            .unwrap_or(base)),
        // The real presentation reports the error.
        Err(_) => Ok(base),
    }
}

fn present<'d>(
    p: &Presenter,
    action: &str,
    data: toolwire::Value<'d>,
    select: Option<toolwire::Value<'_>>,
) -> ToolResponse<'d> {
    match p.present_with_select_arg(data, select) {
        Ok(r) => r,
        Err(e @ (PresentError::Output(_) | PresentError::Select(_) | PresentError::Encode(_))) => {
            e.into_response(action)
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn get<S: Sink + ?Sized>(
    server: &Server,
    coll: &Collection,
    env: &Envelope<'_>,
    call: &Call,
    id: &Scalar,
    select: Option<toolwire::Value<'_>>,
    hooks: &mut Hooks<'_>,
    out: &mut S,
) -> Outcome {
    let action = format!("{}/get", coll.name);
    let rows = coll.doc.root().as_array();
    let row = rows.and_then(|a| a.iter().find(|r| key_equals(*r, &coll.key, id)));
    if hooks.cancelled() {
        return Outcome::Cancelled;
    }
    let Some(row) = row else {
        let shown = you_sent(&id.to_json());
        let e = ToolError::new("NOT_FOUND")
            .message(format!("No {} row has {} = {shown}.", coll.name, coll.key))
            .recovery(format!(
                "Call {} with action 'list' (a 'where' filter narrows it) to find a valid {}.",
                coll.name, coll.key
            ));
        return env.write_error(&e.into_response(), out);
    };
    let limit = coll.limit.unwrap_or(DEFAULT_LIST_LIMIT);
    let format = match resolve_format(coll, call, limit, row, select) {
        Ok(f) => f,
        Err(r) => return env.write_error(&r, out),
    };
    let p = match coll.presenter(limit, format) {
        Ok(p) => p,
        Err(e) => return env.write_error(&internal(&e.to_string()), out),
    };
    let r = present(&p, &action, row, select);
    let msg = Message {
        response: &r,
        hint: None,
        rows: Rows::One,
    };
    if let Some(cap) = server.cap {
        if env.len(&msg, Some(cap)) > cap {
            return env.write_error(&too_large(coll, cap), out);
        }
    }
    env.write(&msg, out)
}

fn too_large(coll: &Collection, cap: usize) -> ToolResponse<'static> {
    ToolError::new("TOO_LARGE")
        .message(format!(
            "One {} row alone is larger than the message cap of {cap} bytes.",
            coll.name
        ))
        .recovery("Call again with _select naming fewer fields, or a more compact format.")
        .into_response()
}

#[allow(clippy::too_many_arguments)]
fn list<S: Sink + ?Sized>(
    server: &Server,
    coll: &Collection,
    env: &Envelope<'_>,
    call: &Call,
    page: Page<'_>,
    select: Option<toolwire::Value<'_>>,
    hooks: &mut Hooks<'_>,
    out: &mut S,
) -> Outcome {
    let action = format!("{}/list", coll.name);
    let Some(all) = coll.doc.root().as_array() else {
        return env.write_error(&internal("the collection is not an array"), out);
    };
    let total = all.len();
    // The matching rows (indices), or all rows without a filter.
    let matched: Option<Vec<toolwire::Value<'_>>> = if page.filter.is_empty() {
        None
    } else {
        let report = total >= PROGRESS_SCAN_ROWS;
        let step = (total / 10).max(1);
        let mut m = Vec::new();
        for (i, r) in all.iter().enumerate() {
            if i % 4096 == 4095 && hooks.cancelled() {
                return Outcome::Cancelled;
            }
            if report && i > 0 && i % step == 0 {
                hooks.report(i, total);
            }
            if page.filter.iter().all(|(f, v)| field_equals(r, f, v)) {
                m.push(r);
            }
        }
        if report {
            hooks.report(total, total);
        }
        Some(m)
    };
    let matching = matched.as_ref().map_or(total, Vec::len);
    let remaining = matching.saturating_sub(page.offset);
    let own = coll.limit.unwrap_or(usize::MAX);
    let limit = page
        .limit
        .unwrap_or(coll.limit.unwrap_or(DEFAULT_LIST_LIMIT))
        .min(own);
    let take = limit.min(remaining);
    // The page: the collection itself when it starts at row 0 unfiltered (no copy), else
    // a small document of the page's rows padded to the rows remaining.
    let win = match &matched {
        Some(m) => Some(window(
            m[page.offset.min(m.len())..].iter().copied(),
            take,
            remaining,
        )),
        None if page.offset == 0 => None,
        None => Some(window(all.iter().skip(page.offset), take, remaining)),
    };
    let data = win.as_ref().map_or(all.as_value(), Doc::root);
    let format = match resolve_format(coll, call, limit, data, select) {
        Ok(f) => f,
        Err(r) => return env.write_error(&r, out),
    };
    // One presentation with `k` rows at most: the response and its next-call hint (an
    // error response has none).
    let build = |k: usize| -> (ToolResponse<'_>, Option<Vec<u8>>) {
        let p = match coll.presenter(k, format) {
            Ok(p) => p,
            Err(e) => return (internal(&e.to_string()), None),
        };
        let r = present(&p, &action, data, select);
        if r.is_error() == Some(true) {
            return (r, None);
        }
        let kept = r
            .data()
            .and_then(|d| d.as_array().map(|a| a.len()))
            .unwrap_or(0);
        let hint = (kept < remaining).then(|| next_call_hint(coll, call, &page, kept, remaining));
        (r, hint)
    };
    let mut page_msg = build(limit);
    if hooks.cancelled() {
        return Outcome::Cancelled;
    }
    if let Some(cap) = server.cap {
        let fits = |(r, hint): &(ToolResponse<'_>, Option<Vec<u8>>)| {
            let m = Message {
                response: r,
                hint: hint.as_deref(),
                rows: Rows::Many,
            };
            env.len(&m, Some(cap)) <= cap
        };
        if !fits(&page_msg) {
            // The largest number of whole rows whose message fits: `lo` fits, `hi` does not
            // (each probe presents again and counts the framed bytes).
            let one = build(1);
            if take == 0 || !fits(&one) {
                return env.write_error(&too_large(coll, cap), out);
            }
            let (mut lo, mut hi) = (1usize, take);
            let mut best = one;
            while hi - lo > 1 {
                if hooks.cancelled() {
                    return Outcome::Cancelled;
                }
                let mid = lo + (hi - lo) / 2;
                let probe = build(mid);
                if fits(&probe) {
                    lo = mid;
                    best = probe;
                } else {
                    hi = mid;
                }
            }
            page_msg = best;
        }
    }
    let (r, hint) = page_msg;
    let kept = r
        .data()
        .and_then(|d| d.as_array().map(|a| a.len()))
        .unwrap_or(0);
    if kept >= PROGRESS_PAGE_ROWS {
        hooks.report(kept, kept);
    }
    if hooks.cancelled() {
        return Outcome::Cancelled;
    }
    let msg = Message {
        response: &r,
        hint: hint.as_deref(),
        rows: Rows::Many,
    };
    env.write(&msg, out)
}

/// The `<llm_directives>` block naming the exact next call.
fn next_call_hint(
    coll: &Collection,
    call: &Call,
    page: &Page<'_>,
    kept: usize,
    remaining: usize,
) -> Vec<u8> {
    let next = page.offset.saturating_add(kept);
    let mut args = serde_json::Map::new();
    args.insert("action".into(), "list".into());
    if !page.filter.is_empty() {
        let w: serde_json::Map<String, Value> = page
            .filter
            .iter()
            .map(|(k, v)| (k.clone(), v.to_json()))
            .collect();
        args.insert("where".into(), Value::Object(w));
    }
    args.insert("offset".into(), next.into());
    if let Some(l) = page.limit {
        args.insert("limit".into(), l.into());
    }
    if let Some(f) = call.format {
        args.insert("format".into(), f.into());
    }
    if let Some(s) = &call.select {
        args.insert("_select".into(), s.clone());
    }
    let args = serde_json::to_string(&Value::Object(args)).unwrap_or_default();
    let hint = format!(
        "{kept} of {remaining} matching rows shown; {} more. Next page: call {} with {args}",
        remaining - kept,
        coll.name
    );
    let r = wire::response(()).llm_hint(hint).build();
    r.map(|r| r.block_text(1).into_bytes()).unwrap_or_default()
}

/// Whether `structuredContent` wraps a collection or one row.
#[derive(Clone, Copy)]
enum Rows {
    Many,
    One,
}

/// A `tools/call` result: the response, an extra directives block, the structured rows.
struct Message<'a, 'd> {
    response: &'a ToolResponse<'d>,
    /// The `<llm_directives>` block text, inserted where WIRE.md §1.1 puts it.
    hint: Option<&'a [u8]>,
    rows: Rows,
}

/// How one call's results are written: id, protocol, `--structured`.
struct Envelope<'a> {
    id: &'a Id,
    protocol: Protocol,
    structured: bool,
}

impl Envelope<'_> {
    fn write_error<S: Sink + ?Sized>(&self, r: &ToolResponse<'_>, out: &mut S) -> Outcome {
        let msg = Message {
            response: r,
            hint: None,
            rows: Rows::Many,
        };
        self.write(&msg, out)
    }

    /// The framed length: the cheap bound when it is under `cap`, else exact (encoded into a
    /// counting sink).
    fn len(&self, m: &Message<'_, '_>, cap: Option<usize>) -> usize {
        let r = m.response;
        let mut bound = framed_len_bound(self.id, r) + 64;
        if let Some(h) = m.hint {
            bound += 32 + 6 * h.len();
        }
        if self.structured && r.is_error() != Some(true) {
            bound += 64 + r.block_len_bound(0);
        }
        if cap.is_some_and(|c| bound <= c) {
            return bound;
        }
        let mut counter = CountingSink::new();
        self.write(m, &mut counter);
        counter.written()
    }

    fn write<S: Sink + ?Sized>(&self, m: &Message<'_, '_>, out: &mut S) -> Outcome {
        let r = m.response;
        out.write(b"{\"jsonrpc\":\"2.0\",\"id\":");
        match self.id {
            Id::Number(n) => out.write(n.as_bytes()),
            Id::String(s) => write_json_string(out, s.as_bytes()),
        }
        out.write(b",\"result\":{\"content\":[");
        let n = r.block_count();
        let meta = r.meta();
        let at =
            n - usize::from(!meta.rules.is_empty()) - usize::from(!meta.suggestions.is_empty());
        let mut first = true;
        let mut block = |out: &mut S, f: &dyn Fn(&mut EscapingSink<'_, S>)| {
            if !first {
                out.write_byte(b',');
            }
            first = false;
            out.write(b"{\"type\":\"text\",\"text\":\"");
            f(&mut EscapingSink::new(out));
            out.write(b"\"}");
        };
        for i in 0..=n {
            if i == at {
                if let Some(h) = m.hint {
                    block(out, &|e| e.write(h));
                }
            }
            if i < n {
                block(out, &|e| r.write_block(i, e));
            }
        }
        out.write_byte(b']');
        let is_error = r.is_error() == Some(true);
        match r.is_error() {
            Some(true) => out.write(b",\"isError\":true"),
            Some(false) => out.write(b",\"isError\":false"),
            None => {}
        }
        if self.structured && !is_error {
            if let Some(d) = r.data() {
                out.write(b",\"structuredContent\":{\"items\":");
                let one = matches!(m.rows, Rows::One) || d.as_array().is_none();
                if one {
                    out.write_byte(b'[');
                }
                toolwire::json::write_compact(d, out);
                if one {
                    out.write_byte(b']');
                }
                out.write_byte(b'}');
            }
        }
        if self.protocol == Protocol::Since20260728 {
            out.write(b",\"resultType\":\"complete\"");
        }
        out.write(b"}}\n");
        Outcome::Written { is_error }
    }
}

/// The tool object of `coll` for `tools/list` (compact JSON).
pub(crate) fn tool_json(coll: &Collection, structured: bool) -> String {
    let p = &coll.presenter;
    let actions = [
        ActionDescription {
            name: "list".into(),
            description: format!(
                "List {} rows: filter with where, page with offset and limit",
                coll.name
            ),
            required: Vec::new(),
            destructive: false,
        },
        ActionDescription {
            name: "get".into(),
            description: format!("One {} row by its {}", coll.name, coll.key),
            required: vec!["id".into()],
            destructive: false,
        },
    ];
    let description = toolwire::present::toon_description(
        &coll.name,
        &format!("Query the {} collection ({} rows)", coll.name, coll.len()),
        "action",
        &actions,
    );
    let mut props = serde_json::Map::new();
    props.insert(
        "action".into(),
        serde_json::json!({"type": "string", "enum": ["list", "get"], "description": "list: rows matching where, paged by offset and limit; get: one row by id"}),
    );
    let mut w = serde_json::json!({
        "type": "object",
        "description": "list: keep rows whose root field equals the value (numbers by value, strings exactly); every key must hold",
        "additionalProperties": {"type": ["string", "number", "boolean", "null"]}
    });
    if let Some(keys) = &coll.root_keys {
        w["propertyNames"] = serde_json::json!({"enum": keys});
    }
    props.insert("where".into(), w);
    props.insert(
        "offset".into(),
        serde_json::json!({"type": "integer", "minimum": 0, "default": 0, "description": "list: skip this many matching rows"}),
    );
    let mut limit = serde_json::json!({"type": "integer", "minimum": 0});
    limit["description"] = match coll.limit {
        Some(n) => format!("list: at most this many rows (at most {n}; default {n})").into(),
        None => format!("list: at most this many rows (default {DEFAULT_LIST_LIMIT})").into(),
    };
    props.insert("limit".into(), limit);
    props.insert(
        "format".into(),
        serde_json::json!({"type": "string", "enum": FORMATS, "description": format!("the data block's format (default {})", coll.format)}),
    );
    props.insert(
        "id".into(),
        serde_json::json!({"type": ["string", "integer"], "description": format!("get: the row's {}", coll.key)}),
    );
    if let Some(sel) = p.input_schema_property() {
        if let Ok(v) = serde_json::from_str::<Value>(&sel) {
            props.insert("_select".into(), v);
        }
    }
    let mut tool = serde_json::json!({
        "name": coll.name,
        "description": description,
        "inputSchema": {
            "type": "object",
            "properties": Value::Object(props),
            "required": ["action"],
            "additionalProperties": false
        },
        "annotations": {"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false}
    });
    if structured {
        let schema = p.output_schema("2025-11-25", true);
        if let Ok(v) = serde_json::from_str::<Value>(&schema) {
            tool["outputSchema"] = v;
        }
    }
    serde_json::to_string(&tool).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collection::engine_format;

    /// The page document pads the rows after the page with `null`s; presenting it must give
    /// exactly the response of the page's rows followed by every real remaining row.
    #[test]
    fn padding_never_changes_a_response() {
        let src = crate::demo::invoices(300);
        let doc = toolwire::json::parse(&src, &Default::default()).unwrap();
        let all = doc.root().as_array().unwrap();
        let eur = Scalar::String("EUR".into());
        let rows: Vec<toolwire::Value<'_>> = all
            .iter()
            .filter(|r| field_equals(*r, "currency", &eur))
            .collect();
        let select_doc = toolwire::json::parse(br#"["status","id"]"#, &Default::default()).unwrap();
        for (offset, k) in [(0, 50), (3, 7), (10, 0), (rows.len() - 2, 50), (0, 1)] {
            let remaining = rows.len() - offset;
            let padded = window(rows[offset..].iter().copied(), k.min(remaining), remaining);
            let full = window(rows[offset..].iter().copied(), remaining, remaining);
            for f in ["toon", "pretty", "compact", "toon-tab"] {
                let p = crate::demo::invoice_presenter(Some(k), engine_format(f)).unwrap();
                for select in [None, Some(select_doc.root())] {
                    let a = p.present_with_select_arg(padded.root(), select).unwrap();
                    let b = p.present_with_select_arg(full.root(), select).unwrap();
                    assert_eq!(a.texts(), b.texts(), "offset {offset}, limit {k}, {f}");
                    let g = toolwire::test_hooks::with_general_path(|| {
                        p.present_with_select_arg(padded.root(), select)
                            .unwrap()
                            .texts()
                    });
                    assert_eq!(
                        g,
                        b.texts(),
                        "general path, offset {offset}, limit {k}, {f}"
                    );
                }
            }
        }
    }

    #[test]
    fn integer_lexemes_compare_digit_for_digit() {
        assert!(number_equals(
            Number::Int(b"12345678901234567890123"),
            "12345678901234567890123"
        ));
        assert!(!number_equals(
            Number::Int(b"12345678901234567890123"),
            "12345678901234567890124"
        ));
        assert!(number_equals(Number::Int(b"5"), "5.0"));
        assert!(number_equals(Number::Float(2.5), "2.5"));
        assert!(number_equals(Number::Int(b"0"), "-0"));
    }
}
