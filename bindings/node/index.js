'use strict';
// toolwire for Node.js: a drop-in for @toon-format/toon 4.4 and the presenter pipeline for
// MCP servers. Every decision is the engine's (the addon, src/lib.rs); this layer only turns
// JavaScript values into JSON text (as @toon-format/toon normalises them), and engine
// answers into JavaScript objects and errors.

const native = loadNative();

function loadNative() {
  try {
    return require('./toolwire.node');
  } catch (e) {
    const err = new Error(
      'toolwire: the native addon is not built (run `npm run build --prefix bindings/node`): ' + e.message,
    );
    err.cause = e;
    throw err;
  }
}

const MARK = '\u0000toolwire:';

// ---------------------------------------------------------------------------------------------
// Errors

/** An engine error: malformed JSON input, a limit, a presenter file problem. */
class ToolwireError extends Error {
  constructor(message, info = {}) {
    super(info.line !== undefined ? `${info.line}:${info.column}: ${message}` : message);
    this.name = 'ToolwireError';
    this.category = info.category;
    this.line = info.line;
    this.column = info.column;
  }
}

/** A TOON decode error, as @toon-format/toon throws it: a SyntaxError with `line` and `source`. */
class ToonDecodeError extends SyntaxError {
  constructor(message, context) {
    super((context?.line !== undefined ? `Line ${context.line}: ` : '') + message,
      context?.cause !== undefined ? { cause: context.cause } : undefined);
    this.name = 'ToonDecodeError';
    this.line = context?.line;
    this.source = context?.source;
  }
}

function engineInfo(e) {
  if (e instanceof Error && typeof e.message === 'string' && e.message.startsWith(MARK)) {
    return JSON.parse(e.message.slice(MARK.length));
  }
  return null;
}

/** Rethrows a native error of an encoder as the JavaScript error a caller expects. */
function encodeError(e) {
  const info = engineInfo(e);
  if (!info) return e;
  if (info.category === 'encode' || info.category === 'usage') return new TypeError(info.message);
  if (info.category === 'depth') return new RangeError(info.message);
  return new ToolwireError(info.message, info);
}

/** Rethrows a native error of the decoder as a ToonDecodeError with the line's text. */
function decodeError(e, text) {
  const info = engineInfo(e);
  if (!info) return e;
  if (info.category === 'usage') return new TypeError(info.message);
  const line = info.line;
  let source;
  if (line !== undefined) {
    let start = 0;
    for (let n = 1; n < line && start !== -1; n++) {
      start = text.indexOf('\n', start);
      if (start !== -1) start++;
    }
    if (start !== -1) {
      const end = text.indexOf('\n', start);
      source = text.slice(start, end === -1 ? undefined : end);
    }
  }
  const err = new ToonDecodeError(info.message, { line, source });
  err.category = info.category;
  err.column = info.column;
  return err;
}

// ---------------------------------------------------------------------------------------------
// JavaScript strings into the engine: one rule for every entry point

// A JS string is UTF-16 and may hold a lone surrogate; the engine reads UTF-8, which cannot
// hold one (napi would replace it with U+FFFD, silently changing the text). So every string
// that goes to the addon as text is checked first and a lone surrogate is a TypeError naming
// the argument and the index (in UTF-16 code units, as String.prototype.slice counts).
// Values (present's data, encode's input) are not affected: JSON.stringify writes a lone
// surrogate as a `\udxxx` escape, which the engine keeps.

/** The index of the first lone surrogate of `s` (`s` is not well-formed). */
function loneSurrogateAt(s) {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
      else return i;
    } else if (c >= 0xdc00 && c <= 0xdfff) {
      return i;
    }
  }
  return -1;
}

function loneSurrogateError(s, what) {
  const i = loneSurrogateAt(s);
  const unit = s.charCodeAt(i).toString(16).toUpperCase();
  return new TypeError(`${what} holds a lone surrogate (U+${unit}) at index ${i}, which UTF-8 text cannot represent`);
}

