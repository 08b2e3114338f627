'use strict';
// The response side of toolwire/presenter: ResponseBuilder and response(), the ui helpers,
// suggest, success/toonSuccess/successStructured, the error envelopes and the description
// generators, with mcp-fusion's names. Every block is written by the engine (escaped, fenced,
// in WIRE.md §1.1 order); a result carries toolwire's side door and mcp-fusion's.

const native = require('./native');
const { encodeError, wellFormed } = require('./errors');
const { jsonText: addonText } = require('./text');
const { META, toResult } = require('./present');

/** mcp-fusion's testing side door key (and its later name), `{data, systemRules, uiBlocks}`. */
const MVA_META_SYMBOL = Symbol.for('mcp-fusion.mva-meta');
const MVA_META_KEYS = [MVA_META_SYMBOL, Symbol.for('vurb.mva-meta')];
const BRANDS = [Symbol.for('mcp-fusion.ToolResponse'), Symbol.for('vurb.ToolResponse')];
// The JSON source of an echarts/json helper block, so the engine rebuilds it with the
// lossless `\u003c` escape of WIRE.md §2.
const SOURCE = Symbol('toolwire.uiSource');
const BUILDER_BRAND = 'ToolwireResponseBuilder';

function call(f) {
  try {
    return f();
  } catch (e) {
    throw encodeError(e);
  }
}

/** A CallToolResult with both side doors. */
function finish(reply, redo, extra) {
  const result = toResult(reply, redo);
  if (extra) Object.assign(result, extra);
  const meta = result[META];
  const mva = {
    get data() { return meta.data; },
    systemRules: meta.systemRules,
    uiBlocks: meta.uiBlocks,
  };
  for (const k of MVA_META_KEYS) Object.defineProperty(result, k, { value: mva, enumerable: false });
  for (const k of BRANDS) Object.defineProperty(result, k, { value: true, enumerable: false });
  return result;
}

function str(v, what) {
  return wellFormed(String(v), what);
}

/** Appends a UI block's six strings (type, content, title, width, priority, JSON source). */
function pushBlock(out, b) {
  if (b === null || typeof b !== 'object' || b.type === undefined || b.content === undefined) {
    throw new TypeError('a UI block is an object {type, content, meta?}');
  }
  const m = b.meta ?? {};
  out.push(str(b.type, 'UI block type'), str(b.content, 'UI block content'),
    m.title == null ? '' : str(m.title, 'UI block title'),
    m.width == null ? '' : str(m.width, 'UI block width'),
    m.priority == null ? '' : String(m.priority),
    b[SOURCE] ?? '');
}

function flatBlocks(blocks) {
  const out = [];
  for (const b of blocks) pushBlock(out, b);
  return out;
}

function flatSuggestions(list) {
  const out = [];
  for (const s of list) out.push(str(s.tool, 'suggestion tool'), str(s.reason, 'suggestion reason'));
  return out;
}

/** The data of a builder as the addon takes it: [json, text]. */
function dataArgs(data) {
  if (typeof data === 'string') return [undefined, wellFormed(data, 'response data')];
  if (data === undefined || data === null) return [undefined, undefined];
  if (data instanceof Uint8Array) return [new Uint8Array(data), undefined];
  return [addonText(data), undefined];
}

function parsedData(data) {
  if (typeof data === 'string') return data.length > 0 ? data : 'OK';
  if (data instanceof Uint8Array) return JSON.parse(Buffer.from(data).toString('utf8'));
  return data === undefined || data === null ? undefined : JSON.parse(JSON.stringify(data));
}

/**
 * Collects the blocks of a response in any order; `build()` writes them in WIRE.md §1.1's
 * order: data, UI, embedded and raw blocks, directives, rules, suggestions.
 */
class ResponseBuilder {
  constructor(data) {
    this.__brand = BUILDER_BRAND;
    this._data = data;
    this._ui = [];
    this._raw = [];
    this._hints = [];
    this._rules = [];
    this._suggestions = [];
    this._base = null; // a presenter's reply (make)
    this._failed = null; // an error response (a callback threw)
  }

