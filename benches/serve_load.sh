#!/usr/bin/env bash
# The serve load bench of issue #13, run by hand (a bench, not a test): `toolwire serve`
# against the TypeScript SDK anchor (benches/mcp-anchor) on loopback HTTP.
#
#   bash benches/serve_load.sh [SECONDS]        (default 10 s per load run)
#
# 1. builds the release binary and the load generator (skip with SKIP_BUILD=1), installs the
#    anchor (npm ci) and checks its answers against toolwire's (check.mjs) before timing;
# 2. start-up of the default server (spawn → `listening on`);
# 3. `list` of 50 TOON rows filtered from 100k (where status = overdue) at 16 and 64
#    concurrent keep-alive clients: requests/s, p50/p99, errors, server RSS (idle and peak,
#    from /proc/PID/status) — each server started fresh per run; toolwire with its default
#    token budget (25,000) and without one (`--max-tokens 0`), to show what the budget costs;
# 4. a 1M-row uncapped response (`--max-message-bytes 0 --max-tokens 0`, a collection without a limit):
#    first body byte and total, alone, then 4 such calls at once with the server's peak RSS.
#
# README=1 also writes README.md's serve table (benches/readme_table.py).
#
# Only 127.0.0.1; every loop is bounded by SECONDS; every server started here is stopped.
set -euo pipefail

SECONDS_PER_RUN=${1:-10}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
TOOLWIRE=${TOOLWIRE:-$TARGET/release/toolwire}
LOAD=${LOAD:-$TARGET/release/examples/serve_load}
ANCHOR=$ROOT/benches/mcp-anchor
WORK=$(mktemp -d)
PIDS=()

cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT

if [ -z "${SKIP_BUILD:-}" ]; then
  cargo build --release -p toolwire-cli
  cargo build --release -p toolwire-serve-benches --example serve_load
fi
[ -d "$ANCHOR/node_modules" ] || npm ci --prefix "$ANCHOR" --no-audit --no-fund

# start, stop, mem.
. "$ROOT/benches/servers.sh"

measure() {
  echo "# machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), load $(cut -d' ' -f1-3 /proc/loadavg); $(uname -r); node $(node --version)"

  echo "## outputs checked first"
  node "$ANCHOR/check.mjs" "$TOOLWIRE" | tail -1

  echo "## start-up (spawn to listening line), default server"
  "$LOAD" startup 10 "$TOOLWIRE" serve --http 127.0.0.1:0 | sed 's/^/toolwire /'
  "$LOAD" startup 3 node "$ANCHOR/server.mjs" --http 127.0.0.1:0 | sed 's/^/anchor   /'

  echo "## list of 50 TOON rows filtered from 100k, ${SECONDS_PER_RUN}s per run"
  ARGS='{"action":"list","where":{"status":"overdue"},"format":"toon"}'
  for clients in 16 64; do
    for server in toolwire toolwire_no_budget anchor; do
      case $server in
        toolwire) start "$TOOLWIRE" serve --http 127.0.0.1:0 ;;
        toolwire_no_budget) start "$TOOLWIRE" serve --http 127.0.0.1:0 --max-tokens 0 ;;
        anchor) start node "$ANCHOR/server.mjs" --http 127.0.0.1:0 ;;
      esac
      idle=$(mem "$PID" VmRSS)
      line=$("$LOAD" rps "$URL" "$clients" "$SECONDS_PER_RUN" "$ARGS")
      echo "$server $line rss_idle_mib $((idle / 1024)) rss_peak_mib $(($(mem "$PID" VmHWM) / 1024))"
      stop
    done
  done

  echo "## 1M rows uncapped (TOON), one call, then 4 at once"
  "$TOOLWIRE" demo --rows 1000000 --dump compact >"$WORK/inv1m.json"
  BIG='{"action":"list","limit":1000000,"format":"toon"}'
  start "$TOOLWIRE" serve --http 127.0.0.1:0 --collection "invoices=$WORK/inv1m.json" --max-message-bytes 0 --max-tokens 0
  idle=$(mem "$PID" VmRSS)
  "$LOAD" big "$URL" 1 "$BIG" | sed 's/^/toolwire 1x /'
  "$LOAD" big "$URL" 4 "$BIG" | sed 's/^/toolwire 4x /'
  peak=$(mem "$PID" VmHWM)
  echo "toolwire rss_idle_mib $((idle / 1024)) rss_peak_mib $((peak / 1024)) peak_over_idle_mib $(((peak - idle) / 1024))"
  stop
  start node --max-old-space-size=8192 "$ANCHOR/server.mjs" --http 127.0.0.1:0 --data "$WORK/inv1m.json" --limit 1000000
  idle=$(mem "$PID" VmRSS)
  "$LOAD" big "$URL" 1 "$BIG" | sed 's/^/anchor   1x /'
  echo "anchor rss_idle_mib $((idle / 1024)) rss_peak_mib $(($(mem "$PID" VmHWM) / 1024))"
  stop
}

