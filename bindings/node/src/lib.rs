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

use napi::bindgen_prelude::{
    Buffer, ClassInstance, Either, Either3, FnArgs, FromNapiValue, Function, Object,
    ObjectFinalize, ToNapiValue, Uint8Array,
};
use napi::threadsafe_function::{
    ThreadsafeCallContext, ThreadsafeFunction, ThreadsafeFunctionCallMode,
};
use napi::{Env, Error, JsString, Result, Status};
use napi_derive::napi;
use toolwire::call::{Framing, Input, Problem, ToolCall};
use toolwire::frame::{Id, Protocol};
use toolwire::json::{ParseOptions, to_vec_compact};
use toolwire::present::{ActionDescription, Overrides, Presenter, PresenterError};
use toolwire::toon::{self, DecodeOptions, Delimiter, EncodeOptions};
use toolwire::wire::Format;
use utf16::{utf16_more, utf16_of};

/// Prefix of the message of every error the addon throws (the JS layer parses the rest).
const ERROR_MARK: &str = "\u{0}toolwire:";

mod pool;
mod rows;
mod utf16;
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

fn encode_options(delimiter: &str, indent: u32) -> Result<EncodeOptions> {
    let d = match delimiter {
        "," => Delimiter::Comma,
        "\t" => Delimiter::Tab,
        "|" => Delimiter::Pipe,
        _ => return Err(usage("invalid delimiter")),
    };
    Ok(EncodeOptions::new().delimiter(d).indent(indent as usize))
}

/// The engine's `encode_json` with the bindings' extra room for the reading of a large input
/// (`toon::JsonInput::Binding`): the contract here is a peak under twice the input, so a
/// Buffer of up to about 20 MB of rows is read once.
fn encode_json_into<W: toolwire::Sink + ?Sized>(
    json: &[u8],
    opts: &EncodeOptions,
    out: &mut W,
) -> toolwire::Result<()> {
    let opts = opts.clone().json_input(toon::JsonInput::Binding);
    toon::encode_json(json, &opts, out)
}

fn encode_json_bytes(json: &[u8], opts: &EncodeOptions) -> Result<String> {
    let mut out = toolwire::sink::output_with_capacity(json.len() / 2 + 16);
    encode_json_into(json, opts, &mut out).map_err(|e| engine_error(&e))?;
    utf8(out)
}

/// Output bytes per JS string part of [`encode_json`]: under V8's largest regular object
/// (128 KiB), so each part is made in the young generation's pages, which V8 reuses, rather
/// than as a large object on fresh pages of its own. Measured on 100k flat invoices (6.5 MB of
/// TOON), 300 calls: 2,050 → 415 page faults a call and about 10% less CPU than 1 MiB parts.
const OUT_CHUNK: usize = 64 << 10;

/// TOON texts are gathered in segments of up to this size, each handed over as one string: an
/// external string where Node has them and the budget allows (neither copied nor faulted by
/// V8, nor copied again by its young-generation collections, as parts of 64 KiB were: 100k
/// nested rows, 25 MB of TOON, 5% of the call in the scavenger's copies). Where a segment
/// cannot be external, at most this much exists twice (Rust and V8) before it becomes parts.
const WHOLE_TOON: usize = 8 << 20;

