"""UI blocks (WIRE.md §3) for presenter callables: ``Presenter(...).ui(lambda item: ...)``
and ``.collection_ui(...)`` return these.

Every helper is the engine's: fences grow past the backticks of their body, table cells escape
``|`` and line breaks, and the block is written as ``<ui_passthrough type="…">`` with reserved
tags in its content neutralised when the response is built. Each takes the block's optional
attributes ``title``, ``width`` (``"full"``, ``"half"``, ``"third"``) and ``priority``.

>>> from toolwire import ui
>>> ui.summary("3 invoices").content
'📊 **Summary**: 3 invoices'
>>> ui.table(["id", "total"], [["A", 5], ["B", None]]).content
'| id | total |\\n| --- | --- |\\n| A | 5 |\\n| B |  |'
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ._native import UiBlock

__all__ = [
    "UiBlock",
    "code_block",
    "echarts",
    "json",
    "list",
    "markdown",
    "mermaid",
    "summary",
    "table",
]

_list = list


def markdown(
    text: str, *, title: str | None = None, width: str | None = None, priority: int | None = None
) -> UiBlock:
    """A ``markdown`` block: ``text`` verbatim."""
    return UiBlock.markdown(text, title, width, priority)


def summary(
    text: str, *, title: str | None = None, width: str | None = None, priority: int | None = None
) -> UiBlock:
    """A ``summary`` block: ``📊 **Summary**: `` + ``text``."""
    return UiBlock.summary(text, title, width, priority)


def mermaid(
    diagram: str, *, title: str | None = None, width: str | None = None, priority: int | None = None
) -> UiBlock:
    """A ``mermaid`` block: the diagram, fenced."""
    return UiBlock.mermaid(diagram, title, width, priority)


def code_block(
    lang: str,
    code: str,
    *,
    title: str | None = None,
    width: str | None = None,
    priority: int | None = None,
) -> UiBlock:
    """A block of type ``lang``: the code, fenced with ``lang``."""
    return UiBlock.code_block(lang, code, title, width, priority)


def list(  # noqa: A001 - WIRE.md §3's name
    items: Iterable[str],
    *,
    title: str | None = None,
    width: str | None = None,
    priority: int | None = None,
) -> UiBlock:
    """A ``markdown`` list: one ``- item`` line per item."""
    return UiBlock.list(_list(items), title, width, priority)


def table(
    headers: Sequence[str],
    rows: Iterable[Sequence[Any]],
    *,
    title: str | None = None,
    width: str | None = None,
    priority: int | None = None,
) -> UiBlock:
    """A markdown table. Cells: a ``str`` verbatim, ``None`` empty, anything else its
    compact JSON; a row longer than ``headers`` is a ``ValueError``, a shorter one is
    padded."""
    return UiBlock.table(_list(headers), [_list(r) for r in rows], title, width, priority)


def json(
    value: Any, *, title: str | None = None, width: str | None = None, priority: int | None = None
) -> UiBlock:
    """A ``json`` block: the pretty JSON of ``value``, fenced."""
    return UiBlock.json(value, title, width, priority)


def echarts(
    config: Any, *, title: str | None = None, width: str | None = None, priority: int | None = None
) -> UiBlock:
    """An ``echarts`` block: the pretty JSON of the chart's ``config``, fenced."""
    return UiBlock.echarts(config, title, width, priority)
