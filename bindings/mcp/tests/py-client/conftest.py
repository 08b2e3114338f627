"""Helpers of the Python SDK client tests: the real `toolwire` binary (TOOLWIRE_BIN, default
target/debug/toolwire of the repository) over stdio and streamable HTTP."""

import json
import os
import pathlib
import re
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[4]
BIN = os.path.abspath(os.environ.get("TOOLWIRE_BIN", REPO / "target/debug/toolwire"))


class HttpServer:
    """`toolwire serve --http 127.0.0.1:0 ARGS`; `url` from its first stderr line."""

    def __init__(self, args):
        self.proc = subprocess.Popen(
            [BIN, "serve", "--http", "127.0.0.1:0", *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        first = self.proc.stderr.readline().strip()
        m = re.fullmatch(r"listening on (http://127\.0\.0\.1:(\d+)/mcp)", first)
        assert m, f"first stderr line: {first!r}"
        self.url, self.port = m.group(1), int(m.group(2))

    def stop(self):
        self.proc.kill()
        self.proc.wait()
        self.proc.stderr.close()


@pytest.fixture
def http_server():
    started = []

    def start(*args):
        s = HttpServer(args)
        started.append(s)
        return s

    yield start
    for s in started:
        s.stop()


@pytest.fixture
def tmp_collection(tmp_path):
    def write(name, rows):
        p = tmp_path / f"{name}.json"
        p.write_text(json.dumps(rows))
        return f"{name}={p}"

    return write


RESERVED = ["ui_passthrough", "llm_directives", "domain_rules", "action_suggestions",
            "tool_error", "validation_error"]
TAG = re.compile(r"<(/?)(" + "|".join(RESERVED) + r")(?![A-Za-z0-9_-])", re.IGNORECASE)


def tags(text):
    """The reserved tag sequences in `text` (WIRE.md §2), lowercase."""
    return [f"<{m.group(1)}{m.group(2).lower()}" for m in TAG.finditer(text)]


def texts(result):
    out = []
    for b in result.content:
        assert b.type == "text"
        out.append(b.text)
    return out


def assert_tag_safe(result):
    """Each block holds exactly its writer's tags: none in a success's data block, its
    opening tag at its start and the closing one at its end otherwise."""
    for i, t in enumerate(texts(result)):
        found = tags(t)
        if i == 0 and not result.is_error:
            assert found == [], t
            continue
        assert len(found) == 2, (found, t)
        assert t.lower().startswith(found[0]), t
        assert found[1] == "</" + found[0][1:], t


def next_call(result):
    """The arguments of the next call the `<llm_directives>` block names, if any."""
    for t in texts(result):
        if t.startswith("<llm_directives>"):
            m = re.search(r"Next page: call \S+ with (\{.*\})\s*$", t, re.MULTILINE)
            if m:
                return json.loads(m.group(1))
    return None
