"""One call of a bench case, repeated: what docs/DECISIONS.md (Python binding, "Where the
time went") profiles. Instructions a call are the difference of two runs under callgrind::

    valgrind --tool=callgrind python bindings/python/bench/profile.py dumps flat 1
    valgrind --tool=callgrind python bindings/python/bench/profile.py dumps flat 6

(the second run's total less the first's, over 5). Cases: dumps, loads, present (TOON of
dicts), models, dataclasses, encode_json; shapes flat, nested; 10k rows (``--rows``).
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import bench  # noqa: E402
from corpus import invoices_json  # noqa: E402

import toolwire  # noqa: E402
from toolwire import toon  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("case", choices=["dumps", "loads", "present", "models", "dataclasses", "encode_json"])
ap.add_argument("shape", choices=["flat", "nested"])
ap.add_argument("calls", type=int)
ap.add_argument("--rows", type=int, default=10_000)
args = ap.parse_args()
nested = args.shape == "nested"
b = invoices_json(args.rows, nested)
data = json.loads(b)
text = toon.dumps(data)
model = bench.Invoice if nested else bench.FlatInvoice
objs = {
    "models": lambda: bench.pydantic.TypeAdapter(list[model]).validate_python(data),
    "dataclasses": lambda: [bench.as_dataclass(r) for r in data],
}.get(args.case, lambda: data)()
call = {
    "dumps": lambda: toon.dumps(data),
    "loads": lambda: toon.loads(text),
    "present": lambda: toolwire.present(data, format="toon-comma"),
    "models": lambda: toolwire.present(objs, format="toon-comma"),
    "dataclasses": lambda: toolwire.present(objs, format="toon-comma"),
    "encode_json": lambda: toon.encode_json(b),
}[args.case]
for _ in range(args.calls):
    r = call()
