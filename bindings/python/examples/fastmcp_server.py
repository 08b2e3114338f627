"""A FastMCP server whose tools answer through a presenter built in Python.

Run it over stdio: ``python bindings/python/examples/fastmcp_server.py``. The handlers return
plain Python data (dicts or pydantic models); the ``INVOICE`` presenter shapes every response:
schema from a pydantic model, redaction, a limit, ``_select``, TOON, a table and rules
computed from the rows, suggestions from the item.
"""

from __future__ import annotations

from typing import Literal

from fastmcp import FastMCP
from pydantic import BaseModel

import toolwire.fastmcp
from toolwire import Presenter, ui


class Client(BaseModel):
    name: str
    email: str


class Invoice(BaseModel):
    id: str
    amount_cents: int
    status: Literal["paid", "pending", "overdue"]
    client: Client


def overdue_rule(invoices: list[dict]) -> str | None:
    late = sum(1 for i in invoices if i["status"] == "overdue")
    return f"{late} of these invoices are overdue: mention them first." if late else None


INVOICE = (
    Presenter("Invoice")
    .schema(Invoice)
    .rules("CRITICAL: amount_cents is in CENTS. Divide by 100.")
    .collection_rules(overdue_rule, reads=["status"])
    .collection_ui(
        lambda invoices: ui.table(
            ["id", "status", "amount"],
            [[i["id"], i["status"], f"{i['amount_cents'] / 100:.2f}"] for i in invoices],
            title="Invoices",
        ),
        {"summary": "{count} invoices, {shown} shown"},
    )
    .suggest(
        lambda inv: ("billing.remind", f"Send a reminder for {inv['id']}") if inv["status"] == "overdue" else None
    )
    .collection_suggest(("get_invoice", "View one invoice"))
    .redact("client.email")
    .limit(50)
    .select()
    .format("toon")
)

STATUSES = ["paid", "pending", "overdue"]


def invoices(n: int = 120) -> list[Invoice]:
    return [
        Invoice(
            id=f"INV-{i:04}",
            amount_cents=1000 + 37 * i,
            status=STATUSES[i % 3],  # type: ignore[arg-type]
            client=Client(name=f"Client {i % 7}", email=f"c{i % 7}@example.com"),
        )
        for i in range(1, n + 1)
    ]


mcp = FastMCP("billing")


@mcp.add_tool
@toolwire.fastmcp.tool(INVOICE)
def list_invoices(status: Literal["paid", "pending", "overdue"] | None = None) -> list[Invoice]:
    """List invoices, optionally by status."""
    return [i for i in invoices() if status is None or i.status == status]


@mcp.add_tool
@toolwire.fastmcp.tool(INVOICE)
async def get_invoice(id: str) -> Invoice:
    """One invoice by id."""
    for i in invoices():
        if i.id == id:
            return i
    raise LookupError(f"no invoice {id}")


@mcp.add_tool
@toolwire.fastmcp.tool(INVOICE.format("compact"), name="unpaid_invoices", structured=True)
def unpaid() -> list[Invoice]:
    """Unpaid invoices, also as structured content."""
    return [i for i in invoices(12) if i.status != "paid"]


if __name__ == "__main__":
    mcp.run()