/// TOON of JSON text (`toon::encode_json`): no JavaScript value is built. The text is
/// gathered a segment of up to `WHOLE_TOON` at a time: as bytes while it is ASCII
/// ([`JsText`]), and from its first other character as UTF-16 ([`JsUnits`]), each chunk
/// converted as the encoder hands it over (on this thread while the pool still parses: 100k
/// flat rows with non-ASCII names, a conversion of the whole at the end cost ~5.5 ms, chunk
/// by chunk ~2.7 more). A text of one segment comes back as one string; a longer one as
/// its segments, each an external string, joined by the JS layer into one rope string.
/// When a full segment cannot be external (no external strings, or the budget spent), it
/// and the rest of the text come back as parts of 64 KiB (`OUT_CHUNK`), each made a JS
/// string as soon as the encoder fills it, so the whole text never exists twice: once in
/// Rust and once in V8. ASCII parts become one-byte strings by a plain copy.
#[napi(catch_unwind, ts_return_type = "string | Array<string>")]
pub fn encode_json<'e>(
    env: &'e Env,
    json: Text,
    delimiter: String,
    indent: u32,
) -> Result<Either3<JsText, JsUnits, Vec<JsString<'e>>>> {
    let opts = encode_options(&delimiter, indent)?;
    let input = bytes_of(&json);
    let room = (input.len() / 2 + 16).min(WHOLE_TOON);
    let mut whole = Some(Gathered::Ascii(toolwire::sink::output_with_capacity(room)));
    let mut gathered = 0;
    let mut parts = Vec::new();
    let mut carry = Vec::new();
    let mut units = Vec::new();
    let mut failed = None;
    let sink = {
        let mut fail = |e| {
            failed.get_or_insert(e);
            false
        };
        let mut sink = toolwire::sink::ChunkedSink::new(OUT_CHUNK, |chunk| {
            if let Some(w) = &mut whole {
                if gathered + chunk.len() > WHOLE_TOON && w.fits_external() {
                    // A full segment: one external string, and a new segment begins.
                    let sealed = whole.take().map(|w| w.seal(env, room));
                    match sealed {
                        Some(Ok((s, next))) => {
                            parts.push(s);
                            whole = Some(next);
                            gathered = 0;
                        }
                        Some(Err(e)) => return fail(e),
                        None => {}
                    }
                }
            }
            if let Some(w) = &mut whole {
                if gathered + chunk.len() <= WHOLE_TOON {
                    gathered += chunk.len();
                    return match w.push(&chunk, room) {
                        Ok(()) => true,
                        Err(e) => fail(e),
                    };
                }
                // Too long to gather: what was gathered becomes parts, then the rest does.
                let done = match whole.take() {
                    Some(Gathered::Ascii(bytes)) => bytes
                        .chunks(OUT_CHUNK)
                        .try_for_each(|b| push_part(env, &mut carry, &mut units, b, &mut parts)),
                    Some(Gathered::Wide(wide, rest)) => {
                        carry = rest;
                        wide.chunks(UNITS_PART).try_for_each(|u| {
                            parts.push(env.create_string_utf16(u)?);
                            Ok(())
                        })
                    }
                    None => Ok(()),
                };
                if let Err(e) = done {
                    return fail(e);
                }
            }
            match push_part(env, &mut carry, &mut units, &chunk, &mut parts) {
                Ok(()) => true,
                Err(e) => fail(e),
            }
        });
        let res = encode_json_into(input, &opts, &mut sink);
        sink.finish();
        res
    };
    sink.map_err(|e| engine_error(&e))?;
    if let Some(e) = failed {
        return Err(e);
    }
    match whole {
        Some(Gathered::Ascii(bytes)) if parts.is_empty() => return Ok(Either3::A(JsText(bytes))),
        Some(Gathered::Wide(wide, rest)) if parts.is_empty() && rest.is_empty() => {
            return Ok(Either3::B(JsUnits(wide)));
        }
        Some(last) => {
            let (s, next) = last.seal(env, 0)?;
            if !matches!(next, Gathered::Ascii(_)) {
                // A character cut at the very end.
                return Err(mark("encode", "output is not UTF-8", None));
            }
            parts.push(s);
            return Ok(Either3::C(parts));
        }
        None => {}
    }
    if !carry.is_empty() {
        return Err(mark("encode", "output is not UTF-8", None));
    }
    flush_units(env, &mut units, &mut parts)?;
    Ok(Either3::C(parts))
}

/// A text gathered whole as an encoder hands it over: its bytes while they are ASCII, then
/// its UTF-16 units and the bytes of a character the last chunk cut.
enum Gathered {
    Ascii(Vec<u8>),
    Wide(Vec<u16>, Vec<u8>),
}

impl Gathered {
    /// True when this segment, as it is held, fits the external strings' budget now.
    fn fits_external(&self) -> bool {
        match self {
            Gathered::Ascii(bytes) => external::fits::<u8>(bytes.capacity()),
            Gathered::Wide(units, _) => external::fits::<u16>(units.capacity()),
        }
    }

