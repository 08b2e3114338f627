'use strict';
// toolwire/presenter: the presenter and response API of mcp-fusion (createPresenter,
// definePresenter, ResponseBuilder, ui, suggest, t, success, toolError, …) on toolwire's
// engine. A presenter built here is written as a presenter file (CLI.md) whose callbacks sit
// at `{"callback": n}` entries; the engine truncates, validates, strips, redacts, selects,
// encodes and escapes, and calls back into JavaScript (on this thread, during the call) for
// the rules, UI blocks and suggestions computed from the data. lib/response.js has the
// response side (ResponseBuilder, ui, the envelopes), lib/schema.js zod and JSON Schema.

const native = require('./lib/native');
const { encodeError, wellFormed } = require('./lib/errors');
const { jsonText } = require('./lib/text');
const { presentRows } = require('./lib/rows');
const { toResult } = require('./lib/present');
const R = require('./lib/response');
const { jsonSchemaOf, isZod, zodDescriptions, lazyT } = require('./lib/schema');

const PRESENTER_BRAND = 'ToolwirePresenter';

function isPresenter(v) {
  return v instanceof Presenter || (v !== null && typeof v === 'object' && v.__brand === PRESENTER_BRAND);
}

/** Thrown by `make()` when the data does not match the schema (the engine's message). */
class PresenterValidationError extends Error {
  constructor(presenterName, message, response) {
    super(message);
    this.name = 'PresenterValidationError';
    this.presenterName = presenterName;
    // The OUTPUT_VALIDATION_FAILED response the engine wrote (WIRE.md §8), for a server that
    // answers with it.
    Object.defineProperty(this, 'response', { value: response, enumerable: false });
  }
}

function label(kind, fn, name) {
  return `${kind} callback${fn && fn.name ? ` '${fn.name}'` : ''} of ${name}`;
}

function failText(e) {
  if (e instanceof Error) return `${e.name}: ${e.message}`;
  return String(e);
}

/** Flattens a callback's answer for the engine; kinds: rules, ui, suggest, censor, capture. */
function flatten(kind, answer) {
  if (kind === 'censor') {
    if (typeof answer !== 'string') throw new TypeError(`returned ${answer === null ? 'null' : typeof answer}, not the string to show`);
    return [wellFormed(answer, 'a censor')];
  }
  if (answer === undefined || answer === null) return [];
  if (typeof answer.then === 'function') {
    throw new TypeError('returned a Promise: register it with an async method (asyncRules, asyncUiBlocks, …) and call makeAsync()');
  }
  const list = Array.isArray(answer) ? answer : [answer];
  const out = [];
  for (const x of list) {
    if (x === null || x === undefined || x === false) continue;
    if (kind === 'rules') out.push(wellFormed(String(x), 'a rule'));
    else if (kind === 'suggest') out.push(wellFormed(String(x.tool), 'a suggestion\'s tool'), wellFormed(String(x.reason), 'a suggestion\'s reason'));
    else R.pushBlock(out, x);
  }
  return out;
}

// A collection of 1024 kept rows or more (the addon's LAZY_ITEMS) reaches a callback as an
// array parsed on first use, and comes from the addon without its JSON text: its length is
// known without it, so a callback that only counts (a summary) costs no text and no parse.
// Read during the callback, the text is the addon's `dispatchedJson(id)`; read later (an
// array kept by the callback), the call is presented again with every callback answered as
// it was the first time, and the text taken at the same call.
function lazyArray(items, json) {
  const target = new Array(items);
  let filled = false;
  const fill = () => {
    if (filled) return;
    filled = true;
    const rows = JSON.parse(json());
    for (let i = 0; i < rows.length; i++) target[i] = rows[i];
  };
  const traps = {};
  for (const k of ['get', 'set', 'has', 'deleteProperty', 'ownKeys', 'getOwnPropertyDescriptor', 'defineProperty']) {
    traps[k] = (t, ...rest) => {
      if (!(k === 'get' && rest[0] === 'length')) fill();
      return Reflect[k](t, ...rest);
    };
  }
  return new Proxy(target, traps);
}

