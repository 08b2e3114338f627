//! The Node.js addon of toolwire (napi-rs 3).
//!
//! Thin by design (BINDINGS.md): every function hands bytes to the engine's front door
//! ([`toolwire::call`]) or to its TOON codec and hands text back. The JavaScript layer
//! (`lib/*.js`) owns what is JavaScript's: turning JS values into JSON text exactly as
//! `@toon-format/toon` normalises them, error classes, `CallToolResult` objects and the side
//! door.
//!
//! Errors cross into JavaScript as an `Error` whose message is `ERROR_MARK` followed by
//! compact JSON `{"category","message","line","column"}`; the JS layer turns it into its
//! own error classes. Every entry point catches panics (`catch_unwind`), so no input can
//! take the process down.
//!
//! Async calls and streams run on the addon's one bounded pool (`src/pool.rs`), and read only
//! bytes the addon owns ([`OwnedText`], copied on the JS thread before the call returns):
//! never the caller's buffer, which it may rewrite, transfer or detach at once.

use std::sync::Arc;

pub use codec::{decode_to_json, encode_cells, encode_json, encode_json_async};
use napi::bindgen_prelude::{
    Buffer, ClassInstance, Either, Either3, FnArgs, Function, Object, ObjectFinalize, ToNapiValue,
    Uint8Array,
};
use napi::threadsafe_function::{
    ThreadsafeCallContext, ThreadsafeFunction, ThreadsafeFunctionCallMode,
};
use napi::{Env, Error, Result, Status};
use napi_derive::napi;
pub use text::{JsText, JsUnits};
use toolwire::call::{Framing, Input, Problem, ToolCall};
use toolwire::frame::{Id, Protocol};
use toolwire::json::{ParseOptions, to_vec_compact};
use toolwire::present::{ActionDescription, Overrides, Presenter, PresenterError};
use toolwire::toon;
use toolwire::wire::Format;

/// Prefix of the message of every error the addon throws (the JS layer parses the rest).
const ERROR_MARK: &str = "\u{0}toolwire:";

mod codec;
mod pool;
mod rows;
mod text;
mod utf16;
use rows::{CellsStream, TableCells};
pub use rows::{rows_json, rows_pretty};

/// JSON text given as a JS string or as bytes (`Buffer`, `Uint8Array`).
type Text = Either<String, Uint8Array>;

fn bytes_of(t: &Text) -> &[u8] {
    match t {
        Either::A(s) => s.as_bytes(),
        Either::B(b) => b,
    }
}

/// An engine error as the JS layer expects it.
fn engine_error(e: &toolwire::Error) -> Error {
    let category = format!("{:?}", e.classify()).to_ascii_lowercase();
    mark(
        &category,
        e.message(),
        e.position().map(|p| (p.line, p.column)),
    )
}

/// An error of `category` with `message` and an optional 1-based line and column.
fn mark(category: &str, message: &str, position: Option<(usize, usize)>) -> Error {
    let mut b = toolwire::DocBuilder::new(b"");
    let o = b.begin_object();
    b.string(b"category");
    b.string(category.as_bytes());
    b.string(b"message");
    b.string(message.as_bytes());
    let mut n = 2;
    if let Some((line, column)) = position {
        b.string(b"line");
        b.u64(line as u64);
        b.string(b"column");
        b.u64(column as u64);
        n += 2;
    }
    b.end_object(o, n);
    let json = to_vec_compact(b.finish().root());
    Error::new(
        Status::GenericFailure,
        format!("{ERROR_MARK}{}", String::from_utf8_lossy(&json)),
    )
}

/// An invalid presenter file, its path first.
fn presenter_error(e: &PresenterError) -> Error {
    let message = if e.path().is_empty() {
        e.message().to_owned()
    } else {
        format!("{}: {}", e.path(), e.message())
    };
    mark("presenter", &message, None)
}

/// A usage error (a bad option value).
fn usage(message: &str) -> Error {
    mark("usage", message, None)
}

/// Engine output is UTF-8 (the encoders write UTF-8 from validated input).
fn utf8(v: Vec<u8>) -> Result<String> {
    String::from_utf8(v).map_err(|_| mark("encode", "output is not UTF-8", None))
}

