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