/** The JSON text of the value of dispatcher call `k` of a call presented again. */
function replayedJson(call, answers, k) {
  let json;
  let i = 0;
  try {
    call((n, text, items, id) => {
      if (i === k) json = text ?? native.dispatchedJson(id);
      return answers[i++] ?? null;
    });
  } catch (e) {
    throw encodeError(e);
  }
  if (json === undefined) throw new Error('toolwire: a collection presented again did not reach its callback');
  return json;
}

function dispatcher(slots, ctx, state, call) {
  const answers = [];
  return (n, json, items, id) => {
    const k = answers.length;
    answers.push(null);
    const slot = slots[n];
    if (state.failure) return null;
    try {
      let value;
      if (slot.raw) {
        value = json;
      } else if (json !== undefined && json !== null) {
        value = JSON.parse(json);
      } else if (slot.kind === 'capture') {
        // Kept for makeAsync, which reads it after the call: the text now, not a second call.
        const text = native.dispatchedJson(id);
        value = lazyArray(items, () => text);
      } else {
        value = lazyArray(items, () => native.dispatchedJson(id) ?? replayedJson(call, answers, k));
      }
      const answer = slot.fn(value, ctx, state);
      const flat = flatten(slot.kind, answer);
      if (slot.own && slot.kind === 'ui') state.ownUi += flat.length / 6;
      answers[k] = flat;
      return flat;
    } catch (e) {
      state.failure = `${slot.label} threw ${failText(e)}`;
      state.error = e;
      return null;
    }
  };
}

class Presenter {
  constructor(name) {
    if (typeof name !== 'string' || name === '') throw new TypeError('a presenter needs a name');
    this.__brand = PRESENTER_BRAND;
    this.name = name;
    this._schema = undefined; // the JSON Schema of one item
    this._zod = undefined;
    this._rules = [];
    this._collectionRules = [];
    this._itemUi = undefined;
    this._collectionUi = undefined;
    this._suggest = undefined;
    this._collectionSuggest = undefined;
    this._limit = undefined; // {max, onTruncate?}
    this._embeds = [];
    this._redact = undefined;
    this._async = {};
    this._sealed = false;
    this._compiled = new Map();
  }

  _open() {
    if (this._sealed) {
      throw new Error(`Presenter "${this.name}" is sealed after first .make() call. Configuration must be done before .make() is called.`);
    }
  }

  /** A zod schema, a shape of zod types (`{id: t.string}`), a `{schema}` model, or JSON Schema. */
  schema(s) {
    this._open();
    if (s && typeof s === 'object' && 'fields' in s && 'schema' in s && isZod(s.schema)) s = s.schema;
    const { json, zod } = jsonSchemaOf(s);
    this._schema = json;
    this._zod = zod;
    return this;
  }

  systemRules(rules) {
    this._open();
    if (typeof rules !== 'function' && !Array.isArray(rules)) throw new TypeError('systemRules expects an array of strings or a function');
    this._rules = rules;
    return this;
  }

  rules(rules) { return this.systemRules(rules); }

  collectionRules(rules) {
    this._open();
    if (typeof rules !== 'function' && !Array.isArray(rules)) throw new TypeError('collectionRules expects an array of strings or a function');
    this._collectionRules = rules;
    return this;
  }

  uiBlocks(fn) { this._open(); this._itemUi = fnArg(fn, 'uiBlocks'); return this; }
  ui(fn) { return this.uiBlocks(fn); }
  collectionUiBlocks(fn) { this._open(); this._collectionUi = fnArg(fn, 'collectionUiBlocks'); return this; }
  suggestActions(fn) { this._open(); this._suggest = fnArg(fn, 'suggestActions'); return this; }
  suggest(fn) { return this.suggestActions(fn); }
  collectionSuggestActions(fn) { this._open(); this._collectionSuggest = fnArg(fn, 'collectionSuggestActions'); return this; }
  collectionSuggest(fn) { return this.collectionSuggestActions(fn); }

