#!/usr/bin/env python3
"""The README table of benches/db_load.sh, made from its log, with each target of issue #45
marked met or missed by the figures of the same run.

    python3 benches/db/table.py LOG SECONDS COMMIT | python3 benches/readme_table.py db-bench
"""

import sys


def fields(line):
    t = line.split()
    return {t[i]: t[i + 1] for i in range(len(t) - 1)}


def main() -> int:
    log_path, secs, head = sys.argv[1:4]
    log = open(log_path, encoding="utf-8").read().splitlines()
    rows = next(l.split("rows ")[-1] for l in log if l.startswith("# machine:"))
    gen = next(fields(l) for l in log if l.startswith("generated "))
    tokens = {(l.split()[1], l.split()[2]): fields(l) for l in log if l.startswith("tokens ")}
    load = {(l.split()[0], l.split()[1]): fields(l) for l in log if " clients " in l and " rps " in l}
    big = {l.split()[0]: fields(l) for l in log if " big call " in l}
    bigrss = {l.split()[0]: fields(l) for l in log if " bigrss " in l}

    def rps(f):
        s = f"{float(f['rps']):,.0f}/s, p50 {float(f['p50_ms']):.3g}, p99 {float(f['p99_ms']):.3g} ms"
        if f["errors"] != "0":
            s += f", **{f['errors']} errors**"
        if f.get("varied", "0") != "0":
            s += f", {f['varied']} of {f['requests']} uncounted"
        return s

    def mark(ok):
        return "met" if ok else "**missed**"

    def tok(q, who):
        f = tokens.get((q, who))
        if not f:
            return "—"
        if f["blocks"] == "1":
            return f"{float(f['per_row']):.1f}"
        return f"{float(f['per_row']):.1f} (data {float(f['data_per_row']):.1f})"

    def ratio(q):
        return float(tokens[(q, "toolwire_pg")]["per_row"]) / float(tokens[(q, "dbhub")]["per_row"])

    out = [
        f"| {int(rows):,} rows, 16 clients | toolwire, PostgreSQL | DBHub 1.4.0 | server-postgres 0.6.2 | target: result |",
        "|---|---|---|---|---|",
    ]
    tw, db, sp = load[("toolwire_pg", "whole")], load[("dbhub", "whole")], load[("server_postgres", "whole")]
    x = float(tw["rps"]) / float(db["rps"])
    ok = x >= 5 and float(tw["p99_ms"]) < float(db["p99_ms"]) and tw["errors"] == "0"
    out.append(
        f"| 50 rows, status = overdue | {rps(tw)} | {rps(db)} | {rps(sp)} "
        f"| ≥5×, lower p99, no errors: {x:.2g}×, {mark(ok)} |"
    )
    nc = load[("toolwire_pg_nocount", "whole")]
    x = float(nc["rps"]) / float(load[("dbhub", "whole")]["rps"])
    out.append(
        f"| same, the notice's count cut at 1 ms | {rps(nc)} | | | {x:.2g}× |"
    )
    r = [ratio(q) for q in ("whole", "select")]
    out.append(
        "| o200k tokens a row, `*` / `_select` | "
        + " | ".join(f"{tok('whole', w)} / {tok('select', w)}" for w in ("toolwire_pg", "dbhub", "server_postgres"))
        + f" | ≤0.7× / ≤0.5×: {r[0]:.2f}× {mark(r[0] <= 0.7)} / {r[1]:.2f}× {mark(r[1] <= 0.5)} |"
    )
    l = [load[(s, "whole")] for s in ("toolwire_pg", "dbhub", "server_postgres")]
    grow = int(l[0]["rss_peak_mib"]) - int(l[0]["rss_idle_mib"])
    out.append(
        f"| RSS under load, idle → peak | {l[0]['rss_idle_mib']} → {l[0]['rss_peak_mib']} MiB "
        f"| {l[1]['rss_idle_mib']} → {l[1]['rss_peak_mib']} MiB | peak {l[2].get('rss_peak_mib', '?')} MiB "
        f"| ≤+64 MiB: +{grow}, {mark(grow <= 64)} |"
    )
    cells, fbs, overs = [], [], []
    for src, name in (("toolwire_pg", "PostgreSQL"), ("toolwire_sqlite", "SQLite")):
        b, r = big[src], bigrss[src]
        fbs.append(float(b["first_byte_ms"]))
        overs.append(int(r["peak_over_idle_mib"]))
        cells.append(
            f"{name} {fbs[-1]:,.0f} / {float(b['total_ms']):,.0f} ms, {r['rss_idle_mib']} → {r['rss_peak_mib']} MiB"
        )
    d = big.get("dbhub")
    other = (
        f"{float(d['first_byte_ms']):,.0f} / {float(d['total_ms']):,.0f} ms, "
        f"{bigrss['dbhub']['rss_idle_mib']} → {bigrss['dbhub']['rss_peak_mib']} MiB"
        if d
        else "failed"
    )
    out.append(
        f"| {'1M' if int(rows) >= 1_000_000 else f'{int(rows):,}'}-row page uncapped: first byte / all, RSS "
        f"| {'; '.join(cells)} | {other} | "
        f"| ≤50 ms: {mark(max(fbs) <= 50)}; ≤+64 MiB: {' / '.join(f'+{o}' for o in overs)}, "
        f"{mark(max(overs) <= 64)} |"
    )
    sq, js = load[("toolwire_sqlite", "whole")], load[("toolwire_json", "whole")]
    x = float(js["rps"]) / float(sq["rps"])
    out.append(
        f"| the 50 rows from SQLite / a JSON file | {rps(sq)} / {rps(js)} | | "
        f"| within 2×: {x:.2g}×, {mark(x <= 2)} |"
    )
    out += [
        "",
        f"Loopback, {secs} s runs; table made in {gen['postgres_s']} s (SQLite copy {gen['sqlite_s']} s); "
        f"JSON file: first {int(gen['json_rows']):,} rows (1 GiB limit); server-postgres: stdio, 16 "
        f"calls in flight; tokens: all blocks (data); commit {head}.",
    ]
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
