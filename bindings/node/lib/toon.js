'use strict';
// The @toon-format/toon 4.4 surface: encode, decode and their streaming forms.

const native = require('./native');
const { encodeError, decodeError, wellFormed } = require('./errors');
const { asText, ownText } = require('./text');
const { jsonOf } = require('./normalize');
const { encodeRows } = require('./rows');
const { jsonEvents } = require('./events');

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

// The addon hands a long TOON text back in parts (made JS strings while encoding), a shorter
// one as one string; `+` joins parts into a rope without copying, so a large text never
// exists twice.
function joinParts(parts) {
  if (typeof parts === 'string') return parts;
  let s = parts.length ? parts[0] : '';
  for (let i = 1; i < parts.length; i++) s += parts[i];
  return s;
}

function finish(toon, o) {
  return o.indentSize === undefined ? toon : reindent(toon, o.indentSize);
}

/** Encodes a JavaScript value as TOON, exactly as @toon-format/toon 4.4 does. */
function encode(input, options) {
  if (!options?.replacer && Array.isArray(input) && input.toJSON === undefined) {
    // A table read as cells: the engine's document of them, built while they are read, is
    // encoded; no JSON text is written or parsed.
    let o;
    const parts = encodeRows(input, (cells, stream) => {
      o = resolveEncodeOptions(options);
      try {
        return native.encodeCells(cells, o.delimiter, o.indent, stream);
      } catch (e) {
        throw encodeError(e);
      }
    });
    if (parts !== undefined) return finish(joinParts(parts), o);
  }
  const { json, raws } = jsonOf(input, options?.replacer);
  const o = resolveEncodeOptions(options);
  let toon;
  try {
    toon = joinParts(native.encodeJson(json, o.delimiter, o.indent));
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

module.exports = {
  DELIMITERS,
  DEFAULT_DELIMITER,
  encode,
  encodeLines,
  encodeJson,
  encodeJsonAsync,
  decode,
  decodeFromLines,
  decodeStream,
  decodeStreamSync,
};