    /// This segment as one JS string (external while the budget allows, else copied), and
    /// the next segment, empty but for the bytes of a character this one's last chunk cut
    /// (`room`: the bytes the next is expected to take).
    fn seal<'e>(self, env: &'e Env, room: usize) -> Result<(JsString<'e>, Gathered)> {
        let raw = env.raw();
        let (value, rest) = match self {
            Gathered::Ascii(bytes) => {
                // SAFETY: `raw` is the env of the running call; the bytes are ASCII (pushed
                // as such), so Latin-1.
                let made = match unsafe { external::make(raw, bytes) }? {
                    Ok(s) => s,
                    // SAFETY: as above.
                    Err(bytes) => unsafe { JsText::to_napi_value(raw, JsText(bytes)) }?,
                };
                (made, Vec::new())
            }
            Gathered::Wide(units, rest) => {
                // SAFETY: as above.
                (
                    unsafe { JsUnits::to_napi_value(raw, JsUnits(units)) }?,
                    rest,
                )
            }
        };
        // SAFETY: `value` is a string made just now in this call's env.
        let s = unsafe { JsString::from_napi_value(raw, value) }?;
        let next = if rest.is_empty() {
            Gathered::Ascii(toolwire::sink::output_with_capacity(room))
        } else {
            Gathered::Wide(Vec::new(), rest)
        };
        Ok((s, next))
    }

    /// Adds `chunk`; `room`: the bytes the whole is expected to take.
    fn push(&mut self, chunk: &[u8], room: usize) -> Result<()> {
        match self {
            Gathered::Ascii(bytes) if chunk.is_ascii() => bytes.extend_from_slice(chunk),
            Gathered::Ascii(bytes) => {
                let mut wide = Vec::new();
                toolwire::sink::reserve_output(&mut wide, room.max(bytes.len() + chunk.len()));
                wide.extend(bytes.iter().map(|&b| u16::from(b)));
                let mut rest = Vec::new();
                utf16_more(&mut rest, &mut wide, chunk).map_err(not_utf8)?;
                *self = Gathered::Wide(wide, rest);
            }
            Gathered::Wide(wide, rest) => utf16_more(rest, wide, chunk).map_err(not_utf8)?,
        }
        Ok(())
    }
}

/// Makes the complete UTF-8 characters of `carry` + `chunk` a JS string in `parts`, keeping
/// an incomplete character at the end for the next chunk (`units`: scratch for UTF-16).
fn push_part<'e>(
    env: &'e Env,
    carry: &mut Vec<u8>,
    units: &mut Vec<u16>,
    chunk: &[u8],
    parts: &mut Vec<JsString<'e>>,
) -> Result<()> {
    // The common case, checked in one pass: ASCII is whole UTF-8 characters, and a one-byte
    // string by a plain copy.
    if carry.is_empty() && units.is_empty() && chunk.is_ascii() {
        if !chunk.is_empty() {
            parts.push(env.create_string_latin1(chunk)?);
        }
        return Ok(());
    }
    // Decoded here in one pass and handed over as UTF-16 (a copy): napi's UTF-8 string
    // decodes twice (its length, then the text) after a validation of our own, which was
    // 20% of encodeJson on 100k rows with non-ASCII names (DECISIONS.md, "Node binding").
    utf16_more(carry, units, chunk).map_err(not_utf8)?;
    if units.len() >= UNITS_PART {
        flush_units(env, units, parts)?;
    }
    Ok(())
}

/// UTF-16 code units per JS string part: V8 large objects, which its young-generation
/// collections never copy (64 KiB parts of two-byte text were copied by the scavenger).
const UNITS_PART: usize = 512 << 10;

/// Makes the UTF-16 text in `units` a JS string in `parts`.
fn flush_units<'e>(
    env: &'e Env,
    units: &mut Vec<u16>,
    parts: &mut Vec<JsString<'e>>,
) -> Result<()> {
    if !units.is_empty() {
        parts.push(env.create_string_utf16(&*units)?);
        units.clear();
    }
    Ok(())
}

/// The error of engine output that is not UTF-8 (never expected: the encoders write UTF-8).
fn not_utf8(_: utf16::NotUtf8) -> Error {
    mark("encode", "output is not UTF-8", None)
}

