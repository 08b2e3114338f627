#!/usr/bin/env bash
# Builds every fuzz target in fuzz/fuzz_targets on the STABLE toolchain (no cargo-fuzz, no
# nightly) and runs each one for FUZZ_SECONDS (default 30) with its seed corpus and the
# dictionary. Exits non-zero on any crash, timeout or out-of-memory; the log then names the
# saved input (fuzz/artifacts/<target>/crash-*, timeout-*, oom-*).
#
#   bash .ci/fuzz.sh                          # all targets, 30 s each
#   FUZZ_SECONDS=600 FUZZ_SEED=0 bash .ci/fuzz.sh toon_decode   # a long run, random seed
#   FUZZ_BUILD_ONLY=1 bash .ci/fuzz.sh        # compile only (a `cargo fuzz check`)
#
# How the build works on stable: cargo-fuzz only adds rustc flags, and every coverage flag it
# adds for `-s none` is a stable codegen option (SanitizerCoverage is an LLVM pass that
# rustc can run by name). libFuzzer itself is C++ that the libfuzzer-sys build script
# compiles with the system g++. `--target <host>` keeps the flags off build scripts and
# proc macros, as cargo-fuzz does. See docs/RELIABILITY.md.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
start=$(date +%s)
step() { echo "== $* ($(($(date +%s) - start))s)"; }

FUZZ_SECONDS=${FUZZ_SECONDS:-30}
# A fixed seed by default: the CI run is a regression gate that any machine replays exactly
# (same mutations from the same seed corpus), not a lottery. Discovery is the job of long
# runs: FUZZ_SEED=0 lets libFuzzer pick a seed (docs/RELIABILITY.md).
FUZZ_SEED=${FUZZ_SEED:-1}
export CARGO_TERM_COLOR=never

step "toolchain"
command -v cargo >/dev/null || { echo "cargo not found"; exit 1; }
command -v c++ >/dev/null || command -v g++ >/dev/null || {
  # libFuzzer is C++; a fresh machine normally has g++, install it when it does not.
  apt-get update -qq && apt-get install -y -qq g++ >/dev/null
}
host=$(rustc -vV | sed -n 's/^host: //p')
cargo --version

# Exactly the instrumentation `cargo fuzz build -s none` (cargo-fuzz 0.13.2) passes, read off
# its --verbose output, plus overflow checks (cargo-fuzz leaves them off; an overflow in the
# engine is a bug even where release builds would wrap). No -Dwarnings here: libFuzzer builds are not lint
# gates (clippy covers fuzz/ through `cargo clippy --manifest-path fuzz/Cargo.toml`).
export RUSTFLAGS="-Cpasses=sancov-module \
 -Cllvm-args=-sanitizer-coverage-level=4 \
 -Cllvm-args=-sanitizer-coverage-inline-8bit-counters \
 -Cllvm-args=-sanitizer-coverage-pc-table \
 -Cllvm-args=-sanitizer-coverage-trace-compares \
 -Cllvm-args=-sanitizer-coverage-stack-depth \
 -Cllvm-args=-simplifycfg-branch-fold-threshold=0 \
 --cfg fuzzing -Cdebug-assertions -Coverflow-checks -Cforce-frame-pointers"