/// JSON text copied out of the caller's memory on the JS thread, for work that outlives the
/// call: an async call, a stream, the side door.
///
/// A napi reference to a typed array keeps the JS object alive but does not pin its memory:
/// the caller can transfer or detach the `ArrayBuffer` (which frees it) or write into it while
/// a worker thread reads. So every byte a worker reads is a copy the addon owns, made by
/// [`own_text`] before the call returns; a JS string is converted by napi into Rust memory
/// (no further copy).
///
/// V8 is told about the bytes (`napi_adjust_external_memory`), and untold when the object is
/// collected, so the GC runs for them (an async result's side door holds its `OwnedText`).
/// Its memory is freed by a finalizer, which Node runs on a later turn of the event loop:
/// fine for async work (300 awaited `presentAsync` calls of a 15 MB Buffer: 137 MB peak
/// growth), not for a synchronous loop, so synchronous calls never make one (`present` of a
/// 15 MB Buffer 300 times in one loop grew the process by 4.5 GB when it did).
#[napi(custom_finalize)]
pub struct OwnedText {
    bytes: Arc<Vec<u8>>,
}

impl ObjectFinalize for OwnedText {
    fn finalize(self, env: Env) -> Result<()> {
        env.adjust_external_memory(-external_size(&self.bytes))?;
        Ok(())
    }
}

/// The size V8 is told about for `bytes`.
fn external_size(bytes: &[u8]) -> i64 {
    i64::try_from(bytes.len()).unwrap_or(i64::MAX)
}

/// Copies JSON text (a string, or the bytes of a `Buffer`/`Uint8Array`) into memory the addon
/// owns (see [`OwnedText`]).
#[napi(catch_unwind)]
pub fn own_text(env: &Env, text: Text) -> Result<OwnedText> {
    let bytes = match text {
        Either::A(s) => s.into_bytes(),
        Either::B(b) => b.to_vec(),
    };
    env.adjust_external_memory(external_size(&bytes))?;
    Ok(OwnedText {
        bytes: Arc::new(bytes),
    })
}

/// JSON text read during a call on the JS thread: a string, bytes, or an [`OwnedText`] (the
/// side door of an async call presents its copy again).
type SyncText<'a> = Either3<String, Uint8Array, ClassInstance<'a, OwnedText>>;

fn sync_bytes<'t>(t: &'t SyncText<'_>) -> &'t [u8] {
    match t {
        Either3::A(s) => s.as_bytes(),
        Either3::B(b) => b,
        Either3::C(o) => &o.bytes,
    }
}

fn sync_data<'t>(t: &'t SyncText<'_>) -> Data<'t> {
    Data::Json(sync_bytes(t))
}

/// The bytes of an optional [`OwnedText`], shared with a job.
fn shared(data: Option<&ClassInstance<'_, OwnedText>>) -> Option<Arc<Vec<u8>>> {
    data.map(|t| t.bytes.clone())
}

/// The resolver of a promise settled from the pool (it runs on the JS thread).
type Resolve<T> = Box<dyn FnOnce(Env) -> Result<T> + Send>;

/// The pool has a thread (started on first use), as a JavaScript error if none can start.
fn pool_ready() -> Result<()> {
    pool::ready().map_err(|e| {
        mark(
            "internal",
            &format!("cannot start a worker thread: {e}"),
            None,
        )
    })
}

/// Runs `work` on the addon's pool (`src/pool.rs`) and returns a promise of its result: a
/// rejection with the marked error when it fails, or with an `internal` one when it panics.
fn spawn_promise<'e, T, F>(env: &'e Env, work: F) -> Result<Object<'e>>
where
    T: ToNapiValue + Send + 'static,
    F: FnOnce() -> Result<T> + Send + 'static,
{
    // A thread at least runs before the promise exists, so the job below always runs and
    // always settles the promise (an unsettled one would keep the event loop alive).
    pool_ready()?;
    let (deferred, promise) = env.create_deferred::<T, Resolve<T>>()?;
    pool::submit(Box::new(move || {
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work))
            .unwrap_or_else(|_| Err(mark("internal", "the engine panicked", None)));
        match outcome {
            Ok(value) => deferred.resolve(Box::new(move |_env| Ok(value))),
            Err(e) => deferred.reject(e),
        }
    }));
    Ok(promise)
}

/// A compiled presenter file.
#[napi]
pub struct NativePresenter {
    inner: Presenter,
}

#[napi]
impl NativePresenter {
    /// Compiles a presenter file (its JSON text).
    #[napi(constructor, catch_unwind)]
    pub fn new(json: String) -> Result<NativePresenter> {
        let inner = Presenter::from_json(json.as_bytes()).map_err(|e| presenter_error(&e))?;
        Ok(NativePresenter { inner })
    }

    /// The presenter's name.
    #[napi(getter)]
    pub fn name(&self) -> String {
        self.inner.name().to_owned()
    }