/** `s`, when it is well-formed UTF-16; else the TypeError of a lone surrogate in `what`. */
function wellFormed(s, what) {
  if (typeof s === 'string' && !s.isWellFormed()) throw loneSurrogateError(s, what);
  return s;
}

/** Checks every string (keys included) of a JSON-like value; `what` names the value. */
function wellFormedDeep(v, what) {
  if (typeof v === 'string') {
    wellFormed(v, what);
  } else if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) wellFormedDeep(v[i], `${what}[${i}]`);
  } else if (v !== null && typeof v === 'object') {
    for (const k of Object.keys(v)) {
      wellFormed(k, `a key of ${what}`);
      wellFormedDeep(v[k], `${what}.${k}`);
    }
  }
  return v;
}

// ---------------------------------------------------------------------------------------------
// The @toon-format/toon 4.4 surface

const DELIMITERS = { comma: ',', tab: '\t', pipe: '|' };
const DEFAULT_DELIMITER = DELIMITERS.comma;

function resolveEncodeOptions(options) {
  const delimiter = options?.delimiter ?? DEFAULT_DELIMITER;
  if (delimiter !== ',' && delimiter !== '\t' && delimiter !== '|') {
    throw new TypeError(`Invalid delimiter ${JSON.stringify(delimiter)}. Valid delimiters are: comma (,), tab (\\t), pipe (|)`);
  }
  const indentSize = options?.indentSize ?? options?.indent ?? 2;
  // The engine writes 1…64 spaces per level; any other indentSize is encoded with 1 and
  // re-indented the way @toon-format/toon indents (`' '.repeat(indentSize * depth)`).
  const native = Number.isInteger(indentSize) && indentSize >= 1 && indentSize <= 64;
  return { delimiter, indent: native ? indentSize : 1, indentSize: native ? undefined : indentSize, replacer: options?.replacer };
}

// Every TOON line is its depth's indentation then content that never starts with a space
// (a string with a leading space is quoted), so a line of the 1-space encoding starts with
// exactly `depth` spaces.
function reindent(text, indentSize) {
  const pads = [];
  return text.replace(/^ */gm, (lead) => (pads[lead.length] ??= ' '.repeat(indentSize * lead.length)));
}

// ---------------------------------------------------------------------------------------------
// rawString / escapeString (4.4): a RawString is emitted verbatim at a primitive position.

const COMMENT_LINE = /(?:^\uFEFF?|\n) *#/;

/** Pre-formatted text emitted verbatim at a primitive value position (see rawString). */
class RawString {
  constructor(value) {
    if (COMMENT_LINE.test(value)) throw new TypeError(`Raw string must not contain a line starting with "#": ${JSON.stringify(value)}`);
    this.value = value;
  }

  // JSON text of a value holding raw strings: each becomes a placeholder of the encode in
  // progress (replaced by the raw text in the TOON), else its text.
  toJSON() {
    return rawSlots ? rawSlots.add(this.value) : this.value;
  }
}

/** Wraps pre-formatted text for verbatim emission (typically returned from a `replacer`). */
function rawString(value) {
  return new RawString(value);
}

