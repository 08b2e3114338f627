'use strict';
// JSON text handed to the addon: large ASCII strings as bytes, and copies the addon owns.

const native = require('./native');
const { encodeError, wellFormed } = require('./errors');
const { rowsText } = require('./rows');

// A large string goes to the addon as UTF-8 bytes made by `encodeInto`, which both copies
// and checks: ASCII (its own UTF-8) fills exactly `s.length` bytes, ~20% faster on 100k rows
// than napi's two-pass UTF-8 conversion; for any other the rest is encoded on into room for
// 3 bytes a char (10% of encodeJson on 100k rows with non-ASCII names). Callers hand over
// well-formed text only (JSON.stringify's output or a string checked by wellFormed): a lone
// surrogate would become U+FFFD here.
const textEncoder = new TextEncoder();
function fastText(s) {
  if (s.length <= 4096) return s;
  const bytes = Buffer.allocUnsafe(s.length);
  const head = textEncoder.encodeInto(s, bytes);
  if (head.read === s.length) return bytes;
  const all = Buffer.allocUnsafe(head.written + (s.length - head.read) * 3);
  bytes.copy(all, 0, 0, head.written);
  const tail = textEncoder.encodeInto(s.slice(head.read), all.subarray(head.written));
  return all.subarray(0, head.written + tail.written);
}

// A large array is read as cells when it is a table (lib/rows.js); else it is
// stringified STRINGIFY_ROWS elements at a time, each text encoded into one
// buffer as it comes (each slice's `[` after the first made a `,`, each `]` but the last
// written over): the same bytes as JSON.stringify of the whole, whose text V8 builds as a
// rope of parts that the copy into bytes must first flatten (twice the size when any char
// is not Latin-1). On 100k rows: 40 → 34 ms ASCII, 83 → 45 ms non-ASCII, nested 83 → 66 and
// 123 → 77 ms (DECISIONS.md, "Node binding").
const STRINGIFY_ROWS = 128;

/**
 * The text of JSON.stringify(value) as the addon takes it (fastText), or undefined when
 * JSON.stringify gives undefined. `cells`: a table is read as cells (false when
 * the caller has already tried).
 */
function jsonText(value, cells = true) {
  if (!Array.isArray(value) || value.length < 8 * STRINGIFY_ROWS || value.toJSON !== undefined) {
    const json = JSON.stringify(value);
    return json === undefined ? undefined : fastText(json);
  }
  const table = cells ? rowsText(value, false) : undefined;
  if (table !== undefined) return table;
  let bytes = Buffer.allocUnsafe(1 << 20);
  let at = 0;
  for (let i = 0; i < value.length; i += STRINGIFY_ROWS) {
    let part = JSON.stringify(value.slice(i, i + STRINGIFY_ROWS));
    const start = at;
    for (;;) {
      const r = textEncoder.encodeInto(part, bytes.subarray(at));
      at += r.written;
      if (r.read === part.length) break;
      part = part.slice(r.read);
      bytes = grown(bytes, at, Math.max(bytes.length * 2, at + part.length * 3));
    }
    if (start > 0) {
      bytes[start] = 0x2c;
    } else {
      // Room for all of it, guessed from the first slice.
      const guess = Math.ceil(at * (value.length / STRINGIFY_ROWS) * 1.125);
      if (guess > bytes.length) bytes = grown(bytes, at, guess);
    }
    at -= 1;
  }
  return bytes.subarray(0, at + 1);
}

function grown(bytes, used, size) {
  const next = Buffer.allocUnsafe(size);
  bytes.copy(next, 0, 0, used);
  return next;
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

module.exports = { fastText, jsonText, asText, ownText };
