//! What `toolwire/presenter` (the JS presenter and response API, `presenter.js`) needs of the
//! engine: presenters whose rules, UI blocks and suggestions are JavaScript callbacks, the
//! response builder, the UI helpers and the error envelopes. Every byte of a block is the
//! engine's: the JS layer hands over texts, the engine escapes and frames them (WIRE.md §2).
//!
//! Callbacks run on the JS thread, inside the synchronous call that presents: the engine runs
//! stages 4–7 on the calling thread, and [`NativePresenter::present_with`] puts the JS
//! dispatcher of the call in a thread-local for that time. Each engine callback holds only
//! its number; it calls the dispatcher with the number and the value as compact JSON text,
//! and reads back a flat list of strings (rules; `tool, reason` pairs; six strings per UI
//! block). A callback run anywhere else (no dispatcher on its thread) answers nothing, so a
//! presenter with callbacks is only ever presented on the JS thread (the JS layer makes sure).
//! The dispatcher catches what the user's function throws; should a call still fail, the
//! exception is cleared and the presenting call fails with an error, never a crash.

use std::cell::{Cell, RefCell};

use napi::bindgen_prelude::{FnArgs, FromNapiValue, Function, ToNapiValue};
use napi::{Env, Result, sys};
use napi_derive::napi;
use toolwire::Value;
use toolwire::json::{ParseOptions, to_vec_compact};
use toolwire::present::{Callback, Presenter};
use toolwire::wire::{self, Format, Severity, Suggestion, ToolError, UiBlock, UiMeta, Width, ui};

use crate::rows::{CellsStream, TableCells};
use crate::{
    CallArgs, Data, JsText, NativePresenter, NativeReply, SyncText, cells_data, engine_error,
    native_reply, presenter_error, respond, sync_bytes, sync_data, usage,
};

/// `(n, json, items, id)`: callback `n`, its value as compact JSON text, the number of items
/// when the value is an array (-1 otherwise), and the call's id. An array of [`LAZY_ITEMS`]
/// or more comes without its text (`undefined`): the JS side asks for it with
/// [`dispatched_json`]`(id)` only when the callback reads the rows (a summary only counts
/// them). Writing 100k rows' text for every call, as a JS string of 10 MB (20 MB as UTF-16
/// when a name is not Latin-1), was 20% of `make(rows).build()` with non-ASCII rows.
type Dispatch<'a> = Function<'a, FnArgs<(u32, Option<JsText>, i64, u32)>, Option<Vec<String>>>;

/// Arrays of this many items or more reach the dispatcher without their JSON text.
const LAZY_ITEMS: usize = 1024;

thread_local! {
    /// The dispatcher of the innermost `present_with` running on this thread.
    static DISPATCH: Cell<Option<(sys::napi_env, sys::napi_value)>> = const { Cell::new(None) };
    /// Why a dispatcher call failed in the innermost `present_with` (the first failure).
    static FAILED: RefCell<Option<String>> = const { RefCell::new(None) };
    /// The id and the value of the dispatcher call running on this thread (innermost), for
    /// [`dispatched_json`]: the address of a `Value` on the stack of `dispatch`, set only for
    /// the time of its call into JS.
    static CURRENT: Cell<(u32, *const ())> = const { Cell::new((0, std::ptr::null())) };
    /// The id of the last dispatcher call on this thread.
    static CALLS: Cell<u32> = const { Cell::new(0) };
}

