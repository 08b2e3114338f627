"""toolwire.present's Python surface: inputs, the side door, errors."""

from __future__ import annotations

import json

import pytest

import toolwire

P = {"name": "Inv", "select": True, "rules": ["r1"], "redact": {"paths": ["s"]},
     "ui": {"collection": [{"summary": "{count} rows"}]},
     "suggest": {"collection": [{"tool": "t", "reason": "why"}]},
     "schema": {"type": "object", "properties": {"id": {"type": "integer"}, "s": {"type": "string"}}}}


def test_side_door_is_an_attribute_not_in_the_dict() -> None:
    r = toolwire.present([{"id": 1, "s": "secret", "x": 0}], P, select=["s"], format="toon")
    assert set(r) == {"content"}
    assert "secret" not in json.dumps(r)
    assert r.meta == {
        "data": [{"s": "[REDACTED]"}],
        "rules": ["r1"],
        "ui_blocks": [{"type": "summary", "content": "📊 **Summary**: 1 rows", "title": None, "width": None, "priority": None}],
        "hints": [],
        "suggestions": [{"tool": "t", "reason": "why"}],
        "format": "toon",
    }


def test_inputs() -> None:
    assert toolwire.present(None).texts == ["OK"]
    assert toolwire.present("text <b>kept</b>").texts == ["text <b>kept</b>"]
    assert toolwire.present(b'{"a": 1}', format="compact").texts == ['{"a":1}']
    assert toolwire.present(bytearray(b"[1]"), format="compact").texts == ["[1]"]
    assert toolwire.present(memoryview(b"[2]"), format="compact").texts == ["[2]"]
    assert toolwire.present({"n": float("nan"), "t": (1, 2)}, format="compact").texts == ['{"n":null,"t":[1,2]}']
    assert toolwire.present([{"id": 10**30}], format="compact").texts == ['[{"id":1000000000000000000000000000000}]']
    r = toolwire.present([{"id": "x"}], P)
    assert r["isError"] is True and r.is_error
    assert toolwire.FORMATS == ("pretty", "compact", "toon", "toon-comma", "toon-tab", "auto")


def test_errors() -> None:
    with pytest.raises(toolwire.ToolwireError) as e:
        toolwire.present(b'[1,\n 2,]')
    assert (e.value.line, e.value.column, e.value.category) == (2, 4, "syntax")
    assert isinstance(e.value, ValueError)
    with pytest.raises(toolwire.ToolwireError) as e:
        toolwire.present(b"[\xff]")
    assert e.value.category == "utf8"
    with pytest.raises(toolwire.PresenterError) as pe:
        toolwire.present([], {"name": "X", "ui": {"collection": [{"table": {"columns": "id"}}]}})
    assert pe.value.path == "ui.collection[0].table.columns"
    with pytest.raises(toolwire.PresenterError) as pe:
        toolwire.Presenter('{"name": ')
    assert pe.value.line == 1
    with pytest.raises(ValueError, match="unknown format 'yaml'"):
        toolwire.present([], format="yaml")
    with pytest.raises(ValueError):
        toolwire.present([], limit=-1)
    with pytest.raises(TypeError):
        toolwire.present([], limit="3")
