'use strict';
// README's Node.js quick start run as a user runs it: from the package `npm pack` made,
// installed into an empty project (DIR), with require, with import, and type-checked by tsc
// against the package's index.d.ts and presenter.d.ts. tests/all.sh makes DIR:
//
//   node bindings/node/scripts/quickstart.js DIR
//
// DIR must hold node_modules/toolwire (the installed tarball) and nothing of this checkout.
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const dir = path.resolve(process.argv[2] ?? '');
if (!fs.existsSync(path.join(dir, 'node_modules', 'toolwire', 'package.json'))) {
  throw new Error(`usage: quickstart.js DIR, with the tarball installed in DIR/node_modules/toolwire`);
}
const readme = fs.readFileSync(path.join(__dirname, '..', '..', '..', 'README.md'), 'utf8');
const section = readme.indexOf('## Quick start: Node.js');
const start = readme.indexOf('```js\n', section);
const end = readme.indexOf('\n```', start + 6);
if (section < 0 || start < 0 || end < 0) throw new Error('README has no ```js block in its Node.js quick start');
const block = readme.slice(start + 6, end);
const asPackage = (code) => code.replaceAll("require('./bindings/node", "require('toolwire");
const run = (file) => execFileSync(process.execPath, [file], { cwd: dir, stdio: 'inherit' });

// 1. require
fs.writeFileSync(path.join(dir, 'quickstart.cjs'), `'use strict';\n${asPackage(block)}\n`);
run('quickstart.cjs');

// 2. import: the same code, every module it requires bound from an import.
const ids = [...new Set([...asPackage(block).matchAll(/require\('([^']+)'\)/g)].map((m) => m[1]))];
const esm = [
  ...ids.map((id, i) => `import * as m${i} from '${id}';`),
  `const modules = { ${ids.map((id, i) => `'${id}': m${i}.default ?? m${i}`).join(', ')} };`,
  // The named exports are what `import { … }` sees: check them, not only the default.
  ...ids.filter((id) => id.startsWith('toolwire')).map((id) => `for (const k of Object.keys(modules['${id}'])) if (k !== 't' && m${ids.indexOf(id)}[k] !== modules['${id}'][k]) throw new Error('${id}: named export ' + k);`),
  'const require = (id) => modules[id];',
  asPackage(block),
].join('\n');
fs.writeFileSync(path.join(dir, 'quickstart.mjs'), `${esm}\n`);
run('quickstart.mjs');

// 3. types: the block as TypeScript (imports for requires), strict.
const ts = asPackage(block)
  .replace(/^const assert = require\('node:assert'\);.*$/m,
    'declare const assert: { equal(a: unknown, b: unknown): void; ok(v: unknown): void; deepEqual(a: unknown, b: unknown): void };')
  .replace(/^const \{([^}]*)\} = require\('([^']+)'\);.*$/gm, "import {$1} from '$2';");
fs.writeFileSync(path.join(dir, 'quickstart.ts'),
  `// No @types/node: the one Node global the block uses.\ndeclare const Buffer: { from(text: string): Uint8Array };\n${ts}\nexport {};\n`);
fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({
  compilerOptions: { strict: true, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', types: [], skipLibCheck: false },
  files: ['quickstart.ts'],
}));
execFileSync(process.execPath, [require.resolve('typescript/lib/tsc.js'), '-p', dir], { stdio: 'inherit' });
console.log(`quick start ran from ${path.join(dir, 'node_modules', 'toolwire')}: require, import, tsc`);