/// [`utf16_of`] of the whole of `bytes`: an error unless they are UTF-8 to the end.
fn whole_utf16_of(bytes: &[u8], out: &mut Vec<u16>) -> Result<()> {
    match utf16_of(bytes, out) {
        Some(n) if n == bytes.len() => Ok(()),
        _ => Err(mark("encode", "output is not UTF-8", None)),
    }
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

/// [`encode_json`] on the addon's pool: a promise of the TOON text. The JSON text is an
/// [`OwnedText`], so nothing the caller does to its buffer meanwhile reaches the worker.
#[napi(catch_unwind, ts_return_type = "Promise<string>")]
pub fn encode_json_async<'e>(
    env: &'e Env,
    json: &OwnedText,
    delimiter: String,
    indent: u32,
) -> Result<Object<'e>> {
    let opts = encode_options(&delimiter, indent)?;
    let bytes = json.bytes.clone();
    spawn_promise(env, move || encode_json_bytes(&bytes, &opts))
}

/// Decodes TOON text and returns the value as compact JSON text (`JSON.stringify` form;
/// integers keep every digit, `-0` is `0`), for `JSON.parse` on the JS side.
#[napi(catch_unwind)]
pub fn decode_to_json(text: String, indent: u32, strict: bool) -> Result<String> {
    let opts = DecodeOptions::new().indent(indent as usize).strict(strict);
    let doc = toon::decode(text.as_bytes(), &opts).map_err(|e| engine_error(&e))?;
    utf8(to_vec_compact(doc.root()))
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
        respond(Some(&self.inner), data.as_ref().map(sync_bytes), &args)
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

/// Text made a JS string without napi's UTF-8 string: ASCII by a plain copy into a one-byte
/// string, anything else decoded once here (`utf16_of`) and copied as UTF-16. napi's decodes
/// twice (the length, then the text): on 100k rows, pretty, 16% of `present`'s time.
///
/// A text of `EXTERNAL_FROM` bytes or more is an external string while the budget allows
/// (module `external`): neither copied nor faulted by V8.
///
/// Otherwise a text over `ROPE_PART` bytes that is not ASCII is made as V8's
/// `JSON.stringify` makes its own: parts of at most that many bytes, joined by
/// `String.prototype.concat` into one rope string. Each part is a regular young-generation
/// object, on pages V8 reuses; one string of the whole text is a large object on fresh pages
/// of its own, written through the kernel's page faults first (100k pretty rows with
/// non-ASCII names are 32 MB of UTF-16: that string and its UTF-16 copy here were 35% of
/// `make(buf).build()`; as parts, 10 ms less CPU). ASCII stays one string: half the size, a
/// plain copy, and measured faster so.
///
/// The bytes are the engine's UTF-8 (`ToolResponse::block_bytes`), checked here as they are
/// read (an ASCII scan or the UTF-16 decoder): a `String` of them was checked once more
/// first (3% of `present(rows)` of 100k non-ASCII rows).
pub struct JsText(pub(crate) Vec<u8>);

/// UTF-16 text made a JS string: an external string where Node has them and the budget
/// allows (module `external`), else copied into V8 (parts of `ROPE_PART` units joined into
/// a rope past that, as [`JsText`]'s).
pub struct JsUnits(pub(crate) Vec<u16>);

impl ToNapiValue for JsUnits {
    unsafe fn to_napi_value(raw: napi::sys::napi_env, val: Self) -> Result<napi::sys::napi_value> {
        let env = Env::from_raw(raw);
        let units = if val.0.len() * 2 >= EXTERNAL_FROM {
            // SAFETY: `raw` is the env of this call (napi hands it to `to_napi_value`).
            match unsafe { external::make(raw, val.0) }? {
                Ok(s) => return Ok(s),
                Err(units) => units,
            }
        } else {
            val.0
        };
        if units.len() <= ROPE_PART {
            let s = env.create_string_utf16(&units)?;
            // SAFETY: a string made just now in this call's env.
            return unsafe { JsString::to_napi_value(raw, s) };
        }
        let mut parts = Vec::with_capacity(units.len() / ROPE_PART + 1);
        for piece in units.chunks(ROPE_PART) {
            let s = env.create_string_utf16(piece)?;
            // SAFETY: a string made just now in this call's env.
            parts.push(unsafe { JsString::to_napi_value(raw, s) }?);
        }
        // SAFETY: `raw` is this call's env and every part a live handle of it (two or more).
        unsafe { concat(raw, &parts) }
    }
}

/// Texts from this size on become external strings where Node has them ([`external`]).
const EXTERNAL_FROM: usize = 1 << 20;

/// Strings whose characters stay in the addon's memory (V8's external strings):
/// `node_api_create_external_string_latin1` and `_utf16`, experimental in Node 20 and found
/// at run time (an addon linked against them would not load on a Node without them). A
/// text of 20 MB copied into a V8 string is a large object on fresh pages, each faulted as
/// the copy writes it; an external string is neither copied nor faulted by V8, and the
/// addon's buffer comes from the heap (or is advised for huge pages from 32 MiB on).
///
/// V8 frees an external string's characters when its collector finds the string dead, and
/// does not count them as a reason to collect: a synchronous loop of 150 calls of 20 MB
/// each held 2.9 GiB. So at most [`BUDGET`] bytes are external at once; past it a text is
/// copied into V8's heap as before (the same loop: a peak of 519 MiB against 497).
mod external {
    use std::ffi::{CStr, c_void};
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use napi::sys::{napi_env, napi_status, napi_value};

    /// The most bytes held by live external strings.
    const BUDGET: usize = 64 << 20;

    /// Bytes held by external strings V8 has not freed yet.
    static LIVE: AtomicUsize = AtomicUsize::new(0);

    type Finalize = unsafe extern "C" fn(napi_env, *mut c_void, *mut c_void);
    type Create<T> = unsafe extern "C" fn(
        napi_env,
        *const T,
        isize,
        Option<Finalize>,
        *mut c_void,
        *mut napi_value,
        *mut bool,
    ) -> napi_status;

    /// A character unit of an external string: a Latin-1 byte or a UTF-16 unit.
    pub(super) trait Unit: Copy + 'static {
        /// Node's function that makes the string (looked up on unix only).
        #[cfg_attr(not(unix), allow(dead_code))]
        const CREATE: &'static CStr;
        /// Where the function found at run time is kept.
        #[cfg_attr(not(unix), allow(dead_code))]
        fn cell() -> &'static OnceLock<Option<Create<Self>>>;
    }

    impl Unit for u8 {
        const CREATE: &'static CStr = c"node_api_create_external_string_latin1";
        fn cell() -> &'static OnceLock<Option<Create<u8>>> {
            static CELL: OnceLock<Option<Create<u8>>> = OnceLock::new();
            &CELL
        }
    }

    impl Unit for u16 {
        const CREATE: &'static CStr = c"node_api_create_external_string_utf16";
        fn cell() -> &'static OnceLock<Option<Create<u16>>> {
            static CELL: OnceLock<Option<Create<u16>>> = OnceLock::new();
            &CELL
        }
    }

    /// Elsewhere, no lookup: copied.
    #[cfg(not(unix))]
    fn create<T: Unit>() -> Option<Create<T>> {
        None
    }

    #[cfg(unix)]
    fn create<T: Unit>() -> Option<Create<T>> {
        *T::cell().get_or_init(|| {
            // SAFETY: dlsym with RTLD_DEFAULT and a NUL-terminated name only looks a symbol
            // up; the symbol, when Node exports it, has the signature `Create` declares
            // (js_native_api.h: `const char*` or `const char16_t*` characters).
            unsafe {
                let f = libc::dlsym(libc::RTLD_DEFAULT, T::CREATE.as_ptr());
                (!f.is_null()).then(|| std::mem::transmute::<*mut c_void, Create<T>>(f))
            }
        })
    }

    /// Bytes held by external strings V8 has not freed yet.
    pub(super) fn live() -> usize {
        LIVE.load(Ordering::Relaxed)
    }

    /// True when Node makes external strings of `T` and `units` more of them fit in the
    /// budget now (a conversion made for one is then most likely not wasted).
    pub(super) fn fits<T: Unit>(units: usize) -> bool {
        create::<T>().is_some()
            && LIVE
                .load(Ordering::Relaxed)
                .saturating_add(units.saturating_mul(size_of::<T>()))
                <= BUDGET
    }

    /// Frees the characters of an external string V8 collected: `data` is the vector's
    /// pointer, `hint` its capacity.
    unsafe extern "C" fn free<T: Unit>(_env: napi_env, data: *mut c_void, hint: *mut c_void) {
        // SAFETY: `make` forgot a `Vec<T>` of this pointer and capacity, and V8 calls this
        // once, after the string is gone.
        drop(unsafe { Vec::from_raw_parts(data.cast::<T>(), 0, hint as usize) });
        LIVE.fetch_sub(hint as usize * size_of::<T>(), Ordering::Relaxed);
    }

    /// `units` (not empty; Latin-1 bytes or UTF-16) as an external string; the units back
    /// when Node cannot make one or the budget is spent.
    ///
    /// # Safety
    ///
    /// `env` is the env of the running call.
    pub(super) unsafe fn make<T: Unit>(
        env: napi_env,
        units: Vec<T>,
    ) -> napi::Result<Result<napi_value, Vec<T>>> {
        let Some(create) = create::<T>() else {
            return Ok(Err(units));
        };
        let held = units.capacity() * size_of::<T>();
        let taken = LIVE.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |live| {
            live.checked_add(held).filter(|&after| after <= BUDGET)
        });
        if units.is_empty() || taken.is_err() {
            return Ok(Err(units));
        }
        let mut units = std::mem::ManuallyDrop::new(units);
        let (ptr, len, cap) = (units.as_mut_ptr(), units.len(), units.capacity());
        let mut out = std::ptr::null_mut();
        let mut copied = false;
        // SAFETY: `ptr..ptr+len` is initialised and stays valid until `free` runs (the
        // vector is forgotten here); `env` is live (the caller's contract).
        let status = unsafe {
            create(
                env,
                ptr,
                len as isize,
                Some(free::<T>),
                cap as *mut c_void,
                &mut out,
                &mut copied,
            )
        };
        if status != napi::sys::Status::napi_ok || copied {
            // Not made, or V8 copied the text and will not call `free`.
            LIVE.fetch_sub(held, Ordering::Relaxed);
            // SAFETY: the vector forgotten above, still unfreed.
            drop(unsafe { Vec::from_raw_parts(ptr, len, cap) });
            napi::check_status!(status, "cannot make an external string")?;
        }
        Ok(Ok(out))
    }
}