/** Escapes a string as TOON quoted strings do (`\\`, `\"`, `\n`, `\r`, `\t`, `\uXXXX`). */
function escapeString(value) {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\r/g, '\\r')
    .replace(/\t/g, '\\t').replace(/[\u0000-\u001F]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

// The raw strings of the encode in progress. A placeholder is text the engine writes
// unquoted in every position and delimiter (private-use characters, letters, digits and
// `_`), with a nonce the data does not contain.
let rawSlots = null;
let rawNonce = 0;

class RawSlots {
  constructor() {
    this.values = [];
    this.tag = `\uE000tw${(rawNonce++).toString(36)}${Math.random().toString(36).slice(2, 10)}_`;
  }

  add(value) {
    this.values.push(value);
    return `${this.tag}${this.values.length - 1}\uE001`;
  }

  // True when every placeholder occurs once in `json` (no data string collides with the tag).
  unique(json) {
    let n = 0;
    for (let i = json.indexOf(this.tag); i !== -1; i = json.indexOf(this.tag, i + 1)) n++;
    return n === this.values.length;
  }

  fill(toon) {
    const re = new RegExp(`${this.tag}(\\d+)\uE001`, 'g');
    return toon.replace(re, (_, i) => this.values[Number(i)]);
  }
}


function isPlainObject(v) {
  const p = Object.getPrototypeOf(v);
  return p === null || p === Object.prototype;
}

// True when JSON.stringify(v) is already the JSON text of @toon-format/toon's normalised v:
// only JSON values, plain arrays (holes, undefined, functions and symbols in arrays become
// null either way; NaN, ±Infinity and -0 print as `null` and `0` either way) and plain
// objects whose values are not undefined, functions or symbols, and nothing with toJSON.
// Dates with the built-in toJSON are fine: both call it (JSON.stringify with the key, which
// Date's ignores). Walks without allocating: the fast path of encode().
const DATE_TO_JSON = Date.prototype.toJSON;

function stringifiable(v) {
  if (v === null) return true;
  switch (typeof v) {
    case 'string': case 'number': case 'boolean': return true;
    case 'object': break;
    default: return false;
  }
  if (typeof v.toJSON === 'function') return v.toJSON === DATE_TO_JSON && v instanceof Date;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const x = v[i];
      if (x !== null && typeof x === 'object') {
        if (!stringifiable(x)) return false;
      } else if (typeof x === 'bigint') return false;
    }
    return true;
  }
  if (!isPlainObject(v)) return false;
  for (const k in v) {
    const x = v[k];
    if (x === null) continue;
    const t = typeof x;
    if (t === 'object') {
      if (!stringifiable(x)) return false;
    } else if (t !== 'string' && t !== 'number' && t !== 'boolean') return false;
  }
  return true;
}

function defineOwn(target, key, value) {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    target[key] = value;
  }
}

// The JSON value @toon-format/toon encodes for a JavaScript value (its normalisation rules:
// toJSON() first, -0 → 0, NaN/±Infinity → null, BigInt → number when safe else its digits as
// a string, Date → ISO string, Set → array, Map → object, holes/undefined/functions/symbols
// and non-plain objects → null, own enumerable keys in order).
function normalize(v) {
  if (v === null) return null;
  if (v instanceof RawString) {
    sawRaw = true;
    return v;
  }
  if (typeof v === 'object' && typeof v.toJSON === 'function') {
    const next = v.toJSON();
    if (next !== v) return normalize(next);
  }
  switch (typeof v) {
    case 'string': case 'boolean': return v;
    case 'number': return Object.is(v, -0) ? 0 : Number.isFinite(v) ? v : null;
    case 'bigint':
      return v >= Number.MIN_SAFE_INTEGER && v <= Number.MAX_SAFE_INTEGER ? Number(v) : v.toString();
    case 'object': break;
    default: return null;
  }
  if (v instanceof Date) return v.toISOString();
  if (Array.isArray(v)) {
    const out = new Array(v.length);
    for (let i = 0; i < v.length; i++) out[i] = normalize(v[i]);
    return out;
  }
  if (v instanceof Set) {
    const out = [];
    for (const x of v) out.push(normalize(x));
    return out;
  }
  if (v instanceof Map) {
    const out = {};
    for (const [k, x] of v) defineOwn(out, String(k), normalize(x));
    return out;
  }
  if (!isPlainObject(v)) return null;
  const out = {};
  for (const k in v) if (Object.hasOwn(v, k)) defineOwn(out, k, normalize(v[k]));
  return out;
}

function isContainer(v) {
  return v !== null && typeof v === 'object' && !(v instanceof RawString);
}

// Set by normalize() when the value holds a RawString (the encode then uses placeholders).
let sawRaw = false;

// A replacer's RawString only stands in for a primitive: for a container it is ignored and
// the original container visited.
function replaced(original, r, replacer, path) {
  if (r instanceof RawString && isContainer(original)) return visitChildren(original, replacer, path);
  return visitChildren(normalize(r), replacer, path);
}