    /// The `_select` property of the tool's `inputSchema` (JSON text), when select is on.
    #[napi]
    pub fn input_schema_property(&self) -> Option<String> {
        self.inner.input_schema_property()
    }

    /// The tool's `outputSchema` (JSON text) for `protocol`, of a collection or one item.
    #[napi]
    pub fn output_schema(&self, protocol: String, collection: bool) -> String {
        self.inner.output_schema(&protocol, collection)
    }

    /// Presents `data` (JSON text; `None` is "no value", `OK`) through this presenter, on
    /// the JS thread (the caller's memory is read during the call only).
    #[napi(catch_unwind)]
    pub fn present(&self, data: Option<SyncText<'_>>, args: CallArgs) -> Result<NativeReply> {
        respond(Some(&self.inner), data.as_ref().map(sync_data), &args)
    }

    /// [`NativePresenter::present`] of a table of rows read as cells (`lib/rows.js`): the
    /// engine's document made from them, no JSON text written or read.
    #[napi(catch_unwind)]
    pub fn present_cells(
        &self,
        table: TableCells,
        args: CallArgs,
        stream: Option<&mut CellsStream>,
    ) -> Result<NativeReply> {
        respond(Some(&self.inner), Some(cells_data(&table, stream)?), &args)
    }

    /// [`NativePresenter::present_async`] of a table of rows whose document `stream` built
    /// while they were read (`lib/rows.js`): that document, owned, presented on the addon's
    /// pool; nothing of the cells is read after this call returns.
    #[napi(catch_unwind, ts_return_type = "Promise<NativeReply>")]
    pub fn present_cells_async<'e>(
        &self,
        env: &'e Env,
        table: TableCells,
        args: CallArgs,
        stream: &mut CellsStream,
    ) -> Result<Object<'e>> {
        doc_on_pool(env, Some(self.inner.clone()), stream.finish(&table)?, args)
    }

    /// [`NativePresenter::present`] on the addon's pool: a promise of the reply.
    #[napi(catch_unwind, ts_return_type = "Promise<NativeReply>")]
    pub fn present_async<'e>(
        &self,
        env: &'e Env,
        data: Option<ClassInstance<'_, OwnedText>>,
        args: CallArgs,
    ) -> Result<Object<'e>> {
        present_on_pool(env, Some(self.inner.clone()), shared(data.as_ref()), args)
    }
}

/// The per-call arguments of a presented response.
#[napi(object)]
pub struct CallArgs {
    /// The agent's `_select` argument as JSON text (any JSON value; checked by the engine).
    pub select: Option<String>,
    /// A format name (the engine's `Format` names).
    pub format: Option<String>,
    /// Keep at most this many items of a collection.
    pub limit: Option<f64>,
    /// Keep as many whole items as fit in this many tokens.
    pub token_budget: Option<f64>,
    /// The `action` attribute of a `<validation_error>`.
    pub action: Option<String>,
    /// Also return the side door's data as JSON text.
    pub want_data: Option<bool>,
}

/// One UI block of the side door.
#[napi(object)]
pub struct NativeUiBlock {
    /// The block type.
    #[napi(js_name = "type")]
    pub kind: String,
    /// The content, before the `<ui_passthrough>` wrapper.
    pub content: String,
    /// `title`, when set.
    pub title: Option<String>,
    /// `width`, when set.
    pub width: Option<String>,
    /// `priority`, when set.
    pub priority: Option<i64>,
}

/// One suggestion of the side door.
#[napi(object)]
pub struct NativeSuggestion {
    /// The tool to call.
    pub tool: String,
    /// Why.
    pub reason: String,
}

/// A presented response: the block texts, `isError` and the side door.
#[napi(object, object_from_js = false)]
pub struct NativeReply {
    /// The block texts in order (never empty).
    #[napi(ts_type = "Array<string>")]
    pub texts: Vec<JsText>,
    /// `isError`: absent on success.
    pub is_error: Option<bool>,
    /// The format the data block was written in.
    pub format: String,
    /// Rules, merged child rules included.
    pub rules: Vec<String>,
    /// Directives.
    pub hints: Vec<String>,
    /// UI blocks, embedded ones included.
    pub ui_blocks: Vec<NativeUiBlock>,
    /// Suggestions.
    pub suggestions: Vec<NativeSuggestion>,
    /// The side door's data as compact JSON (when asked for and there is any).
    pub data: Option<String>,
    /// Why the response is an error response: `select`, `output` or `encode`.
    pub problem: Option<String>,
    /// A `_select` was given but the presenter does not enable select.
    pub select_ignored: bool,
}

