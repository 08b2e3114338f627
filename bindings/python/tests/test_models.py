"""Dataclasses, attrs classes and pydantic models read by the walk itself (``_convert.plan``).

The walk reads a dataclass's fields with ``getattr`` and a plain pydantic model's from its
``__dict__`` instead of asking ``_convert.convert`` for every object; whatever it cannot read
so (a datetime in a model, a custom serializer, an extra field, ...) still goes through
``model_dump(mode="json")``. Each case is checked against ``toon_format`` 1.2 (``dumps``) and
against JSON of the same data (``present``).
"""

from __future__ import annotations

import dataclasses
import math
from datetime import datetime, timezone
from enum import Enum
from typing import Any, ClassVar, Optional

import attrs
import pydantic
import pytest
import toon_format
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, Field, computed_field, field_serializer

import toolwire
from toolwire import toon
from toolwire._convert import MAPPING, SEQUENCE, convert


class Color(Enum):
    RED = "red"


class Line(BaseModel):
    sku: str
    qty: int
    price: float = 0.5


class Invoice(BaseModel):
    id: str
    customer: Optional[str] = None
    paid: bool = False
    lines: list[Line] = []
    tags: dict[str, int] = {}
    pair: tuple[int, str] = (1, "a")
    meta: Any = None


class Dated(BaseModel):
    id: int
    at: datetime


class Custom(BaseModel):
    n: int

    @field_serializer("n")
    def twice(self, v: int) -> int:
        return v * 2


class Extra(BaseModel):
    model_config = ConfigDict(extra="allow")
    n: int


class Computed(BaseModel):
    n: int

    @computed_field  # type: ignore[prop-decorator]
    @property
    def m(self) -> int:
        return self.n + 1


class Excluded(BaseModel):
    n: int
    secret: str = Field(default="s", exclude=True)


class Aliased(BaseModel):
    model_config = ConfigDict(populate_by_name=True)
    n: int = Field(alias="N")


class Infinite(BaseModel):
    model_config = ConfigDict(ser_json_inf_nan="strings")
    x: float


class Root(pydantic.RootModel[list[int]]):
    pass


class WithColor(BaseModel):
    c: Color
    s: str = "x"


class Holder(BaseModel):
    inner: Any


@dataclasses.dataclass
class Point:
    x: int
    y: float
    label: str = "p"
    z: ClassVar[int] = 3


@dataclasses.dataclass(slots=True)
class Slotted:
    a: int
    b: list[Any]


@dataclasses.dataclass
class Shadowed:
    a: int

    @property
    def b(self) -> str:  # not a field
        return "no"


@dataclasses.dataclass
class Nest:
    point: Point
    invoice: Invoice
    items: list[Any]


@attrs.define
class AttrsRow:
    id: int
    name: str


@dataclasses.dataclass
class Reordered:
    a: int
    b: str

    def __post_init__(self) -> None:
        # The instance dict's members become b, a: not the fields' order.
        a = self.a
        del self.a
        self.a = a


@dataclasses.dataclass
class Pair:
    left: int
    right: str


def pair_with_dict(d: dict[str, Any]) -> Pair:
    p = Pair(0, "")
    p.__dict__.clear()
    p.__dict__.update(d)
    return p


def line_reordered(sku: str, qty: int) -> Line:
    """A model whose `__dict__` holds its fields out of order (sku last)."""
    m = Line(sku=sku, qty=qty)
    m.__dict__["sku"] = m.__dict__.pop("sku")
    return m


class Opaque:
    pass


def _default(o: Any) -> Any:
    if isinstance(o, Opaque):
        return {"opaque": 1}
    raise TypeError("no")


def check(value: Any, **kw: Any) -> None:
    want = toon_format.dumps(value, default=_default, **kw)
    assert toon.dumps(value, default=_default, **kw) == want


def check_present(value: Any, plain: Any) -> None:
    """`present` of `value` equals `present` of its plain-data form (JSON and TOON)."""
    for fmt in ("compact", "toon-comma"):
        assert toolwire.present(value, format=fmt).texts == toolwire.present(plain, format=fmt).texts


