"""An MCP server on the official ``mcp`` SDK whose tools go through toolwire presenters.

Run it over stdio: ``python bindings/python/examples/billing_server.py``. The handlers return
plain Python data; ``@toolwire.mcp.tool(INVOICE)`` shapes every response (schema, limit,
redaction, UI table, rules, suggestions, ``_select``, TOON).
"""

from __future__ import annotations

from typing import Any

try:  # mcp 2.x
    from mcp.server.mcpserver import MCPServer as Server
except ImportError:  # mcp 1.x
    from mcp.server.fastmcp import FastMCP as Server  # type: ignore[no-redef]

import toolwire.mcp

INVOICE: dict[str, Any] = {
    "name": "Invoice",
    "schema": {
        "type": "object",
        "properties": {
            "id": {"type": "string"},
            "amount_cents": {"type": "integer"},
            "status": {"type": "string", "enum": ["paid", "pending", "overdue"]},
            "client": {"type": "object", "properties": {"name": {"type": "string"}, "email": {"type": "string"}}},
        },
        "required": ["id", "amount_cents", "status"],
    },
    "rules": ["CRITICAL: amount_cents is in CENTS. Divide by 100."],
    "limit": 50,
    "redact": {"paths": ["client.email"]},
    "select": True,
    "ui": {"collection": [{"table": {"columns": ["id", "status"], "title": "Invoices"}}, {"summary": "{count} invoices"}]},
    "suggest": {"collection": [{"tool": "get_invoice", "reason": "View details"}]},
    "format": "toon",
}

STATUSES = ["paid", "pending", "overdue"]


def invoices(n: int = 120) -> list[dict[str, Any]]:
    return [
        {
            "id": f"INV-{i:04}",
            "amount_cents": 1000 + 37 * i,
            "status": STATUSES[i % 3],
            "client": {"name": f"Client {i % 7}", "email": f"c{i % 7}@example.com"},
            "internal_score": i * 13 % 100,  # stripped: not in the schema
        }
        for i in range(1, n + 1)
    ]


server = Server("billing")


@server.tool()
@toolwire.mcp.tool(INVOICE)
def list_invoices(status: str | None = None) -> Any:
    """List invoices, optionally by status."""
    rows = invoices()
    return [r for r in rows if status is None or r["status"] == status]


@server.tool()
@toolwire.mcp.tool(INVOICE)
async def get_invoice(id: str) -> Any:
    """One invoice by id."""
    for r in invoices():
        if r["id"] == id:
            return r
    raise LookupError(f"no invoice {id}")


if __name__ == "__main__":
    server.run()
