'use strict';
// Errors: the engine's native errors turned into JavaScript's, and the one rule for JavaScript
// strings going into the engine (a lone surrogate is a TypeError naming where).

const MARK = '\u0000toolwire:';


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

module.exports = {
  ToolwireError,
  ToonDecodeError,
  encodeError,
  decodeError,
  loneSurrogateError,
  wellFormed,
  wellFormedDeep,
};
