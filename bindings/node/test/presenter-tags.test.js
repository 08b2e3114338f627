'use strict';
// WIRE.md §2's invariant through toolwire/presenter: whatever strings go into any field of a
// presenter's callbacks, of a ResponseBuilder or of the data, each block holds exactly the
// tags its writer put there. A seeded generator, so a failure names its case.
const test = require('node:test');
const assert = require('node:assert/strict');
const { createPresenter, response, ui, suggest, toolError, error } = require('../presenter');

const RESERVED = ['ui_passthrough', 'llm_directives', 'domain_rules', 'action_suggestions', 'tool_error', 'validation_error'];
const TAG = new RegExp(`</?(?:${RESERVED.join('|')})(?![A-Za-z0-9_-])`, 'gi');

function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const PIECES = ['<', '</', '>', '&', '"', "'", '\n', '\r\n', '|', '`', '```', ' ', 'é', '😀', 'a', '\\', 'u003c',
  ...RESERVED, ...RESERVED.map((r) => r.toUpperCase()), 'domain_rulesx', '<tool_error>', '</ui_passthrough>', '<ui_passthrough type="x">'];

function hostile(r) {
  let s = '';
  const n = Math.floor(r() * 8);
  for (let i = 0; i < n; i++) s += PIECES[Math.floor(r() * PIECES.length)];
  return s;
}

/** The tags of one block: its writer's wrapper only. */
function checkBlock(text, i, what) {
  const found = text.match(TAG) ?? [];
  if (i === 0) {
    // The data block (JSON here) or an error envelope.
    const allowed = found.every((t) => /^<\/?(tool_error|validation_error)$/i.test(t));
    assert.ok(allowed && (found.length === 0 || text.startsWith('<')), `${what}: data block has tags ${found}`);
    if (found.length) assert.equal(found.length, 2, `${what}: error envelope ${text}`);
    return;
  }
  const open = /^<([a-z_]+)/.exec(text)[1];
  assert.deepEqual(found, [`<${open}`, `</${open}`], `${what}: block ${i}: ${JSON.stringify(text)}`);
}

test('no string in any field forges, opens or closes a block', () => {
  for (let seed = 1; seed <= 300; seed++) {
    const r = rng(seed);
    const h = () => hostile(r);
    const row = { [h() || 'k']: h(), id: h(), name: h(), nested: { [h() || 'n']: h() } };
    const p = createPresenter(`P${seed}`)
      .systemRules([h()])
      .collectionRules(() => [h(), h()])
      .collectionUiBlocks(() => [ui.markdown(h(), { title: h() }), ui.table([h(), h()], [[h(), h()], [h()]]), ui.codeBlock(h() || 'js', h()),
        ui.echarts({ [h()]: h() }), ui.json([h()]), ui.list([h(), h()]), ui.summary(h()), ui.mermaid(h())])
      .collectionSuggestActions(() => [suggest(h(), h())]);
    const built = [
      p.make([row, row]).llmHint(h()).uiBlock(h() || 'x', h()).systemRules([h()]).build(),
      response({ [h()]: [h(), h()] }).llmHint(h()).systemRules([h()]).systemHint([suggest(h(), h())]).uiBlock(ui.json({ a: h() })).build(),
      toolError(h() || 'C', { message: h(), suggestion: h() || undefined, availableActions: [h()], details: { [h()]: h() } }),
      error(h(), h() || undefined),
    ];
    for (const [k, res] of built.entries()) {
      res.content.forEach((c, i) => checkBlock(c.text, i, `seed ${seed}, response ${k}`));
    }
  }
});
