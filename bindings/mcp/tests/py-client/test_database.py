"""A database source (SERVE.md §7) through the official MCP Python SDK client, over stdio and
streamable HTTP, in both eras, on both databases: the demo's invoices written into an SQLite
file by `toolwire demo --sqlite`, served as `invoices=sqlite://FILE#invoices`, and the same
rows in a PostgreSQL table of a server the test starts on loopback (postgres.py) and stops
after, served as `postgres://…#invoices`."""

import json
import subprocess

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from conftest import BIN, assert_tag_safe, next_call, texts
from postgres import Postgres

ROWS = 300


def no_email(r):
    return {**r, "client": {"name": r["client"]["name"]}}


@pytest.fixture(scope="module")
def demo():
    # The demo's rows as its presenter shows them (email redacted; compared without it).
    return subprocess.run([BIN, "demo", "--rows", str(ROWS), "--dump", "compact"], check=True,
                          capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def postgres():
    pg = Postgres()
    yield pg
    pg.stop()


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def table(request, tmp_path_factory, demo):
    if request.param == "sqlite":
        db = tmp_path_factory.mktemp("db") / "invoices.db"
        subprocess.run([BIN, "demo", "--rows", str(ROWS), "--sqlite", str(db)], check=True,
                       capture_output=True)
        return f"invoices=sqlite://{db}#invoices", json.loads(demo)
    # The same rows in PostgreSQL: the SQLite table's columns, `client` as jsonb.
    pg = request.getfixturevalue("postgres")
    pg.sql(f"""CREATE TABLE invoices (
        id text PRIMARY KEY, client jsonb, amount_cents bigint NOT NULL,
        currency text NOT NULL, status text NOT NULL, issued_at text);
      CREATE INDEX invoices_status ON invoices (status, id);
      INSERT INTO invoices SELECT v->>'id', v->'client', (v->>'amount_cents')::bigint,
        v->>'currency', v->>'status', v->>'issued_at'
      FROM jsonb_array_elements($rows${demo}$rows$::jsonb) v;""")
    return f"invoices={pg.url}#invoices", json.loads(demo)


def transport(kind, http_server, *args):
    if kind == "stdio":
        return stdio_client(StdioServerParameters(command=BIN, args=["serve", *args]))
    return streamable_http_client(http_server(*args).url)


@pytest.mark.parametrize("kind", ["stdio", "http"])
@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_every_action_on_a_database_table(kind, mode, http_server, table):
    spec, demo = table

    async def main():
        async with Client(transport(kind, http_server, "--collection", spec), mode=mode) as c:
            tools = (await c.list_tools()).tools
            props = tools[0].input_schema["properties"]
            assert props["where"]["propertyNames"]["enum"] == [
                "id", "client", "amount_cents", "currency", "status", "issued_at"]
            # Paging by cursor through a where filter: every matching row once, exactly.
            want = [r for r in demo if r["status"] == "pending"]
            got, args = [], {"action": "list", "where": {"status": "pending"}, "limit": 11,
                             "format": "compact"}
            while args:
                r = await c.call_tool("invoices", args)
                assert not r.is_error, texts(r)[0]
                assert_tag_safe(r)
                got += json.loads(texts(r)[0])
                args = next_call(r)
            assert [no_email(x) for x in got] == [no_email(x) for x in want]
            # _select in request order; offset; get; NOT_FOUND; validation errors.
            r = await c.call_tool("invoices", {"action": "list", "limit": 2, "format": "compact",
                                               "_select": ["status", "id"]})
            assert json.loads(texts(r)[0]) == [{"status": x["status"], "id": x["id"]}
                                               for x in demo[:2]]
            r = await c.call_tool("invoices", {"action": "list", "offset": 5, "limit": 1,
                                               "_select": ["id"], "format": "compact"})
            assert json.loads(texts(r)[0]) == [{"id": demo[5]["id"]}]
            r = await c.call_tool("invoices", {"action": "get", "id": demo[7]["id"],
                                               "format": "compact"})
            assert no_email(json.loads(texts(r)[0])) == no_email(demo[7])
            r = await c.call_tool("invoices", {"action": "get", "id": "INV-9999999"})
            assert r.is_error and texts(r)[0].startswith('<tool_error code="NOT_FOUND"')
            for bad in [{"action": "list", "where": {"nope": 1}},
                        {"action": "list", "_select": ["secret"]},
                        {"action": "list", "cursor": "x"}]:
                r = await c.call_tool("invoices", bad)
                assert r.is_error and texts(r)[0].startswith("<validation_error"), bad
            r = await c.call_tool("invoices", {"action": "list", "where": {
                "status": "'; DROP TABLE invoices; --"}, "format": "compact"})
            assert texts(r)[0] == "[]"

    anyio.run(main)
