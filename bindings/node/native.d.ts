/**
 * A table's document built on a thread of its own while `lib/rows.js` is still reading its
 * cells (`make(rows)`), so that the JS thread's read and the document's build take their
 * time side by side instead of one after the other. The reader sends what it has read every
 * few chunks of strings ([`CellsStream::publish`]): a copy of the new cells, made on the JS
 * thread, so the builder reads only memory it owns (never the reader's arrays, which JS
 * code keeps writing, growing and may drop). The builder pushes the rows those cells
 * complete; [`CellsStream::finish`] sends the rest and takes the document — the same as
 * [`rows_doc`]'s, its strings in its heap rather than spans of the cells' text. Dropped
 * without `finish`, or stopped (a row that does not fit, an exception in a getter): the
 * builder stops at its next batch and its thread ends before that call returns.
 */
export declare class CellsStream {
  /**
   * A stream of the cells of `rows` rows of the shape `shape` and `keys` describe (as
   * [`TableCells`] holds them).
   */
  constructor(shape: Array<number>, keys: Array<string>, rows: number)
  /**
   * Sends the cells read since the last call: the reader's arrays (perhaps grown since)
   * hold kinds up to `p`, numbers up to `q`, strings up to `s` and their text up to byte
   * `at`, which complete the first `rows` rows.
   */
  publish(rows: number, kinds: Uint8Array, nums: Float64Array, lens: Uint32Array, text: Uint8Array, p: number, q: number, s: number, at: number): void
  /**
   * Stops the build and waits for its thread to end (at once when it waits for a batch,
   * else after the one it builds).
   */
  abort(): void
}

/** A compiled presenter file. */
export declare class NativePresenter {
  /** Compiles a presenter file (its JSON text). */
  constructor(json: string)
  /** The presenter's name. */
  get name(): string
  /** The `_select` property of the tool's `inputSchema` (JSON text), when select is on. */
  inputSchemaProperty(): string | null
  /** The tool's `outputSchema` (JSON text) for `protocol`, of a collection or one item. */
  outputSchema(protocol: string, collection: boolean): string
  /**
   * Presents `data` (JSON text; `None` is "no value", `OK`) through this presenter, on
   * the JS thread (the caller's memory is read during the call only).
   */
  present(data: SyncText | undefined | null, args: CallArgs): NativeReply
  /**
   * [`NativePresenter::present`] of a table of rows read as cells (`lib/rows.js`): the
   * engine's document made from them, no JSON text written or read.
   */
  presentCells(table: TableCells, args: CallArgs, stream?: CellsStream | undefined | null): NativeReply
  /**
   * [`NativePresenter::present_async`] of a table of rows whose document `stream` built
   * while they were read (`lib/rows.js`): that document, owned, presented on the addon's
   * pool; nothing of the cells is read after this call returns.
   */
  presentCellsAsync(table: TableCells, args: CallArgs, stream: CellsStream): Promise<NativeReply>
  /** [`NativePresenter::present`] on the addon's pool: a promise of the reply. */
  presentAsync(data: OwnedText | undefined | null, args: CallArgs): Promise<NativeReply>
  /**
   * Streams a framed response through this presenter (see `start_stream`). `id` is the
   * JSON-RPC id: a string, or an integer's digits when `id_number`.
   */
  presentStream(data: OwnedText | undefined | null, args: CallArgs, id: string | undefined | null, idNumber: boolean, protocol: string | undefined | null, onEvent: (arg: StreamArgs) => void): StreamControl
  /**
   * [`NativePresenter::present_stream`] of a table of rows, as
   * [`present_plain_cells_stream`].
   */
  presentCellsStream(table: TableCells, args: CallArgs, stream: CellsStream, id: string | undefined | null, idNumber: boolean, protocol: string | undefined | null, onEvent: (arg: StreamArgs) => void): StreamControl
  /**
   * Compiles a presenter file whose `{"callback": n}` entries are callbacks of the JS
   * layer, `kinds[n]` being `rules`, `ui`, `suggest` or `censor` (`Presenter::from_doc_with`).
   */
  static withCallbacks(json: string, kinds: Array<string>): NativePresenter
  /**
   * [`NativePresenter::present`] with the presenter's callbacks answered by `dispatch`
   * (`(n, json, items) => strings`), called on this thread during this call only.
   */
  presentWith(data: SyncText | undefined | null, args: CallArgs, dispatch: Dispatch): NativeReply
  /**
   * [`NativePresenter::present_with`] of a table of rows read as cells (`lib/rows.js`):
   * the engine's document made from them, no JSON text written or read; built by
   * `stream` while they were read when there is one (`table` then holds the last cells).
   */
  presentCellsWith(table: TableCells, args: CallArgs, dispatch: Dispatch, stream?: CellsStream | undefined | null): NativeReply
}

