'use strict';
// toolwire for Node.js: a drop-in for @toon-format/toon 4.4 and the presenter pipeline for
// MCP servers. Every decision is the engine's (the addon, src/lib.rs); this layer only turns
// JavaScript values into JSON text (as @toon-format/toon normalises them), and engine
// answers into JavaScript objects and errors.
//
// lib/: native.js (the addon), errors.js (errors, the lone-surrogate rule), text.js (JSON text
// into the addon), normalize.js (JS values into JSON as @toon-format/toon normalises them),
// events.js (the streaming decoders' events), toon.js (the @toon-format/toon surface),
// present.js (presenters, CallToolResult, the side door, wrap).

const { ToolwireError, ToonDecodeError } = require('./lib/errors');
const { RawString, rawString, escapeString } = require('./lib/normalize');
const toon = require('./lib/toon');
const presenters = require('./lib/present');

module.exports = {
  encode: toon.encode,
  encodeLines: toon.encodeLines,
  decode: toon.decode,
  decodeFromLines: toon.decodeFromLines,
  DELIMITERS: toon.DELIMITERS,
  DEFAULT_DELIMITER: toon.DEFAULT_DELIMITER,
  ToonDecodeError,
  decodeStream: toon.decodeStream,
  decodeStreamSync: toon.decodeStreamSync,
  rawString,
  escapeString,
  RawString,
  encodeJson: toon.encodeJson,
  encodeJsonAsync: toon.encodeJsonAsync,
  present: presenters.present,
  presentAsync: presenters.presentAsync,
  presentStream: presenters.presentStream,
  toolSchema: presenters.toolSchema,
  wrap: presenters.wrap,
  compilePresenter: presenters.compilePresenter,
  ToolwireError,
  META: presenters.META,
};