fn natural(v: Option<f64>, what: &str) -> Result<Option<usize>> {
    match v {
        None => Ok(None),
        Some(x)
            if x.is_finite() && x >= 0.0 && x.fract() == 0.0 && x <= 9.007_199_254_740_991e15 =>
        {
            Ok(Some(x as usize))
        }
        Some(_) => Err(usage(&format!("{what} must be a natural number"))),
    }
}

/// The call of `args`: the front door, nothing else.
fn call_of(presenter: Option<&Presenter>, args: &CallArgs) -> Result<ToolCall> {
    let mut call = ToolCall::new();
    if let Some(p) = presenter {
        call = call.presenter(p);
    }
    let format = match &args.format {
        Some(f) => Some(f.parse::<Format>().map_err(|e| usage(&e.to_string()))?),
        None => None,
    };
    call = call.overrides(Overrides {
        format,
        limit: natural(args.limit, "limit")?,
        token_budget: natural(args.token_budget, "tokenBudget")?,
    });
    if let Some(a) = &args.action {
        call = call.action(a.clone());
    }
    if let Some(s) = &args.select {
        let doc = toolwire::json::parse(s.as_bytes(), &ParseOptions::default())
            .map_err(|e| engine_error(&e))?;
        call = call.select_value(doc.root());
    }
    Ok(call)
}

/// True when `present` with `args` and no presenter responds with the pretty data block
/// alone (the engine's [`ToolCall::plain_format`]): a table read as cells is then written
/// as that block by `rowsPretty`.
#[napi(catch_unwind)]
pub fn plain_pretty(args: CallArgs) -> Result<bool> {
    Ok(call_of(None, &args)?.plain_format() == Some(Format::Pretty))
}

/// A call's input: JSON text held by the binding, whose contract (a peak under twice the
/// input, `toon::JsonInput::Binding`) lets a large array be read once; the document of a
/// table read as cells; or nothing.
fn read_input<'d>(call: &ToolCall, data: Option<Data<'d>>) -> Result<Input<'d>> {
    match data {
        Some(Data::Json(bytes)) => call
            .read_held(bytes, toon::JsonInput::Binding)
            .map_err(|e| engine_error(&e)),
        Some(Data::Cells(table)) => Ok(Input::doc(rows::rows_doc(table)?)),
        Some(Data::Doc(doc)) => Ok(Input::doc(doc)),
        None => Ok(Input::nothing()),
    }
}

/// What a call presents: JSON text, a table of JavaScript rows read as cells, or the
/// document of such a table built while it was read (`rows::CellsStream`).
enum Data<'d> {
    Json(&'d [u8]),
    Cells(&'d rows::TableCells),
    Doc(toolwire::Doc<'static>),
}

/// The whole call: the front door, nothing else.
fn respond(
    presenter: Option<&Presenter>,
    data: Option<Data<'_>>,
    args: &CallArgs,
) -> Result<NativeReply> {
    let call = call_of(presenter, args)?;
    let input = read_input(&call, data)?;
    let reply = call.respond(&input).map_err(|e| engine_error(&e))?;
    let mut out = native_reply(reply.response(), args.want_data.unwrap_or(false))?;
    out.problem = reply.problem().map(|p| {
        match p {
            Problem::Select(_) => "select",
            Problem::Output => "output",
            Problem::Encode(_) => "encode",
            _ => "other",
        }
        .to_owned()
    });
    out.select_ignored = reply.select_ignored();
    Ok(out)
}

/// A built response as the JS layer reads it (no problem recorded).
fn native_reply(r: &toolwire::wire::ToolResponse<'_>, want_data: bool) -> Result<NativeReply> {
    let meta = r.meta();
    Ok(NativeReply {
        texts: (0..r.block_count())
            .map(|i| JsText(r.block_bytes(i)))
            .collect(),
        is_error: r.is_error(),
        format: meta.format.to_string(),
        rules: meta.rules.clone(),
        hints: meta.hints.clone(),
        ui_blocks: meta
            .ui_blocks
            .iter()
            .map(|b| NativeUiBlock {
                kind: b.kind().to_owned(),
                content: b.content().to_owned(),
                title: b.meta().title.clone(),
                width: b.meta().width.map(|w| w.as_str().to_owned()),
                priority: b.meta().priority,
            })
            .collect(),
        suggestions: meta
            .suggestions
            .iter()
            .map(|s| NativeSuggestion {
                tool: s.tool.clone(),
                reason: s.reason.clone(),
            })
            .collect(),
        data: if want_data {
            r.data().map(|v| utf8(to_vec_compact(v))).transpose()?
        } else {
            None
        },
        problem: None,
        select_ignored: false,
    })
}

/// Presents `data` (JSON text; `None` is "no value", `OK`) without a presenter, on the JS
/// thread (the caller's memory is read during the call only).
#[napi(catch_unwind)]
pub fn present_plain(data: Option<SyncText<'_>>, args: CallArgs) -> Result<NativeReply> {
    respond(None, data.as_ref().map(sync_data), &args)
}

/// [`present_plain`] of a table of rows read as cells, as [`NativePresenter::present_cells`].
#[napi(catch_unwind)]
pub fn present_plain_cells(
    table: TableCells,
    args: CallArgs,
    stream: Option<&mut CellsStream>,
) -> Result<NativeReply> {
    respond(None, Some(cells_data(&table, stream)?), &args)
}

/// What a call presents of a table read as cells: the document `stream` built while they
/// were read when there is one (`table` then holds the last cells), else `table` itself,
/// whose document the engine makes. The cells are `lib/rows.js`'s own arrays, which no
/// JavaScript reaches while the engine reads them (a pool thread too): nothing writes them,
/// and the table holds them until the call returns.
fn cells_data<'t>(table: &'t TableCells, stream: Option<&mut CellsStream>) -> Result<Data<'t>> {
    Ok(match stream {
        Some(stream) => Data::Doc(stream.finish(table)?),
        None => Data::Cells(table),
    })
}

