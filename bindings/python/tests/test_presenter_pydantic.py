"""A pydantic v2 model as a presenter's schema: the engine's JSON Schema subset it maps to,
the constructs it refuses, and model instances as rows."""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import json
from typing import Any, Literal, Optional, Union

import pytest
from pydantic import BaseModel, ConfigDict, Field

import toolwire
from toolwire import Presenter
from toolwire._schema import model_schema
from test_present_cli import FULL, SCHEMA, rows


class Client(BaseModel):
    name: str = ""
    email: str = ""


class Invoice(BaseModel):
    id: str
    amount_cents: int
    status: Literal["paid", "pending", "overdue"]
    client: Client = Client()
    note: Optional[str] = None
    tags: list[str] = []


def test_a_model_maps_to_the_hand_written_schema() -> None:
    assert model_schema(Invoice) == SCHEMA
    assert Presenter("Invoice").schema(Invoice).to_file() == {"name": "Invoice", "schema": SCHEMA}


def with_model(p: dict[str, Any]) -> Presenter:
    """``p`` with its schemas given as models."""
    built = Presenter.from_file({k: v for k, v in p.items() if k not in ("schema", "embed")}).schema(Invoice)
    child = {k: v for k, v in p["embed"]["client"].items() if k != "schema"}
    return built.embed("client", Presenter.from_file(child).schema(Client))


@pytest.mark.parametrize("fmt", toolwire.FORMATS)
@pytest.mark.parametrize("select", [None, ["status", "id"]])
def test_model_schema_and_model_rows_give_the_files_bytes(fmt: str, select: Any) -> None:
    data = rows(6)
    want = toolwire.present_line(data, FULL, format=fmt, select=select)
    p = with_model(FULL)
    assert toolwire.present_line(data, p, format=fmt, select=select) == want
    models = [Invoice.model_validate(r) for r in data]
    assert toolwire.present_line(models, p, format=fmt, select=select) == want
    one = toolwire.present_line(models[0], p, format=fmt)
    assert one == toolwire.present_line(data[0], FULL, format=fmt)


def test_the_schema_still_validates() -> None:
    r = toolwire.present([{"id": "A", "amount_cents": "12", "status": "lost"}], Presenter("Invoice").schema(Invoice))
    assert r.is_error
    assert "[Invoice presenter] 2 problem(s): item 0 'amount_cents': expected integer, got string; " in r.texts[0]
    assert "item 0 'status': expected one of 'paid', 'pending', 'overdue', got 'lost'" in r.texts[0]


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Line(BaseModel):
    sku: str = Field(description="Stock keeping unit", min_length=3, pattern="^[A-Z]+$")
    qty: int = Field(ge=1)


class Everything(BaseModel):
    when: datetime.datetime
    price: decimal.Decimal
    color: Color
    maybe_color: Optional[Color] = None
    kind: Literal["a"] = "a"
    either: Union[int, str]
    lines: list[Line]
    maybe_line: Optional[Line] = None
    counts: dict[str, int] = {}
    anything: Any = None
    tags: set[str] = set()
    ratio: float = 0.5
    flag: bool = False

    @property
    def ignored(self) -> int:
        return 1


def test_the_mapping_of_pydantic_constructs() -> None:
    line = {
        "type": "object",
        "properties": {
            "sku": {"description": "Stock keeping unit", "type": "string"},
            "qty": {"type": "integer"},
        },
        "required": ["sku", "qty"],
    }
    assert model_schema(Everything) == {
        "type": "object",
        "properties": {
            "when": {"type": "string"},
            "price": {"type": "string"},
            "color": {"enum": ["red", "blue"], "type": "string"},
            "maybe_color": {"enum": ["red", "blue", None], "type": ["string", "null"]},
            "kind": {"enum": ["a"], "type": "string"},
            "either": {"type": ["integer", "string"]},
            "lines": {"type": "array", "items": line},
            "maybe_line": {**line, "type": ["object", "null"]},
            "counts": {"type": "object", "additionalProperties": True},
            "anything": {},
            "tags": {"type": "array", "items": {"type": "string"}},
            "ratio": {"type": "number"},
            "flag": {"type": "boolean"},
        },
        "required": ["when", "price", "color", "either", "lines"],
    }
    row = Everything(
        when=datetime.datetime(2026, 1, 2, 3, 4, 5),
        price=decimal.Decimal("12.50"),
        color=Color.RED,
        either="x",
        lines=[Line(sku="ABC", qty=2)],
        counts={"a": 1},
        tags={"b", "a"},
    )
    r = toolwire.present(row, Presenter("E").schema(Everything), format="compact")
    assert not r.is_error, r.texts
    assert json.loads(r.texts[0]) == row.model_dump(mode="json")


class Node(BaseModel):
    name: str
    children: list[Node] = []


class Cat(BaseModel):
    meow: bool


class Dog(BaseModel):
    bark: bool


class Pets(BaseModel):
    pet: Union[Cat, Dog]


class Pair(BaseModel):
    xy: tuple[int, int]


class Owners(BaseModel):
    by_name: dict[str, Cat]


class Mixed(BaseModel):
    v: Union[Literal["x"], int]


@pytest.mark.parametrize(
    ("model", "path", "message"),
    [
        (Node, "schema.properties.children.items", "recursive model 'Node' is not supported"),
        (Pets, "schema.properties.pet.anyOf", "a union of objects, arrays or enums is not supported"),
        (Pair, "schema.properties.xy.prefixItems", "tuples (prefixItems) are not supported"),
        (Owners, "schema.properties.by_name.additionalProperties", "a dict whose values are objects is not supported"),
        (Mixed, "schema.properties.v.anyOf", "a union of objects, arrays or enums is not supported"),
    ],
)
def test_unsupported_constructs_are_refused_by_path(model: type, path: str, message: str) -> None:
    with pytest.raises(toolwire.PresenterError) as e:
        Presenter("X").schema(model)
    assert e.value.path == path
    assert str(e.value).startswith(f"{path}: {message}")


def test_dump_names_decide_the_keys() -> None:
    class Aliased(BaseModel):
        model_config = ConfigDict(serialize_by_alias=True)
        inner_id: str = Field(serialization_alias="id")

    assert model_schema(Aliased)["properties"] == {"id": {"type": "string"}}
    r = toolwire.present([Aliased(inner_id="A")], Presenter("A").schema(Aliased), format="compact")
    assert r.texts == ['[{"id":"A"}]']


def test_a_dataclass_type_is_a_schema_too() -> None:
    @dataclasses.dataclass
    class Point:
        x: int
        label: str = ""

    assert model_schema(Point) == {
        "type": "object",
        "properties": {"x": {"type": "integer"}, "label": {"type": "string"}},
        "required": ["x"],
    }
    r = toolwire.present([Point(1, "a"), Point(2)], Presenter("P").schema(Point).format("toon-comma"))
    assert r.texts == ["[2]{x,label}:\n  1,a\n  2,\"\""]
