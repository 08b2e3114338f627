"""toolwire for servers built on the official ``mcp`` SDK (``pip install 'toolwire[mcp]'``).

* :func:`present` returns the SDK's ``CallToolResult`` (a subclass carrying the side door).
* :func:`tool_schema` gives what a tool registers: ``inputSchema`` with ``_select``,
  ``outputSchema`` and the description.
* :func:`tool` is the implicit wrapping of WIRE.md §9 as a decorator::

      from mcp.server.mcpserver import MCPServer   # FastMCP in mcp 1.x
      import toolwire.mcp

      server = MCPServer("billing")

      @server.tool()
      @toolwire.mcp.tool(INVOICE)                  # a presenter file (dict or JSON text)
      def list_invoices(status: str = "paid") -> list[dict]:
          return db.invoices(status)               # plain data: the presenter shapes it

  ``_select`` is taken out of the arguments (validated by the engine, never seen by the
  handler), the return value goes through the presenter (a ``CallToolResult`` passes through
  untouched, ``None`` becomes ``OK``), and an exception becomes a ``<tool_error>``
  (``INTERNAL_ERROR``, no stack trace). Sync and async handlers alike.
"""

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import Callable
from typing import Annotated, Any

try:
    from mcp.types import CallToolResult
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "toolwire.mcp needs the official MCP SDK: pip install 'toolwire[mcp]'"
    ) from exc

from pydantic import Field, PrivateAttr, WithJsonSchema

from . import ToolResult as _DictResult
from . import Presenter, _native, as_presenter
from . import present as _present

__all__ = ["ToolResult", "present", "result", "tool", "tool_schema"]


class ToolResult(CallToolResult):  # type: ignore[misc]
    """The SDK's ``CallToolResult``, with the testing side door (WIRE.md §10) as
    :attr:`toolwire_meta`: a private attribute, never serialized."""

    _toolwire: Any = PrivateAttr(default=None)

    @property
    def toolwire_meta(self) -> dict[str, Any] | None:
        """``{"data", "rules", "ui_blocks", "hints", "suggestions", "format"}``."""
        return None if self._toolwire is None else self._toolwire.meta


def result(r: _DictResult) -> ToolResult:
    """A :class:`toolwire.ToolResult` (dict form) as the SDK's ``CallToolResult``."""
    fields: dict[str, Any] = {"content": r["content"]}
    if "isError" in r:
        fields["isError"] = r["isError"]
    if "structuredContent" in r:
        fields["structuredContent"] = r["structuredContent"]
    out = ToolResult.model_validate(fields)
    out._toolwire = r
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
    """:func:`toolwire.present`, returning the SDK's ``CallToolResult``."""
    return result(
        _present(
            data,
            presenter,
            select=select,
            format=format,
            limit=limit,
            token_budget=token_budget,
            action=action,
            structured=structured,
        )
    )


def tool_schema(
    presenter: Any,
    *,
    input_schema: dict[str, Any] | None = None,
    name: str | None = None,
    description: str | None = None,
    actions: list[dict[str, Any]] | None = None,
    collection: bool = False,
    protocol: str = "2025-11-25",
) -> dict[str, Any]:
    """What a tool presented by ``presenter`` registers.

    Returns ``{"inputSchema", "outputSchema", "description"}``: ``input_schema`` (default an
    empty object schema) with the ``_select`` property added when the presenter enables
    select (WIRE.md §4); the JSON Schema of the presenter's items, or of a collection of them
    (WIRE.md §7: register it only for a tool that also sends ``structuredContent``); and the
    description — with ``actions`` (``{"name", "description", "required", "destructive"}``
    dicts), the TOON description of WIRE.md §6 (discriminator ``action``).
    """
    p = as_presenter(presenter)
    schema = json.loads(json.dumps(input_schema)) if input_schema else {"type": "object"}
    prop = p.select_property()
    if prop is not None:
        schema.setdefault("properties", {})["_select"] = prop
    tool_name = name or p.name
    if actions:
        desc = _native.toon_description(
            tool_name,
            description or "",
            "action",
            [
                (
                    a["name"],
                    a.get("description", ""),
                    list(a.get("required", [])),
                    bool(a.get("destructive", False)),
                )
                for a in actions
            ],
        )
    else:
        desc = description or tool_name
    return {
        "inputSchema": schema,
        "outputSchema": p.output_schema(collection=collection, protocol=protocol),
        "description": desc,
    }


