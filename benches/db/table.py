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
        return f"{float(f['per_row']):.1f} (data {float(f['data_per_row']):.1f})" if f else "—"

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
        f"| 50 rows where status = overdue (`SELECT *`) | {rps(tw)} | {rps(db)} | {rps(sp)} "
        f"| ≥5× DBHub, lower p99, no errors: {x:.2g}×, {mark(ok)} |"
    )
    nc = load[("toolwire_pg_nocount", "whole")]
    x = float(nc["rps"]) / float(load[("dbhub", "whole")]["rps"])
    out.append(
        f"| same, the notice's count cut at 1 ms | {rps(nc)} | | | {x:.2g}× DBHub |"
    )
    for q, what, limit in (("whole", "whole rows", 0.7), ("select", "scalar columns", 0.5)):
        r = ratio(q)
        out.append(
            f"| o200k tokens per row, {what} | {tok(q, 'toolwire_pg')} | {tok(q, 'dbhub')} "
            f"| {tok(q, 'server_postgres')} | ≤{limit}×: {r:.2f}×, {mark(r <= limit)} |"
        )
    l = [load[(s, "whole")] for s in ("toolwire_pg", "dbhub", "server_postgres")]
    out.append(
        f"| RSS under load, idle → peak | {l[0]['rss_idle_mib']} → {l[0]['rss_peak_mib']} MiB "
        f"| {l[1]['rss_idle_mib']} → {l[1]['rss_peak_mib']} MiB | peak {l[2].get('rss_peak_mib', '?')} MiB | |"
    )
    for src in ("toolwire_pg", "toolwire_sqlite"):
        b, r = big.get(src), bigrss.get(src)
        if not b:
            continue
        fb = float(b["first_byte_ms"])
        over = int(r["peak_over_idle_mib"])
        other = ""
        if src == "toolwire_pg":
            d = big.get("dbhub")
            other = (
                f"{float(d['first_byte_ms']):,.0f} / {float(d['total_ms']):,.0f} ms; "
                f"{bigrss['dbhub']['rss_idle_mib']} → {bigrss['dbhub']['rss_peak_mib']} MiB"
                if d
                else "failed"
            )
        name = "PostgreSQL" if src == "toolwire_pg" else "SQLite"
        out.append(
            f"| 1M-row page uncapped, {name}: first byte / total; RSS "
            f"| {fb:,.0f} / {float(b['total_ms']):,.0f} ms; {r['rss_idle_mib']} → {r['rss_peak_mib']} MiB | {other} | "
            f"| first byte ≤50 ms: {mark(fb <= 50)}; ≤64 MiB over idle: +{over}, {mark(over <= 64)} |"
        )
    sq, js = load[("toolwire_sqlite", "whole")], load[("toolwire_json", "whole")]
    x = float(js["rps"]) / float(sq["rps"])
    out.append(
        f"| the 50 rows from SQLite / a JSON file | {rps(sq)} / {rps(js)} | | "
        f"| SQLite within 2×: {x:.2g}×, {mark(x <= 2)} |"
    )
    out += [
        "",
        f"Loopback, {secs} s runs, fresh servers; table made in {gen['postgres_s']} s, copied to SQLite "
        f"in {gen['sqlite_s']} s; the JSON file holds its first {int(gen['json_rows']):,} rows (1 GiB "
        f"input limit); server-postgres (stdio only): one process, 16 calls in flight; tokens: all "
        f"text blocks (data block); commit {head}.",
    ]
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
