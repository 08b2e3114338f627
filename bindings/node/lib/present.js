'use strict';
// Presenters and MCP: a handler's value through a presenter into a CallToolResult, the
// testing side door, the tool's schemas, implicit wrapping.

const native = require('./native');
const { encodeError, loneSurrogateError, wellFormed, wellFormedDeep } = require('./errors');
const { jsonText, ownText } = require('./text');
const { MIN_ROWS, STREAM_ROWS, rowsPretty, presentRows, presentRowsAsync } = require('./rows');

const META = Symbol.for('toolwire.meta');
const byObject = new WeakMap();
const byText = new Map();
const TEXT_CACHE = 64;

/**
 * Compiles a presenter file (an object, its JSON text, or bytes of it). Objects are read once
 * and cached by identity (presenters are immutable once built); texts are cached by value.
 */
function compilePresenter(presenter) {
  if (presenter === undefined || presenter === null) return null;
  if (presenter instanceof native.NativePresenter) return presenter;
  if (typeof presenter === 'object' && !(presenter instanceof Uint8Array)) {
    let p = byObject.get(presenter);
    if (!p) {
      p = newPresenter(JSON.stringify(wellFormedDeep(presenter, 'presenter')));
      byObject.set(presenter, p);
    }
    return p;
  }
  const text = typeof presenter === 'string' ? presenter
    : presenter instanceof Uint8Array ? Buffer.from(presenter.buffer, presenter.byteOffset, presenter.byteLength).toString('utf8')
      : null;
  if (text === null) throw new TypeError('presenter must be a presenter-file object or its JSON text');
  // Bytes are decoded as UTF-8 (invalid sequences become U+FFFD there, as Buffer#toString
  // does); a string must be well-formed.
  if (typeof presenter === 'string') wellFormed(text, 'presenter: the JSON text');
  let p = byText.get(text);
  if (!p) {
    p = newPresenter(text);
    if (byText.size >= TEXT_CACHE) byText.delete(byText.keys().next().value);
    byText.set(text, p);
  }
  return p;
}

function newPresenter(text) {
  try {
    return new native.NativePresenter(text);
  } catch (e) {
    throw encodeError(e);
  }
}

/**
 * The JSON text the engine reads for a handler's return value (`undefined`: no value), for
 * a call on the JS thread: a string, or bytes nobody else holds. The side door presents the
 * same text again on first read, so a caller's buffer is copied (D13: the side door shows
 * what was presented, whatever the caller does to its buffer afterwards). A copy V8 owns:
 * it is freed by the GC itself, even in a synchronous loop (a napi object's memory is only
 * freed on a later turn of the event loop).
 */
function dataText(data, what) {
  if (data === undefined || data === null) return undefined;
  if (data instanceof Uint8Array) return new Uint8Array(data);
  // A string is a text result: its JSON string form is the engine's text result.
  if (typeof data === 'string') wellFormed(data, `${what}: the string result`);
  return jsonText(data);
}

/**
 * dataText for work off the JS thread: the text in memory the addon owns (`ownText`), which
 * the job and a later side-door read both use, never the caller's buffer.
 */
function ownedDataText(data, what) {
  if (data instanceof Uint8Array) return ownText(data);
  const text = dataText(data, what);
  return text === undefined ? undefined : ownText(text);
}

function callArgs(opts, wantData) {
  const a = {};
  if (opts) {
    if (opts.select !== undefined) a.select = JSON.stringify(wellFormedDeep(opts.select, 'select')) ?? 'null';
    if (opts.format !== undefined && opts.format !== null) a.format = wellFormed(String(opts.format), 'format');
    if (opts.limit !== undefined && opts.limit !== null) a.limit = numberArg(opts.limit, 'limit');
    if (opts.tokenBudget !== undefined && opts.tokenBudget !== null) a.tokenBudget = numberArg(opts.tokenBudget, 'tokenBudget');
    if (opts.action !== undefined) a.action = wellFormed(String(opts.action), 'action');
  }
  if (wantData) a.wantData = true;
  return a;
}

function numberArg(v, name) {
  if (typeof v !== 'number') throw new TypeError(`${name} must be a natural number`);
  return v;
}

function callNative(p, data, args) {
  try {
    return p ? p.present(data, args) : native.presentPlain(data, args);
  } catch (e) {
    throw encodeError(e);
  }
}

/**
 * Whether the engine answers present() with `args` and no presenter with the pretty data
 * block alone. Arguments it refuses are refused by the call itself, as without this.
 */
function plainPretty(args) {
  try {
    return native.plainPretty(args);
  } catch {
    return false;
  }
}

/**
 * The result of present(rows) answered by the pretty data block alone when `rows` is a table
 * (lib/rows.js): the pretty data block the engine writes for them, made from their cells
 * without JSON text in between (its side door parses that block); undefined for any other
 * value.
 */