// The replacer of @toon-format/toon: called for the root (key '', path []), every property
// and every element of the normalised value; `undefined` drops the entry (the root is kept);
// a returned value is normalised, then its children visited.
function replaceAll(root, replacer) {
  const top = replacer('', root, []);
  return top === undefined ? visitChildren(root, replacer, []) : replaced(root, top, replacer, []);
}

function visitChildren(v, replacer, path) {
  if (Array.isArray(v)) {
    const out = [];
    for (let i = 0; i < v.length; i++) {
      const p = [...path, i];
      const r = replacer(String(i), v[i], p);
      if (r !== undefined) out.push(replaced(v[i], r, replacer, p));
    }
    return out;
  }
  if (isContainer(v)) {
    const out = {};
    for (const [k, x] of Object.entries(v)) {
      const p = [...path, k];
      const r = replacer(k, x, p);
      if (r !== undefined) defineOwn(out, k, replaced(x, r, replacer, p));
    }
    return out;
  }
  return v;
}

/**
 * The JSON text of what @toon-format/toon would encode for `input`, and the raw strings in it
 * (null when there are none).
 */
function jsonOf(input, replacer) {
  if (!replacer && stringifiable(input)) return { json: JSON.stringify(input), raws: null };
  sawRaw = false;
  let v = normalize(input);
  if (replacer) v = replaceAll(v, replacer);
  if (!sawRaw) return { json: JSON.stringify(v), raws: null };
  for (;;) {
    const slots = new RawSlots();
    rawSlots = slots;
    let json;
    try {
      json = JSON.stringify(v);
    } finally {
      rawSlots = null;
    }
    if (slots.unique(json)) return { json, raws: slots };
  }
}

// The addon hands TOON back in parts of about 1 MiB (made JS strings while encoding); `+`
// joins them into a rope without copying, so a large text never exists twice.
function joinParts(parts) {
  let s = parts.length ? parts[0] : '';
  for (let i = 1; i < parts.length; i++) s += parts[i];
  return s;
}

function finish(toon, o) {
  return o.indentSize === undefined ? toon : reindent(toon, o.indentSize);
}

/** Encodes a JavaScript value as TOON, exactly as @toon-format/toon 4.4 does. */
function encode(input, options) {
  const { json, raws } = jsonOf(input, options?.replacer);
  const o = resolveEncodeOptions(options);
  let toon;
  try {
    toon = joinParts(native.encodeJson(fastText(json), o.delimiter, o.indent));
  } catch (e) {
    throw encodeError(e);
  }
  if (raws) toon = raws.fill(toon);
  return finish(toon, o);
}

/** TOON of JSON text (a string, Buffer or Uint8Array): no JavaScript value is built. */
function encodeJson(json, options) {
  const o = resolveEncodeOptions(options);
  let toon;
  try {
    toon = joinParts(native.encodeJson(asText(json, 'encodeJson'), o.delimiter, o.indent));
  } catch (e) {
    throw encodeError(e);
  }
  return finish(toon, o);
}

/**
 * encodeJson off the JavaScript thread (the addon's pool): a promise of the TOON text. The
 * text is copied before the call returns, so the caller may reuse, transfer or detach its
 * buffer at once.
 */
async function encodeJsonAsync(json, options) {
  const o = resolveEncodeOptions(options);
  const owned = ownText(asText(json, 'encodeJsonAsync'));
  let toon;
  try {
    toon = await native.encodeJsonAsync(owned, o.delimiter, o.indent);
  } catch (e) {
    throw encodeError(e);
  }
  return finish(toon, o);
}

// A large ASCII string goes to the addon as bytes (ASCII is its own UTF-8), ~20% faster on
// 100k rows than napi's two-pass UTF-8 conversion. One pass both copies and checks:
// `encodeInto` reads the whole string into `s.length` bytes only when every char is ASCII
// (any other takes two bytes or more, a lone surrogate three). Otherwise the string goes as
// it is, and napi's conversion reports a lone surrogate.
const textEncoder = new TextEncoder();
function fastText(s) {
  if (s.length <= 4096) return s;
  const bytes = Buffer.allocUnsafe(s.length);
  return textEncoder.encodeInto(s, bytes).read === s.length ? bytes : s;
}