/**
 * JSON text copied out of the caller's memory on the JS thread, for work that outlives the
 * call: an async call, a stream, the side door.
 *
 * A napi reference to a typed array keeps the JS object alive but does not pin its memory:
 * the caller can transfer or detach the `ArrayBuffer` (which frees it) or write into it while
 * a worker thread reads. So every byte a worker reads is a copy the addon owns, made by
 * [`own_text`] before the call returns; a JS string is converted by napi into Rust memory
 * (no further copy).
 *
 * V8 is told about the bytes (`napi_adjust_external_memory`), and untold when the object is
 * collected, so the GC runs for them (an async result's side door holds its `OwnedText`).
 * Its memory is freed by a finalizer, which Node runs on a later turn of the event loop:
 * fine for async work (300 awaited `presentAsync` calls of a 15 MB Buffer: 137 MB peak
 * growth), not for a synchronous loop, so synchronous calls never make one (`present` of a
 * 15 MB Buffer 300 times in one loop grew the process by 4.5 GB when it did).
 */
export declare class OwnedText {}

/**
 * The JS side's handle on a streaming response: `ack` after each chunk (with `push`'s
 * result), `resume` from `read()`, `cancel` from `destroy()`.
 */
export declare class StreamControl {
  /** A chunk was pushed; `more` is what `Readable.push` returned. */
  ack(more: boolean): void
  /** The consumer wants more (`Readable._read`). */
  resume(): void
  /** Nobody reads any more (`Readable._destroy`): the job stops encoding. */
  cancel(): void
  /** Bytes of the response the engine has produced so far (the side door of the stream). */
  produced(): number
  /** True once the job is done: the response is complete, failed or cancelled. */
  finished(): boolean
  /** True when the stream stopped waiting for its reader to free its thread (see `src/pool.rs`). */
  spilled(): boolean
  /** True while the job waits for the reader, holding a pool thread. */
  waiting(): boolean
}

/**
 * A response built from parts (`response(data)…build()`, and a presenter's response with
 * blocks added after `make`). `text` is a verbatim data block; else `data` is JSON text
 * (`None`: no value, `OK`). UI blocks are six strings each (see `ui_block`), suggestions two.
 */
export declare function buildResponse(data: SyncText | undefined | null, text: string | undefined | null, format: string | undefined | null, ui: Array<string>, embedded: Array<string>, raw: Array<string>, hints: Array<string>, rules: Array<string>, suggest: Array<string>, structured: boolean): NativeReply

/** The per-call arguments of a presented response. */
export interface CallArgs {
  /** The agent's `_select` argument as JSON text (any JSON value; checked by the engine). */
  select?: string
  /** A format name (the engine's `Format` names). */
  format?: string
  /** Keep at most this many items of a collection. */
  limit?: number
  /** Keep as many whole items as fit in this many tokens. */
  tokenBudget?: number
  /** The `action` attribute of a `<validation_error>`. */
  action?: string
  /** Also return the side door's data as JSON text. */
  wantData?: boolean
}

/**
 * Decodes TOON text and returns the value as compact JSON text (`JSON.stringify` form;
 * integers keep every digit, `-0` is `0`), for `JSON.parse` on the JS side.
 */
export declare function decodeToJson(text: string, indent: number, strict: boolean): string

/**
 * The compact JSON text of the value of dispatcher call `id`, while that call runs (the
 * callback reads the rows of a large collection); `None` once it has returned.
 */
export declare function dispatchedJson(id: number): string | null

/**
 * TOON of a table of rows read as cells (`lib/rows.js`; `encode(rows)`): the engine's
 * document of them encoded, built by `stream` while they were read when there is one
 * (`table` then holds the last cells), else from `table`; no JSON text is written or
 * parsed. The text comes back as [`encode_json`]'s does.
 */
export declare function encodeCells(table: TableCells, delimiter: string, indent: number, stream?: CellsStream | undefined | null): string | Array<string>

