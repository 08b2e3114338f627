"""toolwire.mcp on the official SDK: the example server driven in process by the SDK's own
client, the decorator on sync and async handlers, and tool_schema."""

from __future__ import annotations

import asyncio
import json
import pathlib
import sys
from typing import Any

import pytest

mcp = pytest.importorskip("mcp")
from mcp.types import CallToolResult  # noqa: E402

import toolwire  # noqa: E402
import toolwire.mcp  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "examples"))
import billing_server  # noqa: E402


def run(coro: Any) -> Any:
    return asyncio.run(coro)


async def _session(calls: list[tuple[str, dict[str, Any]]]) -> tuple[Any, list[Any]]:
    from mcp import Client

    async with Client(billing_server.server) as client:
        tools = await client.list_tools()
        results = [await client.call_tool(name, args) for name, args in calls]
    return tools, results


def test_example_server_in_process() -> None:
    tools, (listed, selected, one, missing, bad) = run(
        _session(
            [
                ("list_invoices", {"status": "paid"}),
                ("list_invoices", {"_select": ["status", "id"]}),
                ("get_invoice", {"id": "INV-0002"}),
                ("get_invoice", {"id": "INV-9999"}),
                ("list_invoices", {"_select": "id"}),
            ]
        )
    )
    by_name = {t.name: t for t in tools.tools}
    prop = by_name["list_invoices"].input_schema["properties"]["_select"]
    want = toolwire.Presenter(billing_server.INVOICE).select_property()
    # pydantic adds a "title" to every property; everything else is the engine's.
    assert {k: v for k, v in prop.items() if k != "title"} == want
    # The same bytes as presenting the handler's data directly.
    paid = [r for r in billing_server.invoices() if r["status"] == "paid"]
    direct = toolwire.present(paid, billing_server.INVOICE, action="list_invoices")
    assert [c.text for c in listed.content] == direct.texts
    assert not listed.is_error
    assert listed.content[0].text.startswith("[40|]{id|amount_cents|status|client{name|email}}:")
    assert selected.content[0].text.startswith("[50|]{status|id}:\n  pending|INV-0001")
    assert "[REDACTED]" in one.content[0].text and "internal_score" not in one.content[0].text
    assert missing.is_error
    assert missing.content[0].text == (
        '<tool_error code="INTERNAL_ERROR" severity="error">\n'
        "<message>[get_invoice] no invoice INV-9999</message>\n"
        "<recovery>This may be a transient error. Retry the same call with identical parameters.</recovery>\n"
        "</tool_error>"
    )
    assert bad.is_error and bad.content[0].text.startswith('<validation_error action="list_invoices">')


P = {"name": "Row", "select": True, "schema": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}}}}


def test_decorator_sync_and_async() -> None:
    @toolwire.mcp.tool(P)
    def sync(n: int) -> Any:
        return [{"a": i, "b": str(i), "c": "x"} for i in range(n)]

    @toolwire.mcp.tool(P)
    async def aio(n: int) -> Any:
        return {"a": n, "b": "y"}

    @toolwire.mcp.tool(P)
    def nothing() -> None:
        return None

    prebuilt = CallToolResult(content=[{"type": "text", "text": "mine"}])

    @toolwire.mcp.tool(P)
    def passthrough() -> Any:
        return prebuilt

    @toolwire.mcp.tool(P)
    def fails() -> Any:
        raise RuntimeError("db down")

    r = sync(2, _select=["b"])
    assert isinstance(r, CallToolResult)
    assert r.content[0].text == '[\n  {\n    "b": "0"\n  },\n  {\n    "b": "1"\n  }\n]'
    assert r.toolwire_meta["data"] == [{"b": "0"}, {"b": "1"}]
    assert run(aio(3)).content[0].text == '{\n  "a": 3,\n  "b": "y"\n}'
    assert nothing().content[0].text == "OK"
    assert passthrough() is prebuilt
    f = fails()
    assert f.is_error and "[fails] db down" in f.content[0].text
    assert "toolwire_select" in str(sync.__signature__)  # published as _select (alias)


def test_tool_schema() -> None:
    s = toolwire.mcp.tool_schema(
        P,
        input_schema={"type": "object", "properties": {"q": {"type": "string"}}},
        actions=[{"name": "list", "description": "List rows"}, {"name": "get", "required": ["id"]}],
        name="rows",
    )
    assert list(s["inputSchema"]["properties"]) == ["q", "_select"]
    assert s["inputSchema"]["properties"]["_select"]["items"]["enum"] == ["a", "b"]
    assert s["outputSchema"]["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert s["description"] == (
        "rows. Select operation via the `action` parameter.\n\n"
        '[2|]{action|desc|required}:\n  list|List rows|""\n  get|""|id'
    )
    assert toolwire.mcp.tool_schema({"name": "X"})["description"] == "X"
    assert "_select" not in toolwire.mcp.tool_schema({"name": "X"})["inputSchema"].get("properties", {})


def test_mcp_present_is_call_tool_result() -> None:
    r = toolwire.mcp.present([{"a": 1}], P, select=["zzz"])
    assert isinstance(r, CallToolResult) and r.is_error
    dumped = r.model_dump(by_alias=True, exclude_none=True)
    assert "toolwire" not in json.dumps(dumped)  # the side door is never serialized
    assert r.toolwire_meta is not None
