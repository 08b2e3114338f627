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
  /** Presents `data` (JSON text; `None` is "no value", `OK`) through this presenter. */
  present(data: Text | undefined | null, args: CallArgs): NativeReply
  /** [`NativePresenter::present`] on the libuv thread pool. */
  presentAsync(data: Text | undefined | null, args: CallArgs): Promise<unknown>
  /** Streams a framed response through this presenter (see `start_stream`). */
  presentStream(data: Text | undefined | null, args: CallArgs, id: string | undefined | null, protocol: string | undefined | null, onEvent: (arg: StreamArgs) => void): StreamControl
}

/**
 * The JS side's handle on a streaming response: `ack` after each chunk (with `push`'s
 * result), `resume` from `read()`, `cancel` from `destroy()`.
 */
export declare class StreamControl {
  /** A chunk was pushed; `more` is what `Readable.push` returned. */
  ack(more: boolean): void
  /** The consumer wants more (`Readable._read`). */
  resume(): void
  /** Nobody reads any more (`Readable._destroy`): the worker stops encoding. */
  cancel(): void
  /** Bytes of the response the engine has produced so far (the side door of the stream). */
  produced(): number
  /** True once the worker is done: the response is complete, failed or cancelled. */
  finished(): boolean
}

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
 * TOON of JSON text (`toon::encode_json`): no JavaScript value is built. The TOON text comes
 * back as parts of 64 KiB (`OUT_CHUNK`), each made a JS string as soon as the encoder fills it (the
 * JS layer joins them into one rope string), so the whole text never exists twice: once in
 * Rust and once in V8. ASCII parts become one-byte strings by a plain copy.
 */
export declare function encodeJson(json: Text, delimiter: string, indent: number): Array<string>

/** [`encode_json`] on the libuv thread pool: a promise of the TOON text. */
export declare function encodeJsonAsync(json: Text, delimiter: string, indent: number): Promise<unknown>

/** The `INTERNAL_ERROR` envelope of a failed handler (WIRE.md §8). */
export declare function handlerError(action: string, message: string): NativeReply

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

/** Presents `data` (JSON text; `None` is "no value", `OK`) without a presenter. */
export declare function presentPlain(data: Text | undefined | null, args: CallArgs): NativeReply

/** [`present_plain`] on the libuv thread pool. */
export declare function presentPlainAsync(data: Text | undefined | null, args: CallArgs): Promise<unknown>

/** Streams a framed response without a presenter (see `start_stream`). */
export declare function presentPlainStream(data: Text | undefined | null, args: CallArgs, id: string | undefined | null, protocol: string | undefined | null, onEvent: (arg: StreamArgs) => void): StreamControl

/** The TOON tool description of WIRE.md §6. */
export declare function toonDescription(toolName: string, description: string, discriminator: string, actions: Array<NativeAction>): string