  /** Keeps at most `max` items; the engine writes the truncation notice. */
  limit(max) {
    this._open();
    this._limit = { max: natural(max, 'limit') };
    return this;
  }

  /** Keeps at most `max` items; `onTruncate(omitted)` gives the notice block. */
  agentLimit(max, onTruncate) {
    this._open();
    this._limit = { max: natural(max, 'agentLimit'), onTruncate: fnArg(onTruncate, 'agentLimit') };
    return this;
  }

  embed(key, child) {
    this._open();
    if (typeof key !== 'string') throw new TypeError('embed expects a key');
    if (!isPresenter(child)) throw new TypeError('embed expects a Presenter');
    this._embeds.push({ key, presenter: child });
    return this;
  }

  /**
   * Replaces the values at `paths` (`a.b`, `a[*].b`, `*`) with `censor` before any block is
   * made: a string, or a function of the validated value answering the string shown
   * (`(v) => '****' + String(v).slice(-4)`); it alone sees the value.
   */
  redactPII(paths, censor) {
    this._open();
    if (!Array.isArray(paths) || paths.some((p) => typeof p !== 'string')) throw new TypeError('redactPII expects an array of paths');
    if (censor !== undefined && typeof censor !== 'string' && typeof censor !== 'function') {
      throw new TypeError('redactPII: the censor must be a string or a function (value) => string');
    }
    this._redact = { paths: [...paths], ...(censor !== undefined ? { censor } : {}) };
    return this;
  }

  redact(paths, censor) { return this.redactPII(paths, censor); }

  asyncUiBlocks(fn) { this._async.ui = fnArg(fn, 'asyncUiBlocks'); this._compiled.clear(); return this; }
  asyncCollectionUiBlocks(fn) { this._async.collectionUi = fnArg(fn, 'asyncCollectionUiBlocks'); this._compiled.clear(); return this; }
  asyncRules(fn) { this._async.rules = fnArg(fn, 'asyncRules'); this._compiled.clear(); return this; }
  asyncSuggestActions(fn) { this._async.suggest = fnArg(fn, 'asyncSuggestActions'); this._compiled.clear(); return this; }

  hasAsyncCallbacks() {
    const a = this._async;
    return Boolean(a.ui || a.collectionUi || a.rules || a.suggest);
  }

  getSchemaKeys() { return this._schema && this._schema.properties ? Object.keys(this._schema.properties) : []; }
  getRedactPaths() { return this._redact ? this._redact.paths : []; }
  getAgentLimitMax() { return this._limit ? this._limit.max : undefined; }
  getUiBlockTypes() { return [this._itemUi && 'item', this._collectionUi && 'collection'].filter(Boolean); }
  hasContextualRules() { return typeof this._rules === 'function'; }
  getStaticRuleStrings() { return typeof this._rules === 'function' ? [] : this._rules; }

