"""toolwire.fastmcp on FastMCP 4: the example server driven by ``fastmcp.Client`` in process
and over stdio (a real subprocess), ``_select`` in and out, errors, structured output."""

from __future__ import annotations

import asyncio
import pathlib
import sys
from typing import Any

import pytest

fastmcp = pytest.importorskip("fastmcp")
from fastmcp import Client, Context, FastMCP  # noqa: E402
from fastmcp.client.transports import StdioTransport  # noqa: E402

import toolwire  # noqa: E402
import toolwire.fastmcp  # noqa: E402

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"
sys.path.insert(0, str(EXAMPLES))
import fastmcp_server  # noqa: E402

INVOICE = fastmcp_server.INVOICE


def run(coro: Any) -> Any:
    return asyncio.run(coro)


async def session(target: Any, calls: list[tuple[str, dict[str, Any]]]) -> tuple[Any, list[Any]]:
    async with Client(target) as client:
        tools = await client.list_tools()
        results = [await client.call_tool(n, a, raise_on_error=False) for n, a in calls]
    return {t.name: t for t in tools}, results


CALLS = [
    ("list_invoices", {"status": "overdue"}),
    ("list_invoices", {"_select": ["status", "id"]}),
    ("get_invoice", {"id": "INV-0002"}),
    ("get_invoice", {"id": "INV-9999"}),
    ("list_invoices", {"_select": ["id", "nope"]}),
    ("unpaid_invoices", {}),
]


def dicts(models: list[Any]) -> list[dict[str, Any]]:
    return [m.model_dump(mode="json") for m in models]


def check_example(tools: dict[str, Any], results: list[Any]) -> None:
    overdue, selected, one, missing, bad, unpaid = results
    prop = INVOICE.select_property()
    assert prop is not None
    for name in ("list_invoices", "get_invoice", "unpaid_invoices"):
        schema = tools[name].input_schema
        assert schema["properties"]["_select"] == prop  # exactly the engine's
        assert "_select" not in schema.get("required", [])
    assert tools["list_invoices"].output_schema is None
    assert tools["unpaid_invoices"].output_schema == INVOICE.output_schema(collection=True)

    rows = [r for r in dicts(fastmcp_server.invoices()) if r["status"] == "overdue"]
    direct = toolwire.present(rows, INVOICE, action="list_invoices")
    assert [c.text for c in overdue.content] == direct.texts
    assert overdue.content[0].text.startswith("[40|]{id|amount_cents|status|client{name|email}}:")
    assert "40 of these invoices are overdue: mention them first." in overdue.content[-2].text
    assert not overdue.is_error and overdue.structured_content is None

    assert selected.content[0].text.startswith("[50|]{status|id}:\n  pending|INV-0001")
    assert "[REDACTED]" in one.content[0].text and "c2@example.com" not in one.content[0].text
    assert one.content[-1].text == "<action_suggestions>\n- billing.remind: Send a reminder for INV-0002\n</action_suggestions>"
    assert missing.is_error
    assert missing.content[0].text == (
        '<tool_error code="INTERNAL_ERROR" severity="error">\n'
        "<message>[get_invoice] no invoice INV-9999</message>\n"
        "<recovery>This may be a transient error. Retry the same call with identical parameters.</recovery>\n"
        "</tool_error>"
    )
    assert bad.is_error and bad.content[0].text.startswith(
        "<validation_error action=\"list_invoices\">\n<field name=\"_select\">Unknown field 'nope'."
    )
    want = [r for r in dicts(fastmcp_server.invoices(12)) if r["status"] != "paid"]
    for r in want:
        r["client"]["email"] = "[REDACTED]"
    assert unpaid.structured_content == {"items": want}
    assert unpaid.content[0].text.startswith('[{"id":"INV-0001"')


def test_example_server_in_process() -> None:
    check_example(*run(session(fastmcp_server.mcp, CALLS)))


def test_example_server_over_stdio() -> None:
    transport = StdioTransport(command=sys.executable, args=[str(EXAMPLES / "fastmcp_server.py")])
    check_example(*run(session(transport, CALLS)))


def test_handlers_never_see_select_and_keep_fastmcp_parameters() -> None:
    seen: list[dict[str, Any]] = []
    server = FastMCP("t")
    p = toolwire.Presenter("Row").select().schema({"type": "object", "properties": {"a": {"type": "integer"}}})

    @server.add_tool
    @toolwire.fastmcp.tool(p, title="Rows", tags={"rows"})
    async def rows(n: int, ctx: Context) -> Any:
        seen.append({"n": n, "ctx": type(ctx).__name__})
        return [{"a": i, "b": i} for i in range(n)]

    @server.add_tool
    @toolwire.fastmcp.tool(p)
    def nothing() -> None:
        return None

    @server.add_tool
    @toolwire.fastmcp.tool(p)
    def prebuilt() -> Any:
        return toolwire.mcp.present([{"a": 7}], p, format="compact")

    tools, (r, none, pre) = run(
        session(server, [("rows", {"n": 2, "_select": ["a"]}), ("nothing", {}), ("prebuilt", {"_select": ["a"]})])
    )
    assert seen == [{"n": 2, "ctx": "Context"}]
    assert list(tools["rows"].input_schema["properties"]) == ["n", "_select"]
    assert tools["rows"].input_schema["required"] == ["n"]
    assert tools["rows"].title == "Rows"
    assert r.content[0].text == '[\n  {\n    "a": 0\n  },\n  {\n    "a": 1\n  }\n]'
    assert none.content[0].text == "OK"
    assert pre.content[0].text == '[{"a":7}]'  # a built result passes through untouched


def test_a_presenter_callable_that_raises_is_a_tool_error() -> None:
    server = FastMCP("t")
    p = toolwire.Presenter("Row").collection_rules(lambda rows: rows[5])

    @server.add_tool
    @toolwire.fastmcp.tool(p)
    def short() -> Any:
        return [{"a": 1}]

    _, (r,) = run(session(server, [("short", {})]))
    assert r.is_error
    assert r.content[0].text.startswith(
        '<tool_error code="INTERNAL_ERROR" severity="error">\n<message>[short] presenter Row: '
        "collection_rules callable &lt;lambda> raised IndexError: list index out of range</message>"
    )