_SELECT_KWARG = "toolwire_select"


def _wrap_return(value: Any, presenter: Presenter, select: Any, name: str, structured: bool) -> Any:
    if isinstance(value, CallToolResult):
        return value  # a toolwire (or hand-built) result passes through untouched
    if isinstance(value, _DictResult):
        return result(value)
    return present(value, presenter, select=select, action=name, structured=structured)


def _failure(name: str, exc: BaseException) -> ToolResult:
    text, is_error = _native.handler_error(name, str(exc) or type(exc).__name__)
    fields: dict[str, Any] = {"content": [{"type": "text", "text": text}]}
    if is_error is not None:
        fields["isError"] = is_error
    return ToolResult.model_validate(fields)


def _exact_schema(prop: dict[str, Any]) -> Callable[[dict[str, Any]], None]:
    """Publishes the engine's property as it is: pydantic's ``default`` is dropped (its
    ``title``, which it adds afterwards, stays)."""

    def fix(schema: dict[str, Any]) -> None:
        schema.clear()
        schema.update(json.loads(json.dumps(prop)))

    return fix


def tool(
    presenter: Any, *, name: str | None = None, structured: bool = False
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: implicit wrapping (WIRE.md §9) of an MCP tool handler by ``presenter``.

    Put it under the SDK's ``@server.tool()``. The wrapped function keeps the handler's
    parameters (so the SDK builds the same ``inputSchema``) plus ``_select`` when the
    presenter enables select, with the engine's schema; it returns a ``CallToolResult``.
    ``name`` (default the function's name) is the ``tool`` of error messages. With
    ``structured``, a success also carries ``structuredContent`` (``{"items": [...]}``, as
    ``presenter.output_schema(collection=True)`` describes it).
    """
    p = as_presenter(presenter)
    prop = p.select_property()

    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        tool_name = name or fn.__name__
        sig = inspect.signature(fn)
        params = list(sig.parameters.values())
        if prop is not None:
            # The SDK refuses parameter names starting with "_": the parameter is named
            # `toolwire_select` and published as `_select` through its alias.
            annotation = Annotated[
                Any,
                Field(alias="_select", json_schema_extra=_exact_schema(prop)),
                WithJsonSchema(prop),
            ]
            select_param = inspect.Parameter(
                _SELECT_KWARG, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=annotation
            )
            if params and params[-1].kind is inspect.Parameter.VAR_KEYWORD:
                params.insert(len(params) - 1, select_param)
            else:
                params.append(select_param)
        signature = sig.replace(parameters=params, return_annotation=CallToolResult)

        def take_select(kwargs: dict[str, Any]) -> Any:
            sel = kwargs.pop("_select", None)
            alt = kwargs.pop(_SELECT_KWARG, None)
            return sel if sel is not None else alt

        if inspect.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def async_wrapper(*args: Any, **kwargs: Any) -> Any:
                select = take_select(kwargs)
                try:
                    value = await fn(*args, **kwargs)
                except Exception as exc:  # noqa: BLE001 - every failure becomes a <tool_error>
                    return _failure(tool_name, exc)
                return _wrap_return(value, p, select, tool_name, structured)

            wrapper: Callable[..., Any] = async_wrapper
        else:

            @functools.wraps(fn)
            def sync_wrapper(*args: Any, **kwargs: Any) -> Any:
                select = take_select(kwargs)
                try:
                    value = fn(*args, **kwargs)
                except Exception as exc:  # noqa: BLE001 - every failure becomes a <tool_error>
                    return _failure(tool_name, exc)
                return _wrap_return(value, p, select, tool_name, structured)

            wrapper = sync_wrapper
        wrapper.__signature__ = signature  # type: ignore[attr-defined]
        annotations = dict(getattr(fn, "__annotations__", {}))
        annotations["return"] = CallToolResult
        if prop is not None:
            annotations[_SELECT_KWARG] = signature.parameters[_SELECT_KWARG].annotation
        wrapper.__annotations__ = annotations
        wrapper.toolwire_presenter = p  # type: ignore[attr-defined]
        return wrapper

    return decorate
