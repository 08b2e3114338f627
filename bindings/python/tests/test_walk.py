"""The walk of Python objects (``bindings/python/src/walk.rs``) against ``toon_format`` 1.2.

The walk reads a dict's members as they come and checks its keys only before it runs
Python code or fails (docs/DECISIONS.md "Python binding: where the time goes"); these
pin that it still behaves as ``toon_format``, which converts every key of a dict before it
looks at any value: the same text, the same exception, and ``default`` called the same
number of times.
"""

from __future__ import annotations

import dataclasses
import sys
from datetime import date
from decimal import Decimal
from typing import Any

import pytest
import toon_format

import toolwire
from toolwire import toon


class Opaque:
    pass


def counting_default() -> tuple[list[Any], Any]:
    seen: list[Any] = []

    def default(o: Any) -> Any:
        seen.append(o)
        return {"opaque": len(seen)}

    return seen, default


def outcome(f: Any, value: Any, **kw: Any) -> tuple[str, Any, int]:
    seen, default = counting_default()
    try:
        return "ok", f(value, default=default, **kw), len(seen)
    except (TypeError, ValueError) as e:
        return type(e).__name__, str(e), len(seen)


CASES = [
    # A key that converts (int, float, bool, None) after a value that runs Python code.
    {"a": Opaque(), 1: "x"},
    {"a": Opaque(), 2.5: "x", None: 1, True: [Opaque()]},
    # The same two levels down: the outer dict's key comes first.
    {"rows": [{"a": Opaque(), "b": 1}], 7: "late"},
    [{"id": 1, "v": Opaque()}, {"id": 2, "v": Opaque(), 3: "int key in the second row"}],
    # Keys that collide once converted.
    {"1": Opaque(), 1: "x"},
    # A key that does not convert: TypeError before `default` is ever called.
    {"a": Opaque(), (1, 2): "tuple key"},
    {"outer": {"a": Opaque()}, frozenset(): 1},
    # A key with a lone surrogate: ValueError before `default` is called.
    {"a": Opaque(), "\ud800": 1},
    # A row walked again (its int key) between rows of the same keys.
    [{"a": 1, "b": 2}, {"a": Opaque(), 5: 3}, {"a": 1, "b": 2}, {"a": 2, "b": 3}],
    [{"a": 1, "b": 2}, {"a": Opaque(), "b": 5, (1,): 3}, {"a": 1, "b": 2}],
    # Keys with a surrogate or of a bad type after a value that fails (a huge int): the
    # key's error wins, as keys are converted first.
    {"n": 10 ** (sys.get_int_max_str_digits() + 5) if sys.get_int_max_str_digits() else 1,
     (1,): 2},
]


@pytest.mark.parametrize("value", CASES)
@pytest.mark.parametrize("sort_keys", [False, True])
def test_keys_are_converted_before_values(value: Any, sort_keys: bool) -> None:
    want = outcome(toon_format.dumps, value, sort_keys=sort_keys)
    got = outcome(toon.dumps, value, sort_keys=sort_keys)
    assert got[0] == want[0], (got, want)
    assert got[2] == want[2], "default called a different number of times"
    if want[0] == "ok":
        assert got[1] == want[1]
    elif want[0] == "TypeError":
        assert got[1] == want[1]


def test_rows_with_the_same_and_with_other_key_objects() -> None:
    # The key cache compares key objects: equal keys that are other objects, keys in
    # another order, fewer and more keys, row after row.
    k = "".join(["i", "d"])  # not the interned "id"
    rows = [
        {"id": 1, "name": "a"},
        {k: 2, "name": "b"},
        {"name": "c", "id": 3},
        {"id": 4},
        {"id": 5, "name": "e", "extra": "é"},
        {"id": 6, "name": "<tool_error>"},
    ]
    assert toon.dumps(rows) == toon_format.dumps(rows)
    assert toon.dumps(rows * 3) == toon_format.dumps(rows * 3)
    r = toolwire.present(rows, format="toon")
    # A reserved tag in a value sends TOON to compact JSON (WIRE.md §2) ...
    assert r.texts[0].startswith("[{")
    # ... and in a key, cached from an earlier row, too.
    tagged = [{"<tool_error>": 1}, {"<tool_error>": 2}]
    assert toolwire.present(tagged, format="toon").texts[0].startswith("[{")
    assert toolwire.present([{"a": 1}, {"a": 2}], format="toon-comma").texts[0] == "[2]{a}:\n  1\n  2"


