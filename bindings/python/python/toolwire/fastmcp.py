"""toolwire for servers built on FastMCP 4 (``pip install 'toolwire[fastmcp]'``).

:func:`tool` turns a handler into a FastMCP tool whose responses go through a presenter::

    from fastmcp import FastMCP
    import toolwire.fastmcp

    mcp = FastMCP("billing")

    @mcp.add_tool
    @toolwire.fastmcp.tool(invoice)                   # a Presenter, or a presenter file
    def list_invoices(status: str | None = None) -> list[dict]:
        return db.invoices(status)                    # plain data: the presenter shapes it

The wrapping is :func:`toolwire.mcp.tool`'s (WIRE.md §9): ``_select`` is published in the
tool's ``inputSchema`` exactly as the engine writes it and taken out of the arguments before
the handler sees them, the return value goes through the presenter (a ``CallToolResult``
passes through untouched, ``None`` is ``OK``), an exception becomes a ``<tool_error>``. Sync
and async handlers alike; FastMCP's own parameters (``Context``, dependencies) keep working.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

try:
    from fastmcp.tools import FunctionTool
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError("toolwire.fastmcp needs FastMCP 4: pip install 'toolwire[fastmcp]'") from exc

from . import as_presenter
from . import mcp as _mcp

__all__ = ["tool"]


def tool(
    presenter: Any,
    *,
    name: str | None = None,
    structured: bool = False,
    **options: Any,
) -> Callable[[Callable[..., Any]], FunctionTool]:
    """Decorator: the handler as a FastMCP ``FunctionTool`` presented by ``presenter``; add
    it with ``mcp.add_tool`` (usable as a decorator above this one).

    Args:
        presenter: A :class:`toolwire.Presenter`, or a presenter file (dict or JSON text).
        name: The tool's name (default the function's), also the ``[tool]`` of its errors.
        structured: Also send ``structuredContent`` (``{"items": [...]}``: the rows of the
            data block after redaction and ``_select``, an item as a list of one) and publish
            the matching ``outputSchema``, ``presenter.output_schema(collection=True)``.
        **options: The other arguments of ``FunctionTool.from_function`` (``title``,
            ``description``, ``tags``, ``annotations``, ``timeout``, ``meta``, …).
    """
    p = as_presenter(presenter)
    prop = p.select_property()
    output_schema = p.output_schema(collection=True) if structured else None

    def decorate(fn: Callable[..., Any]) -> FunctionTool:
        tool_name = name or fn.__name__
        wrapped = _mcp.tool(p, name=tool_name, structured=structured)(fn)
        t = FunctionTool.from_function(wrapped, name=tool_name, output_schema=output_schema, **options)
        if prop is not None:
            # FastMCP writes the parameter with pydantic's extras (a `default`); the tool
            # publishes the engine's property as it is (WIRE.md §4).
            t.parameters.setdefault("properties", {})["_select"] = prop
        return t

    return decorate
