# Shell helpers of the server benches (serve_load.sh, db_load.sh), sourced by both: starting
# a server, stopping it and reading its memory. The caller sets WORK (a scratch directory)
# and PIDS (every pid started, for its clean-up); START_TENTHS bounds the wait for a server's
# listening line (tenths of a second, default 600).

# Starts a server in the background; sets PID and URL (from the stderr line that names it:
# toolwire's and the SDK anchor's `listening on URL`, DBHub's `MCP server endpoint at URL`).
start() {
  local log=$WORK/server.$RANDOM.err
  : >"$log"
  "$@" 2>"$log" >/dev/null &
  PID=$!
  PIDS+=("$PID")
  for _ in $(seq "${START_TENTHS:-600}"); do
    URL=$(sed -n -e 's/^listening on //p' -e 's/^MCP server endpoint at //p' "$log" | head -1)
    [ -n "$URL" ] && return
    kill -0 "$PID" 2>/dev/null || { cat "$log" >&2; exit 1; }
    sleep 0.1
  done
  echo "no listening line from $*" >&2
  exit 1
}

# Stops the server whose pid is $PID and waits for it.
stop() {
  kill "$PID" 2>/dev/null || true
  wait "$PID" 2>/dev/null || true
}

# kB of a /proc/PID/status field (VmRSS, VmHWM).
mem() { awk -v k="$2:" '$1 == k {print $2}' "/proc/$1/status"; }
