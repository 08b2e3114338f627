"""toolwire for Python: TOON at native speed, and the Presenter pipeline for MCP servers.

* :mod:`toolwire.toon`: a drop-in for ``toon_format`` 1.2 (``dumps``, ``loads``, …) plus
  :func:`toolwire.toon.encode_json` for JSON text.
* :func:`present`: what a tool handler returned → the ``CallToolResult`` an agent reads
  (data as JSON or TOON, UI blocks, rules, suggestions, errors), through a presenter file.
* :mod:`toolwire.mcp` (extra ``mcp``): the same for the official ``mcp`` SDK.

Every decision is the Rust engine's; this package only moves values in and out.
"""

from __future__ import annotations

import json
from typing import Any

from . import _native
from ._errors import PresenterError, ToolwireError, ToonDecodeError

__all__ = [
    "FORMATS",
    "Presenter",
    "PresenterError",
    "ToolResult",
    "ToolwireError",
    "ToonDecodeError",
    "present",
    "present_line",
]

FORMATS: tuple[str, ...] = tuple(_native.format_names())
"""The data formats ``format=`` accepts (the engine's names)."""


class Presenter:
    """A presenter file (CLI.md "Presenter file"), read and checked once.

    ``Presenter(spec)`` takes the file as a ``dict`` or as its JSON text (``str``/``bytes``).
    Raises :class:`PresenterError` naming the key path of the first problem.
    """

    __slots__ = ("_native", "spec")

    def __init__(self, spec: Any) -> None:
        if isinstance(spec, Presenter):
            self._native: Any = spec._native
            self.spec: Any = spec.spec
            return
        text = spec if isinstance(spec, (str, bytes, bytearray)) else json.dumps(spec)
        self._native = _native.Presenter(text)
        self.spec = spec

    @property
    def name(self) -> str:
        return str(self._native.name)

    @property
    def select_enabled(self) -> bool:
        return bool(self._native.select_enabled)

    def select_names(self) -> list[str]:
        """The ``_select`` enum (the schema's root keys, sorted bytewise)."""
        return list(self._native.select_names())

    def select_property(self) -> dict[str, Any] | None:
        """The ``_select`` property of the tool's ``inputSchema``; ``None`` when select is off."""
        prop = self._native.input_schema_property()
        return None if prop is None else json.loads(prop)

    def output_schema(
        self, *, collection: bool = False, protocol: str = "2025-11-25"
    ) -> dict[str, Any]:
        """The tool's ``outputSchema`` (WIRE.md §7) for items, or a collection of them."""
        return json.loads(self._native.output_schema(protocol, collection))

    def __repr__(self) -> str:
        return f"Presenter({self.name!r})"


def _presenter(p: Any) -> Any:
    if p is None:
        return None
    if not isinstance(p, Presenter):
        p = Presenter(p)
    return p._native


def _count(name: str, n: Any) -> int | None:
    if n is None:
        return None
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"{name} must be an int, not {type(n).__name__}")
    if n < 0:
        raise ValueError(f"{name} must be at least 0, got {n}")
    return int(n)


class ToolResult(dict):  # type: ignore[type-arg]
    """A ``CallToolResult`` as a plain ``dict``: ``{"content": [{"type": "text", "text":
    ...}, ...], "isError"?: bool}``.

    The testing side door (WIRE.md §10) is the attribute :attr:`meta`, never part of the
    dict (so never serialized): ``{"data", "rules", "ui_blocks", "hints", "suggestions",
    "format"}``, where ``data`` is exactly what the data block encodes.
    """

    def __init__(self, texts: list[str], is_error: bool | None, side: Any) -> None:
        super().__init__(content=[{"type": "text", "text": t} for t in texts])
        if is_error is not None:
            self["isError"] = is_error
        self._side = side
        self._meta: dict[str, Any] | None = None

    @property
    def meta(self) -> dict[str, Any]:
        """The side door (built from the engine's response on first access)."""
        if self._meta is None:
            self._meta = self._side.as_dict()
        return self._meta

    @property
    def texts(self) -> list[str]:
        """The block texts, in order."""
        return [c["text"] for c in self["content"]]

    @property
    def is_error(self) -> bool:
        return bool(self.get("isError", False))


def _call(
    data: Any,
    presenter: Any,
    select: Any,
    format: str | None,
    limit: int | None,
    token_budget: int | None,
    action: str | None,
    line: bool,
) -> Any:
    if format is not None and not isinstance(format, str):
        raise TypeError(f"format must be a str, not {type(format).__name__}")
    return _native.present(
        data,
        _presenter(presenter),
        select=select,
        format=format,
        limit=_count("limit", limit),
        token_budget=_count("token_budget", token_budget),
        action=action,
        line=line,
    )


def present(
    data: Any,
    presenter: Any = None,
    *,
    select: Any = None,
    format: str | None = None,
    limit: int | None = None,
    token_budget: int | None = None,
    action: str | None = None,
) -> ToolResult:
    """Present what a tool handler returned as the ``CallToolResult`` an agent reads.

    Args:
        data: The handler's value. ``bytes`` (or ``bytearray``/``memoryview``) are JSON text,
            read by the engine without Python objects; ``None`` is "no value" (``OK``); a
            ``str`` is a text result, verbatim; anything else is data (``dict``, ``list``,
            numbers, …, as :func:`toolwire.toon.dumps` accepts, ``nan``/``inf`` as ``null``).
        presenter: A :class:`Presenter`, or a presenter file as a ``dict`` or JSON text.
        select: The agent's ``_select`` argument as sent (checked when the presenter
            enables select; a bad one is a ``<validation_error>`` response).
        format, limit, token_budget: Per-call overrides of the presenter's values
            (``format`` is one of :data:`FORMATS`).
        action: The ``action`` attribute of a ``<validation_error>`` (default
            ``<presenter name>/present``).

    Returns:
        A :class:`ToolResult`. Problems of the response (bad ``_select``, output validation)
        are error responses (``isError: True``), as the agent receives them.

    Raises:
        ToolwireError: Malformed JSON bytes (positioned), or data without a presenter that
            cannot be encoded.
        PresenterError: An invalid presenter file.
    """
    texts, is_error, meta, _ = _call(
        data, presenter, select, format, limit, token_budget, action, False
    )
    return ToolResult(texts, is_error, meta)


def present_line(
    data: Any,
    presenter: Any = None,
    *,
    select: Any = None,
    format: str | None = None,
    limit: int | None = None,
    token_budget: int | None = None,
    action: str | None = None,
) -> bytes:
    """Like :func:`present`, as the exact compact JSON line (ending with LF) of the
    ``CallToolResult`` that ``toolwire present`` prints: for servers that write the wire
    themselves."""
    return _call(data, presenter, select, format, limit, token_budget, action, True)[3]  # type: ignore[no-any-return]