function prettyTable(rows) {
  let text;
  try {
    text = rowsPretty(rows);
  } catch (e) {
    throw encodeError(e);
  }
  if (text === undefined) return undefined;
  const reply = { texts: [text], format: 'pretty', rules: [], hints: [], uiBlocks: [], suggestions: [], selectIgnored: false };
  return toResult(reply, () => ({ parsed: JSON.parse(text) }));
}

/** A plain CallToolResult with the side door attached (non-enumerable). */
function toResult(reply, redo) {
  const result = { content: reply.texts.map((text) => ({ type: 'text', text })) };
  if (reply.isError !== undefined && reply.isError !== null) result.isError = reply.isError;
  let data;
  let haveData = false;
  const meta = {
    get data() {
      if (!haveData) {
        const again = redo();
        // A builder of toolwire/presenter gives its data already parsed.
        data = 'parsed' in again ? again.parsed
          : again.data === undefined || again.data === null ? undefined : JSON.parse(again.data);
        haveData = true;
      }
      return data;
    },
    systemRules: reply.rules,
    uiBlocks: reply.uiBlocks.map(uiBlock),
    hints: reply.hints,
    suggestions: reply.suggestions,
    format: reply.format,
  };
  if (reply.problem) meta.problem = reply.problem;
  if (reply.selectIgnored) meta.selectIgnored = true;
  Object.defineProperty(result, META, { value: meta, enumerable: false });
  return result;
}

function uiBlock(b) {
  const out = { type: b.type, content: b.content };
  if (b.title != null || b.width != null || b.priority != null) {
    out.meta = {};
    if (b.title != null) out.meta.title = b.title;
    if (b.width != null) out.meta.width = b.width;
    if (b.priority != null) out.meta.priority = b.priority;
  }
  return out;
}

/**
 * Presents what a handler returned (a value, a string result, JSON bytes, or nothing) through
 * `presenter` (optional) and returns the CallToolResult a registerTool callback returns as is.
 */
function present(data, presenter, opts) {
  if (isJsPresenter(presenter)) return viaMake(data, presenter, opts);
  const p = compilePresenter(presenter);
  const args = callArgs(opts, false);
  let text;
  if (cellsMayTake(data, p, args, MIN_ROWS)) {
    const result = p === null && plainPretty(args) ? prettyTable(data) : cellsTable(p, data, args);
    if (result !== undefined) return result;
    // Rows the cells did not take are not read as cells again.
    text = jsonText(data, false);
  } else {
    text = dataText(data, 'present');
  }
  const reply = callNative(p, text, args);
  return toResult(reply, () => callNative(p, text, { ...args, wantData: true }));
}

/**
 * Whether `data` may be a table the cells take (lib/rows.js) for a call through `p` (or
 * none) with `args`: an array of `least` rows or more. Without a presenter, the engine
 * applies `select` as it parses the JSON text: such a call reads the text (which the cells
 * write when they take the rows).
 */
function cellsMayTake(data, p, args, least) {
  return Array.isArray(data) && data.length >= least && data.toJSON === undefined && (p !== null || args.select === undefined);
}

/**
 * The side door's redo of a call through `p` with `args` that presented `rows` read as
 * cells: the rows presented again from their text, made when it is first read, as
 * make(rows) does (docs/DECISIONS.md).
 */
function rowsAgain(p, rows, args) {
  let text;
  let made = false;
  return () => {
    if (!made) {
      text = jsonText(rows);
      made = true;
    }
    return callNative(p, text, { ...args, wantData: true });
  };
}

/**
 * present(rows) of a table (lib/rows.js) through `p` (or none) with `args`: the engine
 * presents the document made of its cells, no JSON text written or read; undefined for any
 * other value.
 */
function cellsTable(p, rows, args) {
  let reply;
  try {
    reply = presentRows(rows, (cells, stream) => (p ? p.presentCells(cells, args, stream) : native.presentPlainCells(cells, args, stream)));
  } catch (e) {
    throw encodeError(e);
  }
  return reply === undefined ? undefined : toResult(reply, rowsAgain(p, rows, args));
}

/**
 * present() with the engine's work on the addon's pool. The data's JSON text is copied
 * before the call returns, so the caller may reuse, transfer or detach its buffer at once.
 */