/**
 * TOON of JSON text (`toon::encode_json`): no JavaScript value is built. The text is
 * gathered a segment of up to `WHOLE_TOON` at a time: as bytes while it is ASCII
 * ([`JsText`]), and from its first other character as UTF-16 ([`JsUnits`]), each chunk
 * converted as the encoder hands it over (on this thread while the pool still parses: 100k
 * flat rows with non-ASCII names, a conversion of the whole at the end cost ~5.5 ms, chunk
 * by chunk ~2.7 more). A text of one segment comes back as one string; a longer one as
 * its segments, each an external string, joined by the JS layer into one rope string.
 * When a full segment cannot be external (no external strings, or the budget spent), it
 * and the rest of the text come back as parts of 64 KiB (`OUT_CHUNK`), each made a JS
 * string as soon as the encoder fills it, so the whole text never exists twice: once in
 * Rust and once in V8. ASCII parts become one-byte strings by a plain copy.
 */
export declare function encodeJson(json: Text, delimiter: string, indent: number): string | Array<string>

/**
 * [`encode_json`] on the addon's pool: a promise of the TOON text. The JSON text is an
 * [`OwnedText`], so nothing the caller does to its buffer meanwhile reaches the worker.
 */
export declare function encodeJsonAsync(json: OwnedText, delimiter: string, indent: number): Promise<string>

/**
 * `error(message, code?)` and `required(field)` (`code` = `MISSING_REQUIRED_FIELD` with
 * `required` set).
 */
export declare function errorResponse(message: string, code: string | undefined | null, required: boolean): NativeReply

/**
 * Bytes of texts the addon holds for external strings V8 has not collected yet (at most
 * 64 MiB; see `external`): for tests and a server's diagnostics.
 */
export declare function externalTextBytes(): number

/** The `INTERNAL_ERROR` envelope of a failed handler (WIRE.md §8). */
export declare function handlerError(action: string, message: string): NativeReply

/**
 * Bytes of buffers the addon keeps for the next long texts, their strings collected (at
 * most 64 MiB; see `external`): for tests and a server's diagnostics.
 */
export declare function keptTextBytes(): number

/** One action of a tool description. */
export interface NativeAction {
  /** The action name. */
  name: string
  /** What it does. */
  description?: string
  /** Its required parameters. */
  required?: Array<string>
  /** Whether it destroys data. */
  destructive?: boolean
}

/** A presented response: the block texts, `isError` and the side door. */
export interface NativeReply {
  /** The block texts in order (never empty). */
  texts: Array<string>
  /** `isError`: absent on success. */
  isError?: boolean
  /** The format the data block was written in. */
  format: string
  /** Rules, merged child rules included. */
  rules: Array<string>
  /** Directives. */
  hints: Array<string>
  /** UI blocks, embedded ones included. */
  uiBlocks: Array<NativeUiBlock>
  /** Suggestions. */
  suggestions: Array<NativeSuggestion>
  /** The side door's data as compact JSON (when asked for and there is any). */
  data?: string
  /** Why the response is an error response: `select`, `output` or `encode`. */
  problem?: string
  /** A `_select` was given but the presenter does not enable select. */
  selectIgnored: boolean
}

/** One suggestion of the side door. */
export interface NativeSuggestion {
  /** The tool to call. */
  tool: string
  /** Why. */
  reason: string
}

/** One UI block of the side door. */
export interface NativeUiBlock {
  /** The block type. */
  type: string
  /** The content, before the `<ui_passthrough>` wrapper. */
  content: string
  /** `title`, when set. */
  title?: string
  /** `width`, when set. */
  width?: string
  /** `priority`, when set. */
  priority?: number
}

/**
 * Copies JSON text (a string, or the bytes of a `Buffer`/`Uint8Array`) into memory the addon
 * owns (see [`OwnedText`]).
 */
export declare function ownText(text: Text): OwnedText

/**
 * True when `present` with `args` and no presenter responds with the pretty data block
 * alone (the engine's [`ToolCall::plain_format`]): a table read as cells is then written
 * as that block by `rowsPretty`.
 */
export declare function plainPretty(args: CallArgs): boolean

/** The number of threads the addon's pool runs at most (see `src/pool.rs`). */
export declare function poolThreads(): number

/**
 * Presents `data` (JSON text; `None` is "no value", `OK`) without a presenter, on the JS
 * thread (the caller's memory is read during the call only).
 */