# The output goes to the terminal and to a log the README table is made from.
measure > >(tee "$WORK/out.log")
# tee may have ended (and been reaped) already: then `wait` has nothing to wait for.
wait $! 2>/dev/null || true

if [ "${README:-0}" = 1 ]; then
  python3 - "$WORK/out.log" "$SECONDS_PER_RUN" "$(git -C "$ROOT" rev-parse --short HEAD)" <<'PY' | python3 "$ROOT/benches/readme_table.py" serve-bench
import re, sys
log, secs, head = open(sys.argv[1]).read().splitlines(), sys.argv[2], sys.argv[3]
def fields(line):
    t = line.split()
    return {t[i]: t[i + 1] for i in range(len(t) - 1)}
start = {l.split()[0]: fields(l) for l in log if " startup runs " in l}
load = {(l.split()[0], fields(l)["clients"]): fields(l) for l in log if " clients " in l}
big = [(l.split()[0], l.split()[1], fields(l)) for l in log if " call " in l and " first_byte_ms " in l]
rss = {l.split()[0]: fields(l) for l in log if " rss_idle_mib " in l and " clients " not in l}
def rps(f):
    return f"{float(f['rps']):,.0f} req/s, p50 {f['p50_ms']} ms, p99 {f['p99_ms']} ms, {f['errors']} errors"
def calls(who, n):
    c = [f for w, x, f in big if w == who and x == n]
    fb = [float(f["first_byte_ms"]) for f in c]; tot = [float(f["total_ms"]) for f in c]
    if len(c) == 1:
        return f"first byte {fb[0]:.1f} ms of {tot[0]:,.1f} ms"
    return f"first byte {min(fb):.1f}–{max(fb):.1f} ms of {min(tot):,.0f}–{max(tot):,.0f} ms"
out = ["| measure | toolwire | TypeScript SDK anchor | ratio |", "|---|---|---|---|"]
t, a = start["toolwire"], start["anchor"]
out.append(f"| start-up, spawn → `listening on` (100k rows), median | {t['median_ms']} ms | {a['median_ms']} ms | {float(a['median_ms']) / float(t['median_ms']):.1f}× |")
for c in ("16", "64"):
    t, a = load[("toolwire", c)], load[("anchor", c)]
    out.append(f"| `list` 50 TOON rows filtered from 100k, {c} clients | {rps(t)} | {rps(a)} | **{float(t['rps']) / float(a['rps']):.1f}×** req/s |")
t, n = load[("toolwire", "16")], load[("toolwire_no_budget", "16")]
out.append(f"| same, 16 clients, without the token budget (`--max-tokens 0`) | {rps(n)} | | the budget costs {100 * (1 - float(t['rps']) / float(n['rps'])):.1f}% of req/s |")
t, a = load[("toolwire", "16")], load[("anchor", "16")]
out.append(f"| server RSS, idle → peak, 16 clients | {t['rss_idle_mib']} → {t['rss_peak_mib']} MiB | {a['rss_idle_mib']} → {a['rss_peak_mib']} MiB | |")
out.append(f"| 1M rows uncapped (TOON), one call | {calls('toolwire', '1x')} | {calls('anchor', '1x')} | |")
r = rss["toolwire"]
out.append(f"| 4 such calls at once | {calls('toolwire', '4x')}; RSS +{r['peak_over_idle_mib']} MiB over the held collection | anchor one call: {rss['anchor']['rss_idle_mib']} → {rss['anchor']['rss_peak_mib']} MiB | |")
out += ["", f"Loopback HTTP, {secs} s per load run, each server started fresh; commit {head}."]
print("\n".join(out))
PY
fi