async function presentAsync(data, presenter, opts) {
  // Its callbacks run on the JS thread: the synchronous path (DECISIONS.md).
  if (isJsPresenter(presenter)) return viaMake(data, presenter, opts);
  const p = compilePresenter(presenter);
  const args = callArgs(opts, false);
  // A long table: the document of its cells, built while they are read, goes to the pool.
  let text;
  if (cellsMayTake(data, p, args, STREAM_ROWS)) {
    let read;
    try {
      read = presentRowsAsync(data, (cells, stream) => (p ? p.presentCellsAsync(cells, args, stream) : native.presentPlainCellsAsync(cells, args, stream)));
    } catch (e) {
      throw encodeError(e);
    }
    if (read?.reply !== undefined) {
      let reply;
      try {
        reply = await read.reply;
      } catch (e) {
        throw encodeError(e);
      }
      return toResult(reply, rowsAgain(p, data, args));
    }
    // Rows the cells did not take are not read as cells again.
    text = ownText(read?.json ?? jsonText(data, false));
  } else {
    text = ownedDataText(data, 'presentAsync');
  }
  let reply;
  try {
    reply = await (p ? p.presentAsync(text, args) : native.presentPlainAsync(text, args));
  } catch (e) {
    throw encodeError(e);
  }
  return toResult(reply, () => callNative(p, text, { ...args, wantData: true }));
}

/**
 * The response as a Node Readable of Buffers: with `frame.id`, the JSON-RPC 2.0 response line
 * (WIRE.md §11, for servers that write the wire themselves); without, the bare CallToolResult
 * line. Written by the engine on the addon's pool in 256 KiB chunks, each pushed as soon as
 * it is encoded (block texts escaped straight into the frame); the job waits while the
 * stream's buffer is full (backpressure) — unless another call waits for a thread, then it
 * finishes into the stream's buffer — and stops when the stream is destroyed. Every check
 * runs before the first byte, so the stream is never half a message (an error is the
 * stream's 'error' event, before any data). The data is copied before the call returns (a
 * table of 8,192+ rows: the job takes the document of its cells, built as they are read).
 */
function presentStream(data, presenter, opts, frame = {}) {
  if (isJsPresenter(presenter)) {
    throw new TypeError('presentStream takes a presenter file; a toolwire/presenter Presenter answers with make(data).build()');
  }
  const { Readable } = require('node:stream');
  const p = compilePresenter(presenter);
  const args = callArgs(opts, false);
  const [id, idNumber] = frameId(frame.id);
  const protocol = frame.protocol === undefined ? undefined : wellFormed(String(frame.protocol), 'frame.protocol');
  // A long table: its job takes the document of its cells, built while they are read.
  const cells = cellsMayTake(data, p, args, STREAM_ROWS);
  const text = cells ? undefined : ownedDataText(data, 'presentStream');
  let control = null;
  const stream = new Readable({
    read() {
      if (control) control.resume();
    },
    destroy(err, cb) {
      if (control) control.cancel();
      cb(err);
    },
  });
  const onEvent = (error, chunk, done) => {
    if (stream.destroyed) return; // the worker was cancelled; what it still sends is dropped
    if (error) {
      stream.destroy(encodeError(new Error(error)));
    } else if (chunk) {
      const more = stream.push(chunk);
      control.ack(more);
    } else if (done) {
      stream.push(null);
    }
  };
  const start = (json) => (p ? p.presentStream(json, args, id, idNumber, protocol, onEvent)
    : native.presentPlainStream(json, args, id, idNumber, protocol, onEvent));
  try {
    if (cells) {
      const read = presentRowsAsync(data, (table, rows) => (p ? p.presentCellsStream(table, args, rows, id, idNumber, protocol, onEvent)
        : native.presentPlainCellsStream(table, args, rows, id, idNumber, protocol, onEvent)));
      // Rows the cells did not take are not read as cells again.
      control = read?.reply ?? start(ownText(read?.json ?? jsonText(data, false)));
    } else {
      control = start(text);
    }
  } catch (e) {
    throw encodeError(e);
  }
  // The testing side door: how far the engine got (bytes produced, job finished), whether
  // its job waits for the reader now (holding a pool thread), and whether it stopped waiting
  // for the reader to free its thread.
  Object.defineProperty(stream, META, {
    get: () => ({
      producedBytes: control.produced(),
      finished: control.finished(),
      waiting: control.waiting(),
      spilled: control.spilled(),
    }),
    enumerable: false,
  });
  return stream;
}

// The JSON-RPC id of a frame, as [text, isNumber]: it keeps its type. JSON-RPC 2.0 and MCP
// allow a string or a number (MCP: never null), and JSON-RPC says a number SHOULD NOT have
// a fractional part; so a string stays a string, an integer (a safe-integer number, or a
// BigInt of any size) is written as its digits, and anything else (a fraction, NaN,
// ±Infinity, an integer past 2^53, which was rounded already: pass it as a BigInt or a
// string; an object) is a TypeError, never converted. No id (undefined or null) writes the
// bare CallToolResult line.
function frameId(id) {
  if (id === undefined || id === null) return [undefined, false];
  if (typeof id === 'string') return [wellFormed(id, 'frame.id'), false];
  if (typeof id === 'bigint') return [id.toString(), true];
  if (typeof id === 'number' && Number.isSafeInteger(id)) return [String(id), true];
  const shown = typeof id === 'number' ? String(id) : typeof id;
  throw new TypeError(`frame.id must be a string or an integer (a safe-integer number or a BigInt), got ${shown}`);
}