/// [`present_plain`] on the addon's pool: a promise of the reply.
#[napi(catch_unwind, ts_return_type = "Promise<NativeReply>")]
pub fn present_plain_async<'e>(
    env: &'e Env,
    data: Option<ClassInstance<'_, OwnedText>>,
    args: CallArgs,
) -> Result<Object<'e>> {
    present_on_pool(env, None, shared(data.as_ref()), args)
}

/// [`present_plain_async`] of a table of rows, as [`NativePresenter::present_cells_async`].
#[napi(catch_unwind, ts_return_type = "Promise<NativeReply>")]
pub fn present_plain_cells_async<'e>(
    env: &'e Env,
    table: TableCells,
    args: CallArgs,
    stream: &mut CellsStream,
) -> Result<Object<'e>> {
    doc_on_pool(env, None, stream.finish(&table)?, args)
}

/// A presented response computed on the addon's pool from a document it owns.
fn doc_on_pool<'e>(
    env: &'e Env,
    presenter: Option<Presenter>,
    doc: toolwire::Doc<'static>,
    args: CallArgs,
) -> Result<Object<'e>> {
    spawn_promise(env, move || {
        respond(presenter.as_ref(), Some(Data::Doc(doc)), &args)
    })
}

/// A presented response computed on the addon's pool, from bytes the addon owns.
fn present_on_pool<'e>(
    env: &'e Env,
    presenter: Option<Presenter>,
    data: Option<Arc<Vec<u8>>>,
    args: CallArgs,
) -> Result<Object<'e>> {
    spawn_promise(env, move || {
        respond(
            presenter.as_ref(),
            data.as_ref().map(|d| Data::Json(d)),
            &args,
        )
    })
}

/// One action of a tool description.
#[napi(object)]
pub struct NativeAction {
    /// The action name.
    pub name: String,
    /// What it does.
    pub description: Option<String>,
    /// Its required parameters.
    pub required: Option<Vec<String>>,
    /// Whether it destroys data.
    pub destructive: Option<bool>,
}

/// The TOON tool description of WIRE.md §6.
#[napi]
pub fn toon_description(
    tool_name: String,
    description: String,
    discriminator: String,
    actions: Vec<NativeAction>,
) -> String {
    let actions: Vec<ActionDescription> = actions
        .into_iter()
        .map(|a| ActionDescription {
            name: a.name,
            description: a.description.unwrap_or_default(),
            required: a.required.unwrap_or_default(),
            destructive: a.destructive.unwrap_or(false),
        })
        .collect();
    toolwire::present::toon_description(&tool_name, &description, &discriminator, &actions)
}

/// The `INTERNAL_ERROR` envelope of a failed handler (WIRE.md §8).
#[napi]
pub fn handler_error(action: String, message: String) -> NativeReply {
    let r = toolwire::wire::handler_error(&action, &message);
    // An error response has no data to write: it cannot fail.
    native_reply(&r, false).unwrap_or_else(|_| unreachable!("an error response is UTF-8"))
}