targets=()
for f in fuzz/fuzz_targets/*.rs; do targets+=("$(basename "$f" .rs)"); done
if [ $# -gt 0 ]; then targets=("$@"); fi

# Where cargo puts the binaries (CARGO_TARGET_DIR is honoured).
tdir=${CARGO_TARGET_DIR:-fuzz/target}

step "build ${targets[*]}"
bins=()
for t in "${targets[@]}"; do bins+=(--bin "$t"); done
cargo build --manifest-path fuzz/Cargo.toml --release --locked --target "$host" "${bins[@]}"
step "built"

if [ "${FUZZ_BUILD_ONLY:-0}" = 1 ]; then
  step "done (build only)"
  exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Runs target $1 for FUZZ_SECONDS; its log goes to $work/$1.log, its exit status to
# $work/$1.rc.
run_target() {
  local t=$1
  local bin="$tdir/$host/release/$t"
  # A scratch copy of the seed corpus: new inputs land there, never in the checkout.
  mkdir -p "$work/$t"
  if [ -d "fuzz/corpus/$t" ]; then cp -R "fuzz/corpus/$t/." "$work/$t/"; fi
  local artifacts="$root/fuzz/artifacts/$t"
  mkdir -p "$artifacts"
  local dict=()
  case "$t" in
    present) dict=(-dict="$root/fuzz/dict/present.dict") ;;
    serve_request) dict=(-dict="$root/fuzz/dict/serve.dict") ;;
    serve_http) dict=(-dict="$root/fuzz/dict/serve_http.dict") ;;
    *) dict=(-dict="$root/fuzz/dict/toon.dict") ;;
  esac
  # Memory and time limits (issue #17: a 606-byte presenter file took 2 GB, 60 nested embeds
  # were OOM-killed at 24 GB; such a blow-up must fail here, not in production). Inputs are
  # at most 4096 bytes (-max_len), and every engine path is linear in its input with small
  # constants (presenter loading allocates at most ~1 KB per file byte, tests/tests/
  # load_linear.rs; a parsed tape is 8 bytes per node), so one input legitimately needs a
  # few MB and well under 10 ms. The limits leave the libFuzzer process itself (binary,
  # coverage tables, the in-memory corpus: ~100-200 MB after a long run) ample room while a
  # blow-up of 2^20 anything still trips them:
  # * present: -rss_limit_mb=512 (the process), -malloc_limit_mb=256 (any single malloc:
  #   4 KB of input never needs one of more than a few MB), -timeout=2 (one input: ~1000x
  #   the slowest legitimate run on a loaded 2-core VM, and an exponential load of 30 levels
  #   takes minutes);
  # * the other targets: -rss_limit_mb=1024, -malloc_limit_mb=512, -timeout=5 (their
  #   oracles re-encode, re-parse and frame each input several times over: more headroom,
  #   same order of magnitude). serve_request too: one input is at most ~80 short request
  #   lines, each call presents at most 50 of the 300 built-in rows (well under 1 ms), and
  #   the server (300 demo rows) is loaded once per configuration, not per input. serve_http
  #   too: one input is one connection carrying at most 4096 bytes of requests over an
  #   in-memory pipe (64 KiB), every response is read as it streams, no call presents more
  #   than the 300 built-in rows, and the runtime and the server are made once.
  local limits
  case "$t" in
    present) limits=(-rss_limit_mb=512 -malloc_limit_mb=256 -timeout=2) ;;
    *) limits=(-rss_limit_mb=1024 -malloc_limit_mb=512 -timeout=5) ;;
  esac
  # -jobs/-workers default to 1 (one process, one thread); -print_final_stats gives
  # executions per second.
  local rc=0
  "$bin" "$work/$t" "${dict[@]}" \
    -max_total_time="$FUZZ_SECONDS" -seed="$FUZZ_SEED" \
    "${limits[@]}" \
    -max_len=4096 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" >"$work/$t.log" 2>&1 || rc=$?
  echo "$rc" >"$work/$t.rc"
}

# A libFuzzer run is one single-threaded process, so FUZZ_JOBS targets run side by side
# (default: one per CPU, at most 2, the CI machines' cores): each still gets FUZZ_SECONDS of
# a core, and the phase takes half the wall-clock time it took one target after another
# (docs/DECISIONS.md, "a shorter CI run").
if [ -n "${FUZZ_JOBS:-}" ]; then
  jobs=$FUZZ_JOBS
else
  jobs=$(nproc 2>/dev/null || echo 1)
  [ "$jobs" -le 2 ] || jobs=2
fi
[ "$jobs" -ge 1 ] || jobs=1
step "run ${#targets[@]} target(s) for ${FUZZ_SECONDS}s each, $jobs at a time"
running=0
for t in "${targets[@]}"; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n || true
    running=$((running - 1))
  fi
  run_target "$t" &
  running=$((running + 1))
done
wait || true

failed=()
for t in "${targets[@]}"; do
  echo "== $t"
  # The log without the per-input progress lines and the recommended-dictionary listing.
  sed -e '/Recommended dictionary/,/End of recommended dictionary/d' "$work/$t.log" |
    grep -v -E '^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse)' || true
  rc=$(cat "$work/$t.rc" 2>/dev/null || echo missing)
  if [ "$rc" != 0 ]; then
    artifacts="$root/fuzz/artifacts/$t"
    echo "FUZZ FAILURE in $t (libFuzzer exit $rc); saved input(s):"
    ls -1 "$artifacts" | sed "s|^|  $artifacts/|"
    failed+=("$t")
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  step "FAILED: ${failed[*]}"
  exit 1
fi
step "done: ${#targets[@]} target(s), ${FUZZ_SECONDS}s each, no crash"
