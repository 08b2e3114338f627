"""toolwire vs what Python MCP servers run today, in one process (BINDINGS.md "Both").

Every pair is checked equal before it is timed. Run:
``python bindings/python/bench/bench.py [--rows 10000,100000] [--check]``. ``--check`` fails
unless the 100k-flat targets hold: ``encode_json(b)`` >= 50x
``toon_format.dumps(json.loads(b))``, ``dumps(rows)`` >= 10x ``toon_format.dumps(rows)`` and
no slower than ``json.dumps(rows)``.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import threading
import time
from typing import Any, Callable

import toon_format

import toolwire
from toolwire import toon

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from corpus import invoices_json  # noqa: E402


def best(f: Callable[[], Any], budget: float = 1.5, most: int = 7) -> float:
    """Best wall time of a few runs (at least one; more while under `budget` seconds)."""
    times: list[float] = []
    spent = 0.0
    while len(times) < most and (not times or spent < budget):
        gc.collect()
        t = time.perf_counter()
        f()
        dt = time.perf_counter() - t
        times.append(dt)
        spent += dt
    return min(times)


def call_tool_result(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}]}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", default="10000,100000")
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    ratios: dict[tuple[int, str], dict[str, float]] = {}
    print(f"{'corpus':<14}{'case':<48}{'toolwire':>12}{'baseline':>12}{'ratio':>9}")
    for rows in [int(r) for r in args.rows.split(",")]:
        for nested in (False, True):
            name = f"{rows // 1000}k {'nested' if nested else 'flat'}"
            b = invoices_json(rows, nested)
            data = json.loads(b)
            # Outputs first: equal everywhere.
            assert toon.encode_json(b) == toon_format.dumps(json.loads(b))
            assert toon.dumps(data) == toon_format.dumps(data)
            pretty = json.dumps(data, indent=2, ensure_ascii=False)
            assert toolwire.present(data) == call_tool_result(pretty)
            assert toolwire.present(b) == call_tool_result(pretty)
            cases = [
                ("encode_json(b) vs toon_format.dumps(json.loads(b))",
                 lambda: toon.encode_json(b), lambda: toon_format.dumps(json.loads(b))),
                ("dumps(rows) vs toon_format.dumps(rows)",
                 lambda: toon.dumps(data), lambda: toon_format.dumps(data)),
                ("dumps(rows) vs json.dumps(rows)",
                 lambda: toon.dumps(data), lambda: json.dumps(data)),
                ("present(rows) vs json.dumps(rows, indent=2) result",
                 lambda: toolwire.present(data),
                 lambda: call_tool_result(json.dumps(data, indent=2, ensure_ascii=False))),
                ("present(b) vs json.dumps(json.loads(b), indent=2)",
                 lambda: toolwire.present(b),
                 lambda: call_tool_result(json.dumps(json.loads(b), indent=2, ensure_ascii=False))),
                ("present(rows, format='toon-comma') vs toon_format",
                 lambda: toolwire.present(data, format="toon-comma"),
                 lambda: call_tool_result(toon_format.dumps(data))),
            ]
            for label, ours, theirs in cases:
                t_ours, t_theirs = best(ours), best(theirs)
                ratio = t_theirs / t_ours
                ratios.setdefault((rows, name), {})[label] = ratio
                print(f"{name:<14}{label:<48}{t_ours * 1e3:>10.1f}ms{t_theirs * 1e3:>10.1f}ms{ratio:>8.1f}x")
            if not nested:
                # The GIL is released while the engine works: two threads encoding at once vs the
                # same two calls one after the other (tests/test_threads.py proves the release;
                # the speed-up is measured here). List-form rows are encoded on one thread each,
                # so the gain is the two Python threads running at once.
                lists = json.dumps(
                    [{"id": i, f"k{i % 7}": "x" * (i % 13), "v": [i, i + 1]} for i in range(rows)]
                ).encode()
                want = toon.encode_json(lists)

                def concurrently() -> None:
                    outs: list[str] = []
                    threads = [
                        threading.Thread(target=lambda: outs.append(toon.encode_json(lists)))
                        for _ in range(2)
                    ]
                    for th in threads:
                        th.start()
                    for th in threads:
                        th.join()
                    assert outs == [want, want]

                t_conc = best(concurrently)
                t_seq = best(lambda: (toon.encode_json(lists), toon.encode_json(lists)))
                label = "2 threads encode_json at once vs one after the other"
                print(f"{name:<14}{label:<48}{t_conc * 1e3:>10.1f}ms{t_seq * 1e3:>10.1f}ms{t_seq / t_conc:>8.1f}x")
            per_row = best(lambda: toon_format.dumps(data)) / rows * 1e9
            print(f"{name:<14}{'toon_format.dumps per row':<48}{per_row:>10.0f}ns")
    if args.check:
        r = ratios.get((100000, "100k flat"))
        if r is None:
            print("--check needs --rows with 100000")
            return 2
        ok = (
            r["encode_json(b) vs toon_format.dumps(json.loads(b))"] >= 50
            and r["dumps(rows) vs toon_format.dumps(rows)"] >= 10
            and r["dumps(rows) vs json.dumps(rows)"] >= 1
        )
        print("targets:", "met" if ok else "NOT met")
        return 0 if ok else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