/// Bytes (ASCII) or UTF-16 units of one part of a long [`JsText`]: 64 KiB of two-byte text,
/// under V8's largest regular object (128 KiB).
const ROPE_PART: usize = 32 << 10;

impl ToNapiValue for JsText {
    unsafe fn to_napi_value(raw: napi::sys::napi_env, val: Self) -> Result<napi::sys::napi_value> {
        let env = Env::from_raw(raw);
        let ascii = val.0.is_ascii();
        let long = val.0.len() >= EXTERNAL_FROM;
        let text = if long && ascii {
            // SAFETY: `raw` is the env of this call (napi hands it to `to_napi_value`).
            match unsafe { external::make(raw, val.0) }? {
                Ok(s) => return Ok(s),
                Err(bytes) => bytes,
            }
        } else if long && external::fits::<u16>(val.0.len()) {
            // At most one unit a byte, in a buffer advised for huge pages when large; made a
            // string as converted text is (external, else copied from these units).
            let mut units = Vec::new();
            toolwire::sink::reserve_output(&mut units, val.0.len());
            whole_utf16_of(&val.0, &mut units)?;
            // SAFETY: as above.
            return unsafe { JsUnits::to_napi_value(raw, JsUnits(units)) };
        } else {
            val.0
        };
        let bytes = &text[..];
        if ascii || bytes.len() <= ROPE_PART {
            let s = if ascii {
                env.create_string_latin1(bytes)?
            } else {
                let mut units = Vec::new();
                whole_utf16_of(bytes, &mut units)?;
                env.create_string_utf16(&units)?
            };
            // SAFETY: `raw` is the env of this call (napi hands it to `to_napi_value`), and
            // `s` a string made in it just now.
            return unsafe { JsString::to_napi_value(raw, s) };
        }
        let mut parts = Vec::with_capacity(bytes.len() / ROPE_PART + 1);
        let mut units = Vec::with_capacity(ROPE_PART + 1);
        let mut at = 0;
        while at < bytes.len() {
            let chunk = &bytes[at..bytes.len().min(at + ROPE_PART)];
            let s = if chunk.is_ascii() {
                at += chunk.len();
                env.create_string_latin1(chunk)?
            } else {
                units.clear();
                // Up to a character cut at the end of the chunk, read with the next one.
                let read = utf16_of(chunk, &mut units)
                    .filter(|&n| n > 0)
                    .ok_or_else(|| mark("encode", "output is not UTF-8", None))?;
                at += read;
                env.create_string_utf16(&units)?
            };
            // SAFETY: as above: a string made just now in this call's env.
            parts.push(unsafe { JsString::to_napi_value(raw, s) }?);
        }
        // SAFETY: `raw` is this call's env and every part a live handle of it.
        unsafe { concat(raw, &parts) }
    }
}