function asText(json, what) {
  if (typeof json === 'string') return fastText(wellFormed(json, `${what}: the JSON text`));
  if (json instanceof Uint8Array) return json;
  if (json instanceof ArrayBuffer) return new Uint8Array(json);
  throw new TypeError(`${what} expects JSON text: a string, Buffer or Uint8Array`);
}

// JSON text copied into memory the addon owns (a string converted, bytes copied), before
// the call returns: what every async call, stream and side door reads. A napi reference
// does not pin a buffer's memory: the caller may transfer, detach or rewrite it meanwhile.
function ownText(text) {
  try {
    return native.ownText(text);
  } catch (e) {
    throw encodeError(e);
  }
}

function* linesOf(text) {
  if (text === '') return;
  let start = 0;
  for (;;) {
    const end = text.indexOf('\n', start);
    if (end === -1) {
      yield text.slice(start);
      return;
    }
    yield text.slice(start, end);
    start = end + 1;
  }
}

/** The lines of encode(input, options), one at a time (encoded when called, as the package does). */
function encodeLines(input, options) {
  return linesOf(encode(input, options));
}

/** Decodes TOON text into a JavaScript value, exactly as @toon-format/toon 4.4 does. */
function decode(input, options) {
  if (typeof input !== 'string') throw new TypeError('input.split is not a function');
  wellFormed(input, 'decode: the TOON text');
  const indent = (options?.indentSize ?? options?.indent ?? 2) >>> 0;
  const strict = Boolean(options?.strict ?? true);
  let json;
  try {
    json = native.decodeToJson(input, indent, strict);
  } catch (e) {
    throw decodeError(e, input);
  }
  return JSON.parse(json);
}

// The JSON events of @toon-format/toon's streaming decoders, from the engine's compact JSON of
// the document (keys in document order, which JSON.parse would not keep for integer-like
// keys). The document is decoded whole first: an error is thrown before the first event.
function* jsonEvents(json) {
  let i = 0;
  const stack = []; // 'o' or 'a' per open container
  while (i < json.length) {
    const c = json[i];
    if (c === ',' || c === ':') {
      i++;
    } else if (c === '{') {
      stack.push('o');
      yield { type: 'startObject' };
      i++;
    } else if (c === '}') {
      stack.pop();
      yield { type: 'endObject' };
      i++;
    } else if (c === '[') {
      stack.push('a');
      const length = arrayLength(json, i);
      yield { type: 'startArray', length };
      i++;
    } else if (c === ']') {
      stack.pop();
      yield { type: 'endArray' };
      i++;
    } else if (c === '"') {
      const end = stringEnd(json, i);
      const value = JSON.parse(json.slice(i, end));
      i = end;
      if (stack[stack.length - 1] === 'o' && json[i] === ':') yield { type: 'key', key: value };
      else yield { type: 'primitive', value };
    } else {
      let end = i;
      while (end < json.length && !',]}'.includes(json[end])) end++;
      yield { type: 'primitive', value: JSON.parse(json.slice(i, end)) };
      i = end;
    }
  }
}

function stringEnd(json, i) {
  let j = i + 1;
  while (json[j] !== '"') j += json[j] === '\\' ? 2 : 1;
  return j + 1;
}

// The element count of the array opening at `i` (a scan to its closing bracket).
function arrayLength(json, i) {
  let depth = 0;
  let n = 0;
  let any = false;
  for (let j = i + 1; j < json.length; j++) {
    const c = json[j];
    if (c === '"') {
      j = stringEnd(json, j) - 1;
      if (depth === 0) any = true;
    } else if (c === '[' || c === '{') {
      if (depth === 0) any = true;
      depth++;
    } else if (c === ']' || c === '}') {
      if (depth === 0) return any ? n + 1 : 0;
      depth--;
    } else if (c === ',' && depth === 0) {
      n++;
    } else if (depth === 0) {
      any = true;
    }
  }
  return n;
}