  uiBlock(blockOrType, content) {
    this._ui.push(typeof blockOrType === 'object' ? blockOrType : { type: blockOrType, content });
    return this;
  }

  uiBlocks(blocks) { this._ui.push(...blocks); return this; }
  llmHint(hint) { this._hints.push(hint); return this; }
  systemRules(rules) { this._rules.push(...rules); return this; }
  systemHint(suggestions) { this._suggestions.push(...suggestions); return this; }
  rawBlock(text) { this._raw.push(text); return this; }

  /** The data block's text. */
  getData() {
    if (this._base) return this._base.reply.texts[0];
    return this.build().content[0].text;
  }

  getRules() { return this._base ? [...this._base.reply.rules, ...this._rules] : this._rules; }

  replaceRules(rules) {
    if (this._base) this._base.rulesReplaced = true;
    this._rules.length = 0;
    this._rules.push(...rules);
    return this;
  }

  getUiBlocks() { return this._base ? [...this._base.meta.uiBlocks, ...this._ui] : this._ui; }
  getHints() { return this._base ? [...this._base.reply.hints, ...this._hints] : this._hints; }
  getSuggestions() { return this._base ? [...this._base.reply.suggestions, ...this._suggestions] : this._suggestions; }

  build() {
    if (this._failed) return this._failed();
    const flat = () => [flatBlocks(this._ui), this._raw.map((r) => str(r, 'raw block')), this._hints.map((h) => str(h, 'hint')),
      this._rules.map((r) => str(r, 'rule')), flatSuggestions(this._suggestions)];
    const base = this._base;
    if (base) {
      const { reply } = base;
      const added = this._ui.length + this._raw.length + this._hints.length + this._rules.length + this._suggestions.length;
      if ((added === 0 && !base.rulesReplaced) || reply.isError) return finish(reply, base.redo);
      const [ui, raw, hints, rules, suggestions] = flat();
      const engineUi = flatBlocks(base.meta.uiBlocks);
      const own = engineUi.slice(0, base.ownUi * 6);
      const embedded = engineUi.slice(base.ownUi * 6);
      const out = call(() => native.buildResponse(undefined, reply.texts[0], undefined, [...own, ...ui], embedded, raw,
        [...reply.hints, ...hints], [...(base.rulesReplaced ? [] : reply.rules), ...rules],
        [...flatSuggestions(reply.suggestions), ...suggestions], false));
      out.format = reply.format;
      return finish(out, base.redo);
    }
    const [json, text] = dataArgs(this._data);
    const [ui, raw, hints, rules, suggestions] = flat();
    const reply = call(() => native.buildResponse(json, text, undefined, ui, [], raw, hints, rules, suggestions, false));
    const data = this._data;
    return finish(reply, () => ({ data: null, parsed: parsedData(data) }));
  }
}

// toResult's lazy side-door data reads `redo().data` as JSON text; builders give theirs parsed.
function isResponseBuilder(v) {
  return v instanceof ResponseBuilder || (v !== null && typeof v === 'object' && v.__brand === BUILDER_BRAND);
}

/** A builder holding a presenter's reply: blocks added later are merged by build(). */
function presented(reply, ownUi, redo) {
  const b = new ResponseBuilder(undefined);
  const meta = { uiBlocks: reply.uiBlocks.map(sideBlock) };
  b._base = { reply, ownUi, redo, meta, rulesReplaced: false };
  return b;
}

function sideBlock(n) {
  const out = { type: n.type, content: n.content };
  if (n.title != null || n.width != null || n.priority != null) {
    out.meta = {};
    if (n.title != null) out.meta.title = n.title;
    if (n.width != null) out.meta.width = n.width;
    if (n.priority != null) out.meta.priority = n.priority;
  }
  return out;
}

/** A builder whose build() is the INTERNAL_ERROR envelope (a callback threw). */
function failedBuilder(name, message) {
  const b = new ResponseBuilder(undefined);
  b._failed = () => finish(native.handlerError(`${name}/present`, message), () => ({ data: null }));
  return b;
}

