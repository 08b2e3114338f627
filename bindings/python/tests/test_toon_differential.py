"""Differential properties: toolwire.toon against the real ``toon_format`` 1.2.

On generated Python values (huge ints, floats with ``-0.0``/``nan``/``inf``, ``Decimal``,
tuples, sets, non-string keys, awkward strings) and every option, ``dumps`` gives the same
text or raises the same exception type; ``loads`` of that text with every hook gives the same
value.
"""

from __future__ import annotations

import collections
import dataclasses
import enum
import math
import uuid
from datetime import date, datetime, time, timezone
from decimal import Decimal
from typing import Any

import pytest
import toon_format
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolwire import toon

SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))

# Strings that exercise quoting: structural characters, keywords, numbers, spaces, hyphens.
tricky = st.sampled_from(
    ["", " ", "a b", " lead", "trail ", "-", "- x", "#c", "true", "false", "null", "42",
     "-3.5", "1e5", "05", "+1", "a:b", "a,b", "a|b", "a\tb", "[x]", "{y}", 'q"t', "back\\s",
     "line\nbreak", "cr\r", "\x00\x1f", "é", "日本", "😀", "\ufeffbom", "a.b", "_k", "1a"]
)
text = st.one_of(tricky, st.text(max_size=8))
keys = st.one_of(text, st.integers(-5, 5), st.floats(allow_nan=True), st.booleans(), st.none())
numbers = st.one_of(
    st.integers(),
    st.integers(min_value=-(10**40), max_value=10**40),
    st.floats(),
    st.sampled_from([0.0, -0.0, 1e21, 1e-7, 2.0**60, 1e300, 5e-324, 0.1, 1.5e-7]),
    st.decimals(allow_nan=True, places=None).filter(lambda d: not d.is_snan()),
    st.sampled_from([Decimal("0.10000000000000000000001"), Decimal("1E+30"), Decimal("-0.00")]),
)
scalars = st.one_of(st.none(), st.booleans(), numbers, text)


class Color(enum.Enum):
    RED = "red"


@dataclasses.dataclass
class Point:
    x: int
    y: float


class Opaque:
    pass