LINES = [Line(sku="A-1", qty=2), Line(sku="Zoë", qty=-3, price=1e300)]
CASES: list[Any] = [
    Invoice(id="1"),
    [Invoice(id=str(i), customer="日本", paid=i % 2 == 0, lines=LINES) for i in range(5)],
    Invoice(id="x", tags={"a": 1, "é": 2}, meta={"k": [1, 2.5, None, True]}),
    Invoice(id="x", meta={1: "int key"}),  # pydantic converts the key itself
    Invoice(id="x", meta=Color.RED),
    Invoice(id="x", meta=datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)),
    Invoice(id="x", meta=Line(sku="nested", qty=1)),
    Invoice(id="x", meta=[Line(sku="a", qty=1), Dated(id=1, at=datetime(2026, 1, 1))]),
    Invoice(id="x", meta=float("nan")),
    Invoice(id="x", meta="\ud800") if False else Invoice(id="x", meta="ok"),
    Invoice.model_construct(id="constructed"),  # fields missing from __dict__
    [Dated(id=1, at=datetime(2026, 1, 2, tzinfo=timezone.utc)), Dated(id=2, at=datetime(2026, 1, 3))],
    [Custom(n=1), Custom(n=2)],
    [Extra(n=1, more="x"), Extra(n=2)],
    [Computed(n=1), Computed(n=2)],
    [Excluded(n=1), Excluded(n=2, secret="t")],
    [Aliased(N=1), Aliased(n=2)],
    [Infinite(x=math.inf), Infinite(x=1.5)],
    Root([1, 2, 3]),
    [WithColor(c=Color.RED), WithColor(c=Color.RED, s="y")],
    Holder(inner=Invoice(id="deep", lines=LINES)),
    Holder(inner=Opaque()),  # pydantic's own error, or default: as toon_format
    [Point(1, 2.5), Point(-3, math.inf, "é")],
    Slotted(1, [Point(0, 0.0), {"k": Slotted(2, [])}]),
    [Shadowed(1), Shadowed(2)],
    Nest(Point(1, 1.0), Invoice(id="n", lines=LINES), [Point(2, 2.0), Invoice(id="m")]),
    [AttrsRow(1, "a"), AttrsRow(2, "日本")],
    # Instance dicts whose members are not the fields in order: read by name all the same.
    [Reordered(1, "x"), Reordered(2, "y")],
    [Pair(1, "a"), pair_with_dict({"".join(["le", "ft"]): 2, "".join(["rig", "ht"]): "b"})],
    [Pair(1, "a"), pair_with_dict({"right": "c", "left": 3})],
    [Pair(1, "a"), pair_with_dict({"left": 4, "extra": 0, "right": "d"})],
    [line_reordered("A-1", 2), line_reordered("Zoë", 3), Line(sku="B", qty=1)],
    {"rows": [Point(i, i / 2) for i in range(20)], "more": [Invoice(id=str(i)) for i in range(20)]},
]


@pytest.mark.parametrize("value", CASES, ids=lambda v: type(v).__name__)
@pytest.mark.parametrize("sort_keys", [False, True])
def test_dumps_matches_toon_format(value: Any, sort_keys: bool) -> None:
    try:
        want: Any = toon_format.dumps(value, default=_default, sort_keys=sort_keys)
    except Exception as e:  # noqa: BLE001
        with pytest.raises(type(e)):
            toon.dumps(value, default=_default, sort_keys=sort_keys)
        return
    assert toon.dumps(value, default=_default, sort_keys=sort_keys) == want


def plain(value: Any) -> Any:
    """The plain data a value stands for, as ``_convert.convert`` says object by object (what
    the walk did for every such object before it read them itself)."""
    t = type(value)
    if value is None or t in (str, int, float, bool):
        return value
    if t is dict:
        return {k: plain(v) for k, v in value.items()}
    if t in (list, tuple):
        return [plain(v) for v in value]
    kind, payload = convert(value, _default)
    if kind == MAPPING:
        return {k: plain(v) for k, v in payload.items()}
    if kind == SEQUENCE:
        return [plain(v) for v in payload]
    return plain(payload)


@pytest.mark.parametrize("value", [c for c in CASES if not isinstance(c, Root)], ids=lambda v: type(v).__name__)
def test_present_reads_models_as_their_data(value: Any) -> None:
    try:
        data = plain(value)
    except Exception:  # noqa: BLE001 - no data to compare with
        return
    if isinstance(value, Holder) and isinstance(value.inner, Opaque):
        return
    check_present(value, data)


def test_a_model_abandoned_midway_leaves_nothing_behind() -> None:
    # The datetime is met after other fields were pushed: those are dropped, and the
    # rows around keep their table.
    rows: list[Any] = [Invoice(id="a", lines=LINES), Invoice(id="b", meta={"x": [1, {"at": datetime(2026, 1, 1)}]})]
    rows += [Invoice(id="c", lines=LINES)]
    check(rows)
    check_present(rows, plain(rows))


def test_objects_that_change_between_calls() -> None:
    p = Point(1, 2.0)
    assert toon.dumps([p]) == toon_format.dumps([p])
    p.x = 5
    p.label = "changed"
    assert toon.dumps([p]) == toon_format.dumps([p])
    inv = Invoice(id="1")
    inv.customer = "now set"
    assert toon.dumps(inv) == toon_format.dumps(inv)


def test_cycles_through_dataclasses() -> None:
    @dataclasses.dataclass
    class Node:
        child: Any = None

    a = Node()
    a.child = [a]
    with pytest.raises(ValueError, match="Circular"):
        toon.dumps(a)
    with pytest.raises(ValueError, match="Circular"):
        toolwire.present(a)


scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=5))
json_values = st.recursive(
    scalars,
    lambda c: st.one_of(st.lists(c, max_size=3), st.dictionaries(st.text(max_size=3), c, max_size=3)),
    max_leaves=10,
)


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    st.lists(
        st.builds(
            Invoice,
            id=st.text(max_size=6),
            customer=st.one_of(st.none(), st.text(max_size=6)),
            paid=st.booleans(),
            lines=st.lists(st.builds(Line, sku=st.text(max_size=4), qty=st.integers(), price=st.floats()), max_size=3),
            tags=st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
            meta=json_values,
        ),
        max_size=6,
    ),
    st.lists(st.builds(Point, st.integers(), st.floats(), st.text(max_size=4)), max_size=6),
)
def test_models_and_dataclasses_match_toon_format(models: list[Invoice], points: list[Point]) -> None:
    for value in (models, points, {"m": models, "p": points}):
        try:
            want: Any = toon_format.dumps(value)
        except ValueError:  # a lone surrogate
            with pytest.raises(ValueError):
                toon.dumps(value)
            continue
        assert toon.dumps(value) == want
        check_present(value, plain(value))
