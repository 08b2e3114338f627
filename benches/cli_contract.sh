#!/usr/bin/env bash
# The whole-process CLI contracts, measured through the release binary (ARCHITECTURE.md's,
# raised by issue #12 to the figures in the "need" columns):
#
#   toolwire toon encode F --delimiter comma          wall >= 30x  serde_json + toon-format
#   toolwire present F --format toon-comma --frame 1  wall >= 30x  the same + serde_json
#                                                     framing; instructions >= 25x
#   toolwire present F --format pretty --frame 1      wall >=  6x  serde_json parse + pretty
#                                                     + framing
#
# in median wall-clock on 100k flat invoices (RUNS runs each, default 11, the two commands
# alternating) and in total instructions (callgrind, all threads) on 10k. The anchors are one-shot binaries
# (benches/examples/anchor.rs). Outputs are verified first: the same TOON bytes, and the same
# block text inside both frames.
#
#   bash benches/cli_contract.sh             # both measures
#   CALLGRIND=0 bash benches/cli_contract.sh # wall-clock only (no valgrind)
#   README=1 bash benches/cli_contract.sh    # and write the table into README.md
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

# name | toolwire command | anchor command | wall ratio | instruction ratio (- = none)
# (FILE is replaced by the input)
pairs=(
  "toon encode|$tw toon encode FILE --delimiter comma|$anchor toon FILE|30|-"
  "present toon-comma framed|$tw present FILE --format toon-comma --frame 1|$anchor toon-frame FILE|30|25"
  "present pretty framed|$tw present FILE --format pretty --frame 1|$anchor pretty-frame FILE|6|-"
)

block_text() {
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["result"]["content"][0]["text"], end="")' "$1"
}

for pair in "${pairs[@]}"; do
  IFS='|' read -r name ours theirs _ _ <<<"$pair"
  ${ours//FILE/$work/100k.json} >"$work/ours"
  ${theirs//FILE/$work/100k.json} >"$work/theirs"
  case "$name" in
    "toon encode") cmp -s "$work/ours" "$work/theirs" ;;
    *) cmp -s <(block_text "$work/ours") <(block_text "$work/theirs") ;;
  esac || { echo "OUTPUT DIFFERS: $name"; exit 1; }
done
echo "outputs verified: same TOON bytes, same block text in both frames"

# The wall-clock of one run of a command, in microseconds.
wall_us() {
  local s e
  s=$(date +%s%N)
  "$@" >/dev/null
  e=$(date +%s%N)
  echo $(((e - s) / 1000))
}

# "OURS THEIRS": the medians of RUNS runs of each, alternating, so a noisy moment of the
# machine falls on both.
median_us() {
  local ours=$1 theirs=$2 a=() b=()
  for _ in $(seq "$RUNS"); do
    a+=("$(wall_us $ours)")
    b+=("$(wall_us $theirs)")
  done
  local mid=$(((RUNS + 1) / 2))
  echo "$(printf '%s\n' "${a[@]}" | sort -n | sed -n "${mid}p")" \
    "$(printf '%s\n' "${b[@]}" | sort -n | sed -n "${mid}p")"
}

instruction_pair() {
  echo "$(instructions $1)" "$(instructions $2)"
}

instructions() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
    sed -n 's/.*Collected : //p'
}

# One table: every pair measured by MEASURE on FILE, both figures divided by SCALE; the
# required ratio is field NEED of the pair (4: wall, 5: instructions). Each row is also kept
# in $work/KIND.rows as "name|ours|theirs" for the README table.
table() {
  local measure=$1 file=$2 scale=$3 title=$4 unit=$5 field=$6 kind=$7
  printf '%-28s %14s %14s %8s %6s\n' "$title" "toolwire $unit" "anchor $unit" "ratio" "need"
  for pair in "${pairs[@]}"; do
    IFS='|' read -r name ours theirs wall instr <<<"$pair"
    local need=$wall
    [ "$field" = 5 ] && need=$instr
    read -r a b <<<"$($measure "${ours//FILE/$file}" "${theirs//FILE/$file}")"
    echo "$name|$(awk -v a="$a" -v s="$scale" 'BEGIN { printf "%.1f", a / s }')|$(awk -v b="$b" -v s="$scale" 'BEGIN { printf "%.1f", b / s }')" >>"$work/$kind.rows"
    awk -v n="$name" -v a="$a" -v b="$b" -v s="$scale" -v need="$need" \
      'BEGIN { printf "%-28s %14.1f %14.1f %7.1fx %5sx\n", n, a / s, b / s, b / a, need }'
  done
}

table median_us "$work/100k.json" 1000 "100k rows, median wall" ms 4 wall
if [ "$CALLGRIND" = 1 ]; then
  table instruction_pair "$work/10k.json" 1000000 "10k rows, instructions" M 5 instr
fi

# README=1: the README's CLI table (benches/readme_table.py writes it between its markers).
if [ "${README:-0}" = 1 ]; then
  {
    echo "| command | median wall, 100k rows | instructions, 10k rows |"
    echo "|---|---|---|"
    for pair in "${pairs[@]}"; do
      IFS='|' read -r name ours _ _ _ <<<"$pair"
      IFS='|' read -r _ a b <<<"$(grep -F "$name|" "$work/wall.rows")"
      wall=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.1f ms vs %.0f ms: **%.1f×**", a, b, b / a }')
      instr="not measured (CALLGRIND=0)"
      if [ -f "$work/instr.rows" ]; then
        IFS='|' read -r _ a b <<<"$(grep -F "$name|" "$work/instr.rows")"
        instr=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.1fM vs %.0fM: **%.1f×**", a, b, b / a }')
      fi
      cmd=${ours#"$tw "}
      echo "| \`toolwire ${cmd//FILE/F}\` | $wall | $instr |"
    done
    echo
    echo "Anchor: serde_json + toon-format one-shot binaries (\`benches/examples/anchor.rs\`); median of $RUNS runs, alternating; $(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD), $(nproc) cores."
  } | python3 benches/readme_table.py cli-bench
fi
