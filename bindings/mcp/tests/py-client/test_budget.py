"""The token budget and cursors (SERVE.md §8) through the official MCP Python SDK client: a
matrix of generated corpora x every format x four budgets, each collection paged by the cursors
the directives name, every page counted with js-tiktoken's o200k_base (bindings/cli/tests/
js-tiktoken/count.mjs through node: independent of the Rust tokenizer the server counts with);
then cursors refused with another where, _select or an altered text, offset paging, and a
budget no row fits."""

import contextlib
import json
import os
import pathlib
import re
import shutil
import subprocess

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from conftest import BIN, REPO, next_call, texts

FORMATS = ["pretty", "compact", "toon", "toon-comma", "toon-tab", "auto"]
BUDGETS = [500, 2000, 10000, 25000]
BIG = 100000
ORACLE = REPO / "bindings/cli/tests/js-tiktoken"


class Tokens:
    """js-tiktoken's o200k count of a result's content (each block on its own, summed), by
    one `node count.mjs --lines` process; each block counted once."""

    def __init__(self):
        self.proc = subprocess.Popen(["node", str(ORACLE / "count.mjs"), "--lines"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                     encoding="utf-8")
        self.seen = {}

    def __call__(self, blocks):
        new = [b for b in dict.fromkeys(blocks) if b not in self.seen]
        if new:
            self.proc.stdin.write(json.dumps(new) + "\n")
            self.proc.stdin.flush()
            out = json.loads(self.proc.stdout.readline())
            self.seen.update(zip(new, out["blocks"]))
        return sum(self.seen[b] for b in blocks)

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


@pytest.fixture(scope="module")
def tokens():
    if shutil.which("node") is None or not (ORACLE / "node_modules/js-tiktoken").is_dir():
        what = ("js-tiktoken: node or bindings/cli/tests/js-tiktoken/node_modules missing "
                "(npm ci --prefix bindings/cli/tests/js-tiktoken)")
        if os.environ.get("TOOLWIRE_REQUIRE_EXTERNAL") == "1":
            pytest.fail(what)
        pytest.skip(what)
    t = Tokens()
    yield t
    t.close()


# ---- corpora: deterministic, every row keyed by a string id `rNNNNN` that no other value
# holds, so the ids of a page can be read from any format's data block.

class Rng:
    def __init__(self, seed):
        self.s = seed & 0xFFFFFFFF

    def __call__(self):
        self.s = (self.s * 1664525 + 1013904223) & 0xFFFFFFFF
        return self.s / 2**32

    def pick(self, xs):
        return xs[int(self() * len(xs))]


def id_of(i):
    return f"r{i:05d}"


WORDS = ["alpha", "bravo", "kilo", "delta", "echo", "fox", "golf", "hotel", "india", "juliet",
         "lima", "mike", "oscar", "papa", "quebec", "romeo", "sierra", "tango", "uniform",
         "victor", "whiskey", "xray", "yankee", "zulu", "amber", "basalt", "cobalt", "dune"]
CJK = ("的一是不了人我在有他这为之大来以个中上们到说国和地也子时道出而要于就下得可你年生自会那后能"
       "对着事其里所去行过家十用发天如然作方成者多日都三小军二无同么经法当起与好看学进种将还分此心"
       "東京大阪日本語한국어서울부산사랑")
EMOJI = ["😀", "🎉", "👍🏽", "👨‍👩‍👧‍👦", "🏳️‍🌈", "🇯🇵", "🇫🇷", "🇧🇷", "🧑🏿‍🚀", "❤️‍🔥", "1️⃣", "🐈‍⬛",
         "👩🏻‍💻", "🫶🏾", "🏴‍☠️", "🇺🇳", "✨", "🦀", "🧪", "🚀"]


def words(r, n):
    return " ".join(r.pick(WORDS) for _ in range(n))


def cjk(r, n):
    return "".join(r.pick(CJK) for _ in range(n))


def emoji(r, n):
    return "".join(r.pick(EMOJI) for _ in range(n))


def long_text(r, size):
    out = []
    n = 0
    while n < size:
        w = r.pick(WORDS) + (". " if r() < 0.1 else " ")
        out.append(w)
        n += len(w)
    return "".join(out)


def corpora():
    """name -> dict(text: the file's JSON, ids, small: every row far under 500 tokens,
    huge: the id of the one row over 500 and 2,000 tokens)."""
    out = {}
    d = json.dumps

    def add(name, n, row, small=True, huge=None):
        r = Rng(len(name) * 7919 + n)
        rows = [row(r, i) for i in range(n)]
        out[name] = {"text": "[" + ",".join(rows) + "]", "ids": [id_of(i) for i in range(n)],
                     "small": small, "huge": huge}

    add("flat", 150, lambda r, i: d({
        "id": id_of(i), "name": words(r, 2), "qty": int(r() * 1000),
        "price": round(r() * 100000) / 100, "active": r() < 0.5, "city": r.pick(WORDS)}))
    add("nested", 60, lambda r, i: d({
        "id": id_of(i),
        "customer": {"name": words(r, 2), "tags": [r.pick(WORDS), r.pick(WORDS)],
                     "address": {"city": r.pick(WORDS), "zip": str(10000 + i)}},
        "lines": [{"sku": f"S-{k}-{int(r() * 999)}", "qty": k + 1,
                   "price": round(r() * 9999) / 100} for k in range(1 + i % 4)],
        "flags": [r() < 0.5, r() < 0.5], "matrix": [[i, i + 1], [i * 2]]}))
    add("cjk", 60, lambda r, i: d({
        "id": id_of(i), "title": cjk(r, 5 + i % 25), "body": cjk(r, 10 + int(r() * 40)),
        "lang": r.pick(["zh", "ja", "ko"])}, ensure_ascii=False))
    add("emoji", 80, lambda r, i: d({
        "id": id_of(i), "mood": emoji(r, 1 + i % 8),
        "note": f"{words(r, 3)} {emoji(r, 3)} {cjk(r, 3)}",
        "flag": r.pick(["🇯🇵", "🇩🇪", "🇧🇷", "🇰🇷", "🇺🇳"])}, ensure_ascii=False))
    add("long", 30, lambda r, i: d({
        "id": id_of(i), "title": words(r, 3), "body": long_text(r, 2048 + int(r() * 6144))}),
        small=False)
    # As text: exponents as typed, 20-digit integers above and below 2^64.
    add("numbers", 120, lambda r, i: (
        f'{{"id":"{id_of(i)}","int":{int(r() * 1e9) - 500000000},'
        f'"frac":{r() * 1000 - 500:.{1 + i % 6}f},'
        f'"exp":{1 + int(r() * 9)}.{i % 10}e{"-" if i % 2 else "+"}{1 + i % 300},'
        f'"big":{"1844674407370955" if i % 2 else "9999999999999999"}{1000 + i:04d},'
        f'"zero":0,"neg":-{i}.5E-3}}'))
    add("huge", 60, lambda r, i: d(
        {"id": id_of(i), "name": "huge", "body": long_text(r, 24000)} if i == 25
        else {"id": id_of(i), "name": words(r, 2), "n": i}), small=False, huge=id_of(25))
    shapes = [
        lambda r, i: {"id": id_of(i), "a": i},
        lambda r, i: {"id": id_of(i), "name": words(r, 2), "tags": [r.pick(WORDS), i]},
        lambda r, i: {"id": id_of(i), "deep": {"x": {"y": [1, 2, {"z": cjk(r, 4)}]}}, "ok": True},
        lambda r, i: {"id": id_of(i), "none": None, "yes": False,
                      "text": f"{emoji(r, 2)} {cjk(r, 6)}", "n": r() * 1e6},
        lambda r, i: {"id": id_of(i), "list": [[1, 2], [3], []], "empty": {}, "s": ""},
    ]
    add("mixed", 100, lambda r, i: d(shapes[i % 5](r, i), ensure_ascii=False))
    return out


CORPORA = corpora()
ID = re.compile(r"\br\d{5}\b")


def stdio(*args):
    return stdio_client(StdioServerParameters(command=BIN, args=["serve", *args]))


async def as_if_shown(free, name, fmt, pos, k):
    """What the budgeted server sends for a page of `k` rows from `pos`: the unbudgeted
    server's answer to `limit: k, offset: pos`, the directive's `limit` written as the walk's.
    The cursor is the same (the position and the list, signed with a key from the collection's
    name and size), so the text is exactly the page the budgeted server would send."""
    r = await free.call_tool(name, {"action": "list", "limit": k, "offset": pos, "format": fmt})
    assert not r.is_error, texts(r)[0]
    return [t.replace(f'{{"action":"list","limit":{k},', f'{{"action":"list","limit":{BIG},')
            if t.startswith("<llm_directives>") else t for t in texts(r)]


async def walk(budgeted, free, tokens, name, corpus, fmt, budget):
    """Pages through `name` from `{action: list, limit: BIG, format}` by the next calls the
    directives name; a TOO_LARGE page is skipped by `offset`. Returns (shown, skipped)."""
    ids_all = corpus["ids"]
    n = len(ids_all)
    rows_all = json.loads(corpus["text"])
    shown, skipped = [], []
    args = {"action": "list", "limit": BIG, "format": fmt}
    pos = 0
    for calls in range(n + 1):
        where = f"{name} {fmt} budget {budget} at {pos}"
        r = await budgeted.call_tool(name, args)
        t = texts(r)
        used = tokens(t)
        # (a) no result over the budget, as js-tiktoken counts it.
        assert used <= budget, f"{where}: {used} tokens"
        if r.is_error:
            # (d) the row at `pos` alone is over the budget: TOO_LARGE naming the budget and no
            # next call (a cursor cannot step over the row; offset can).
            assert len(t) == 1 and t[0].startswith('<tool_error code="TOO_LARGE"'), (where, t)
            assert f"token budget of {budget} tokens" in t[0], (where, t[0])
            assert next_call(r) is None, where
            alone = tokens(await as_if_shown(free, name, fmt, pos, 1))
            assert alone > budget, f"{where}: TOO_LARGE, but the row alone is {alone} tokens"
            skipped.append(ids_all[pos])
            pos += 1
            if pos == n:
                break
            args = {"action": "list", "limit": BIG, "format": fmt, "offset": pos}
            continue
        ids = ID.findall(t[0])
        # (c) the next rows, in order.
        assert ids and ids == ids_all[pos:pos + len(ids)], (where, ids)
        if fmt in ("pretty", "compact"):
            assert json.loads(t[0]) == rows_all[pos:pos + len(ids)], f"{where}: the file's rows"
        assert await as_if_shown(free, name, fmt, pos, len(ids)) == t, where
        nxt = next_call(r)
        if nxt is None:
            assert pos + len(ids) == n, f"{where}: the last page ends the collection"
            shown += ids
            break
        rest = n - pos
        assert any(f"{len(ids)} shown, {rest - len(ids)} hidden." in x for x in t), (where, t)
        assert any(x.startswith(f"<llm_directives>\n- Next page: call {name} with ") for x in t), (where, t)
        assert isinstance(nxt.get("cursor"), str), where
        assert {k: v for k, v in nxt.items() if k != "cursor"} == {
            "action": "list", "limit": BIG, "format": fmt}, (where, nxt)
        # (b) at least 85% full, or one more row would be over the budget.
        more = tokens(await as_if_shown(free, name, fmt, pos, len(ids) + 1))
        assert used >= 0.85 * budget or more > budget, (
            f"{where}: {len(ids)} rows are {used} tokens, {len(ids) + 1} would be {more}")
        shown += ids
        pos += len(ids)
        args = nxt
    else:
        pytest.fail(f"{name} {fmt} {budget}: the walk does not end")
    # (c) every row exactly once, shown or (alone over the budget) skipped.
    assert sorted(shown + skipped) == ids_all
    return shown, skipped


@pytest.mark.parametrize("name", list(CORPORA))
def test_budget_matrix(name, tokens, tmp_path):
    corpus = CORPORA[name]
    path = tmp_path / f"{name}.json"
    path.write_text(corpus["text"], encoding="utf-8")
    spec = f"{name}={path}"

    async def main():
        async with contextlib.AsyncExitStack() as stack:
            free = await stack.enter_async_context(
                Client(stdio("--collection", spec, "--max-tokens", "0"), mode="legacy"))
            for budget in BUDGETS:
                async with Client(stdio("--collection", spec, "--max-tokens", str(budget)),
                                  mode="legacy") as s:
                    for fmt in FORMATS:
                        _, skipped = await walk(s, free, tokens, name, corpus, fmt, budget)
                        if corpus["small"]:
                            assert skipped == [], (fmt, budget)
                        if corpus["huge"]:
                            # About 6,000 tokens: over 500 and 2,000, within 10,000.
                            assert skipped == ([corpus["huge"]] if budget < 10000 else []), (
                                fmt, budget)

    anyio.run(main)


B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


def flip(c, i):
    """`c` with character `i` moved 32 places in the base64url alphabet (its high bit, which
    holds data at every position)."""
    return c[:i] + B64[(B64.index(c[i]) + 32) % 64] + c[i + 1:]


def assert_cursor_refused(r, what):
    t = texts(r)[0]
    assert r.is_error and t.startswith("<validation_error"), (what, t)
    assert '<field name="cursor">' in t, (what, t)


def transport(kind, http_server, *args):
    if kind == "stdio":
        return stdio(*args)
    return streamable_http_client(http_server(*args).url)


@pytest.mark.parametrize("kind", ["stdio", "http"])
@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_cursors_refused_with_another_list_or_altered(kind, mode, http_server):
    async def main():
        async with Client(transport(kind, http_server, "--rows", "200"), mode=mode) as c:
            paid = {"action": "list", "where": {"status": "paid"}, "limit": 7, "format": "compact"}
            cursor = next_call(await c.call_tool("invoices", paid))["cursor"]
            ok = await c.call_tool("invoices", {**paid, "cursor": cursor})
            assert not ok.is_error, texts(ok)[0]
            for other in [{"status": "overdue"}, {"status": "paid", "currency": "EUR"}]:
                assert_cursor_refused(
                    await c.call_tool("invoices", {**paid, "where": other, "cursor": cursor}), other)
            assert_cursor_refused(
                await c.call_tool("invoices", {"action": "list", "limit": 7, "cursor": cursor}),
                "no where")
            for i in range(len(cursor)):
                assert_cursor_refused(
                    await c.call_tool("invoices", {**paid, "cursor": flip(cursor, i)}), i)
            for bad in [cursor[:-1], cursor[1:], cursor + "A", "", "not a cursor!"]:
                assert_cursor_refused(await c.call_tool("invoices", {**paid, "cursor": bad}), bad)
            sel = {"action": "list", "limit": 5, "_select": ["id", "status"], "format": "compact"}
            nxt = next_call(await c.call_tool("invoices", sel))
            assert nxt["_select"] == ["id", "status"]
            r = await c.call_tool("invoices", {**sel, "cursor": nxt["cursor"]})
            assert not r.is_error
            assert [list(x) for x in json.loads(texts(r)[0])] == [["id", "status"]] * 5
            for other in [["id"], ["status", "id"], None]:
                args = {**sel, "_select": other, "cursor": nxt["cursor"]}
                if other is None:
                    del args["_select"]
                assert_cursor_refused(await c.call_tool("invoices", args), other)

    anyio.run(main)


@pytest.mark.parametrize("kind", ["stdio", "http"])
def test_offset_pages_as_the_cursors_do(kind, http_server):
    async def main():
        async with Client(transport(kind, http_server, "--rows", "200"), mode="legacy") as c:
            base = {"action": "list", "where": {"currency": "EUR"}, "limit": 9,
                    "format": "compact"}
            by_cursor, args = [], base
            while args:
                r = await c.call_tool("invoices", args)
                assert not r.is_error, texts(r)[0]
                by_cursor += json.loads(texts(r)[0])
                args = next_call(r)
                assert len(by_cursor) <= 200
            by_offset, offset = [], 0
            while True:
                r = await c.call_tool("invoices", {**base, "offset": offset})
                rows = json.loads(texts(r)[0])
                by_offset += rows
                offset += 9
                if len(rows) < 9:
                    break
            assert len(by_cursor) > 9
            assert by_offset == by_cursor
            assert len({x["id"] for x in by_cursor}) == len(by_cursor)
            assert all(x["currency"] == "EUR" for x in by_cursor)

    anyio.run(main)


def test_a_budget_no_row_fits_is_too_large(tokens, tmp_collection):
    rows = [{"id": id_of(i), "body": long_text(Rng(i + 1), 6000)} for i in range(5)]
    spec = tmp_collection("wide", rows)

    async def main():
        async with Client(stdio("--collection", spec, "--max-tokens", "500"), mode="legacy") as c:
            for args in [{"action": "list"}, {"action": "list", "format": "compact", "limit": 2},
                         {"action": "list", "offset": 3}, {"action": "get", "id": id_of(1)}]:
                r = await c.call_tool("wide", args)
                t = texts(r)
                assert r.is_error and len(t) == 1, (args, t)
                assert t[0].startswith('<tool_error code="TOO_LARGE"'), t[0]
                assert "token budget of 500 tokens" in t[0], t[0]
                assert tokens(t) <= 500
                assert next_call(r) is None

    anyio.run(main)


# Errors within the budget too.

def test_an_unknown_long_select_name_is_a_validation_error_whatever_the_budget(tokens):
    """An unknown _select name is a validation error naming _select at any budget: the name
    is echoed cut (once it came whole, 12,000 characters, and the error over the budget was
    diagnosed as "One Invoice alone is larger")."""
    async def main():
        async with Client(stdio("--rows", "50", "--max-tokens", "1000"), mode="legacy") as c:
            r = await c.call_tool("invoices", {"action": "list",
                                               "_select": ["id", "ab cd " * 2000]})
            t = texts(r)
            assert r.is_error and tokens(t) <= 1000
            assert t[0].startswith("<validation_error") and '<field name="_select">' in t[0], t[0]

    anyio.run(main)


def test_a_budget_too_small_for_the_errors_is_refused_at_start_up():
    """SERVE.md §8: no result's content exceeds --max-tokens, errors included; under 500 the
    TOO_LARGE error itself would not fit, so the server refuses such a budget (exit 2)."""
    p = subprocess.run([BIN, "serve", "--rows", "20", "--max-tokens", "40"],
                       input=b"", capture_output=True, timeout=30)
    assert p.returncode == 2
    assert b"--max-tokens must be 0 (no budget) or at least 500" in p.stderr