/// In-flight chunks a stream's worker may have handed to the JS thread and not yet seen
/// taken: with [`toolwire::call::CHUNK_BYTES`] chunks, at most 512 KiB waits in the queue
/// (unless the stream spills: see [`pool`]).
const STREAM_WINDOW: usize = 2;

/// Flow control between a stream's job and its JS `Readable`.
#[derive(Default)]
struct Flow {
    /// Chunks sent to the JS thread and not yet acknowledged.
    in_flight: usize,
    /// The `Readable`'s buffer is full (`push` returned false): wait for `read()`.
    paused: bool,
    /// The stream was destroyed: stop encoding.
    cancelled: bool,
    /// A job waited for a thread while this stream waited for its reader: the rest of the
    /// response goes to the stream's buffer without waiting, so the thread is freed
    /// ([`pool::State::give_up`]).
    spilled: bool,
    /// The job waits for the reader (it holds a pool thread while it does).
    waiting: bool,
    /// Bytes the engine wrote and the job sent so far.
    produced: usize,
    /// The job is done (complete, failed or cancelled).
    finished: bool,
}

/// The flow state of one stream, shared by its job and its [`StreamControl`]. Lock order:
/// the pool's lock ([`pool::lock`]), then this one; a paused job waits on the pool's flow
/// signal, so a change that can let it go on (`ack`, `resume`, `cancel`, a starved pool) is
/// made with the pool locked.
#[derive(Default)]
struct FlowGate {
    flow: std::sync::Mutex<Flow>,
}

impl FlowGate {
    fn lock(&self) -> std::sync::MutexGuard<'_, Flow> {
        // A poisoned lock only means a panic elsewhere: the flags are still meaningful.
        self.flow.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A change that can let the job go on: made under the pool's lock, then signalled.
    fn signal(&self, f: impl FnOnce(&mut Flow)) {
        let _pool = pool::lock();
        f(&mut self.lock());
        pool::notify_flow();
    }

    /// Waits until another chunk may be sent; false when the stream was cancelled. Never
    /// waits while the pool is starved (see `src/pool.rs`): then the stream spills.
    fn admit(&self) -> bool {
        let mut p = pool::lock();
        loop {
            {
                let mut f = self.lock();
                if f.cancelled {
                    f.waiting = false;
                    return false;
                }
                if !f.spilled && (f.paused || f.in_flight >= STREAM_WINDOW) && p.starved() {
                    p.give_up();
                    f.spilled = true;
                }
                if f.spilled || (!f.paused && f.in_flight < STREAM_WINDOW) {
                    f.in_flight += 1;
                    f.waiting = false;
                    return true;
                }
                f.waiting = true;
            }
            p = pool::wait_flow(p);
        }
    }
}

/// What a stream's job hands to the JS thread.
enum StreamEvent {
    /// The next bytes of the framed response.
    Chunk(Vec<u8>),
    /// The response is complete.
    End,
    /// The call failed before any byte (the marked error message).
    Fail(String),
}

/// The JS side's handle on a streaming response: `ack` after each chunk (with `push`'s
/// result), `resume` from `read()`, `cancel` from `destroy()`.
#[napi]
pub struct StreamControl {
    gate: Arc<FlowGate>,
}

#[napi]
impl StreamControl {
    /// A chunk was pushed; `more` is what `Readable.push` returned.
    #[napi]
    pub fn ack(&self, more: bool) {
        self.gate.signal(|f| {
            f.in_flight = f.in_flight.saturating_sub(1);
            f.paused = !more;
        });
    }

    /// The consumer wants more (`Readable._read`).
    #[napi]
    pub fn resume(&self) {
        self.gate.signal(|f| f.paused = false);
    }

    /// Nobody reads any more (`Readable._destroy`): the job stops encoding.
    #[napi]
    pub fn cancel(&self) {
        self.gate.signal(|f| f.cancelled = true);
    }

    /// Bytes of the response the engine has produced so far (the side door of the stream).
    #[napi]
    pub fn produced(&self) -> f64 {
        self.gate.lock().produced as f64
    }

    /// True once the job is done: the response is complete, failed or cancelled.
    #[napi]
    pub fn finished(&self) -> bool {
        self.gate.lock().finished
    }

    /// True when the stream stopped waiting for its reader to free its thread (see `src/pool.rs`).
    #[napi]
    pub fn spilled(&self) -> bool {
        self.gate.lock().spilled
    }

    /// True while the job waits for the reader, holding a pool thread.
    #[napi]
    pub fn waiting(&self) -> bool {
        self.gate.lock().waiting
    }
}