def _extend(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    row = st.dictionaries(st.sampled_from(["id", "name", "n", "x y"]), scalars, min_size=1)
    return st.one_of(
        st.lists(children, max_size=5),
        st.lists(children, max_size=4).map(tuple),
        st.dictionaries(text, children, max_size=5),
        st.dictionaries(keys, children, max_size=4),
        st.lists(row, min_size=1, max_size=5),  # tabular candidates
        st.dictionaries(text, row, min_size=2, max_size=4),  # keyed tabular candidates
        st.frozensets(st.integers(-3, 3), max_size=4),
        st.sets(st.one_of(st.integers(-3, 3), st.text(max_size=2)), max_size=4),
        st.dictionaries(text, children, max_size=3).map(collections.OrderedDict),
    )


others = st.one_of(
    st.just(Color.RED),
    st.builds(Point, st.integers(), st.floats()),
    st.just(Opaque()),
    st.datetimes(timezones=st.sampled_from([None, timezone.utc])),
    st.dates(),
    st.times(),
    st.uuids(),
    st.just(uuid.UUID(int=0)),
    st.sampled_from([date(2026, 1, 2), datetime(2026, 1, 2, 3, 4, 5, 6), time(23, 59)]),
)
values = st.recursive(
    st.one_of(scalars, others),
    _extend,
    max_leaves=25,
)
options = st.fixed_dictionaries(
    {
        "indent_size": st.integers(1, 6),
        "delimiter": st.sampled_from([",", "\t", "|", toon.Delimiter.PIPE]),
        "sort_keys": st.booleans(),
    }
)


def _default(o: Any) -> Any:
    if isinstance(o, Opaque):
        return {"opaque": True}
    raise TypeError("no")


def _outcome(f: Any, *a: Any, **kw: Any) -> tuple[str, Any]:
    try:
        return "ok", f(*a, **kw)
    except (TypeError, ValueError) as e:
        return type(e).__name__, None


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if type(a) is not type(b):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    return bool(a == b)


@SETTINGS
@given(values, options, st.booleans())
def test_dumps_matches_toon_format(value: Any, opts: dict[str, Any], with_default: bool) -> None:
    kw = dict(opts, default=_default if with_default else None)
    want = _outcome(toon_format.dumps, value, **kw)
    got = _outcome(toon.dumps, value, **kw)
    assert got == want


hooks = st.fixed_dictionaries(
    {
        "strict": st.booleans(),
        "parse_float": st.sampled_from([None, Decimal, str]),
        "parse_int": st.sampled_from([None, str, float]),
        "object_hook": st.sampled_from([None, lambda d: sorted(d.items())]),
        "object_pairs_hook": st.sampled_from([None, list, lambda p: dict(reversed(p))]),
    }
)


@SETTINGS
@given(values, options, hooks)
def test_loads_matches_toon_format(value: Any, opts: dict[str, Any], hook: dict[str, Any]) -> None:
    try:
        doc = toon_format.dumps(value, default=_default, **opts)
    except (TypeError, ValueError):
        return
    kw = dict(hook, indent_size=opts["indent_size"])
    want = _outcome(toon_format.loads, doc, **kw)
    got = _outcome(toon.loads, doc, **kw)
    assert got[0] == want[0]
    assert _same(got[1], want[1]), (doc, got, want)


@pytest.mark.parametrize(
    "bad",
    [
        {"indent_size": 0},
        {"indent_size": True},
        {"indent_size": "2"},
        {"delimiter": ";"},
        {"delimiter": 1},
    ],
)
def test_bad_options_raise_the_same(bad: dict[str, Any]) -> None:
    assert _outcome(toon.dumps, {"a": 1}, **bad) == _outcome(toon_format.dumps, {"a": 1}, **bad)
    if "indent_size" in bad:
        assert _outcome(toon.loads, "a: 1", **bad) == _outcome(toon_format.loads, "a: 1", **bad)


def test_surface() -> None:
    for name in toon_format.__all__:
        if name != "__version__":
            assert hasattr(toon, name), name
    assert issubclass(toon.ToonDecodeError, ValueError)
    assert toon.encode is toon.dumps and toon.decode is toon.loads
    assert [d.value for d in toon.Delimiter] == [d.value for d in toon_format.Delimiter]
    assert str(toon.Delimiter.TAB) == "\t"


def test_bytes_input_and_errors() -> None:
    assert toon.loads(b"a: 1") == toon_format.loads(b"a: 1")
    for bad in (b"a: \xff", bytearray(b"\xc3")):
        with pytest.raises(toon.ToonDecodeError) as mine:
            toon.loads(bad)
        with pytest.raises(toon_format.ToonDecodeError) as theirs:
            toon_format.loads(bad)
        assert str(mine.value) == str(theirs.value)
    with pytest.raises(TypeError):
        toon.loads(12)  # type: ignore[arg-type]
    e = _outcome(toon.dumps, b"raw")
    assert e == _outcome(toon_format.dumps, b"raw") == ("TypeError", None)


def test_decode_error_has_line_and_source() -> None:
    with pytest.raises(toon.ToonDecodeError) as e:
        toon.loads("a:\n  b: 1\n   c: 2")
    assert e.value.line == 3 and e.value.source == "   c: 2"
    assert str(e.value).startswith("line 3: ")


def test_dump_and_load_files(tmp_path: Any) -> None:
    p = tmp_path / "x.toon"
    with p.open("w") as f:
        toon.dump({"a": [1, 2]}, f, delimiter="|")
    assert p.read_text() == toon_format.dumps({"a": [1, 2]}, delimiter="|")
    with p.open("rb") as f:
        assert toon.load(f) == {"a": [1, 2]}


# TOON-looking documents, valid or not: headers, list items, keys, indentation off by one.
_atoms = ["a", "b", "x y", '"q"', '"a:b"', "1", "-2.50", "1e3", "true", "null", "", "-", "- 1",
          "[2]: 1,2", "[2]{a,b}:", "[1|]: x", "1,2", "3,4", "k[1]: z", "#c", '"\\n"', '"\\u00e9"',
          '"bad\\x"', "05", "1.0", "-0", "é", "[2:]{a}:", "x: 1"]
_line = st.tuples(
    st.sampled_from(["", "", "  ", "  ", "    ", " ", "   ", "\t"]),
    st.sampled_from(["{k}: {v}", "{k}:", "- {v}", "{v}", "{k}{v}"]),
    st.sampled_from(["a", "b", "c", '"k"', "a.b"]),
    st.sampled_from(_atoms),
).map(lambda t: t[0] + t[1].format(k=t[2], v=t[3]))
documents = st.lists(_line, min_size=1, max_size=6).map("\n".join)


@SETTINGS
@given(documents, st.booleans(), st.sampled_from([2, 2, 4]))
def test_loads_of_any_document_matches_toon_format(doc: str, strict: bool, indent: int) -> None:
    want = _outcome(toon_format.loads, doc, strict=strict, indent_size=indent)
    got = _outcome(toon.loads, doc, strict=strict, indent_size=indent)
    assert (got[0] == "ok") == (want[0] == "ok"), (doc, got, want)
    if got[0] == "ok":
        assert _same(got[1], want[1]), (doc, got, want)
    else:
        assert got[0] == want[0] == "ToonDecodeError"
