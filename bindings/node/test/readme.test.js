'use strict';
// The README's Node.js quick start, run as it is written (its `require('./bindings/node')`
// pointed at this package), so the README cannot drift from the binding.
const test = require('node:test');
const fs = require('node:fs');
const path = require('node:path');

test('the README quick start runs', () => {
  const readme = fs.readFileSync(path.join(__dirname, '..', '..', '..', 'README.md'), 'utf8');
  const section = readme.indexOf('## Quick start: Node.js');
  if (section < 0) throw new Error('README has no "Quick start: Node.js" section');
  const start = readme.indexOf('```js\n', section);
  const end = readme.indexOf('\n```', start + 6);
  if (start < 0 || end < 0) throw new Error('no ```js block in the Node.js quick start');
  const code = readme
    .slice(start + 6, end)
    .replaceAll("require('./bindings/node", "require(PACKAGE + '"); // the package and its subpaths
  // The block's own assertions fail the test if the binding drifts.
  new Function('require', 'PACKAGE', code)(require, path.join(__dirname, '..'));
});
