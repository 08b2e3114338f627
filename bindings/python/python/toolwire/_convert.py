"""What a value that is not plain JSON data stands for (called by the native walker).

The walker handles exact ``str``, ``int``, ``float``, ``bool``, ``None``, ``dict``, ``list``
and ``tuple`` itself. For anything else it calls :func:`convert`, whose answer is a pair
``(kind, payload)``:

* ``VALUE``: ``payload`` is the value to encode instead (no cycle marker needed);
* ``DECIMAL``: ``payload`` is the canonical number text of a finite decimal, or ``None``;
* ``MAPPING``: walk ``payload.items()`` as an object;
* ``SEQUENCE``: walk the iterable ``payload`` as an array;
* ``CONVERTED``: encode ``payload`` in place of the value, which must not lead back to it.

The order of the checks is ``toon_format`` 1.2's (str and int subclasses before ``Enum``,
``datetime`` before ``date``), so both libraries pick the same representation.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable, Mapping
from datetime import date, datetime, time
from decimal import Decimal
from enum import Enum
from pathlib import PurePath
from typing import Any
from uuid import UUID

VALUE, DECIMAL, MAPPING, SEQUENCE, CONVERTED = range(5)

# What :func:`plan` answers for a type (besides ``None``).
FIELDS, MODEL, DICT_FIELDS = range(3)

# The types :func:`convert` looks at before dataclasses, attrs classes and pydantic models.
_EARLIER = (str, int, float, Decimal, Mapping, set, frozenset, list, tuple, datetime, date,
            time, UUID, PurePath, Enum, type)


def decimal_text(value: Decimal) -> str | None:
    """The canonical TOON/JSON number text of a decimal, every digit kept.

    Plain notation for magnitudes in [1e-6, 1e21), else ``d.ddde±x``; no trailing zeros.
    """
    if not value.is_finite():
        return None
    if not value:
        return "0"
    sign, digit_tuple, exponent = value.as_tuple()
    assert isinstance(exponent, int)
    digits = "".join(map(str, digit_tuple)).lstrip("0")
    stripped = digits.rstrip("0")
    exponent += len(digits) - len(stripped)
    digits = stripped
    n = len(digits)
    sci = exponent + n - 1
    minus = "-" if sign else ""
    if -6 <= sci < 21:
        if exponent >= 0:
            return minus + digits + "0" * exponent
        point = n + exponent
        if point > 0:
            return f"{minus}{digits[:point]}.{digits[point:]}"
        return f"{minus}0.{'0' * -point}{digits}"
    mantissa = digits[0] + ("." + digits[1:] if n > 1 else "")
    return f"{minus}{mantissa}e{'+' if sci >= 0 else '-'}{abs(sci)}"


def _sorted_members(value: set[Any] | frozenset[Any]) -> list[Any]:
    try:
        return sorted(value)
    except TypeError:
        return sorted(value, key=repr)


def convert(value: Any, default: Callable[[Any], Any] | None) -> tuple[int, Any]:
    """Answer for one value the walker does not know (see the module docs)."""
    if isinstance(value, str):
        return VALUE, str.__str__(value)
    if isinstance(value, bool):
        return VALUE, bool(value)
    if isinstance(value, int):
        return VALUE, int(value)
    if isinstance(value, float):
        return VALUE, float(value)
    if isinstance(value, Decimal):
        return DECIMAL, decimal_text(value)
    if isinstance(value, Mapping):
        return MAPPING, value
    if isinstance(value, (set, frozenset)):
        return SEQUENCE, _sorted_members(value)
    if isinstance(value, (list, tuple)):
        return SEQUENCE, value
    if isinstance(value, (datetime, date, time)):
        return VALUE, value.isoformat()
    if isinstance(value, (UUID, PurePath)):
        return VALUE, str(value)
    if isinstance(value, Enum):
        return CONVERTED, value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return CONVERTED, {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    attributes = getattr(type(value), "__attrs_attrs__", None)
    if attributes is not None:
        return CONVERTED, {a.name: getattr(value, a.name) for a in attributes}
    pydantic = sys.modules.get("pydantic")
    if pydantic is not None and isinstance(value, pydantic.BaseModel):
        return CONVERTED, value.model_dump(mode="json")
    if default is not None:
        return CONVERTED, default(value)
    raise TypeError(f"Object of type {type(value).__name__} is not TOON serializable")


def plan(cls: type) -> tuple[int, tuple[str, ...]] | None:
    """What the native walker may do itself, in this call, with every object of type
    ``cls`` instead of asking :func:`convert` (``None``: ask it each time).

    * ``(FIELDS, names)``: a dataclass or attrs class: the object stands for
      ``{name: getattr(obj, name) for name in names}``, as :func:`convert` says.
    * ``(DICT_FIELDS, names)``: the same, where ``getattr`` of each name finds it in the
      instance ``__dict__`` whenever it is there (the class keeps the default attribute
      lookup, and no class on its MRO holds a data descriptor of that name): the walker
      reads such a field from ``obj.__dict__`` without running Python code, and with
      ``getattr`` when it is not there.
    * ``(MODEL, names)``: a pydantic model whose ``model_dump(mode="json")`` is the dict of
      those fields of ``obj.__dict__`` whenever every value is a plain ``str``, ``int``,
      ``float``, ``bool``, ``None``, list, tuple, dict of ``str`` keys or such a model (the
      walker checks the values, and asks :func:`convert` when one is anything else): no
      custom serializer, computed, excluded or extra field, root model, alias or non-default
      JSON setting for non-finite floats.

    A type whose instances may claim another class (``__class__`` redefined), so that
    ``isinstance`` might answer otherwise for them, gets ``None``.
    """
    if issubclass(cls, _EARLIER) or any("__class__" in vars(c) for c in cls.__mro__[:-1]):
        return None
    if dataclasses.is_dataclass(cls):
        return _fields(cls, tuple(f.name for f in dataclasses.fields(cls)))
    attributes = getattr(cls, "__attrs_attrs__", None)
    if attributes is not None:
        return _fields(cls, tuple(a.name for a in attributes))
    pydantic = sys.modules.get("pydantic")
    if pydantic is not None and issubclass(cls, pydantic.BaseModel):
        names = _plain_model_fields(cls)
        if names is not None:
            return MODEL, names
    return None


def _fields(cls: type, names: tuple[str, ...]) -> tuple[int, tuple[str, ...]]:
    """``(DICT_FIELDS, names)`` when ``getattr`` finds every name in the instance
    ``__dict__`` first (see :func:`plan`), else ``(FIELDS, names)``."""
    if cls.__getattribute__ is not object.__getattribute__:
        return FIELDS, names
    for name in names:
        for klass in cls.__mro__:
            attr = vars(klass).get(name, _MISSING)
            if attr is _MISSING:
                continue
            kind = type(attr)
            if hasattr(kind, "__set__") or hasattr(kind, "__delete__"):
                return FIELDS, names
            break
    return DICT_FIELDS, names


_MISSING = object()


def _plain_model_fields(cls: Any) -> tuple[str, ...] | None:
    try:
        if getattr(cls, "__pydantic_root_model__", False):
            return None
        config = cls.model_config
        if (
            config.get("extra") == "allow"
            or config.get("ser_json_inf_nan", "null") != "null"
            or config.get("serialize_by_alias")
            or config.get("json_encoders")
        ):
            return None
        if cls.model_computed_fields:
            return None
        decorators = cls.__pydantic_decorators__
        if decorators.field_serializers or decorators.model_serializers:
            return None
        if _customised(cls.__pydantic_core_schema__):
            return None
        names = []
        for name, info in cls.model_fields.items():
            if info.exclude or getattr(info, "exclude_if", None) is not None:
                return None
            names.append(name)
        return tuple(names)
    except Exception:  # noqa: BLE001 - an unexpected model: serialized by pydantic itself
        return None


def _customised(schema: Any) -> bool:
    """Whether a pydantic-core schema changes how any value serializes (anywhere in it)."""
    if isinstance(schema, dict):
        if (
            "serialization" in schema
            or schema.get("serialization_exclude")
            or "serialization_exclude_if" in schema
            or schema.get("computed_fields")
            or schema.get("root_model")
            or schema.get("extra_behavior") == "allow"
        ):
            return True
        return any(_customised(v) for k, v in schema.items() if k not in ("cls", "metadata"))
    if isinstance(schema, (list, tuple)):
        return any(_customised(v) for v in schema)
    return False
