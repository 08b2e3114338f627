"""Hostile input: always a Python exception, never a crash of the interpreter."""

from __future__ import annotations

import json
import sys

import pytest

import toolwire
from toolwire import toon


def nested_list(depth: int) -> list:  # type: ignore[type-arg]
    v: list = []  # type: ignore[type-arg]
    for _ in range(depth):
        v = [v]
    return v


def test_deep_python_nesting() -> None:
    assert toon.dumps(nested_list(900)).startswith("[1]:")
    for f in (toon.dumps, lambda v: toolwire.present(v)):
        with pytest.raises(ValueError, match="nested too deeply"):
            f(nested_list(100_000))


def test_deep_json_and_toon_text() -> None:
    deep = b"[" * 100_000 + b"]" * 100_000
    with pytest.raises(toolwire.ToolwireError) as e:
        toon.encode_json(deep)
    assert e.value.category == "depth"
    with pytest.raises(toolwire.ToolwireError):
        toolwire.present(deep)
    text = "\n".join(" " * (2 * i) + "a:" for i in range(3_000))  # 9 MB, 3000 levels
    with pytest.raises(toon.ToonDecodeError):
        toon.loads(text)


def test_invalid_utf8_and_surrogates() -> None:
    for bad in (b'["\xff"]', b'{"a": "\xc3"}', b'"\xed\xa0\x80"'):
        with pytest.raises(toolwire.ToolwireError):
            toon.encode_json(bad)
        with pytest.raises(toolwire.ToolwireError):
            toolwire.present(bad)
    with pytest.raises(toon.ToonDecodeError):
        toon.loads(b"a: \xff\xfe")
    with pytest.raises(ValueError, match="unpaired surrogate"):
        toon.dumps({"a": "\ud800"})
    with pytest.raises(ValueError):
        toon.encode_json('["\ud800"]')
    with pytest.raises(ValueError):
        toon.encode_json(b'["\\ud800"]')


def test_recursive_containers() -> None:
    a: list = [1]  # type: ignore[type-arg]
    a.append(a)
    d: dict = {}  # type: ignore[type-arg]
    d["self"] = d
    for v in (a, d, {"x": [d]}):
        with pytest.raises(ValueError, match="Circular reference"):
            toon.dumps(v)
        with pytest.raises(ValueError, match="Circular reference"):
            toolwire.present(v)


def test_default_that_raises_or_recurses() -> None:
    class Boom:
        pass

    def explode(o: object) -> object:
        raise KeyError("no")

    with pytest.raises(KeyError):
        toon.dumps({"a": Boom()}, default=explode)
    with pytest.raises(ValueError, match="Circular"):
        toon.dumps(Boom(), default=lambda o: o)
    with pytest.raises(TypeError, match="not TOON serializable"):
        toon.dumps({"a": Boom()})

    target: dict = {"a": 1, "b": Boom()}  # type: ignore[type-arg]

    def mutate(o: object) -> object:
        target.clear()
        target.update({str(i): i for i in range(100)})
        return 0

    with pytest.raises(Exception):
        toon.dumps(target, default=mutate)


def test_huge_ints() -> None:
    n = 10**4000
    assert toon.dumps([n, -n]) == f"[2]: {n},{-n}"
    assert toon.loads(toon.dumps(n)) == n
    limit = sys.get_int_max_str_digits()
    if limit:
        with pytest.raises(ValueError):
            toon.dumps(10 ** (limit + 10))
    assert toolwire.present([n], format="compact").texts == [f"[{n}]"]


def test_bad_hooks_propagate() -> None:
    def bad(_: str) -> object:
        raise ValueError("nope")

    with pytest.raises(toon.ToonDecodeError):
        toon.loads("a: 1", parse_int=bad)
    with pytest.raises(ZeroDivisionError):
        toon.loads("a: 1.5", parse_float=lambda s: 1 / 0)
    with pytest.raises(TypeError):
        toon.loads("a: 1", object_hook=lambda: None)


def test_d13_side_door_data_is_what_was_presented() -> None:
    """D13: the side door's ``data`` is what was presented, owned at the call: rewriting,
    clearing or releasing the caller's buffer afterwards changes neither it nor its
    agreement with the data block (it used to be recomputed from the buffer on access)."""
    rows = [{"id": "A", "n": 1}, {"id": "B", "n": 2}]
    raw = json.dumps(rows).encode()
    block = json.dumps(rows, separators=(",", ":"))
    presenter = {"name": "Row", "schema": {"type": "object", "properties": {"id": {"type": "string"}, "n": {"type": "integer"}}}}
    for p in (None, presenter):
        # Rewritten in place (bytearray, and a memoryview of one).
        ba = bytearray(raw)
        r1 = toolwire.present(ba, p, format="compact")
        ba[:] = b" " * len(ba)
        mv_base = bytearray(raw)
        mv = memoryview(mv_base)
        r2 = toolwire.present(mv, p, format="compact")
        mv[:] = b"{" * len(mv)
        # Emptied, and released.
        cleared = bytearray(raw)
        r3 = toolwire.present(cleared, p, format="compact")
        cleared.clear()
        released = memoryview(bytearray(raw))
        r4 = toolwire.present(released, p, format="compact")
        released.release()
        for r in (r1, r2, r3, r4):
            assert r.texts[0] == block
            assert r.meta["data"] == rows
            assert r.meta["data"] == json.loads(r.texts[0])