/** Decodes TOON lines into JSON events (startObject, key, primitive, …), as 4.4's decodeStreamSync. */
function decodeStreamSync(lines, options) {
  return jsonEvents(decodeJsonText(joinLines(lines, 'decodeStreamSync'), options));
}

// Lines joined for the decoder, each checked (a lone surrogate is named by its line).
function joinLines(lines, what) {
  const all = Array.from(lines);
  for (let i = 0; i < all.length; i++) {
    if (typeof all[i] === 'string') wellFormed(all[i], `${what}: line ${i + 1}`);
  }
  return all.join('\n');
}

/** decodeStreamSync for async (or sync) iterables of lines: an async iterable of events. */
async function* decodeStream(source, options) {
  const lines = [];
  for await (const line of source) lines.push(line);
  yield* jsonEvents(decodeJsonText(joinLines(lines, 'decodeStream'), options));
}

function decodeJsonText(input, options) {
  const indent = (options?.indentSize ?? options?.indent ?? 2) >>> 0;
  const strict = Boolean(options?.strict ?? true);
  try {
    return native.decodeToJson(input, indent, strict);
  } catch (e) {
    throw decodeError(e, input);
  }
}

/** Decodes TOON from pre-split lines (any iterable of strings). */
function decodeFromLines(lines, options) {
  return decode(joinLines(lines, 'decodeFromLines'), options);
}

// ---------------------------------------------------------------------------------------------
// Presenters and MCP

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
  const json = JSON.stringify(data);
  return json === undefined ? undefined : fastText(json);
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
        data = again.data === undefined || again.data === null ? undefined : JSON.parse(again.data);
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
  const p = compilePresenter(presenter);
  const text = dataText(data, 'present');
  const args = callArgs(opts, false);
  const reply = callNative(p, text, args);
  return toResult(reply, () => callNative(p, text, { ...args, wantData: true }));
}

/**
 * present() with the engine's work on the addon's pool. The data's JSON text is copied
 * before the call returns, so the caller may reuse, transfer or detach its buffer at once.
 */
async function presentAsync(data, presenter, opts) {
  const p = compilePresenter(presenter);
  const text = ownedDataText(data, 'presentAsync');
  const args = callArgs(opts, false);
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
 * stream's 'error' event, before any data). The data is copied before the call returns.
 */
function presentStream(data, presenter, opts, frame = {}) {
  const { Readable } = require('node:stream');
  const p = compilePresenter(presenter);
  const args = callArgs(opts, false);
  const [id, idNumber] = frameId(frame.id);
  const protocol = frame.protocol === undefined ? undefined : wellFormed(String(frame.protocol), 'frame.protocol');
  const text = ownedDataText(data, 'presentStream');
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
  try {
    control = p ? p.presentStream(text, args, id, idNumber, protocol, onEvent)
      : native.presentPlainStream(text, args, id, idNumber, protocol, onEvent);
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
  const p = compilePresenter(presenter);
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
  const p = compilePresenter(opts.presenter);
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
      const message = e instanceof Error ? e.message : String(e);
      if (!message.isWellFormed()) {
        const err = loneSurrogateError(message, 'wrap: the handler\'s error message');
        err.cause = e;
        throw err;
      }
      return toResult(native.handlerError(action, message), () => ({ data: null }));
    }
    if (isToolwireResult(value)) return value;
    const callOpts = { format: opts.format, limit: opts.limit, tokenBudget: opts.tokenBudget, action };
    if (select !== undefined) callOpts.select = select;
    return present(value, p, callOpts);
  };
}

module.exports = {
  encode,
  encodeLines,
  decode,
  decodeFromLines,
  DELIMITERS,
  DEFAULT_DELIMITER,
  ToonDecodeError,
  decodeStream,
  decodeStreamSync,
  rawString,
  escapeString,
  RawString,
  encodeJson,
  encodeJsonAsync,
  present,
  presentAsync,
  presentStream,
  toolSchema,
  wrap,
  compilePresenter,
  ToolwireError,
  META,
};
