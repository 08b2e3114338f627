'use strict';
// JSON text handed to the addon: large ASCII strings as bytes, and copies the addon owns.

const native = require('./native');
const { encodeError, wellFormed } = require('./errors');

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

module.exports = { fastText, asText, ownText };