def test_a_dict_changed_by_default_is_an_error() -> None:
    target: dict[str, Any] = {"a": Opaque(), "b": 1}

    def grow(o: Any) -> Any:
        target["c"] = 2
        return 0

    with pytest.raises(RuntimeError, match="changed"):
        toon.dumps(target, default=grow)

    other: dict[Any, Any] = {"a": Opaque(), "b": 1}

    def rekey(o: Any) -> Any:
        del other["b"]
        other[5] = 1  # same size, a key that is not a str
        return 0

    with pytest.raises(RuntimeError, match="changed"):
        toon.dumps(other, default=rekey)


def test_a_container_dropped_by_default_stays_alive() -> None:
    # `default` drops the only other reference to the list being walked and to the row.
    rows: list[Any] = [{"a": Opaque(), "b": "x" * 100}, {"a": 1, "b": "y"}]
    holder = {"rows": rows}
    del rows

    def drop(o: Any) -> Any:
        holder["rows"] = None
        return "gone"

    want = toon_format.dumps({"rows": [{"a": "gone", "b": "x" * 100}, {"a": 1, "b": "y"}]})
    assert toon.dumps(holder, default=drop) == want


def test_large_tables_of_rows_that_agree_or_not() -> None:
    # Enough rows for the engine's parallel table scan; rows that share their key objects
    # (marked as such for the engine) and rows that break the table in different ways.
    base = [{"id": i, "name": f"n{i}", "ok": i % 2 == 0, "x": i / 4} for i in range(6000)]
    cases = [
        base,
        base + [{"id": 1, "name": "z", "ok": True}],  # one key fewer
        base[:3000] + [{"name": "z", "id": 1, "ok": True, "x": 0.5}] + base[3000:],  # order
        base + [{"id": 1, "name": "z", "ok": True, "x": [1]}],  # not a leaf
        # The same key texts, other key objects in every row.
        [{(k + "_")[:-1]: v for k, v in r.items()} for r in base],
    ]
    assert cases[-1][0].keys() == cases[-1][1].keys()
    assert next(iter(cases[-1][0])) is not next(iter(cases[-1][1]))
    for rows in cases:
        assert toon.dumps(rows) == toon_format.dumps(rows)
        assert toolwire.present(rows, format="toon-comma").texts[0] == toon_format.dumps(rows)


def test_values_that_fail_fail_as_in_toon_format() -> None:
    # A scalar that fails (a lone surrogate, an int beyond the digits `str` allows) as a
    # row member, a list item, the root and a dataclass field: the walk keeps its error aside
    # while the loops go on with a byte-sized outcome; the same exception and message.
    import dataclasses

    huge = 10 ** (sys.get_int_max_str_digits() + 5) if sys.get_int_max_str_digits() else None

    @dataclasses.dataclass
    class Row:
        a: Any

    bad: list[Any] = ["\ud800", "ok \udfff"] + ([huge] if huge is not None else [])
    for v in bad:
        for value in (
            v,
            [1, v],
            {"a": v},
            [{"a": 1, "b": "x"}, {"a": 2, "b": v}],
            [{"a": 1, "b": "x"}, {"a": 2, "b": [v]}],
        ):
            want = outcome(toon_format.dumps, value)
            got = outcome(toon.dumps, value)
            assert got[:2] == want[:2], (value, got, want)
        with pytest.raises(ValueError):
            toolwire.present([Row(1), Row(v)], format="toon-comma")
    # The same shapes with good values after a failure in an earlier call.
    rows = [{"a": 1, "b": "é"}, {"a": 2**70, "b": "x"}]
    assert toon.dumps(rows) == toon_format.dumps(rows)


WINDOWED = 2048  # `dumps` of a list this long is walked and encoded a window at a time


@dataclasses.dataclass
class Row:
    id: int
    name: str


def test_long_lists_are_encoded_as_walked_with_the_same_text() -> None:
    # A list of WINDOWED rows or more is walked a window of rows at a time while another
    # thread encodes the windows walked (its form written ahead from the first window):
    # whatever a later window holds, the text is toon_format's.
    n = 5000
    base = [{"id": i, "name": f"né{i}", "ok": i % 3 == 0} for i in range(n)]
    late = n - 10  # in the last window
    cases: list[list[Any]] = [
        base,
        base[:WINDOWED],
        base[: WINDOWED - 1],
        base[:late] + [{"id": 1, "name": "z"}] + base[late:],  # a key fewer, late
        base[:late] + [{"ok": True, "name": "z", "id": 1}] + base[late:],  # another order
        base[:late] + [{"id": 1, "name": [1, 2], "ok": False}] + base[late:],  # not a leaf
        base + [7],  # a primitive row last
        list(range(n)) + [{"a": 1}],  # inline, then an object
        list(range(n)),
        [{"id": i, "lines": [{"sku": f"S{i}", "q": i % 7}]} for i in range(n)],  # a list
        [{"id": i, "d": Decimal("0.10000000000000000000001") if i > late else i} for i in range(n)],
        [Row(i, f"r{i}") for i in range(n)],  # dataclasses: the plan's cached names
        [{"id": i, "v": {"x": i, 3: "int key"} if i == late else {"x": i}} for i in range(n)],
    ]
    for rows in cases:
        for sort_keys in (False, True):
            want = toon_format.dumps(rows, sort_keys=sort_keys)
            assert toon.dumps(rows, sort_keys=sort_keys) == want, (len(rows), sort_keys)
    assert toon.dumps(cases[0], delimiter="\t", indent_size=4) == toon_format.dumps(
        cases[0], delimiter="\t", indent_size=4
    )


