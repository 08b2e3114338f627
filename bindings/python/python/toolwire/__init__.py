"""toolwire for Python: TOON at native speed, and the Presenter pipeline for MCP servers.

* :mod:`toolwire.toon`: a drop-in for ``toon_format`` 1.2 (``dumps``, ``loads``, …) plus
  :func:`toolwire.toon.encode_json` for JSON text.
* :func:`present`: what a tool handler returned → the ``CallToolResult`` an agent reads
  (data as JSON or TOON, UI blocks, rules, suggestions, errors), through a
  :class:`Presenter` built in Python (:mod:`toolwire.ui` for its blocks) or read from a
  presenter file.
* :mod:`toolwire.mcp` (extra ``mcp``) and :mod:`toolwire.fastmcp` (extra ``fastmcp``): the
  same for servers on the official ``mcp`` SDK and on FastMCP.

Every decision is the Rust engine's; this package only moves values in and out.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from . import _native, ui
from ._errors import PresenterError, ToolwireError, ToonDecodeError
from ._presenter import Presenter, Suggestion, as_presenter

__all__ = [
    "FORMATS",
    "Presenter",
    "PresenterError",
    "Suggestion",
    "ToolResult",
    "ToolwireError",
    "ToonDecodeError",
    "present",
    "present_line",
    "ui",
]

_log = logging.getLogger("toolwire")

FORMATS: tuple[str, ...] = tuple(_native.format_names())
"""The data formats ``format=`` accepts (the engine's names)."""


def _presenter(p: Any) -> Any:
    if p is None:
        return None
    return as_presenter(p)._native


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

    def __init__(
        self,
        texts: list[str],
        is_error: bool | None,
        side: Any,
        structured: Any = None,
        exception: BaseException | None = None,
    ) -> None:
        super().__init__(content=[{"type": "text", "text": t} for t in texts])
        if is_error is not None:
            self["isError"] = is_error
        if structured is not None:
            self["structuredContent"] = structured
        self._side = side
        self._meta: dict[str, Any] | None = None
        self.exception = exception
        """The exception of the presenter callable that failed this response, if one did."""

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
    structured: bool = False,
) -> Any:
    if format is not None and not isinstance(format, str):
        raise TypeError(f"format must be a str, not {type(format).__name__}")
    out = _native.present(
        data,
        _presenter(presenter),
        select=select,
        format=format,
        limit=_count("limit", limit),
        token_budget=_count("token_budget", token_budget),
        action=action,
        line=line,
        structured=structured,
    )
    if out[4] is not None:
        _log.error("a presenter callable raised: the response is an INTERNAL_ERROR", exc_info=out[4])
    return out


def present(
    data: Any,
    presenter: Any = None,
    *,
    select: Any = None,
    format: str | None = None,
    limit: int | None = None,
    token_budget: int | None = None,
    action: str | None = None,
    structured: bool = False,
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
        action: The ``action`` attribute of a ``<validation_error>`` and the ``[tool]`` of
            an ``INTERNAL_ERROR`` (default ``<presenter name>/present``).
        structured: Add ``structuredContent``: ``{"items": [...]}``, the rows of the data
            block (an item as a list of one), matching ``Presenter.output_schema(collection=True)``.

    Returns:
        A :class:`ToolResult`. Problems of the response (bad ``_select``, output validation,
        a presenter callable that raised) are error responses (``isError: True``), as the
        agent receives them; a callable's exception is also logged (logger ``toolwire``)
        and kept as :attr:`ToolResult.exception`.

    Raises:
        ToolwireError: Malformed JSON bytes (positioned), or data without a presenter that
            cannot be encoded.
        PresenterError: An invalid presenter file.
    """
    texts, is_error, meta, line, exc = _call(
        data, presenter, select, format, limit, token_budget, action, structured, structured
    )
    content = json.loads(line).get("structuredContent") if structured else None
    return ToolResult(texts, is_error, meta, content, exc)


def present_line(
    data: Any,
    presenter: Any = None,
    *,
    select: Any = None,
    format: str | None = None,
    limit: int | None = None,
    token_budget: int | None = None,
    action: str | None = None,
    structured: bool = False,
) -> bytes:
    """Like :func:`present`, as the exact compact JSON line (ending with LF) of the
    ``CallToolResult`` that ``toolwire present`` prints: for servers that write the wire
    themselves."""
    out = _call(data, presenter, select, format, limit, token_budget, action, True, structured)
    return out[3]  # type: ignore[no-any-return]
