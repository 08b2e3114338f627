'use strict';
const { fastText, jsonText } = require('./text');

// JavaScript values into the JSON text @toon-format/toon 4.4 would encode: its normalisation,
// its replacer, and raw strings (held as placeholders while JSON.stringify runs, so the
// module's state below is only ever touched by this file).

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
 * The JSON text of what @toon-format/toon would encode for `input`, as the addon takes it
 * (lib/text.js), and the raw strings in it (null when there are none). The caller has tried
 * `input` as a table of cells (lib/rows.js, `encodeRows`).
 */
function jsonOf(input, replacer) {
  if (!replacer) {
    // Rows the cells could not take as plain objects they cannot take as any objects either
    // when all are plain (stringifiable): not read a second time.
    if (stringifiable(input)) return { json: jsonText(input, false), raws: null };
  }
  sawRaw = false;
  let v = normalize(input);
  if (replacer) v = replaceAll(v, replacer);
  if (!sawRaw) return { json: jsonText(v), raws: null };
  for (;;) {
    const slots = new RawSlots();
    rawSlots = slots;
    let json;
    try {
      json = JSON.stringify(v);
    } finally {
      rawSlots = null;
    }
    if (slots.unique(json)) return { json: fastText(json), raws: slots };
  }
}

module.exports = { RawString, rawString, escapeString, jsonOf };