def test_long_lists_of_models_as_walked_whole() -> None:
    # pydantic models, read natively or (a Decimal, a date) through model_dump, late and
    # early, and inside dataclasses: a long list (windows) gives a tuple's text (walked whole).
    import pydantic

    class M(pydantic.BaseModel):
        id: int
        name: str
        when: date | None = None
        amt: Decimal | None = None

    n = 5000
    models: list[Any] = [M(id=i, name=f"n{i}") for i in range(n)]
    models[n - 500] = M(id=1, name="x", when=date(2024, 1, 2), amt=Decimal("1.10"))
    models[100] = M(id=2, name="y", amt=Decimal("0.10000000000000000000001"))
    nested = [Row(i, m.name) if i % 2 else {"id": i, "m": m} for i, m in enumerate(models)]
    for rows in (models, nested):
        assert toon.dumps(rows) == toon.dumps(tuple(rows))


def test_a_long_list_changed_or_failing_late_as_in_toon_format() -> None:
    n = 5000

    def rows() -> list[Any]:
        r: list[Any] = [{"id": i, "v": "x"} for i in range(n)]
        r[n - 900]["v"] = Opaque()
        return r

    # `default` shortens or lengthens the list being walked: the rows there when the walk
    # reaches them, counted as they are (the header written ahead says otherwise).
    def changing(change: Any) -> tuple[list[Any], Any]:
        r = rows()

        def default(o: Any) -> Any:
            change(r)
            return "changed"

        return r, default

    def shrink(r: list[Any]) -> None:
        del r[n - 500 :]

    def grow(r: list[Any]) -> None:
        r.extend({"id": -i, "v": "new"} for i in range(3000))

    for change, count in ((shrink, n - 500), (grow, n + 3000)):
        r, default = changing(change)
        want = toon_format.dumps(r, default=default)
        assert want.startswith(f"[{count}]")
        r, default = changing(change)
        assert toon.dumps(r, default=default) == want
    # A value that fails late: the same exception, `default` called as often.
    failing = rows()
    failing[n - 3]["v"] = {(1, 2): "tuple key"}
    assert outcome(toon.dumps, failing) == outcome(toon_format.dumps, failing)
    too_deep: list[Any] = [{"id": i} for i in range(n)]
    nest: Any = 1
    for _ in range(1100):
        nest = [nest]
    too_deep[n - 2]["deep"] = nest
    assert outcome(toon.dumps, too_deep) == outcome(toon_format.dumps, too_deep)


def presented(value: Any, **kw: Any) -> tuple[str, Any]:
    """What `toolwire.present` gives: its texts, isError and side door, or its exception."""
    try:
        r = toolwire.present(value, **kw)
    except Exception as e:  # noqa: BLE001 - the exception is the outcome compared
        return "raised", (type(e), str(e))
    return "returned", (r.texts, r.is_error, r.meta)


