#!/usr/bin/env bash
# The whole-process CLI contracts of ARCHITECTURE.md, measured through the release binary:
#
#   toolwire toon encode F --delimiter comma          >= 20x  serde_json + toon-format
#   toolwire present F --format toon-comma --frame 1  >= 20x  the same + serde_json framing
#   toolwire present F --format pretty --frame 1      >=  2x  serde_json parse + pretty + framing
#
# in median wall-clock on 100k flat invoices (RUNS runs each, default 11) and in total
# instructions (callgrind, all threads) on 10k. The anchors are one-shot binaries
# (benches/examples/anchor.rs). Outputs are verified first: the same TOON bytes, and the same
# block text inside both frames.
#
#   bash benches/cli_contract.sh             # both measures
#   CALLGRIND=0 bash benches/cli_contract.sh # wall-clock only (no valgrind)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-11}
CALLGRIND=${CALLGRIND:-1}

cargo build --release -q -p toolwire-cli
cargo build --release -q -p toolwire-benches --example anchor
target=${CARGO_TARGET_DIR:-$PWD/target}
tw=$target/release/toolwire
anchor=$target/release/examples/anchor
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$anchor" gen 100000 "$work/100k.json"
"$anchor" gen 10000 "$work/10k.json"

# name | toolwire command | anchor command | required ratio (FILE is replaced by the input)
pairs=(
  "toon encode|$tw toon encode FILE --delimiter comma|$anchor toon FILE|20"
  "present toon-comma framed|$tw present FILE --format toon-comma --frame 1|$anchor toon-frame FILE|20"
  "present pretty framed|$tw present FILE --format pretty --frame 1|$anchor pretty-frame FILE|2"
)

block_text() {
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["result"]["content"][0]["text"], end="")' "$1"
}

for pair in "${pairs[@]}"; do
  IFS='|' read -r name ours theirs _ <<<"$pair"
  ${ours//FILE/$work/100k.json} >"$work/ours"
  ${theirs//FILE/$work/100k.json} >"$work/theirs"
  case "$name" in
    "toon encode") cmp -s "$work/ours" "$work/theirs" ;;
    *) cmp -s <(block_text "$work/ours") <(block_text "$work/theirs") ;;
  esac || { echo "OUTPUT DIFFERS: $name"; exit 1; }
done
echo "outputs verified: same TOON bytes, same block text in both frames"

median_us() {
  for _ in $(seq "$RUNS"); do
    local s e
    s=$(date +%s%N)
    "$@" >/dev/null
    e=$(date +%s%N)
    echo $(((e - s) / 1000))
  done | sort -n | sed -n "$(((RUNS + 1) / 2))p"
}

instructions() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
    sed -n 's/.*Collected : //p'
}

# One table: every pair measured by MEASURE on FILE, both figures divided by SCALE.
table() {
  local measure=$1 file=$2 scale=$3 title=$4 unit=$5
  printf '%-28s %14s %14s %8s %6s\n' "$title" "toolwire $unit" "anchor $unit" "ratio" "need"
  for pair in "${pairs[@]}"; do
    IFS='|' read -r name ours theirs need <<<"$pair"
    a=$($measure ${ours//FILE/$file})
    b=$($measure ${theirs//FILE/$file})
    awk -v n="$name" -v a="$a" -v b="$b" -v s="$scale" -v need="$need" \
      'BEGIN { printf "%-28s %14.1f %14.1f %7.1fx %5sx\n", n, a / s, b / s, b / a, need }'
  done
}

table median_us "$work/100k.json" 1000 "100k rows, median wall" ms
if [ "$CALLGRIND" = 1 ]; then
  table instructions "$work/10k.json" 1000000 "10k rows, instructions" M
fi
