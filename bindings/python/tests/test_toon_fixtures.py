"""The TOON 4.4 conformance fixtures (564 cases), data-driven, through toolwire.toon.

Encode cases: ``dumps(input, indent_size, delimiter) == expected``. Decode cases:
``loads(input, strict, indent_size) == expected``, or ``ToonDecodeError`` when
``shouldError``. The fixtures live outside the repo (``TOOLWIRE_TOON_SPEC``).
"""

from __future__ import annotations

import json
import math

import pytest
from conftest import toon_spec_fixtures

from toolwire import toon


def _cases() -> list[object]:
    root = toon_spec_fixtures()
    if root is None:
        return []
    out = []
    for path in sorted(root.glob("*/*.json")):
        suite = json.loads(path.read_text(encoding="utf-8"))
        for i, case in enumerate(suite["tests"]):
            out.append(
                pytest.param(
                    path.parent.name, case, id=f"{path.parent.name}/{path.stem}[{i}] {case['name']}"
                )
            )
    return out


CASES = _cases()


def test_fixture_count() -> None:
    if toon_spec_fixtures() is None:
        pytest.skip("external TOON suite not found: its fixtures DID NOT RUN")
    assert len(CASES) == 564


def _same(a: object, b: object) -> bool:
    """Equality that also tells 1 from 1.0 and True from 1 (JSON values are typed)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b or (isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b))
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


@pytest.mark.parametrize(("kind", "case"), CASES)
def test_fixture(kind: str, case: dict) -> None:  # type: ignore[type-arg]
    opts = case.get("options", {})
    if kind == "encode":
        kw = {"indent_size": opts.get("indentSize", 2), "delimiter": opts.get("delimiter", ",")}
        if case.get("shouldError"):
            with pytest.raises((ValueError, TypeError)):
                toon.dumps(case["input"], **kw)
            return
        assert toon.dumps(case["input"], **kw) == case["expected"]
    else:
        kw = {"strict": opts.get("strict", True), "indent_size": opts.get("indentSize", 2)}
        if case.get("shouldError"):
            with pytest.raises(toon.ToonDecodeError):
                toon.loads(case["input"], **kw)
            return
        got = toon.loads(case["input"], **kw)
        assert _same(got, case["expected"]), (got, case["expected"])