function unescape(s) {
  return s.replace(/&lt;/g, '<').replace(/&amp;/g, '&');
}

function response(data) {
  return new ResponseBuilder(data);
}
response.ok = (data) => new ResponseBuilder(data).build();
response.withRules = (data, rules) => new ResponseBuilder(data).systemRules(rules).build();

// ── ui ────────────────────────────────────────────────────

const WIDTHS = new Set(['full', 'half', 'third']);

function block([type, content], meta, source) {
  if (meta) {
    if (meta.width != null && !WIDTHS.has(meta.width)) throw new TypeError(`width must be full, half or third, got ${String(meta.width)}`);
    if (meta.priority != null && !Number.isSafeInteger(meta.priority)) throw new TypeError('priority must be an integer');
  }
  const b = { type, content, ...(meta ? { meta } : {}) };
  if (source !== undefined) Object.defineProperty(b, SOURCE, { value: source, enumerable: false });
  return b;
}

function jsonText(v, what) {
  const t = JSON.stringify(v);
  if (t === undefined) throw new TypeError(`${what} needs a JSON value`);
  return wellFormed(t, what);
}

const ui = {
  echarts(config, meta) {
    const src = jsonText(config, 'ui.echarts');
    return block(call(() => native.uiHelper('echarts', src)), meta, src);
  },
  mermaid: (diagram, meta) => block(call(() => native.uiHelper('mermaid', str(diagram, 'ui.mermaid'))), meta),
  markdown: (md, meta) => block(call(() => native.uiHelper('markdown', str(md, 'ui.markdown'))), meta),
  codeBlock: (lang, code, meta) => block(call(() => native.uiHelper('code_block', str(lang, 'ui.codeBlock'), str(code, 'ui.codeBlock'))), meta),
  table(headers, rows, meta) {
    const cell = (c) => (c === null || c === undefined ? '' : str(c, 'ui.table'));
    return block(call(() => native.uiTable(headers.map(cell), rows.map((r) => r.map(cell)))), meta);
  },
  list: (items, meta) => block(call(() => native.uiHelper('list', undefined, undefined, items.map((i) => str(i, 'ui.list')))), meta),
  json(data, meta) {
    const src = jsonText(data, 'ui.json');
    return block(call(() => native.uiHelper('json', src)), meta, src);
  },
  summary: (text, meta) => block(call(() => native.uiHelper('summary', str(text, 'ui.summary'))), meta),
};

function suggest(tool, reason) {
  return { tool, reason };
}

// ── one-line responses ────────────────────────────────────

function success(data) {
  return new ResponseBuilder(data).build();
}

const TOON_FORMATS = { '|': 'toon', ',': 'toon-comma', '\t': 'toon-tab' };

/** The data as TOON (delimiter `|` unless `options.delimiter` says otherwise). */
function toonSuccess(data, options = {}) {
  const format = TOON_FORMATS[options.delimiter ?? '|'];
  if (!format) throw new TypeError('toonSuccess: delimiter must be "|", "," or "\\t"');
  const [json, text] = dataArgs(data);
  const reply = call(() => native.buildResponse(json, text, format, [], [], [], [], [], [], false));
  return finish(reply, () => ({ data: null, parsed: parsedData(data) }));
}

/**
 * The data as compact JSON text plus `structuredContent` (WIRE.md §7). Before protocol
 * 2026-07-28 `structuredContent` must be an object: an array is `{items}`, a scalar `{value}`.
 */
function successStructured(data, options = {}) {
  const [json, text] = dataArgs(data);
  const reply = call(() => native.buildResponse(json, text, undefined, [], [], [], [], [], [], true));
  let structured = reply.data === undefined || reply.data === null ? (text ?? null) : JSON.parse(reply.data);
  if ((options.protocol ?? '2025-11-25') < '2026-07-28' && (structured === null || typeof structured !== 'object' || Array.isArray(structured))) {
    structured = Array.isArray(structured) ? { items: structured } : { value: structured };
  }
  return finish(reply, () => ({ data: null, parsed: parsedData(data) }), { structuredContent: structured });
}

