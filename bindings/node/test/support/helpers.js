'use strict';
// Shared helpers of the tests: where the external TOON suite lives, and the toolwire CLI.
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const PKG = path.resolve(__dirname, '../..');
const REPO = path.resolve(PKG, '../..');

/**
 * The TOON spec fixtures folder: $TOOLWIRE_TOON_SPEC or ../shared/toon-spec beside the checkout
 * (as the Rust tests find it). Missing: says so plainly and returns null, or throws when
 * TOOLWIRE_REQUIRE_EXTERNAL=1.
 */
function toonFixtures() {
  const dir = process.env.TOOLWIRE_TOON_SPEC || path.resolve(REPO, '../shared/toon-spec');
  const fixtures = path.join(dir, 'tests/fixtures');
  if (fs.existsSync(fixtures)) return fixtures;
  if (process.env.TOOLWIRE_REQUIRE_EXTERNAL === '1') {
    throw new Error(`external suite TOOLWIRE_TOON_SPEC not found at ${dir} (required by TOOLWIRE_REQUIRE_EXTERNAL=1)`);
  }
  process.stderr.write(`NOTE: external suite not found at ${dir} (set TOOLWIRE_TOON_SPEC); the TOON fixture tests DID NOT RUN\n`);
  return null;
}

/** The fixture files of `kind` (encode|decode): [{file, tests}] sorted by name. */
function fixtureFiles(kind) {
  const dir = toonFixtures();
  if (!dir) return null;
  return fs.readdirSync(path.join(dir, kind)).filter((f) => f.endsWith('.json')).sort()
    .map((f) => ({ file: f, tests: JSON.parse(fs.readFileSync(path.join(dir, kind, f), 'utf8')).tests }));
}

let cli;
/** The toolwire binary of this checkout (built with cargo when missing). */
function toolwireBin() {
  if (cli) return cli;
  const target = process.env.CARGO_TARGET_DIR || path.join(REPO, 'target');
  // The newer of the release and debug binaries.
  const built = ['release', 'debug'].map((profile) => path.join(target, profile, 'toolwire'))
    .filter((p) => fs.existsSync(p)).sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs);
  if (built.length) return (cli = built[0]);
  execFileSync('cargo', ['build', '-p', 'toolwire-cli'], { cwd: REPO, stdio: 'inherit' });
  return (cli = path.join(target, 'debug', 'toolwire'));
}

/** Runs `toolwire args…` with `input` on stdin: {status, stdout, stderr}. */
function runCli(args, input) {
  const { spawnSync } = require('node:child_process');
  const r = spawnSync(toolwireBin(), args, { input, encoding: 'utf8', maxBuffer: 1 << 30 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The bytes a stream (presentStream's Readable) gives until its end, as UTF-8 text. */
async function collect(stream) {
  const parts = [];
  for await (const c of stream) parts.push(c);
  return Buffer.concat(parts).toString('utf8');
}

module.exports = { PKG, REPO, toonFixtures, fixtureFiles, toolwireBin, runCli, collect };