  /**
   * The presenter file this presenter is (CLI.md), each callback at a `{"callback": n}`
   * entry; `slots` receives the callbacks in order (omit it for the file alone).
   */
  toPresenterFile(slots = [], withAsync = false) {
    const add = (kind, fn, what, extra = {}, named = fn) => {
      slots.push({ kind, fn, label: label(what, named, this.name), own: slots.top === this, ...extra });
      return { callback: slots.length - 1 };
    };
    if (slots.top === undefined) slots.top = this;
    const file = { name: this.name };
    if (this._schema !== undefined) file.schema = this._schema;
    const call = (fn) => (v, ctx) => fn(v, ctx);
    if (typeof this._rules === 'function') file.item_rules = [add('rules', call(this._rules), 'rules', {}, this._rules)];
    else if (this._rules.length) file.rules = this._rules.map(String);
    if (withAsync && (this._async.rules || this._async.suggest) && slots.top === this) {
      (file.item_rules ??= []).push(add('capture', (v, ctx, st) => { st.first = v; }, 'capture'));
    }
    if (typeof this._collectionRules === 'function') file.collection_rules = [add('rules', call(this._collectionRules), 'collectionRules', {}, this._collectionRules)];
    else if (this._collectionRules.length) file.collection_rules = this._collectionRules.map(String);
    if (this._limit) file.limit = this._limit.max;
    if (this._redact) {
      const { paths, censor } = this._redact;
      file.redact = typeof censor === 'function'
        ? { paths, censor: add('censor', (v) => censor(v), 'censor', {}, censor) }
        : this._redact;
    }
    file.select = true;
    const ui = {};
    if (this._limit && this._limit.onTruncate && slots.top === this) {
      // The notice of agentLimit: the rows are truncated before the call (see make).
      ui.collection = [add('ui', (v, ctx, st) => (st.omitted > 0 ? [this._limit.onTruncate(st.omitted)] : []), 'agentLimit', { raw: true }, this._limit.onTruncate)];
    }
    if (this._itemUi) (ui.item ??= []).push(add('ui', call(this._itemUi), 'uiBlocks', {}, this._itemUi));
    if (this._collectionUi) (ui.collection ??= []).push(add('ui', call(this._collectionUi), 'collectionUiBlocks', {}, this._collectionUi));
    if (withAsync && slots.top === this) {
      if (this._async.ui) (ui.item ??= []).push(add('capture', (v, ctx, st) => { st.whole = v; }, 'capture'));
      if (this._async.collectionUi) (ui.collection ??= []).push(add('capture', (v, ctx, st) => { st.whole = v; }, 'capture'));
    }
    if (ui.item || ui.collection) file.ui = ui;
    const suggest = {};
    if (this._suggest) suggest.item = [add('suggest', call(this._suggest), 'suggestActions', {}, this._suggest)];
    if (this._collectionSuggest) suggest.collection = [add('suggest', call(this._collectionSuggest), 'collectionSuggestActions', {}, this._collectionSuggest)];
    if (suggest.item || suggest.collection) file.suggest = suggest;
    if (this._embeds.length) {
      file.embed = {};
      for (const { key, presenter } of this._embeds) file.embed[key] = presenter.toPresenterFile(slots, false);
    }
    return file;
  }

  _native(withAsync) {
    let c = this._compiled.get(withAsync);
    if (!c) {
      const slots = [];
      const file = this.toPresenterFile(slots, withAsync);
      // Kinds as the engine knows them: a capture answers nothing, as rules or UI.
      const kinds = slots.map((s, i) => (s.kind !== 'capture' ? s.kind
        : (file.item_rules ?? []).some((e) => e.callback === i) ? 'rules' : 'ui'));
      try {
        c = { p: native.NativePresenter.withCallbacks(JSON.stringify(file), kinds), slots };
      } catch (e) {
        throw encodeError(e);
      }
      this._compiled.set(withAsync, c);
    }
    return c;
  }

  /**
   * Presents `data` (an item, an array of items, or JSON bytes of either): a ResponseBuilder
   * that `build()`s the response; more blocks may be added first. `selectFields` is the
   * agent's `_select`.
   */
  make(data, ctx, selectFields) {
    return this._make(data, ctx, selectFields, false).builder;
  }

  async makeAsync(data, ctx, selectFields) {
    const { builder, state } = this._make(data, ctx, selectFields, this.hasAsyncCallbacks());
    if (builder._failed) return builder;
    const a = this._async;
    const isArray = state.isArray;
    try {
      if (isArray && a.collectionUi && state.whole !== undefined) builder.uiBlocks(dropNulls(await a.collectionUi(state.whole, ctx)));
      else if (!isArray && a.ui && state.whole !== undefined) builder.uiBlocks(dropNulls(await a.ui(state.whole, ctx)));
      if (a.rules && state.first !== undefined) builder.systemRules(dropNulls(await a.rules(state.first, ctx)).map(String));
      if (a.suggest && state.first !== undefined) builder.systemHint(dropNulls(await a.suggest(state.first, ctx)));
    } catch (e) {
      return R.failedBuilder(this.name, `async callback of ${this.name} threw ${failText(e)}`);
    }
    return builder;
  }

