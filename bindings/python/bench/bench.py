"""toolwire against the native TOON libraries on PyPI, in one process: ONE table.

Install the peers (pinned) into a venv with toolwire, then run::

    python -m venv /tmp/twbench
    /tmp/twbench/bin/pip install ./bindings/python -r bindings/python/bench/requirements.txt
    /tmp/twbench/bin/python bindings/python/bench/bench.py [--rows 10000,100000] [--readme README.md]

Rows: ``dumps(rows)``, ``loads(text)``, ``present(rows)`` of dicts, of pydantic v2 models
and of dataclasses, and ``encode_json(bytes)``, on the invoice corpus (``corpus.py``) flat
and nested; every cell gives the corpus with non-ASCII names / the one with ASCII names.
The columns are every peer's times at the largest size, toolwire against the fastest peer
there (the lower ratio of the two corpora), and toolwire against the fastest peer at each
smaller size (the README's documents have a size budget). What each peer runs is what its user writes: ``dumps`` of the objects;
for models ``dumps(TypeAdapter(list[M]).dump_python(models, mode="json"))`` (pydantic's
fastest conversion to data), for dataclasses ``dumps([dataclasses.asdict(x) ...])`` except
etoon, which encodes dataclasses itself; a ``present`` row wraps the text in a
``CallToolResult`` dict as ``toolwire.present(..., format="toon-comma")`` returns it.
``encode_json`` is timed against ``ctoon.json_to_toon``, ``etoon.dumps(bytes)`` and
``toony.from_json``. On the largest flat corpus, ``dumps`` is also timed against
``toon_format.dumps`` and ``encode_json`` against ``toon_format.dumps(json.loads(b))``.

Every output is checked first: equal to ``toon_format`` 1.2's text (``loads``: equal to the
data). A peer whose output differs is shown as ``differs``, one that raises as ``error``, and
neither is timed. Times are the best of 7 runs (21 below 100k rows), each after ``gc.collect()``, the contenders
of a row taking turns; the result is freed after the clock stops. ``--readme`` writes the
table into README.md between ``<!-- python-bench:start -->`` and ``<!-- python-bench:end -->``.
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import importlib
import json
import marshal
import pathlib
import platform
import re
import sys
import time
from typing import Any, Callable

import pydantic
import toon_format

import toolwire
from toolwire import toon

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from corpus import invoices_json  # noqa: E402

PEERS = {"toons": "0.9.0", "ctoon": "0.9.0", "etoon": "0.8.0", "toony": "0.1.0rc3"}
RUNS = 7
START, END = "<!-- python-bench:start -->", "<!-- python-bench:end -->"


def load_peers() -> tuple[dict[str, Any], list[str]]:
    mods, notes = {}, []
    for name, version in PEERS.items():
        try:
            mod = importlib.import_module(name)
        except ImportError as e:
            notes.append(f"{name} {version}: not installed ({e})")
            continue
        have = getattr(mod, "__version__", None)
        if have is None:
            from importlib.metadata import version as dist_version

            have = dist_version(name)
        if have != version:
            notes.append(f"{name}: {have} installed, the table's column is for {version}")
        mods[name] = mod
    return mods, notes


# The corpus as models and dataclasses (the same fields, `lines` in nested rows).
class Line(pydantic.BaseModel):
    sku: str
    qty: int
    unit_cents: int


class FlatInvoice(pydantic.BaseModel):
    id: str
    customer: str
    amount_cents: int
    currency: str
    paid: bool
    issued_at: str


class Invoice(FlatInvoice):
    lines: list[Line]


@dataclasses.dataclass
class LineD:
    sku: str
    qty: int
    unit_cents: int


@dataclasses.dataclass
class FlatInvoiceD:
    id: str
    customer: str
    amount_cents: int
    currency: str
    paid: bool
    issued_at: str


@dataclasses.dataclass
class InvoiceD(FlatInvoiceD):
    lines: list[LineD]


def as_dataclass(row: dict[str, Any]) -> Any:
    if "lines" in row:
        return InvoiceD(**{**row, "lines": [LineD(**x) for x in row["lines"]]})
    return FlatInvoiceD(**row)


def result(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}]}


class Dataset:
    def __init__(self, rows: int, nested: bool, ascii: bool, reference: bool = False) -> None:
        self.rows, self.nested, self.ascii = rows, nested, ascii
        # Whether toon_format (seconds a call at 100k rows) is timed on this corpus too.
        self.reference = reference
        self.name = f"{rows // 1000}k {'nested' if nested else 'flat'}"
        self.bytes = invoices_json(rows, nested, ascii)
        self.data = json.loads(self.bytes)
        self.text = toon_format.dumps(self.data)
        model = Invoice if nested else FlatInvoice
        self.adapter = pydantic.TypeAdapter(list[model])
        self.models = self.adapter.validate_python(self.data)
        self.dataclasses = [as_dataclass(r) for r in self.data]


def contenders(call: str, d: Dataset, peers: dict[str, Any]) -> tuple[dict[str, Callable[[], Any]], Any, Callable[[Any], Any]]:
    """The functions of a row by column, the expected output, and how to read a result."""
    text, data = d.text, d.data
    fs: dict[str, Callable[[], Any]] = {}
    if call == "dumps(rows)":
        fs["toolwire"] = lambda: toon.dumps(data)
        for name, m in peers.items():
            fs[name] = lambda m=m: m.dumps(data)
        if d.reference:
            fs["toon_format"] = lambda: toon_format.dumps(data)
        return fs, text, lambda r: r
    if call == "loads(text)":
        fs["toolwire"] = lambda: toon.loads(text)
        for name, m in peers.items():
            if hasattr(m, "loads"):
                fs[name] = lambda m=m: m.loads(text)
        return fs, data, lambda r: r
    if call == "encode_json(bytes)":
        b = d.bytes
        fs["toolwire"] = lambda: toon.encode_json(b)
        if "ctoon" in peers:
            fs["ctoon"] = lambda: peers["ctoon"].json_to_toon(b)
        if "etoon" in peers:
            fs["etoon"] = lambda: peers["etoon"].dumps(b)
        if "toony" in peers:
            fs["toony"] = lambda: peers["toony"].from_json(b)
        if d.reference:
            fs["toon_format"] = lambda: toon_format.dumps(json.loads(b))
        return fs, text, lambda r: r
    read = lambda r: r["content"][0]["text"]  # noqa: E731
    if call == "present(dicts)":
        fs["toolwire"] = lambda: toolwire.present(data, format="toon-comma")
        for name, m in peers.items():
            fs[name] = lambda m=m: result(m.dumps(data))
    elif call == "present(pydantic)":
        models, adapter = d.models, d.adapter
        fs["toolwire"] = lambda: toolwire.present(models, format="toon-comma")
        for name, m in peers.items():
            fs[name] = lambda m=m: result(m.dumps(adapter.dump_python(models, mode="json")))
    elif call == "present(dataclasses)":
        dcs = d.dataclasses
        fs["toolwire"] = lambda: toolwire.present(dcs, format="toon-comma")
        for name, m in peers.items():
            if name == "etoon":  # encodes dataclasses itself (orjson)
                fs[name] = lambda m=m: result(m.dumps(dcs))
            else:
                fs[name] = lambda m=m: result(m.dumps([dataclasses.asdict(x) for x in dcs]))
    return fs, text, read


def runs_at(rows: int, runs: int) -> int:
    """Rounds at a size: three times as many below 100k rows, where a call takes a few
    milliseconds and one slow round of the machine weighs more (as `npm run bench` does)."""
    return runs if rows >= 100_000 else 3 * runs


def timed(fs: dict[str, Callable[[], Any]], runs: int) -> dict[str, float]:
    """Best wall time of each function over `runs` rounds, the functions taking turns."""
    best = {k: float("inf") for k in fs}
    for _ in range(runs):
        for k, f in fs.items():
            gc.collect()
            t = time.perf_counter()
            r = f()
            dt = time.perf_counter() - t
            del r
            best[k] = min(best[k], dt)
    return best


def floor(d: Dataset, runs: int) -> float:
    """What making `d`'s objects costs with no text to read: `marshal.loads` (CPython's
    own binary format, no parsing to speak of) with the cyclic GC off, as `loads` runs.
    The floor under every `loads`; checked equal first."""
    m = marshal.dumps(d.data)
    assert marshal.loads(m) == d.data
    gc.disable()
    try:
        return timed({"marshal": lambda: marshal.loads(m)}, runs)["marshal"]
    finally:
        gc.enable()


def cell(t: float | str | None) -> str:
    if t is None:
        return "—"
    if isinstance(t, str):
        return t
    ms = t * 1e3
    # Two significant digits: runs on a shared VM move by ±10%.
    return f"{ms:.2g}" if ms < 99.5 else f"{ms:.0f}"


CALLS = ["dumps(rows)", "loads(text)", "present(dicts)", "present(pydantic)", "present(dataclasses)", "encode_json(bytes)"]
LABELS = {
    "dumps(rows)": "dumps",
    "loads(text)": "loads",
    "present(dicts)": "present",
    "present(pydantic)": "models",
    "present(dataclasses)": "dataclasses",
    "encode_json(bytes)": "encode_json",
}


def measure(call: str, d: Dataset, peers: dict[str, Any], runs: int, errors: dict[Any, list[str]]) -> dict[str, float | str | None]:
    """One row's cells by column: times (s), or why a contender was not timed."""
    fs, want, read = contenders(call, d, peers)
    shown: dict[str, float | str | None] = {}
    for k in list(fs):
        try:
            ok = read(fs[k]()) == want
        except Exception as e:  # noqa: BLE001 - a peer's failure is a cell
            shown[k] = "error"
            errors.setdefault((k, d.name, type(e).__name__), []).append(f"{call} ({str(e)[:24]})")
            del fs[k]
            continue
        if not ok:
            shown[k] = "differs"
            del fs[k]
    if "toolwire" not in fs:
        raise SystemExit(f"toolwire's output of {call} on {d.name} is not toon_format's")
    shown.update(timed(fs, runs))
    return shown