function error(message, code) {
  return finish(call(() => native.errorResponse(str(message, 'error'), code === undefined ? undefined : str(code, 'error code'), false)), () => ({ data: null }));
}

function required(field) {
  return finish(call(() => native.errorResponse(str(field, 'required'), undefined, true)), () => ({ data: null }));
}

function toolError(code, options = {}) {
  const details = [];
  for (const [k, v] of Object.entries(options.details ?? {})) details.push(str(k, 'detail key'), str(v, 'detail value'));
  const reply = call(() => native.toolErrorResponse(str(code, 'toolError code'), str(options.message ?? '', 'toolError message'),
    options.severity ?? 'error', options.suggestion ? str(options.suggestion, 'toolError suggestion') : undefined,
    (options.availableActions ?? []).map((a) => str(a, 'toolError action')), details,
    typeof options.retryAfter === 'number' ? options.retryAfter : undefined));
  return finish(reply, () => ({ data: null }));
}

// ── tool descriptions ─────────────────────────────────────

function requiredOf(a) {
  if (Array.isArray(a.required)) return a.required.map(String);
  if (a.schema) {
    const { jsonSchemaOf } = require('./schema');
    return jsonSchemaOf(a.schema).json.required ?? [];
  }
  return [];
}

/**
 * The markdown tool description of a tool with `actions` (`{key, description?, required?,
 * schema?, destructive?, groupName?, actionName?}`): the first line, then a workflow line per
 * action that has something to say.
 */
function generateDescription(actions, name, description, hasGroup = false, discriminator = 'action') {
  const lines = [];
  const head = `${description || name}. Select operation via the \`${discriminator}\` parameter. `;
  if (hasGroup) {
    const groups = new Map();
    for (const a of actions) {
      if (!a.groupName) continue;
      if (!groups.has(a.groupName)) groups.set(a.groupName, []);
      groups.get(a.groupName).push(a.actionName);
    }
    lines.push(`${head}Modules: ${[...groups].map(([g, as]) => `${g} (${as.join(',')})`).join(' | ')}`);
  } else {
    lines.push(`${head}Actions: ${actions.map((a) => a.key).join(', ')}`);
  }
  const flow = [];
  for (const a of actions) {
    const req = requiredOf(a);
    if (!a.description && req.length === 0 && a.destructive !== true) continue;
    let line = `- '${a.key}': ${a.description ?? ''}`;
    if (req.length) line += (a.description ? '. Requires: ' : 'Requires: ') + req.join(', ');
    if (a.destructive === true) line += ' [DESTRUCTIVE]';
    flow.push(line);
  }
  if (flow.length) lines.push('', 'Workflow:', ...flow);
  return lines.join('\n');
}

/** The TOON tool description (WIRE.md §6), written by the engine. */
function generateToonDescription(actions, name, description, hasGroup = false, discriminator = 'action') {
  const rows = (list, key) => list.map((a) => ({ name: String(a[key]), description: a.description ?? '', required: requiredOf(a), destructive: Boolean(a.destructive) }));
  if (!hasGroup) {
    return call(() => native.toonDescription(str(name, 'name'), str(description ?? '', 'description'), str(discriminator, 'discriminator'), rows(actions, 'key')));
  }
  const groups = {};
  for (const a of actions) {
    const g = a.groupName || '_ungrouped';
    (groups[g] ??= []).push({ action: a.actionName, desc: a.description ?? '', required: requiredOf(a).join(','), ...(a.destructive ? { destructive: true } : {}) });
  }
  const head = call(() => native.toonDescription(str(name, 'name'), str(description ?? '', 'description'), str(discriminator, 'discriminator'), []));
  const { encode } = require('./toon');
  return `${head.split('\n')[0]}\n\n${encode(groups, { delimiter: '|' })}`;
}

module.exports = {
  MVA_META_SYMBOL,
  META,
  ResponseBuilder,
  response,
  isResponseBuilder,
  presented,
  failedBuilder,
  pushBlock,
  unescape,
  ui,
  suggest,
  success,
  toonSuccess,
  successStructured,
  error,
  required,
  toolError,
  generateDescription,
  generateToonDescription,
};