  _make(data, ctx, selectFields, withAsync) {
    this._sealed = true;
    const { p, slots } = this._native(withAsync);
    const state = { failure: null, error: null, ownUi: 0, omitted: 0, isArray: false, first: undefined, whole: undefined };
    let input = data;
    if (input instanceof Uint8Array && this._limit && this._limit.onTruncate) input = JSON.parse(Buffer.from(input).toString('utf8'));
    state.isArray = Array.isArray(input) || (input instanceof Uint8Array && firstByte(input) === 0x5b);
    if (Array.isArray(input) && this._limit && this._limit.onTruncate && input.length > this._limit.max) {
      state.omitted = input.length - this._limit.max;
      input = input.slice(0, this._limit.max);
    }
    const args = { action: `${this.name}/present` };
    if (selectFields !== undefined && selectFields !== null && !(Array.isArray(selectFields) && selectFields.length === 0)) {
      args.select = JSON.stringify(selectFields) ?? 'null';
    }
    // A table of rows goes to the engine as cells (no JSON text); the text is made only
    // when the call is presented again (a collection read after its callback returned,
    // the side door).
    let text;
    let made = false;
    const textOf = () => {
      if (!made) {
        text = dataText(input);
        made = true;
      }
      return text;
    };
    const call = (dispatch) => p.presentWith(textOf(), args, dispatch);
    let reply;
    try {
      const dispatch = dispatcher(slots, ctx, state, call);
      if (Array.isArray(input)) reply = presentRows(input, (cells, stream) => p.presentCellsWith(cells, args, dispatch, stream));
      if (reply === undefined) reply = call(dispatch);
    } catch (e) {
      throw encodeError(e);
    }
    if (state.failure) {
      if (state.error instanceof PresenterValidationError) throw state.error;
      return { builder: R.failedBuilder(this.name, state.failure), state };
    }
    if (reply.problem === 'output') {
      const result = toResult(reply, () => ({ data: null }));
      const msg = /<message>([\s\S]*?)<\/message>/.exec(reply.texts[0]);
      throw new PresenterValidationError(this.name, msg ? R.unescape(msg[1]) : reply.texts[0], result);
    }
    // UI blocks of this presenter: the engine's truncation notice, then its callbacks' blocks.
    const notice = !this._limit || this._limit.onTruncate ? 0
      : Array.isArray(input) ? Number(input.length > this._limit.max)
        : Number(reply.uiBlocks.length > 0 && reply.uiBlocks[0].type === 'summary' && reply.uiBlocks[0].content.startsWith('📊 **Summary**: ⚠️ Dataset truncated.'));
    const redo = () => p.presentWith(textOf(), { ...args, wantData: true }, () => []);
    return { builder: R.presented(reply, notice + state.ownUi, redo), state };
  }
}

function firstByte(b) {
  for (const c of b) if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return c;
  return -1;
}

function dataText(data) {
  if (data === undefined || data === null) return undefined;
  if (data instanceof Uint8Array) return new Uint8Array(data);
  return jsonText(data);
}

function dropNulls(list) {
  return (list ?? []).filter((x) => x !== null && x !== undefined);
}

function fnArg(fn, what) {
  if (typeof fn !== 'function') throw new TypeError(`${what} expects a function`);
  return fn;
}

function natural(n, what) {
  if (!Number.isSafeInteger(n) || n < 0) throw new TypeError(`${what} must be a natural number`);
  return n;
}

function createPresenter(name) {
  return new Presenter(name);
}