/// The compact JSON text of the value of dispatcher call `id`, while that call runs (the
/// callback reads the rows of a large collection); `None` once it has returned.
#[napi(catch_unwind, ts_return_type = "string | null")]
pub fn dispatched_json(id: u32) -> Option<JsText> {
    let (current, at) = CURRENT.with(Cell::get);
    if current != id || at.is_null() {
        return None;
    }
    // SAFETY: `at` is the address of `v` in the frame of `dispatch` call `id`, which is still
    // running on this thread: `dispatch` sets CURRENT right before it calls into JS and puts
    // the previous one back before it returns, so a set CURRENT always points into a live
    // frame below this one. The value borrows the engine's document of that call, alive for
    // as long as the call.
    let v = unsafe { *at.cast::<Value<'_>>() };
    Some(JsText(to_vec_compact(v)))
}

/// Calls the dispatcher of this thread with callback `n` and `v`.
fn dispatch(n: u32, v: Value<'_>) -> Vec<String> {
    let Some((env, f)) = DISPATCH.with(Cell::get) else {
        return Vec::new();
    };
    if FAILED.with(|x| x.borrow().is_some()) {
        return Vec::new();
    }
    // SAFETY: `env` and `f` were put here by `present_with`, which is running on this thread
    // (the thread-local is only set for the duration of that synchronous call, in its handle
    // scope), so both are live handles of the current JS call.
    let func = unsafe { Dispatch::from_napi_value(env, f) };
    let len = v.as_array().map(|a| a.len());
    let items = len.map_or(-1, |n| n as i64);
    let json = match len {
        Some(n) if n >= LAZY_ITEMS => None,
        _ => Some(JsText(to_vec_compact(v))),
    };
    let id = CALLS.with(|c| {
        c.set(c.get().wrapping_add(1).max(1));
        c.get()
    });
    struct Back((u32, *const ()));
    impl Drop for Back {
        fn drop(&mut self) {
            CURRENT.with(|c| c.set(self.0));
        }
    }
    let _back = Back(CURRENT.with(|c| c.replace((id, (&raw const v).cast()))));
    let out = func.and_then(|func| func.call((n, json, items, id).into()));
    match out {
        Ok(answer) => answer.unwrap_or_default(),
        Err(e) => {
            let mut exception = std::ptr::null_mut();
            // SAFETY: same live `env`; clearing the pending exception (if any) keeps the
            // engine's remaining work and the caller's return from running with one pending.
            unsafe { sys::napi_get_and_clear_last_exception(env, &mut exception) };
            FAILED.with(|x| {
                x.borrow_mut()
                    .get_or_insert_with(|| format!("a presenter callback failed: {}", e.reason));
            });
            Vec::new()
        }
    }
}

fn opt(s: &str) -> Option<&str> {
    (!s.is_empty()).then_some(s)
}

/// One UI block from its six strings: type, content, title, width, priority, and the JSON
/// source of an `echarts`/`json` helper block ("" when none), which is rebuilt by the engine's
/// helper so its content keeps the lossless `\u003c` escape.
fn ui_block(f: &[String]) -> std::result::Result<UiBlock, String> {
    let [kind, content, title, width, priority, src] = f else {
        return Err("a UI block is six strings".to_owned());
    };
    let base = match opt(src) {
        Some(src) => {
            let doc = toolwire::json::parse(src.as_bytes(), &ParseOptions::default())
                .map_err(|e| e.message().to_owned())?;
            if kind == "echarts" {
                ui::echarts(doc.root())
            } else {
                ui::json(doc.root())
            }
        }
        None => UiBlock::new(kind.as_str(), content.as_str()),
    };
    let width = opt(width)
        .map(Width::parse)
        .transpose()
        .map_err(|e| e.message().to_owned())?;
    let priority = opt(priority)
        .map(|p| {
            p.parse::<i64>()
                .map_err(|_| format!("priority {p} is not an integer"))
        })
        .transpose()?;
    Ok(base.with_meta(UiMeta {
        title: opt(title).map(str::to_owned),
        width,
        priority,
    }))
}

fn ui_blocks(flat: &[String]) -> Result<Vec<UiBlock>> {
    flat.chunks(6)
        .map(|c| ui_block(c).map_err(|m| usage(&m)))
        .collect()
}

fn suggestions(flat: &[String]) -> Vec<Suggestion> {
    flat.chunks_exact(2)
        .map(|p| Suggestion {
            tool: p[0].clone(),
            reason: p[1].clone(),
        })
        .collect()
}

fn callback(n: u32, kind: &str) -> Result<Callback> {
    Ok(match kind {
        "rules" => Callback::Rules(Box::new(move |v| dispatch(n, v))),
        "suggest" => Callback::Suggest(Box::new(move |v| suggestions(&dispatch(n, v)))),
        "ui" => Callback::Ui(Box::new(move |v| {
            let flat = dispatch(n, v);
            match flat.chunks(6).map(ui_block).collect() {
                Ok(blocks) => blocks,
                Err(m) => {
                    FAILED.with(|x| {
                        x.borrow_mut().get_or_insert(m);
                    });
                    Vec::new()
                }
            }
        })),
        // One string: what replaces the redacted value (nothing when the call failed, which
        // then fails the presenting call).
        "censor" => Callback::Censor(Box::new(move |v| {
            dispatch(n, v).into_iter().next().unwrap_or_default()
        })),
        _ => return Err(usage(&format!("unknown callback kind {kind:?}"))),
    })
}

#[napi]
impl NativePresenter {
    /// Compiles a presenter file whose `{"callback": n}` entries are callbacks of the JS
    /// layer, `kinds[n]` being `rules`, `ui`, `suggest` or `censor` (`Presenter::from_doc_with`).
    #[napi(factory, catch_unwind)]
    pub fn with_callbacks(json: String, kinds: Vec<String>) -> Result<NativePresenter> {
        let callbacks = kinds
            .iter()
            .enumerate()
            .map(|(n, k)| callback(n as u32, k))
            .collect::<Result<Vec<_>>>()?;
        let doc = toolwire::json::parse(json.as_bytes(), &ParseOptions::default())
            .map_err(|e| engine_error(&e))?;
        let inner =
            Presenter::from_doc_with(doc.root(), callbacks).map_err(|e| presenter_error(&e))?;
        Ok(NativePresenter { inner })
    }

    /// [`NativePresenter::present`] with the presenter's callbacks answered by `dispatch`
    /// (`(n, json, items) => strings`), called on this thread during this call only.
    #[napi(catch_unwind)]
    pub fn present_with(
        &self,
        env: &Env,
        data: Option<SyncText<'_>>,
        args: CallArgs,
        dispatch: Dispatch<'_>,
    ) -> Result<NativeReply> {
        self.dispatched(env, data.as_ref().map(sync_data), &args, dispatch)
    }

    /// [`NativePresenter::present_with`] of a table of rows read as cells (`lib/rows.js`):
    /// the engine's document made from them, no JSON text written or read; built by
    /// `stream` while they were read when there is one (`table` then holds the last cells).
    #[napi(catch_unwind)]
    pub fn present_cells_with(
        &self,
        env: &Env,
        table: TableCells,
        args: CallArgs,
        dispatch: Dispatch<'_>,
        stream: Option<&mut CellsStream>,
    ) -> Result<NativeReply> {
        // No callback reaches the cells either.
        self.dispatched(env, Some(cells_data(&table, stream)?), &args, dispatch)
    }

    /// The call of `data` with `dispatch` as the dispatcher of this thread meanwhile.
    fn dispatched(
        &self,
        env: &Env,
        data: Option<Data<'_>>,
        args: &CallArgs,
        dispatch: Dispatch<'_>,
    ) -> Result<NativeReply> {
        struct Restore(Option<(sys::napi_env, sys::napi_value)>, Option<String>);
        impl Drop for Restore {
            fn drop(&mut self) {
                DISPATCH.with(|d| d.set(self.0));
                FAILED.with(|f| *f.borrow_mut() = self.1.take());
            }
        }
        // SAFETY: `dispatch` is an argument of this call: its handle is live in this call's
        // scope, which is where `env` is valid too.
        let f = unsafe { <Dispatch<'_> as ToNapiValue>::to_napi_value(env.raw(), dispatch) }?;
        let before = DISPATCH.with(|d| d.replace(Some((env.raw(), f))));
        let failed_before = FAILED.with(|x| x.borrow_mut().take());
        let restore = Restore(before, failed_before);
        let out = respond(Some(&self.inner), data, args);
        let failed = FAILED.with(|x| x.borrow_mut().take());
        drop(restore);
        match failed {
            Some(m) => Err(usage(&m)),
            None => out,
        }
    }
}

/// A response built from parts (`response(data)…build()`, and a presenter's response with
/// blocks added after `make`). `text` is a verbatim data block; else `data` is JSON text
/// (`None`: no value, `OK`). UI blocks are six strings each (see `ui_block`), suggestions two.
#[napi(catch_unwind)]
#[allow(clippy::too_many_arguments)]
pub fn build_response(
    data: Option<SyncText<'_>>,
    text: Option<String>,
    format: Option<String>,
    ui: Vec<String>,
    embedded: Vec<String>,
    raw: Vec<String>,
    hints: Vec<String>,
    rules: Vec<String>,
    suggest: Vec<String>,
    structured: bool,
) -> Result<NativeReply> {
    let data = match (&text, &data) {
        (Some(t), _) => wire::Data::Text(t),
        (None, Some(d)) => wire::Data::Json(sync_bytes(d)),
        (None, None) => wire::Data::None,
    };
    let format = match format {
        Some(f) => f.parse::<Format>().map_err(|e| usage(&e.to_string()))?,
        None if structured => Format::Compact,
        None => Format::Pretty,
    };
    let mut b = wire::response(data)
        .format(format)
        .ui_blocks(ui_blocks(&ui)?);
    for e in ui_blocks(&embedded)? {
        b = b.embedded_block(e);
    }
    for r in raw {
        b = b.raw_block(r);
    }
    for h in hints {
        b = b.llm_hint(h);
    }
    let r = b
        .system_rules(rules)
        .system_hint(suggestions(&suggest))
        .build()
        .map_err(|e| engine_error(&e))?;
    native_reply(&r, structured)
}

/// A UI helper of WIRE.md §3 (`echarts`, `json`: `a` is JSON text; `mermaid`, `markdown`,
/// `summary`: `a` is the text; `code_block`: `a` the language, `b` the code; `list`: `items`):
/// the block's type and content.
#[napi(catch_unwind)]
pub fn ui_helper(
    helper: String,
    a: Option<String>,
    b: Option<String>,
    items: Option<Vec<String>>,
) -> Result<Vec<String>> {
    let a = a.unwrap_or_default();
    let block = match helper.as_str() {
        "echarts" | "json" => {
            let doc = toolwire::json::parse(a.as_bytes(), &ParseOptions::default())
                .map_err(|e| engine_error(&e))?;
            if helper == "echarts" {
                ui::echarts(doc.root())
            } else {
                ui::json(doc.root())
            }
        }
        "mermaid" => ui::mermaid(&a),
        "markdown" => ui::markdown(&a),
        "summary" => ui::summary(&a),
        "code_block" => ui::code_block(&a, &b.unwrap_or_default()),
        "list" => ui::list(items.unwrap_or_default()),
        _ => return Err(usage(&format!("unknown UI helper {helper:?}"))),
    };
    Ok(vec![block.kind().to_owned(), block.content().to_owned()])
}

/// `ui.table(headers, rows)`: the block's type and content (cells escaped, short rows padded;
/// a row longer than the header is an error).
#[napi(catch_unwind)]
pub fn ui_table(headers: Vec<String>, rows: Vec<Vec<String>>) -> Result<Vec<String>> {
    let block = ui::table(&headers, rows).map_err(|e| engine_error(&e))?;
    Ok(vec![block.kind().to_owned(), block.content().to_owned()])
}

/// `error(message, code?)` and `required(field)` (`code` = `MISSING_REQUIRED_FIELD` with
/// `required` set).
#[napi(catch_unwind)]
pub fn error_response(message: String, code: Option<String>, required: bool) -> NativeReply {
    let r = match (required, code) {
        (true, _) => wire::required(&message),
        (false, Some(c)) => wire::error_with_code(&c, &message),
        (false, None) => wire::error(&message),
    };
    native_reply(&r, false).unwrap_or_else(|_| unreachable!("an error response is UTF-8"))
}

/// `toolError(code, options)`: `details` is key, value pairs.
#[napi(catch_unwind)]
pub fn tool_error_response(
    code: String,
    message: String,
    severity: String,
    recovery: Option<String>,
    actions: Vec<String>,
    details: Vec<String>,
    retry_after: Option<f64>,
) -> Result<NativeReply> {
    let severity = match severity.as_str() {
        "warning" => Severity::Warning,
        "error" => Severity::Error,
        "critical" => Severity::Critical,
        s => {
            return Err(usage(&format!(
                "severity must be warning, error or critical, got {s:?}"
            )));
        }
    };
    let mut e = ToolError::new(code)
        .message(message)
        .severity(severity)
        .actions(actions);
    if let Some(r) = recovery {
        e = e.recovery(r);
    }
    for kv in details.chunks_exact(2) {
        e = e.detail(kv[0].clone(), kv[1].clone());
    }
    if let Some(s) = retry_after {
        e = e.retry_after(s);
    }
    native_reply(&e.into_response(), false)
}
