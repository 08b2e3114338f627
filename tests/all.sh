#!/usr/bin/env bash
# The whole test suite, as README.md gives it: the Rust workspace (with the nginx replicas
# test when nginx is installed), `toolwire serve` with the official TypeScript SDK client, the
# Node binding (and README's quick start from its packed tarball), the Python binding, then
# `toolwire serve` with the official Python SDK client.
# Needs cargo, node + npm, python3 (with venv) and PostgreSQL's binaries (Debian package
# postgresql; the database tests start their own server); installs the rest from the
# registries (npm ci from the committed lock files; a venv of its own for pip).
#
#   bash tests/all.sh
#
# .ci/run installs missing toolchains, runs the lints, then this script, then the fuzzers.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
step() { echo "== $* ($(($(date +%s) - start))s)"; }

step "npm ci for the bench tests (the TypeScript SDK anchor server, the js-tiktoken oracle)"
# bindings/cli/tests/bench*.rs run `toolwire bench` against the SDK anchor server and check
# token counts with js-tiktoken; both install from their committed lock files.
npm ci --prefix benches/mcp-anchor --no-audit --no-fund
npm ci --prefix bindings/cli/tests/js-tiktoken --no-audit --no-fund

step "rust workspace (cargo test --workspace)"
cargo test --workspace

# The `toolwire` binary the cargo step built (the CLI's integration tests need it): the SDK
# client tests below run it. (`cargo build -p toolwire-cli` could rebuild it with other
# features than the workspace's unified set; it is only built here if missing.)
toolwire_bin="${CARGO_TARGET_DIR:-$PWD/target}/debug/toolwire"
[ -x "$toolwire_bin" ] || cargo build -p toolwire-cli
export TOOLWIRE_BIN="$toolwire_bin"

step "toolwire serve with the official TypeScript SDK client (npm ci, node --test)"
npm ci --prefix bindings/mcp/tests/ts-client --no-audit --no-fund
npm test --prefix bindings/mcp/tests/ts-client

step "python wheel build started, beside the node binding's build (maturin build --release)"
# The two bindings' release builds are each mostly one long single-threaded chain (the
# engine's crate, then the binding's crate and its LTO link, codegen-units = 1): 134 s and
# 129 s alone from empty target directories (`cargo build --timings`), so on a 2-core
# machine they run side by side, the wheel's beside the addon's build and tests (the two
# steps with their tests: 408 s one after the other, 343 s side by side, in CI).
# The wheel gets a target directory of its own (cargo locks one per build) and its log is
# printed when the python step below waits for it; the EXIT trap waits too, so a failure
# in between never leaves the build running. The release build of the extension is the
# Python binding's cost, so it happens once: `maturin build --release` makes the abi3 wheel
# a user would install, the tests run against that wheel installed in their venv, and a
# fresh venv below installs it alone.
py_venv="${TOOLWIRE_VENV:-$PWD/target/test-venv}"
[ -x "$py_venv/bin/python" ] || python3 -m venv "$py_venv"
"$py_venv/bin/pip" install -q --upgrade pip
"$py_venv/bin/pip" install -q "maturin>=1.8,<2"
target="${CARGO_TARGET_DIR:-$PWD/target}"
wheels="$target/python-wheel"
rm -rf "$wheels"
py_log=$(mktemp)
CARGO_TARGET_DIR="$target/python-build" "$py_venv/bin/maturin" build --release --quiet \
  -m bindings/python/Cargo.toml --out "$wheels" >"$py_log" 2>&1 &
py_build=$!
trap 'wait "$py_build" 2>/dev/null || true; rm -f "$py_log"' EXIT

step "node binding (npm ci, napi build from source, node --test)"
npm ci --prefix bindings/node --no-audit --no-fund
npm run build --prefix bindings/node
npm test --prefix bindings/node

step "node quick start (README) from the npm pack tarball, in an empty project"
# As a user: the tarball `npm pack` makes (the addon just built inside), installed into a new
# project with nothing else, then README's Node quick start with require, with import, and
# type-checked by tsc against the package's own .d.ts files.
qs_node=$(mktemp -d)
tarball=$(cd bindings/node && npm pack --silent --pack-destination "$qs_node" | tail -1)
(cd "$qs_node" && npm init -y >/dev/null && npm install --no-audit --no-fund "./$tarball")
node bindings/node/scripts/quickstart.js "$qs_node"
rm -rf "$qs_node"

step "python binding (the abi3 wheel built beside the node binding; pytest against it)"
# Its own venv, everything from the registries (the TOON fixtures are read from
# $TOOLWIRE_TOON_SPEC; the CLI comparisons use target/debug/toolwire from the cargo step
# above, or build it).
py_status=0
wait "$py_build" || py_status=$?
cat "$py_log"
[ "$py_status" = 0 ] || { echo "maturin build failed (exit $py_status)"; exit 1; }
wheel=$(ls "$wheels"/toolwire-*-abi3-*.whl)
# --force-reinstall: the version number does not change between builds of a checkout.
"$py_venv/bin/pip" install -q --force-reinstall --no-deps "$wheel"
"$py_venv/bin/pip" install -q pytest hypothesis "toon-format==1.2.*" mcp "fastmcp==4.2.3" pydantic attrs
"$py_venv/bin/python" -m pytest -q -p no:cacheprovider bindings/python/tests

step "python quick start (README) from the wheel, in a fresh venv"
# As a user: a new venv, `pip install` of the wheel with its FastMCP extra, nothing else,
# then README's Python quick start, run from outside the checkout.
qs_dir=$(mktemp -d)
readme_test="$PWD/bindings/python/tests/test_readme.py"
python3 -m venv "$qs_dir/venv"
"$qs_dir/venv/bin/pip" install -q "$wheel[fastmcp]"
(cd "$qs_dir" && "$qs_dir/venv/bin/python" "$readme_test")
rm -rf "$qs_dir"

step "toolwire serve with the official Python SDK client (mcp, both eras; pytest)"
"$py_venv/bin/python" -m pytest -q -p no:cacheprovider bindings/mcp/tests/py-client

step "all tests passed"
