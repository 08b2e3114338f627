'use strict';
// wrap(): implicit wrapping of WIRE.md §9 and the _select rules of §4.
const test = require('node:test');
const assert = require('node:assert/strict');
const tw = require('..');

const P = { name: 'Item', select: true, schema: { type: 'object', properties: { id: { type: 'string' }, n: { type: 'integer' } } } };

test('the handler never sees _select; the data goes through the presenter', async () => {
  let seen;
  const cb = tw.wrap((args, extra) => { seen = [args, extra]; return [{ id: 'a', n: 1, hidden: true }]; }, { presenter: P });
  const r = await cb({ q: 1, _select: ['n'] }, { signal: 'x' });
  assert.deepEqual(seen, [{ q: 1 }, { signal: 'x' }]);
  assert.deepEqual(r, tw.present([{ id: 'a', n: 1 }], P, { select: ['n'] }));
  assert.equal(r.content[0].text, '[\n  {\n    "n": 1\n  }\n]');
});

test('null and undefined are OK; a toolwire result passes untouched; a throw is INTERNAL_ERROR', async () => {
  assert.deepEqual(await tw.wrap(() => undefined, { presenter: P })({}), { content: [{ type: 'text', text: 'OK' }] });
  assert.deepEqual(await tw.wrap(async () => null)({}), { content: [{ type: 'text', text: 'OK' }] });
  const built = tw.present('done', null);
  assert.equal(await tw.wrap(() => built, { presenter: P })({}), built);
  const r = await tw.wrap(() => { throw new Error('db <down>'); }, { presenter: P })({});
  assert.equal(r.isError, true);
  assert.equal(r.content[0].text, '<tool_error code="INTERNAL_ERROR" severity="error">\n<message>[Item/present] db &lt;down></message>\n<recovery>This may be a transient error. Retry the same call with identical parameters.</recovery>\n</tool_error>');
  const s = await tw.wrap(() => Promise.reject('plain string'), { action: 'items/list' })({});
  assert.match(s.content[0].text, /\[items\/list\] plain string/);
});

test('a bad _select is a validation error and the handler still is not bothered with it', async () => {
  const r = await tw.wrap(() => [{ id: 'a', n: 1 }], { presenter: P, action: 'items/list' })({ _select: ['id', 'zzz'] });
  assert.equal(r.isError, true);
  assert.equal(r.content[0].text, "<validation_error action=\"items/list\">\n<field name=\"_select\">Unknown field 'zzz'. You sent: 'zzz'. Valid options: 'id', 'n'.</field>\n<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>\n</validation_error>");
});

test('wrap options: format and limit', async () => {
  const rows = [{ id: 'a', n: 1 }, { id: 'b', n: 2 }];
  const r = await tw.wrap(() => rows, { presenter: P, format: 'toon-comma', limit: 1 })({});
  assert.equal(r.content[0].text, '[1]{id,n}:\n  a,1');
});