/// `parts[0].concat(...parts[1..])`: one string of `parts` (a rope of them, in V8).
///
/// # Safety
///
/// `env` is the env of the running call and `parts` (not empty) are string handles of it.
unsafe fn concat(
    env: napi::sys::napi_env,
    parts: &[napi::sys::napi_value],
) -> Result<napi::sys::napi_value> {
    use napi::sys;
    let get = |object: sys::napi_value, name: &std::ffi::CStr| -> Result<sys::napi_value> {
        let mut out = std::ptr::null_mut();
        // SAFETY: `object` is a live handle of `env` and `name` a NUL-terminated string.
        let status = unsafe { sys::napi_get_named_property(env, object, name.as_ptr(), &mut out) };
        napi::check_status!(status, "cannot read String.prototype.concat")?;
        Ok(out)
    };
    let mut global = std::ptr::null_mut();
    // SAFETY: `env` is live (the caller's contract).
    napi::check_status!(unsafe { sys::napi_get_global(env, &mut global) })?;
    let concat = get(get(get(global, c"String")?, c"prototype")?, c"concat")?;
    let mut out = std::ptr::null_mut();
    // SAFETY: `concat` is a function handle of `env`, `parts[0]` its receiver and the rest
    // its arguments, all live handles of this call.
    let status = unsafe {
        sys::napi_call_function(
            env,
            parts[0],
            concat,
            parts.len() - 1,
            parts[1..].as_ptr(),
            &mut out,
        )
    };
    napi::check_status!(status, "cannot join a text's parts")?;
    Ok(out)
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
/// input, `toon::JsonInput::Binding`) lets a large array be read once; or nothing.
fn read_input<'d>(call: &ToolCall, data: Option<&'d [u8]>) -> Result<Input<'d>> {
    match data {
        Some(bytes) => call
            .read_held(bytes, toon::JsonInput::Binding)
            .map_err(|e| engine_error(&e)),
        None => Ok(Input::nothing()),
    }
}

