"""``loads`` without hooks (``bindings/python/src/topy.rs``, ``Builder``) against ``toon_format``.

That path makes one ``str`` per distinct key, copies a dict of the previous object's keys,
shares short strings that repeat and pauses the garbage collector: the values must still be
exactly ``toon_format``'s, of the same types, and the collector's state as it was.
"""

from __future__ import annotations

import gc
import math
import sys
from typing import Any

import pytest
import toon_format
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolwire import toon

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))

words = st.sampled_from(["", "a", "id", "Zoë Café", "日本商事", "😀", "x y", "true", "1", "-", "a,b"])
text = st.one_of(words, st.text(max_size=30))
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=False, allow_infinity=False),
    text,
)
keys = st.one_of(words, st.text(max_size=6))


def _rows(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    # Rows sharing keys (tables, and objects whose keys change from one to the next).
    row = st.dictionaries(st.sampled_from(["id", "name", "é", "n"]), children, max_size=4)
    return st.one_of(
        st.lists(children, max_size=5),
        st.dictionaries(keys, children, max_size=5),
        st.lists(row, min_size=1, max_size=6),
        st.lists(st.dictionaries(st.sampled_from(["id", "name"]), scalars, min_size=2), max_size=6),
    )


values = st.recursive(scalars, _rows, max_leaves=30)


def _same(a: Any, b: Any) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    return bool(a == b)


@SETTINGS
@given(values, st.sampled_from([",", "\t", "|"]))
def test_loads_without_hooks_matches_toon_format(value: Any, delimiter: str) -> None:
    doc = toon_format.dumps(value, delimiter=delimiter)
    want = toon_format.loads(doc)
    got = toon.loads(doc)
    assert _same(got, want), (doc, got, want)


def test_rows_share_their_keys_and_stay_independent() -> None:
    rows = [{"id": i, "name": "Zoë" if i % 2 else "日本", "tags": ["a", "b"]} for i in range(50)]
    got = toon.loads(toon_format.dumps(rows))
    assert got == rows
    # One key object per text; the dicts themselves are independent.
    assert all(next(iter(r)) is next(iter(got[0])) for r in got)
    got[0]["id"] = -1
    got[0]["new"] = True
    assert got[1] == rows[1] and "new" not in got[2]
    assert [r["id"] for r in got[1:]] == list(range(1, 50))


def test_the_collector_is_left_as_it_was() -> None:
    doc = toon_format.dumps([{"a": [1, {"b": 2}]}] * 100)
    assert gc.isenabled()
    toon.loads(doc)
    assert gc.isenabled()
    gc.disable()
    try:
        toon.loads(doc)
        assert not gc.isenabled()
    finally:
        gc.enable()
    limit = sys.get_int_max_str_digits()
    if limit:
        with pytest.raises(ValueError):
            toon.loads(f"a: [1]\nb: {'9' * (limit + 1)}")
        assert gc.isenabled()


def _whole(text: str, **kw: Any) -> tuple[str, Any]:
    # A hook that changes nothing sends `loads` down the whole-text path: the oracle.
    try:
        return "ok", toon.loads(text, parse_int=int, **kw)
    except Exception as e:  # noqa: BLE001 - the exception itself is compared
        return type(e).__name__, (str(e), getattr(e, "line", None))


def _windowed(text: str, **kw: Any) -> tuple[str, Any]:
    try:
        return "ok", toon.loads(text, **kw)
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, (str(e), getattr(e, "line", None))


def test_a_long_root_array_read_in_windows_as_the_whole_text() -> None:
    # A root array's text of 256 KiB or more is decoded a window of elements at a time beside
    # the making of the objects: values, errors and their lines must be the whole text's.
    n = 50_000
    table = [{"id": i, "name": f"né {i}", "ok": i % 2 == 0, "x": i / 4} for i in range(n)]
    listed = [{"id": i, "lines": [{"sku": f"S{i}", "q": i % 7}], "tag": "日本"} for i in range(n)]
    texts = [
        (toon.dumps(table), 2),
        (toon.dumps(table, delimiter="|"), 2),
        (toon.dumps(table, delimiter="\t", indent_size=4), 4),
        (toon.dumps(listed), 2),
        (toon.dumps([[i, i + 1] for i in range(n)]), 2),  # a list of inline arrays
        (toon.dumps({"rows": table}), 2),  # not a root array: whole
    ]
    assert len(texts[0][0].encode()) > 256 << 10
    for t, indent in texts:
        got = _windowed(t, indent_size=indent)
        assert got == _whole(t, indent_size=indent)
        assert got[0] == "ok"
    assert toon.loads(texts[0][0]) == table
    assert toon.loads(texts[3][0]) == listed
    # Damaged late, or counted wrong: the whole text's error (its line), strict or not.
    t = texts[0][0]
    lines = t.split("\n")
    broken = {
        "count": t.replace(f"[{n}]", f"[{n + 1}]", 1),
        "short": t.replace(f"[{n}]", f"[{n - 1}]", 1),
        "late row": "\n".join(lines[:-5] + [lines[-5] + ",extra"] + lines[-4:]),
        "deeper": "\n".join(lines[:-5] + ["  " + lines[-5]] + lines[-4:]),
        "blank": "\n".join(lines[:20000] + [""] + lines[20000:]),
        "blank lines": "\n".join(x for i, r in enumerate(lines) for x in ([r, ""] if i % 997 == 0 else [r])),
        "comments": "\n".join(x for i, r in enumerate(lines) for x in ([r, "# c"] if i % 997 == 0 else [r])),
        "zeros": t.replace(f"[{n}]", f"[0{n}]", 1),
        "trailing newline": t + "\n",
        "cr": t.replace("\n", "\r\n", 3000),
        "root key": "\n".join(lines[:20000] + ["k: 1"] + lines[20000:]),
        "crlf": t.replace("\n", "\r\n"),
        "huge count": t.replace(f"[{n}]", "[999999999999]", 1),
    }
    # A blank line where a window ends: strict reading refuses it inside the array. The
    # first window ends before the first element line at 1/128 of the body's bytes or more.
    head, body = t.split("\n", 1)
    raw = body.encode()
    target = (len(raw) + 1) // 128 + 1  # with the blank line's byte
    p = raw.index(b"\n", target - 1) + 1  # the first line start at or past target - 1
    cut = raw[:p] + b"\n" + raw[p:]  # the blank line just before it: that line at p + 1
    assert len(cut) // 128 + 1 == target and raw.rfind(b"\n", 0, p - 1) + 1 < target
    broken["blank at a window's end"] = head + "\n" + cut.decode()
    for what, b in broken.items():
        for strict in (True, False):
            assert _windowed(b, strict=strict) == _whole(b, strict=strict), (what, strict)


def test_a_column_of_distinct_strings_is_made_apart_and_looked_up_again() -> None:
    # Short strings that repeat are made once; a column whose values keep not repeating
    # (ids) is made without looking for a while, then looked up again: its later
    # repeating values are shared, and no value of one column turns up in another.
    rows = [
        {"code": f"u{i}" if i < 300 else "same", "status": ("paid", "due")[i % 2], "n": i}
        for i in range(1000)
    ]
    text = toon_format.dumps(rows)
    got = toon.loads(text)
    assert got == toon_format.loads(text) == rows
    assert all(r["status"] is got[i % 2]["status"] for i, r in enumerate(got))
    tail = got[-200:]
    assert all(r["code"] is tail[0]["code"] for r in tail)