/**
 * What a tool registers: `inputSchema` (with `_select` when the presenter enables select,
 * merged into `opts.inputSchema`), `outputSchema` and the TOON `description` (WIRE.md §6).
 */
function toolSchema(presenter, opts = {}) {
  // A toolwire/presenter Presenter: its compiled presenter file (the schemas need no callback).
  const p = presenter !== null && typeof presenter === 'object' && presenter.__brand === 'ToolwirePresenter'
    ? presenter._native(false).p : compilePresenter(presenter);
  if (!p) throw new TypeError('toolSchema needs a presenter');
  const base = opts.inputSchema ?? { type: 'object', properties: {} };
  const inputSchema = { ...base, properties: { ...(base.properties ?? {}) } };
  const select = p.inputSchemaProperty();
  if (select != null) inputSchema.properties._select = JSON.parse(select);
  const outputSchema = JSON.parse(p.outputSchema(opts.protocol ?? '2025-11-25', opts.collection ?? true));
  const name = wellFormed(String(opts.name ?? p.name), 'toolSchema: name');
  wellFormed(opts.description, 'toolSchema: description');
  const actions = (opts.actions ?? [{ name: opts.action ?? 'present', description: opts.description ?? '' }])
    .map((a) => ({ name: String(a.name), description: a.description ?? '', required: a.required ?? [], destructive: Boolean(a.destructive) }));
  wellFormedDeep(actions, 'toolSchema: actions');
  const description = native.toonDescription(name, opts.description ?? '',
    wellFormed(opts.discriminator ?? 'action', 'toolSchema: discriminator'), actions);
  return { inputSchema, outputSchema, description };
}

/** A toolwire/presenter Presenter (its callbacks need make(); see presenter.js). */
function isJsPresenter(v) {
  return v !== null && typeof v === 'object' && v.__brand === 'ToolwirePresenter';
}

/** present() of a toolwire/presenter Presenter: make(data, undefined, select).build(). */
function viaMake(data, presenter, opts = {}) {
  for (const k of ['format', 'limit', 'tokenBudget']) {
    if (opts[k] !== undefined && opts[k] !== null) {
      throw new TypeError(`${k} is not an option of a toolwire/presenter Presenter (set it on the presenter)`);
    }
  }
  return presenter.make(data, undefined, opts.select).build();
}

function isToolwireResult(v) {
  return v !== null && typeof v === 'object' && Object.prototype.hasOwnProperty.call(v, META);
}

/**
 * Implicit wrapping (WIRE.md §9): a registerTool callback around `handler`. `_select` is taken
 * out of the arguments (the presenter validates it; the handler never sees it); the return
 * value goes through the presenter (a toolwire result passes untouched, null/undefined is
 * `OK`); a thrown error becomes the INTERNAL_ERROR `<tool_error>`.
 */
function wrap(handler, opts = {}) {
  if (typeof handler !== 'function') throw new TypeError('wrap expects a handler function');
  const p = isJsPresenter(opts.presenter) ? opts.presenter : compilePresenter(opts.presenter);
  const action = wellFormed(String(opts.action ?? `${p ? p.name : 'tool'}/present`), 'wrap: action');
  return async function toolwireHandler(args, extra) {
    let select;
    let rest = args;
    if (args !== null && typeof args === 'object' && Object.prototype.hasOwnProperty.call(args, '_select')) {
      ({ _select: select, ...rest } = args);
    }
    let value;
    try {
      value = await handler(rest, extra);
    } catch (e) {
      // toolwire/presenter's PresenterValidationError carries the engine's response.
      if (e !== null && typeof e === 'object' && isToolwireResult(e.response)) return e.response;
      const message = e instanceof Error ? e.message : String(e);
      if (!message.isWellFormed()) {
        const err = loneSurrogateError(message, 'wrap: the handler\'s error message');
        err.cause = e;
        throw err;
      }
      return toResult(native.handlerError(action, message), () => ({ data: null }));
    }
    if (isToolwireResult(value)) return value;
    // A toolwire/presenter ResponseBuilder (WIRE.md §9: a builder is built).
    if (value !== null && typeof value === 'object' && value.__brand === 'ToolwireResponseBuilder') return value.build();
    const callOpts = { format: opts.format, limit: opts.limit, tokenBudget: opts.tokenBudget, action };
    if (select !== undefined) callOpts.select = select;
    return present(value, p, callOpts);
  };
}

module.exports = {
  META,
  toResult,
  compilePresenter,
  present,
  presentAsync,
  presentStream,
  toolSchema,
  wrap,
};