def test_long_lists_are_presented_as_toon_as_walked_whole() -> None:
    # `present` of a long list as TOON with nothing else to apply is walked and encoded a
    # window at a time, as `dumps` is: the response, its side door and its errors are those
    # of the tuple of the same rows (walked whole). A reserved tag or a lone surrogate late
    # makes the data block compact JSON (WIRE.md §2), as it does whole.
    import pydantic

    class M(pydantic.BaseModel):
        id: int
        name: str

    n = 5000
    late = n - 10
    base = [{"id": i, "name": f"né{i} 株", "x": i / 8, "f": 3.0, "ok": i % 3 == 0} for i in range(n)]
    nest: Any = 1
    for _ in range(1100):
        nest = [nest]

    def at_late(value: Any) -> list[Any]:
        return base[:late] + [value] + base[late + 1 :]

    cases: list[list[Any]] = [
        base,
        base[:WINDOWED],
        at_late({"id": 1, "name": "</tool_error>", "x": 0.5, "f": 1.0, "ok": True}),
        at_late({"id": 1, "name": "<LLM_Directives x", "x": 0.5, "f": 1.0, "ok": True}),
        at_late({"id": 1, "name": "x\ud800y", "x": 0.5, "f": 1.0, "ok": True}),
        at_late({"id": 1, "name": "z"}),  # a key fewer: the table written ahead rewritten
        at_late({"id": 1, "name": [1, {"a": None}]}),
        at_late({"id": 1, "d": Decimal("0.10000000000000000000001")}),
        at_late({"id": 1, "deep": nest}),  # too deep
        at_late({"id": 1, "v": Opaque()}),  # not data
        at_late({(1, 2): "a tuple key"}),
        [{"id": i, "lines": [{"sku": f"S{i}", "q": i % 7}], "tags": []} for i in range(n)],
        [M(id=i, name=f"m{i} 🍰") for i in range(n)],
        [Row(i, f"r{i}") for i in range(n)],
        list(range(n)),
    ]
    for rows in cases:
        for format in ("toon", "toon-comma", "toon-tab"):
            want = presented(tuple(rows), format=format)
            assert presented(rows, format=format) == want, (len(rows), format, want[0])
    # A reserved tag makes it compact JSON; else TOON.
    assert toolwire.present(cases[2], format="toon").texts[0].startswith('[{"id":0,')
    assert toolwire.present(cases[0], format="toon").texts[0].startswith("[5000|]{")
    # Options that need the whole document take the engine's path: the same as whole.
    for kw in ({"limit": 10}, {"token_budget": 300}, {"select": ["id"]}, {"structured": True}):
        assert presented(base, format="toon-comma", **kw) == presented(tuple(base), format="toon-comma", **kw), kw
    assert toolwire.present_line(base, format="toon-comma") == toolwire.present_line(tuple(base), format="toon-comma")


def test_dataclass_fields_read_from_the_instance_dict_are_what_getattr_gives() -> None:
    # A dataclass whose fields getattr finds in the instance __dict__ is read from it
    # (`_convert.plan`: DICT_FIELDS); anything that makes getattr answer otherwise is read
    # with getattr: the text is toon_format's either way.
    from toolwire import _convert

    @dataclasses.dataclass
    class Plain:
        a: int
        b: str = "default"

    @dataclasses.dataclass
    class Shadowed(Plain):
        # A data descriptor on a subclass wins over the instance dict.
        @property  # type: ignore[override]
        def a(self) -> int:
            return 42

        @a.setter
        def a(self, v: int) -> None:
            self.__dict__["a"] = v

    @dataclasses.dataclass
    class Looked:
        a: int

        def __getattribute__(self, name: str) -> Any:
            return "seen" if name == "a" else object.__getattribute__(name)

    @dataclasses.dataclass(slots=True)
    class Slotted:
        a: int
        b: str

    @dataclasses.dataclass(frozen=True)
    class Frozen:
        a: int
        b: list[int]

    assert _convert.plan(Plain)[0] == _convert.DICT_FIELDS
    assert _convert.plan(Frozen)[0] == _convert.DICT_FIELDS
    for cls in (Shadowed, Looked, Slotted):
        assert _convert.plan(cls)[0] == _convert.FIELDS, cls

    deleted = Plain(1, "x")
    del deleted.b  # getattr finds the class default
    extra = Plain(2, "y")
    extra.__dict__["c"] = "not a field"
    values: list[Any] = [
        [Plain(i, f"é{i}") for i in range(3)],
        [deleted, Plain(3)],
        [extra],
        [Shadowed(5, "s")],
        [Slotted(6, "t")],
        [Frozen(7, [1, 2])],
        [Plain(Plain(8, "inner"), "outer")],  # type: ignore[arg-type]
    ]
    for rows in values:
        assert toon.dumps(rows) == toon_format.dumps(rows), rows
    # Long lists (windows) and present: as the tuple walked whole.
    long = [Plain(i, f"r{i}") if i % 7 else deleted for i in range(5000)]
    assert toon.dumps(long) == toon_format.dumps(long)
    assert presented(long, format="toon-comma") == presented(tuple(long), format="toon-comma")
    # A value whose conversion empties a later object's dict before it is reached: read
    # with getattr then, which raises as toon_format's does.
    def emptied(f: Any) -> tuple[Any, ...]:
        later = Plain(9, "kept")

        def default(o: Any) -> Any:
            later.__dict__.clear()
            return "converted"

        try:
            return ("returned", f([Plain(Opaque(), "first"), later], default=default))  # type: ignore[arg-type]
        except Exception as e:  # noqa: BLE001 - the exception is the outcome compared
            return ("raised", type(e), str(e))

    assert emptied(toon.dumps) == emptied(toon_format.dumps)
    assert emptied(toon.dumps)[0] == "raised"