/// The whole call: the front door, nothing else.
fn respond(
    presenter: Option<&Presenter>,
    data: Option<&[u8]>,
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
    respond(None, data.as_ref().map(sync_bytes), &args)
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
            data.as_ref().map(|d| d.as_slice()),
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
    data: Option<Arc<Vec<u8>>>,
    args: CallArgs,
    id: Option<Id>,
    protocol: Option<String>,
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
        let run = std::panic::AssertUnwindSafe(|| stream_frames(&job, &job_gate, &send));
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
fn stream_frames(job: &StreamJob, gate: &FlowGate, send: &dyn Fn(StreamEvent)) -> Result<()> {
    let call = call_of(job.presenter.as_ref(), &job.args)?;
    let input = read_input(&call, job.data.as_deref().map(Vec::as_slice))?;
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
    let job = StreamJob {
        presenter: None,
        data: shared(data.as_ref()),
        args,
        id: id.map(|id| frame_id(id, id_number)).transpose()?,
        protocol,
    };
    start_stream(job, on_event)
}

/// Bytes of texts the addon holds for external strings V8 has not collected yet (at most
/// 64 MiB; see `external`): for tests and a server's diagnostics.
#[napi]
pub fn external_text_bytes() -> f64 {
    external::live() as f64
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
        let job = StreamJob {
            presenter: Some(self.inner.clone()),
            data: shared(data.as_ref()),
            args,
            id: id.map(|id| frame_id(id, id_number)).transpose()?,
            protocol,
        };
        start_stream(job, on_event)
    }
}

// After `NativePresenter`: napi-derive must have seen the struct before an `impl` of it.
pub mod builder;
