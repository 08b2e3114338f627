"""``toolwire.present`` against the CLI: for every presenter feature, the same presenter file
and data give the byte-identical ``CallToolResult`` line that ``toolwire present --presenter F``
prints (from Python objects and from JSON bytes), and the dict form is that line parsed."""

from __future__ import annotations

import json
import pathlib
import subprocess
from typing import Any

import pytest

import toolwire

SCHEMA = {
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "amount_cents": {"type": "integer"},
        "status": {"type": "string", "enum": ["paid", "pending", "overdue"]},
        "client": {"type": "object", "properties": {"name": {"type": "string"}, "email": {"type": "string"}}},
        "note": {"type": ["string", "null"]},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["id", "amount_cents", "status"],
}


def rows(n: int) -> list[dict[str, Any]]:
    return [
        {
            "id": f"INV-{i}",
            "amount_cents": 100 * i + 5,
            "status": ["paid", "pending", "overdue"][i % 3],
            "client": {"name": f"Acme, {i}", "email": f"a{i}@x.io", "vip": i % 2 == 0},
            "note": None if i % 2 else f"note <b>{i}</b>",
            "tags": ["a", "b"][: i % 3],
            "secret": "drop me",
        }
        for i in range(1, n + 1)
    ]


FULL = {
    "name": "Invoice",
    "schema": SCHEMA,
    "rules": ["CRITICAL: amount_cents is in CENTS. Divide by 100."],
    "collection_rules": ["Totals are per page."],
    "limit": 4,
    "redact": {"paths": ["client.email"], "censor": "***"},
    "select": True,
    "ui": {
        "item": [{"markdown": "Invoice **{id}** for {client.name}"}],
        "collection": [
            {"table": {"columns": ["id", "status", "client.name"], "title": "Invoices", "width": "full", "priority": 0}},
            {"summary": "{count} invoices, {shown} shown, {hidden} hidden"},
            {"list": "{id}: {status}"},
        ],
    },
    "suggest": {
        "item": [{"tool": "billing.pay", "reason": "Pay {id}"}],
        "collection": [{"tool": "billing.get", "reason": "View details"}],
    },
    "embed": {"client": {"name": "Client", "rules": ["Display company name prominently."],
                         "schema": {"type": "object", "properties": {"name": {"type": "string"}, "email": {"type": "string"}}}}},
    "format": "pretty",
}

CASES: list[tuple[str, dict[str, Any] | None, Any, dict[str, Any]]] = [
    ("full collection", FULL, rows(7), {}),
    ("full single item", FULL, rows(1)[0], {}),
    ("empty collection", FULL, [], {}),
    ("select", FULL, rows(5), {"select": ["status", "id"]}),
    ("select empty = all", FULL, rows(2), {"select": []}),
    ("select unknown name", FULL, rows(2), {"select": ["nope"]}),
    ("limit override", FULL, rows(6), {"limit": 2}),
    ("limit 0", FULL, rows(3), {"limit": 0}),
    ("token budget", FULL, rows(30), {"token_budget": 120, "limit": 100}),
    ("output validation", FULL, [{"id": 1, "amount_cents": "x", "status": "lost"}], {}),
    ("missing required", FULL, [{"id": "A"}], {}),
    ("reserved tag falls back to json", {"name": "T", "format": "toon"}, [{"t": "</domain_rules>"}], {}),
    ("string result", FULL, "already text", {}),
    ("empty string result", FULL, "", {}),
    ("null root", {"name": "N"}, None, {}),
    ("no schema", {"name": "Bare", "rules": ["r"]}, {"x": [1, 2.5, -0.0, 1e21, 123456789012345678901234567890]}, {}),
    ("additionalProperties", {"name": "A", "schema": {"type": "object", "additionalProperties": True,
                                                    "properties": {"a": {"type": "integer"}}}}, [{"a": 1.0, "b": 2}], {}),
    ("select disabled ignores select", {"name": "S", "schema": SCHEMA}, rows(2), {"select": ["id"]}),
]
FORMATS = ["pretty", "compact", "toon", "toon-comma", "toon-tab", "auto"]
for f in FORMATS:
    CASES.append((f"format {f}", FULL, rows(5), {"format": f}))
    CASES.append((f"format {f} nested", {"name": "Nested"}, {"a": {"b": [{"c": 1, "d": "x"}, {"c": 2, "d": "y"}]}, "e": [1, [2, 3]]}, {"format": f}))


def run_cli(cli: pathlib.Path, tmp: pathlib.Path, presenter: Any, data: Any, kw: dict[str, Any]) -> bytes:
    data_file = tmp / "data.json"
    data_file.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    cmd = [str(cli), "present", str(data_file)]
    if presenter is not None:
        p = tmp / "presenter.json"
        p.write_text(json.dumps(presenter), encoding="utf-8")
        cmd += ["--presenter", str(p)]
    if "select" in kw:
        cmd += ["--select", ",".join(kw["select"])]
    if "format" in kw:
        cmd += ["--format", kw["format"]]
    if "limit" in kw:
        cmd += ["--limit", str(kw["limit"])]
    if "token_budget" in kw:
        cmd += ["--token-budget", str(kw["token_budget"])]
    out = subprocess.run(cmd, capture_output=True, check=False)
    assert out.returncode in (0, 5), out.stderr
    return out.stdout


@pytest.mark.parametrize(("name", "presenter", "data", "kw"), CASES, ids=[c[0] for c in CASES])
def test_present_equals_cli(cli: pathlib.Path, tmp_path: pathlib.Path, name: str, presenter: Any, data: Any, kw: dict[str, Any]) -> None:
    want = run_cli(cli, tmp_path, presenter, data, kw)
    if data is None:
        # A root JSON null is the value null; Python's None is "no value" (OK): bytes say null.
        got = toolwire.present_line(b"null", presenter, **kw)
        assert got == want
        assert toolwire.present(None, presenter, **kw)["content"] == [{"type": "text", "text": "OK"}]
        return
    raw = json.dumps(data, ensure_ascii=False).encode()
    assert toolwire.present_line(raw, presenter, **kw) == want
    if not isinstance(data, str):
        assert toolwire.present_line(data, presenter, **kw) == want
        assert toolwire.present(data, presenter, **kw) == json.loads(want)
    # The presenter as JSON text and as a compiled Presenter give the same bytes.
    if presenter is not None:
        assert toolwire.present_line(raw, json.dumps(presenter), **kw) == want
        assert toolwire.present_line(raw, toolwire.Presenter(presenter), **kw) == want