/** The declarative form: one object holding what the fluent calls set. */
function definePresenter(config) {
  if (!config || typeof config !== 'object') throw new TypeError('definePresenter expects a config object');
  const p = new Presenter(config.name);
  let described = [];
  if (config.schema) {
    p.schema(config.schema);
    if (config.autoRules !== false) described = zodDescriptions(p._schema);
  }
  if (config.rules) {
    if (typeof config.rules === 'function') {
      const fn = config.rules;
      p.systemRules(described.length ? (d, ctx) => [...described, ...fn(d, ctx)] : fn);
    } else {
      p.systemRules([...described, ...config.rules]);
    }
  } else if (described.length) {
    p.systemRules(described);
  }
  if (config.ui) p.uiBlocks(config.ui);
  if (config.collectionUi) p.collectionUiBlocks(config.collectionUi);
  if (config.agentLimit) p.agentLimit(config.agentLimit.max, config.agentLimit.onTruncate);
  if (config.limit !== undefined) p.limit(config.limit);
  if (config.suggestActions) p.suggestActions(config.suggestActions);
  for (const e of config.embeds ?? []) p.embed(e.key, e.presenter);
  if (config.redactPII) p.redactPII(config.redactPII.paths, config.redactPII.censor);
  if (config.collectionSuggestions) p.collectionSuggestActions(config.collectionSuggestions);
  if (config.collectionRules) p.collectionRules(config.collectionRules);
  if (config.asyncUi) p.asyncUiBlocks(config.asyncUi);
  if (config.asyncCollectionUi) p.asyncCollectionUiBlocks(config.asyncCollectionUi);
  if (config.asyncRules) p.asyncRules(config.asyncRules);
  if (config.asyncSuggestActions) p.asyncSuggestActions(config.asyncSuggestActions);
  return p;
}

/** A presenter from `base` with `overrides`: rules, embeds and redaction paths add up. */
function extendPresenter(base, overrides) {
  const pick = (k) => (overrides[k] ?? base[k]);
  const merged = {
    name: overrides.name,
    schema: pick('schema'),
    autoRules: pick('autoRules'),
    rules: mergeRules(base.rules, overrides.rules),
    embeds: [...(base.embeds ?? []), ...(overrides.embeds ?? [])],
    redactPII: base.redactPII && overrides.redactPII
      ? { paths: [...base.redactPII.paths, ...overrides.redactPII.paths], censor: overrides.redactPII.censor ?? base.redactPII.censor }
      : pick('redactPII'),
  };
  for (const k of ['ui', 'collectionUi', 'agentLimit', 'limit', 'suggestActions', 'collectionSuggestions', 'collectionRules',
    'asyncUi', 'asyncCollectionUi', 'asyncRules', 'asyncSuggestActions']) merged[k] = pick(k);
  for (const k of Object.keys(merged)) if (merged[k] === undefined) delete merged[k];
  return definePresenter(merged);
}

function mergeRules(a, b) {
  if (!a) return b;
  if (!b) return a;
  if (typeof a !== 'function' && typeof b !== 'function') return [...a, ...b];
  const fa = typeof a === 'function' ? a : () => [...a];
  const fb = typeof b === 'function' ? b : () => [...b];
  return (d, ctx) => [...fa(d, ctx), ...fb(d, ctx)];
}

module.exports = {
  Presenter,
  createPresenter,
  definePresenter,
  extendPresenter,
  isPresenter,
  PresenterValidationError,
  ResponseBuilder: R.ResponseBuilder,
  response: R.response,
  isResponseBuilder: R.isResponseBuilder,
  ui: R.ui,
  suggest: R.suggest,
  success: R.success,
  successStructured: R.successStructured,
  toonSuccess: R.toonSuccess,
  error: R.error,
  toolError: R.toolError,
  required: R.required,
  generateDescription: R.generateDescription,
  generateToonDescription: R.generateToonDescription,
  extractZodDescriptions: (schema) => zodDescriptions(jsonSchemaOf(schema).json),
  MVA_META_SYMBOL: R.MVA_META_SYMBOL,
  META: R.META,
};
Object.defineProperty(module.exports, 't', { get: lazyT, enumerable: true });
