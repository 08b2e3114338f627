'use strict';
// Schemas of toolwire/presenter: a zod schema (zod 4's own `z.toJSONSchema`), a shape of zod
// types, or JSON Schema, reduced to the presenter file's subset (CLI.md): type (arrays of
// types too), properties, required, items, enum, additionalProperties, description, title.
// Constraints the subset has no word for (formats, lengths, ranges, refinements) are dropped:
// the engine validates types, required fields and enums, and strips undeclared fields.

function isZod(v) {
  return v !== null && typeof v === 'object' && (v._zod !== undefined || (v._def !== undefined && typeof v.parse === 'function'));
}

function zod() {
  try {
    return require('zod');
  } catch (e) {
    const err = new Error('toolwire/presenter: zod schemas and `t` need the zod package (npm install zod)');
    err.cause = e;
    throw err;
  }
}

/** `{json, zod}`: the subset JSON Schema of one item, and the zod schema when one was given. */
function jsonSchemaOf(s) {
  if (s === null || typeof s !== 'object') throw new TypeError('schema expects a zod schema, a shape of zod types or a JSON Schema object');
  let z = null;
  if (isZod(s)) z = s;
  else if (Object.keys(s).length > 0 && Object.values(s).every(isZod)) z = zod().z.object(s);
  if (!z) return { json: reduce(s, 'schema'), zod: null };
  const { z: zz } = zod();
  if (typeof zz.toJSONSchema !== 'function') throw new Error('toolwire/presenter needs zod 4 (z.toJSONSchema)');
  return { json: reduce(zz.toJSONSchema(z, { io: 'output', unrepresentable: 'any' }), 'schema'), zod: z };
}

function reduce(s, path) {
  if (s === true || s === undefined) return {};
  if (s === null || typeof s !== 'object' || Array.isArray(s)) throw new TypeError(`${path}: expected a schema object`);
  const out = {};
  // anyOf/oneOf of plain types (zod's nullable) is a type array; anything else is "any".
  const alts = s.anyOf ?? s.oneOf;
  if (Array.isArray(alts)) {
    const parts = alts.map((a, i) => reduce(a, `${path}.anyOf[${i}]`));
    const types = parts.flatMap((p) => (p.type === undefined ? [null] : [].concat(p.type)));
    const objectLike = parts.filter((p) => p.type !== 'null' && p.type !== undefined);
    if (!types.includes(null)) {
      if (objectLike.length === 1) Object.assign(out, objectLike[0]);
      out.type = [...new Set(types)];
      if (out.type.length === 1) out.type = out.type[0];
      if (out.enum && !out.enum.includes(null) && types.includes('null')) out.enum = [...out.enum, null];
    }
    if (typeof s.description === 'string') out.description = s.description;
    return out;
  }
  if (typeof s.type === 'string' || Array.isArray(s.type)) {
    // Unknown type names go through: the engine names them in its error.
    const ts = [].concat(s.type).filter((t) => typeof t === 'string');
    if (ts.length) out.type = ts.length === 1 ? ts[0] : ts;
  }
  if (s.properties && typeof s.properties === 'object') {
    out.properties = {};
    for (const [k, v] of Object.entries(s.properties)) out.properties[k] = reduce(v, `${path}.properties.${k}`);
  }
  if (Array.isArray(s.required)) out.required = s.required.filter((r) => typeof r === 'string');
  if (s.items && typeof s.items === 'object' && !Array.isArray(s.items)) out.items = reduce(s.items, `${path}.items`);
  if (Array.isArray(s.enum)) out.enum = s.enum;
  else if (s.const !== undefined) out.enum = [s.const];
  if (typeof s.additionalProperties === 'boolean') out.additionalProperties = s.additionalProperties;
  else if (s.additionalProperties && typeof s.additionalProperties === 'object') out.additionalProperties = true;
  if (typeof s.description === 'string') out.description = s.description;
  if (typeof s.title === 'string') out.title = s.title;
  return out;
}

/** `key: description` for each described root field (definePresenter's autoRules). */
function zodDescriptions(json) {
  if (!json || !json.properties) return [];
  return Object.entries(json.properties).filter(([, v]) => v.description).map(([k, v]) => `${k}: ${v.description}`);
}

let tCache = null;
/** mcp-fusion's `t`: zod types without importing zod. */
function lazyT() {
  if (tCache) return tCache;
  const { z } = zod();
  tCache = Object.freeze({
    string: z.string(),
    number: z.number(),
    boolean: z.boolean(),
    date: z.date(),
    enum: (...values) => z.enum(values),
    array: (item) => z.array(item),
    object: (shape) => z.object(shape),
    record: (v) => z.record(z.string(), v),
    optional: (type) => type.optional(),
    nullable: (type) => type.nullable(),
    zod: z,
  });
  return tCache;
}

module.exports = { isZod, jsonSchemaOf, zodDescriptions, lazyT };
