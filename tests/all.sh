#!/usr/bin/env bash
# The whole test suite, as README.md gives it: the Rust workspace (with the nginx replicas
# test when nginx is installed), `toolwire serve` with the official TypeScript SDK client, the
# Node binding, the Python binding, then `toolwire serve` with the official Python SDK client.
# Needs cargo, node + npm and python3 (with venv); installs the rest from the registries (npm
# ci from the committed lock files; a venv of its own for pip).
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

step "node binding (npm ci, napi build from source, node --test)"
npm ci --prefix bindings/node --no-audit --no-fund
npm run build --prefix bindings/node
npm test --prefix bindings/node

step "python binding (venv, pip install ./bindings/python, pytest)"
# Its own venv; build and install from the registries only, then its tests (the TOON fixtures
# are read from $TOOLWIRE_TOON_SPEC; the CLI comparisons use target/debug/toolwire from the
# cargo step above, or build it).
py_venv="${TOOLWIRE_VENV:-$PWD/target/test-venv}"
[ -x "$py_venv/bin/python" ] || python3 -m venv "$py_venv"
"$py_venv/bin/pip" install -q --upgrade pip
"$py_venv/bin/pip" install -q ./bindings/python pytest hypothesis "toon-format==1.2.*" mcp
"$py_venv/bin/python" -m pytest -q -p no:cacheprovider bindings/python/tests

step "toolwire serve with the official Python SDK client (mcp, both eras; pytest)"
"$py_venv/bin/python" -m pytest -q -p no:cacheprovider bindings/mcp/tests/py-client

step "all tests passed"