export declare function presentPlain(data: SyncText | undefined | null, args: CallArgs): NativeReply

/** [`present_plain`] on the addon's pool: a promise of the reply. */
export declare function presentPlainAsync(data: OwnedText | undefined | null, args: CallArgs): Promise<NativeReply>

/** [`present_plain`] of a table of rows read as cells, as [`NativePresenter::present_cells`]. */
export declare function presentPlainCells(table: TableCells, args: CallArgs, stream?: CellsStream | undefined | null): NativeReply

/** [`present_plain_async`] of a table of rows, as [`NativePresenter::present_cells_async`]. */
export declare function presentPlainCellsAsync(table: TableCells, args: CallArgs, stream: CellsStream): Promise<NativeReply>

/**
 * [`present_plain_stream`] of a table of rows whose document `stream` built while they were
 * read (`lib/rows.js`): that document, owned by the job; nothing of the cells is read after
 * this call returns.
 */
export declare function presentPlainCellsStream(table: TableCells, args: CallArgs, stream: CellsStream, id: string | undefined | null, idNumber: boolean, protocol: string | undefined | null, onEvent: (arg: StreamArgs) => void): StreamControl

/**
 * Streams a framed response without a presenter (see `start_stream`). `id` is the JSON-RPC
 * id: a string, or an integer's digits when `id_number`.
 */
export declare function presentPlainStream(data: OwnedText | undefined | null, args: CallArgs, id: string | undefined | null, idNumber: boolean, protocol: string | undefined | null, onEvent: (arg: StreamArgs) => void): StreamControl

/**
 * Writes `JSON.stringify(rows)` of the rows the cells hold into `out`, and returns its
 * length; or, when `out` is too short, nothing and the length `out` must have. Cells that
 * do not fit together are an internal error, never a read out of bounds.
 */
export declare function rowsJson(out: Uint8Array, table: TableCells): number

/**
 * The pretty data block `present(rows)` gives when it is the whole response, written
 * from the cells: the bytes of the engine's response text (`JSON.stringify(rows, null, 2)`
 * with WIRE.md §2's tag rule), without first writing `JSON.stringify(rows)` for the engine
 * to read again. Keys must not hold `<`.
 */
export declare function rowsPretty(table: TableCells): string

/**
 * The cells of a table as `lib/rows.js` reads them: `shape`, the rows' shape, value by value
 * in preorder (0 a scalar, 1 an object followed by its key count, 2 an array followed by its
 * elements' shape; the first is the rows' object); `keys`, the objects' keys, each before
 * its value's keys, as `JSON.stringify` writes it; `kinds` one byte per value (0 null,
 * 1 string, 2 number, 3 true, 4 false, 5 an object, 6 an array), row after row, a row's own
 * object having none; `nums` the numbers and each array's length, in order; `text` the
 * strings' UTF-8 one after another, `lens` their lengths in UTF-16 units, `starts` where
 * each run of `chunk` of them starts in `text`; `ascii` when `text` is ASCII; `mid` the
 * kinds, numbers and strings before row `rows / 2`.
 */
export interface TableCells {
  shape: Array<number>
  keys: Array<string>
  rows: number
  kinds: Uint8Array
  nums: Float64Array
  text: Uint8Array
  lens: Uint32Array
  starts: Array<number>
  chunk: number
  ascii: boolean
  mid: Array<number>
}

/** `toolError(code, options)`: `details` is key, value pairs. */
export declare function toolErrorResponse(code: string, message: string, severity: string, recovery: string | undefined | null, actions: Array<string>, details: Array<string>, retryAfter?: number | undefined | null): NativeReply

/** The TOON tool description of WIRE.md §6. */
export declare function toonDescription(toolName: string, description: string, discriminator: string, actions: Array<NativeAction>): string

/**
 * A UI helper of WIRE.md §3 (`echarts`, `json`: `a` is JSON text; `mermaid`, `markdown`,
 * `summary`: `a` is the text; `code_block`: `a` the language, `b` the code; `list`: `items`):
 * the block's type and content.
 */
export declare function uiHelper(helper: string, a?: string | undefined | null, b?: string | undefined | null, items?: Array<string> | undefined | null): Array<string>

/**
 * `ui.table(headers, rows)`: the block's type and content (cells escaped, short rows padded;
 * a row longer than the header is an error).
 */
export declare function uiTable(headers: Array<string>, rows: Array<Array<string>>): Array<string>