def both(cells: list[str]) -> str:
    """A cell's values for the two corpora; one when they are the same."""
    return cells[0] if len(set(cells)) == 1 else "/".join(cells)


def sets_name(rows: int) -> str:
    return f"{rows // 1000}k"


def ratio(shown: dict[str, float | str | None], peers: dict[str, Any]) -> str:
    ours = shown["toolwire"]
    assert isinstance(ours, float)
    times = [t for n, t in shown.items() if n in peers and isinstance(t, float)]
    return f"{min(times) / ours:.1f}" if times else "—"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", default="10000,100000")
    ap.add_argument("--calls", default=",".join(CALLS), help="comma-separated subset of: " + ", ".join(CALLS))
    ap.add_argument("--runs", type=int, default=RUNS)
    ap.add_argument("--readme", type=pathlib.Path, help="write the table into this README")
    args = ap.parse_args()
    calls = [c for c in CALLS if c in args.calls.split(",")]
    peers, notes = load_peers()
    errors: dict[Any, list[str]] = {}
    against: list[str] = []
    floors: list[str] = []
    names = list(PEERS)
    sizes = sorted(int(r) for r in args.rows.split(","))
    big, small = sizes[-1], sizes[:-1]
    # One row per call and shape: every peer's times at the largest size, and toolwire
    # against the fastest peer at each smaller size (the README's documents have a size
    # budget). Each cell: the non-ASCII corpus / the ASCII one.
    head = [sets_name(big), "toolwire"] + names + ["× fastest"]
    head += [f"{sets_name(n)}: × fastest" for n in small]
    lines = ["|".join(head), "|".join(["---"] * len(head))]
    print(lines[0], lines[1], sep="\n", flush=True)
    for nested in (False, True):
        corpora = {
            n: [Dataset(n, nested, ascii, n == big and not nested) for ascii in (False, True)]
            for n in sizes
        }
        for call in calls:
            shown = {n: [measure(call, d, peers, runs_at(n, args.runs), errors) for d in corpora[n]] for n in sizes}
            top = shown[big]
            pair = lambda col: both([cell(s.get(col)) for s in top])  # noqa: E731
            refs = [(s["toolwire"], s.get("toon_format")) for s in top]
            if all(isinstance(t, float) for _, t in refs):
                against.append(
                    f"{LABELS[call]} "
                    + "/".join(f"{t / ours:.0f}" for ours, t in refs)  # type: ignore[operator]
                    + "×"
                )
            row = [f"{LABELS[call]} {'nested' if nested else 'flat'}", pair("toolwire")]
            row += [pair(n) for n in names]
            # At the largest size the times show each corpus: its ratio is the lower one.
            row += [min((ratio(s, peers) for s in top), key=lambda r: float(r) if r != "—" else 0)]
            row += [both([ratio(s, peers) for s in shown[n]]) for n in small]
            lines.append("|".join(row))
            print(lines[-1], flush=True)
            if call == "loads(text)":
                floors.append(both([cell(floor(d, runs_at(big, args.runs))) for d in corpora[big]]))
    footer = (
        f"ms, best of {runs_at(big, args.runs)}"
        + "".join(f" ({sets_name(n)}: {runs_at(n, args.runs)})" for n in small if runs_at(n, args.runs) != runs_at(big, args.runs))
        + "; cells: non-ASCII/ASCII; models, dataclasses: `present`; "
        f"CPython {platform.python_version()}, {time.strftime('%Y-%m-%d')}."
    )
    if against:
        notes.append(f"toon_format 1.2, {sets_name(big)} flat: " + ", ".join(against) + ".")
    if floors:
        notes.append(
            f"Making the objects alone (`marshal.loads`, GC off), {sets_name(big)}: "
            + " flat, ".join(floors) + " nested."
        )
    notes.insert(0, footer)
    failed: dict[tuple[str, str], list[str]] = {}
    for (peer, data, kind), _ in errors.items():
        failed.setdefault((peer, kind), []).append(data)
    for (peer, kind), data in failed.items():
        notes[0] += f" {peer}: {kind} at {', '.join(dict.fromkeys(data))}."
    for n in notes:
        print(n)
    if args.readme:
        block = "\n".join([START, *lines, "", *notes, END])
        readme = args.readme.read_text()
        if START not in readme or END not in readme:
            raise SystemExit(f"{args.readme} has no {START} … {END} markers")
        new = re.sub(re.escape(START) + ".*?" + re.escape(END), lambda _: block, readme, flags=re.S)
        args.readme.write_text(new)
        print(f"wrote the table into {args.readme}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
