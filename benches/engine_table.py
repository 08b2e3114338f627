#!/usr/bin/env python3
"""The README's engine table, from criterion's saved estimates.

    python3 benches/engine_table.py [--run] [--readme]

--run first runs the criterion benchmarks the table reads (from the toon_encode, json and wire
benches; about 10 minutes on 2 cores); without it the table is made of the estimates already saved under
target/criterion. Each row puts toolwire beside its competitors from the same run (the
benches check every output equal before they time it). --readme writes the table into
README.md (benches/readme_table.py); otherwise it is printed.
"""

import argparse
import json
import os
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
TARGET = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))

# label, toolwire's id, [(competitor's label, id)]; ids are criterion's full ids, 100k rows.
ROWS = [
    ("TOON encode (parsed doc → TOON), 1 thread", "toon_encode/flat/toolwire_1_thread/100000",
     [("toon-format 0.7", "toon_encode/flat/toon_format_0_7/100000")]),
    ("TOON encode, 2 threads", "toon_encode/flat/toolwire_2_threads/100000",
     [("toon-format 0.7", "toon_encode/flat/toon_format_0_7/100000")]),
    ("JSON parse, 1 thread", "json_parse/flat/toolwire/100000",
     [("serde_json `Value`", "json_parse/flat/serde_json_value/100000"),
      ("serde_json typed", "json_parse/flat/serde_json_typed/100000"),
      ("sonic-rs", "json_parse/flat/sonic_rs_value/100000"),
      ("simd-json", "json_parse/flat/simd_json_owned/100000")]),
    ("JSON parse, `_select` 2 of 6 fields", "json_parse/flat/toolwire_select_2_of_6/100000",
     [("full parse", "json_parse/flat/toolwire/100000")]),
    ("bytes → pretty JSON", "json_bytes_to_pretty/flat/toolwire/100000",
     [("serde_json parse + `to_vec_pretty`", "json_bytes_to_pretty/flat/serde_json/100000")]),
    ("bytes → framed TOON response (`Data::Json`)", "bytes_to_framed/flat/toolwire_toon/100000",
     [("serde_json + toon-format + framing", "bytes_to_framed/flat/serde_json+toon_format/100000")]),
    ("same, input off the heap (a mapped file)", "bytes_to_framed/flat/toolwire_toon_off_heap/100000",
     [("serde_json + toon-format + framing", "bytes_to_framed/flat/serde_json+toon_format/100000")]),
    ("bytes → framed pretty response (`Data::Json`)", "bytes_to_framed/flat/toolwire_pretty/100000",
     [("serde_json pretty + framing", "bytes_to_framed/flat/serde_json_pretty/100000")]),
    ("nested rows: TOON encode, 2 threads", "toon_encode/nested/toolwire_2_threads/100000",
     [("toon-format 0.7", "toon_encode/nested/toon_format_0_7/100000")]),
    ("nested rows: bytes → framed TOON response", "bytes_to_framed/nested/toolwire_toon/100000",
     [("serde_json + toon-format + framing", "bytes_to_framed/nested/serde_json+toon_format/100000")]),
]

BENCHES = ["toon_encode", "json", "wire"]


def estimates():
    """full id -> (median ns, bytes of throughput or None), from target/criterion."""
    out = {}
    for bench in (TARGET / "criterion").rglob("new/benchmark.json"):
        meta = json.loads(bench.read_text())
        est = json.loads((bench.parent / "estimates.json").read_text())
        tp = (meta.get("throughput") or {}).get("Bytes")
        out[meta["full_id"]] = (est["median"]["point_estimate"], tp)
    return out


def ms(ns):
    v = ns / 1e6
    return f"{v:,.0f} ms" if v >= 100 else f"{v:.1f} ms" if v >= 10 else f"{v:.2f} ms"


def rate(ns, tp):
    if not tp:
        return ""
    bps = tp / (ns / 1e9)
    return f" ({bps / 2**30:.2f} GiB/s)" if bps >= 2**30 else f" ({bps / 2**20:.0f} MiB/s)"


def table(est):
    lines = ["| 100k flat invoices unless named | toolwire | competitor (same run) | ratio |", "|---|---|---|---|"]
    missing = []
    for label, ours, theirs in ROWS:
        if ours not in est:
            missing.append(ours)
            continue
        ons, tp = est[ours]
        names, ratios = [], []
        for name, tid in theirs:
            if tid not in est:
                missing.append(tid)
                continue
            tns = est[tid][0]
            names.append(f"{name}: {ms(tns)}")
            ratios.append(f"**{tns / ons:.1f}×**" if len(theirs) == 1 else f"{tns / ons:.1f}×")
        lines.append(f"| {label} | {ms(ons)}{rate(ons, tp)} | {' · '.join(names)} | {' · '.join(ratios)} |")
    return lines, missing


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--run", action="store_true", help="run the criterion groups first")
    ap.add_argument("--readme", action="store_true", help="write the table into README.md")
    args = ap.parse_args()
    if args.run:
        cmd = ["cargo", "bench", "-p", "toolwire-benches"]
        for b in BENCHES:
            cmd += ["--bench", b]
        ids = sorted({i for _, ours, theirs in ROWS for i in [ours] + [t for _, t in theirs]})
        exact = "^(" + "|".join(re.escape(i) for i in ids) + ")$"
        cmd += ["--", "--warm-up-time", "1", "--measurement-time", "2", exact]
        subprocess.run(cmd, cwd=ROOT, check=True)
    lines, missing = table(estimates())
    if missing:
        print("engine_table: no saved estimate for " + ", ".join(missing) + " (run with --run)", file=sys.stderr)
        return 1
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    lines += ["", f"Criterion medians, {os.cpu_count()} cores, commit {head}; throughput is bytes of JSON input per second."]
    text = "\n".join(lines) + "\n"
    if args.readme:
        subprocess.run([sys.executable, str(ROOT / "benches/readme_table.py"), "engine-bench"], input=text, text=True, check=True)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
