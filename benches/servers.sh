# Shell helpers of the server benches (serve_load.sh, db_load.sh), sourced by both: stopping
# the server a bench started ($PID) and reading its memory.

# Stops the server whose pid is $PID and waits for it.
stop() {
  kill "$PID" 2>/dev/null || true
  wait "$PID" 2>/dev/null || true
}

# kB of a /proc/PID/status field (VmRSS, VmHWM).
mem() { awk -v k="$2:" '$1 == k {print $2}' "/proc/$1/status"; }