/// The arguments of a stream's JS callback: `(error, chunk, done)`.
type StreamArgs = FnArgs<(Option<String>, Option<Buffer>, bool)>;

type StreamCallback = ThreadsafeFunction<StreamEvent, (), StreamArgs, Status, false>;

/// The JSON-RPC id of a frame: a string, or an integer given as its decimal digits
/// (`number`). Anything else was refused by the JS layer; the digits are checked again here,
/// so a number can never be written as something that is not one.
fn frame_id(id: String, number: bool) -> Result<Id> {
    if !number {
        return Ok(Id::String(id));
    }
    let digits = id.strip_prefix('-').unwrap_or(&id);
    let integer = match digits.as_bytes() {
        [b'0'] => true,
        [b'1'..=b'9', rest @ ..] => rest.iter().all(u8::is_ascii_digit),
        _ => false,
    };
    if !integer {
        return Err(usage(&format!("frame.id: {id:?} is not an integer")));
    }
    Ok(Id::Number(id))
}

/// What a stream writes: the call, its input (owned) and the frame around the response.
struct StreamJob {
    presenter: Option<Presenter>,
    data: StreamData,
    args: CallArgs,
    id: Option<Id>,
    protocol: Option<String>,
}

/// A stream's input: JSON text (or none), or the document of a table's cells built while
/// they were read (`lib/rows.js`).
enum StreamData {
    Json(Option<Arc<Vec<u8>>>),
    Doc(toolwire::Doc<'static>),
}

impl StreamJob {
    /// The job of a stream through `presenter` (or none) of `data`, framed by `id` (a
    /// string, or an integer's digits when `id_number`) and `protocol`.
    fn new(
        presenter: Option<Presenter>,
        data: StreamData,
        args: CallArgs,
        id: Option<String>,
        id_number: bool,
        protocol: Option<String>,
    ) -> Result<StreamJob> {
        Ok(StreamJob {
            presenter,
            data,
            args,
            id: id.map(|id| frame_id(id, id_number)).transpose()?,
            protocol,
        })
    }
}

/// A framed response (a JSON-RPC line when `id` is given, else the bare `CallToolResult`
/// line) written by a job of the addon's pool while it is encoded: each chunk of
/// [`toolwire::call::CHUNK_BYTES`] goes to `on_event(error, chunk, done)` on the JS thread as
/// soon as the engine fills it, at most [`STREAM_WINDOW`] ahead of the `Readable`, which
/// pauses the job while its buffer is full (unless the pool is starved: see [`pool`]). Every
/// check runs before the first byte, so an error is the only event of a failed call.
fn start_stream(job: StreamJob, on_event: Function<'_, StreamArgs, ()>) -> Result<StreamControl> {
    pool_ready()?;
    let tsfn: StreamCallback = on_event
        .build_threadsafe_function::<StreamEvent>()
        .callee_handled::<false>()
        .build_callback(|ctx: ThreadsafeCallContext<StreamEvent>| {
            Ok(FnArgs::from(match ctx.value {
                StreamEvent::Chunk(bytes) => (None, Some(Buffer::from(bytes)), false),
                StreamEvent::End => (None, None, true),
                StreamEvent::Fail(message) => (Some(message), None, true),
            }))
        })?;
    let gate = Arc::new(FlowGate::default());
    let job_gate = gate.clone();
    pool::submit(Box::new(move || {
        // The queue is unbounded, so a call never waits (a paused stream waits in `admit`).
        let send = |e: StreamEvent| {
            tsfn.call(e, ThreadsafeFunctionCallMode::NonBlocking);
        };
        let run = std::panic::AssertUnwindSafe(|| stream_frames(job, &job_gate, &send));
        let outcome = std::panic::catch_unwind(run);
        job_gate.lock().finished = true;
        match outcome {
            Ok(Ok(())) => send(StreamEvent::End),
            Ok(Err(e)) => send(StreamEvent::Fail(e.reason.clone())),
            Err(_) => send(StreamEvent::Fail(format!(
                "{ERROR_MARK}{{\"category\":\"internal\",\"message\":\"the engine panicked\"}}"
            ))),
        }
    }));
    Ok(StreamControl { gate })
}

/// The job's part of [`start_stream`]: the front door, then the reply written chunk by chunk
/// through the flow gate.
fn stream_frames(job: StreamJob, gate: &FlowGate, send: &dyn Fn(StreamEvent)) -> Result<()> {
    let call = call_of(job.presenter.as_ref(), &job.args)?;
    let input = match job.data {
        StreamData::Json(ref bytes) => read_input(&call, bytes.as_deref().map(|d| Data::Json(d)))?,
        StreamData::Doc(doc) => read_input(&call, Some(Data::Doc(doc)))?,
    };
    let reply = call.respond(&input).map_err(|e| engine_error(&e))?;
    let protocol = job
        .protocol
        .as_deref()
        .map(Protocol::from_revision)
        .unwrap_or_default();
    let shape = match &job.id {
        Some(id) => Framing::Frame {
            id: id.clone(),
            protocol,
        },
        None => Framing::Result { protocol },
    };
    let mut sink = toolwire::sink::ChunkedSink::new(toolwire::call::CHUNK_BYTES, |b| {
        if !gate.admit() {
            return false;
        }
        gate.lock().produced += b.len();
        send(StreamEvent::Chunk(Vec::from(b)));
        true
    });
    reply.write(&shape, &mut sink);
    sink.finish();
    Ok(())
}

/// Streams a framed response without a presenter (see `start_stream`). `id` is the JSON-RPC
/// id: a string, or an integer's digits when `id_number`.
#[napi(catch_unwind)]
pub fn present_plain_stream(
    data: Option<ClassInstance<'_, OwnedText>>,
    args: CallArgs,
    id: Option<String>,
    id_number: bool,
    protocol: Option<String>,
    on_event: Function<'_, StreamArgs, ()>,
) -> Result<StreamControl> {
    let data = StreamData::Json(shared(data.as_ref()));
    let job = StreamJob::new(None, data, args, id, id_number, protocol)?;
    start_stream(job, on_event)
}

/// [`present_plain_stream`] of a table of rows whose document `stream` built while they were
/// read (`lib/rows.js`): that document, owned by the job; nothing of the cells is read after
/// this call returns.
#[napi(catch_unwind)]
#[allow(clippy::too_many_arguments)]
pub fn present_plain_cells_stream(
    table: TableCells,
    args: CallArgs,
    stream: &mut CellsStream,
    id: Option<String>,
    id_number: bool,
    protocol: Option<String>,
    on_event: Function<'_, StreamArgs, ()>,
) -> Result<StreamControl> {
    let data = StreamData::Doc(stream.finish(&table)?);
    let job = StreamJob::new(None, data, args, id, id_number, protocol)?;
    start_stream(job, on_event)
}

/// Bytes of texts the addon holds for external strings V8 has not collected yet (at most
/// 64 MiB; see `external`): for tests and a server's diagnostics.
#[napi]
pub fn external_text_bytes() -> f64 {
    text::external::live() as f64
}

/// Bytes of buffers the addon keeps for the next long texts, their strings collected (at
/// most 64 MiB; see `external`): for tests and a server's diagnostics.
#[napi]
pub fn kept_text_bytes() -> f64 {
    text::external::kept() as f64
}

/// The number of threads the addon's pool runs at most (see `src/pool.rs`).
#[napi]
pub fn pool_threads() -> u32 {
    pool::THREADS as u32
}

#[napi]
impl NativePresenter {
    /// Streams a framed response through this presenter (see `start_stream`). `id` is the
    /// JSON-RPC id: a string, or an integer's digits when `id_number`.
    #[napi(catch_unwind)]
    pub fn present_stream(
        &self,
        data: Option<ClassInstance<'_, OwnedText>>,
        args: CallArgs,
        id: Option<String>,
        id_number: bool,
        protocol: Option<String>,
        on_event: Function<'_, StreamArgs, ()>,
    ) -> Result<StreamControl> {
        let data = StreamData::Json(shared(data.as_ref()));
        let job = StreamJob::new(
            Some(self.inner.clone()),
            data,
            args,
            id,
            id_number,
            protocol,
        )?;
        start_stream(job, on_event)
    }

    /// [`NativePresenter::present_stream`] of a table of rows, as
    /// [`present_plain_cells_stream`].
    #[napi(catch_unwind)]
    #[allow(clippy::too_many_arguments)]
    pub fn present_cells_stream(
        &self,
        table: TableCells,
        args: CallArgs,
        stream: &mut CellsStream,
        id: Option<String>,
        id_number: bool,
        protocol: Option<String>,
        on_event: Function<'_, StreamArgs, ()>,
    ) -> Result<StreamControl> {
        let data = StreamData::Doc(stream.finish(&table)?);
        let job = StreamJob::new(
            Some(self.inner.clone()),
            data,
            args,
            id,
            id_number,
            protocol,
        )?;
        start_stream(job, on_event)
    }
}

// After `NativePresenter`: napi-derive must have seen the struct before an `impl` of it.
pub mod builder;
