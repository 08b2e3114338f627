"""``toolwire.Presenter``: a presenter built in Python, or read from a presenter file.

The builder writes a presenter file (CLI.md) as it goes; its Python callables take the place
of ``{"callback": n}`` entries of that file, which the engine reads with the same reader as
any file. So a builder without callables *is* its file (:meth:`Presenter.to_file`), and
everything but the callables runs in the engine: validation, stripping, redaction,
truncation, ``_select``, encoding, escaping. The callables receive the item (a ``dict``) or
the kept collection (a ``list``) as the engine shows it to every other stage: validated,
stripped of undeclared fields and redacted.
"""

from __future__ import annotations

import copy
import inspect
import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any, NamedTuple

from . import _native
from ._schema import is_model, model_schema

__all__ = ["Presenter", "Suggestion", "as_presenter"]


class Suggestion(NamedTuple):
    """An action suggestion: ``- tool: reason`` in ``<action_suggestions>``."""

    tool: str
    reason: str = ""


class _Slot:
    """A Python callable at its place in the presenter file: ``kind`` is ``rules``, ``ui``,
    ``suggest`` (``fn`` already returns the normalised list the native side expects) or
    ``censor`` (``fn`` returns the string itself)."""

    __slots__ = ("fn", "kind", "label", "reads")

    def __init__(self, kind: str, fn: Callable[[Any], Any], label: str, reads: list[str] | None) -> None:
        self.kind = kind
        self.fn = fn
        self.label = label
        self.reads = reads


def _name_of(fn: Any) -> str:
    return str(getattr(fn, "__name__", None) or type(fn).__name__)


def _flatten(items: Iterable[Any]) -> list[Any]:
    """Items given one by one or as lists (a tuple is one item: a ``(tool, reason)`` pair)."""
    out: list[Any] = []
    for item in items:
        if isinstance(item, list):
            out.extend(item)
        else:
            out.append(item)
    return out


def _rules_answer(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, Iterable) and not isinstance(value, (bytes, Mapping)):
        out = []
        for r in value:
            if r is None:
                continue
            if not isinstance(r, str):
                raise TypeError(f"a rule must be a str or None, not {type(r).__name__}")
            out.append(r)
        return out
    raise TypeError(f"a rules callable returns a str, None or an iterable of them, not {type(value).__name__}")


def _ui_answer(value: Any) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, _native.UiBlock):
        return [value]
    if isinstance(value, Iterable) and not isinstance(value, (str, bytes, Mapping)):
        out = []
        for b in value:
            if b is None:
                continue
            if not isinstance(b, _native.UiBlock):
                raise TypeError(f"a UI block must come from toolwire.ui, not be a {type(b).__name__}")
            out.append(b)
        return out
    raise TypeError(
        f"a UI callable returns a toolwire.ui block, None or an iterable of them, not {type(value).__name__}"
    )


def _suggestion(s: Any) -> tuple[str, str] | None:
    """``(tool, reason)`` of one suggestion as a builder or a callable writes it."""
    if isinstance(s, Mapping):
        s = (s.get("tool"), s.get("reason", ""))
    if isinstance(s, tuple) and len(s) in (1, 2) and all(isinstance(x, str) for x in s):
        return (s[0], s[1] if len(s) == 2 else "")
    return None


def _suggest_answer(value: Any) -> list[tuple[str, str]]:
    if value is None:
        return []
    one = _suggestion(value)
    if one is not None:
        return [one]
    if isinstance(value, Iterable) and not isinstance(value, (str, bytes, Mapping)):
        out = []
        for s in value:
            if s is None:
                continue
            pair = _suggestion(s)
            if pair is None:
                raise TypeError(
                    "a suggestion is a Suggestion(tool, reason), a (tool, reason) tuple or a "
                    f"{{'tool', 'reason'}} dict, not {s!r:.60}"
                )
            out.append(pair)
        return out
    raise TypeError(f"a suggestions callable returns suggestions or None, not {type(value).__name__}")


_ANSWER = {"rules": _rules_answer, "ui": _ui_answer, "suggest": _suggest_answer}


def _normalised(kind: str, fn: Callable[[Any], Any]) -> Callable[[Any], Any]:
    answer = _ANSWER[kind]

    def call(value: Any) -> Any:
        return answer(fn(value))

    return call


def _reads(reads: Iterable[str] | None) -> list[str] | None:
    if reads is None:
        return None
    if isinstance(reads, str):
        raise TypeError("reads must be a list of field names, not a str")
    return [str(r) for r in reads]


class Presenter:
    """A presenter (WIRE.md §5): one definition per domain entity, applied to every response
    that carries it. Immutable: each method returns a new presenter.

    Built in Python::

        invoice = (
            Presenter("Invoice")
            .schema(Invoice)                                   # a pydantic model or a JSON Schema dict
            .rules("CRITICAL: amount_cents is in CENTS. Divide by 100.")
            .rules(lambda inv: "Overdue: ask before sending." if inv["status"] == "overdue" else None)
            .collection_ui(lambda invs: ui.summary(f"{len(invs)} invoices"))
            .suggest(("billing.get", "View details"))
            .redact("client.email").limit(50).select().format("toon")
        )

    or read from a presenter file: ``Presenter(dict)``, ``Presenter(json_text)`` or
    :meth:`Presenter.from_file` (which a builder can then extend). The keyword arguments
    of ``Presenter(name, **options)`` call the method of the same name
    (``Presenter("Invoice", schema=Invoice, limit=50, rules=["…"])``).

    Static entries go into the presenter file; callables run in Python on the item or the
    kept collection as the engine shows it to every stage after validation, stripping and
    redaction. A callable that raises turns the response into a ``<tool_error>``
    (``INTERNAL_ERROR``) naming it. Callables run on the calling thread, may run more than
    once per call (a ``token_budget`` measures candidates; the side door presents again),
    and should be pure. ``reads=[...]`` declares the root fields a callable reads, so JSON
    bytes can be read without the others.

    Raises :class:`PresenterError` naming the key path of the first problem (for a builder,
    when it is first used or at :meth:`check`).
    """

    __slots__ = ("_compiled", "_spec", "_text")

    def __init__(self, name_or_file: Any, /, **options: Any) -> None:
        self._compiled: Any = None
        self._text: Any = None
        if isinstance(name_or_file, Presenter):
            self._spec: dict[str, Any] = name_or_file._spec
            self._text = name_or_file._text
            self._compiled = name_or_file._compiled
        elif isinstance(name_or_file, str) and not name_or_file.lstrip().startswith("{"):
            self._spec = {"name": name_or_file}
        elif isinstance(name_or_file, (str, bytes, bytearray)):
            # A presenter file's JSON text: read by the engine as it is (positions kept).
            self._text = name_or_file if isinstance(name_or_file, str) else bytes(name_or_file)
            self._compiled = _native.Presenter(self._text)
            self._spec = {}
        elif isinstance(name_or_file, Mapping):
            self._spec = copy.deepcopy(dict(name_or_file))
            self._compiled = _native.Presenter(json.dumps(self._spec))
        else:
            raise TypeError(
                "Presenter() takes a name (str), or a presenter file as a dict or its JSON text, "
                f"not {type(name_or_file).__name__}"
            )
        if options:
            built = self
            for key, value in options.items():
                method = getattr(Presenter, key, None)
                if key.startswith("_") or key in _NOT_OPTIONS or not callable(method):
                    raise TypeError(f"Presenter() got an unexpected keyword argument {key!r}")
                if key == "embed":
                    for k, child in dict(value).items():
                        built = built.embed(k, child)
                elif key == "redact" and isinstance(value, Mapping):
                    built = built.redact(*value.get("paths", ()), censor=value.get("censor"))
                elif isinstance(value, list):
                    built = method(built, *value)
                else:
                    built = method(built, value)
            self._spec, self._text, self._compiled = built._spec, built._text, built._compiled

    @classmethod
    def from_file(cls, file: Any) -> Presenter:
        """A presenter file (CLI.md) as a ``dict`` or its JSON text (``str``/``bytes``)."""
        if isinstance(file, str) and not file.lstrip().startswith("{"):
            file = file.encode()  # not JSON text of an object: let the engine say where
        return cls(file)

    # -- building -------------------------------------------------------------------------

    def _file(self) -> dict[str, Any]:
        if self._text is not None and not self._spec:
            return dict(json.loads(self._text))
        return self._spec

    def _with(self, edit: Callable[[dict[str, Any]], None]) -> Presenter:
        spec = copy.copy(self._file())
        edit(spec)
        out = object.__new__(Presenter)
        out._spec = spec
        out._text = None
        out._compiled = None
        return out

    def _append(self, path: tuple[str, ...], items: list[Any]) -> Presenter:
        def edit(spec: dict[str, Any]) -> None:
            node = spec
            for key in path[:-1]:
                child = node.get(key)
                node[key] = child = dict(child) if isinstance(child, Mapping) else {}
                node = child
            current = node.get(path[-1])
            node[path[-1]] = [*(current if isinstance(current, list) else []), *items]

        return self._with(edit)

    def _set(self, key: str, value: Any) -> Presenter:
        def edit(spec: dict[str, Any]) -> None:
            spec[key] = value

        return self._with(edit)

    def _label(self, method: str, fn: Any) -> str:
        return f"presenter {self.name}: {method} callable {_name_of(fn)}"

    def _entries(self, method: str, kind: str, items: tuple[Any, ...], reads: Any, static: Callable[[Any], Any]) -> list[Any]:
        out = []
        for item in _flatten(items):
            if isinstance(item, _native.UiBlock) and kind == "ui":
                block = item
                out.append(_Slot(kind, lambda _value, b=block: [b], self._label(method, item), _reads(reads or [])))
            elif callable(item) and not isinstance(item, (str, Mapping, Suggestion)):
                if inspect.iscoroutinefunction(item):
                    raise TypeError(f"{method}: presenter callables are called synchronously, {_name_of(item)} is async")
                out.append(_Slot(kind, _normalised(kind, item), self._label(method, item), _reads(reads)))
            else:
                out.append(static(item))
        return out

    def schema(self, schema: Any) -> Presenter:
        """The schema of one item: a pydantic v2 model class (or a dataclass type), turned
        into the engine's JSON Schema subset (see :mod:`toolwire._schema` for what maps), or
        a JSON Schema ``dict`` of that subset; ``None`` for none. Undeclared fields are
        stripped, a type mismatch fails the response with ``OUTPUT_VALIDATION_FAILED``."""
        if is_model(schema):
            schema = model_schema(schema)
        elif schema is not None and not isinstance(schema, Mapping):
            raise TypeError(f"schema must be a pydantic model, a dataclass or a dict, not {type(schema).__name__}")
        return self._set("schema", copy.deepcopy(schema))

    def rules(self, *rules: Any, reads: Iterable[str] | None = None) -> Presenter:
        """Rules (``<domain_rules>``). A ``str`` applies to every response; a callable gets
        the item (or the first kept item of a collection, skipped for ``[]``) and returns a
        rule, ``None`` or an iterable of them."""
        statics = [r for r in _flatten(rules) if not callable(r)]
        calls = [r for r in _flatten(rules) if callable(r)]
        out = self
        if statics:
            out = out._append(("rules",), [_rule(r) for r in statics])
        if calls:
            out = out.item_rules(*calls, reads=reads)
        return out

    def item_rules(self, *rules: Any, reads: Iterable[str] | None = None) -> Presenter:
        """Rules for the item or the first kept item of a collection (skipped for ``[]``):
        strings, or callables given that item."""
        return self._append(("item_rules",), self._entries("item_rules", "rules", rules, reads, _rule))

    def collection_rules(self, *rules: Any, reads: Iterable[str] | None = None) -> Presenter:
        """Rules for collections (also when empty): strings, or callables given the kept
        collection (a ``list``)."""
        return self._append(
            ("collection_rules",), self._entries("collection_rules", "rules", rules, reads, _rule)
        )

    def ui(self, *entries: Any, reads: Iterable[str] | None = None) -> Presenter:
        """UI blocks for a single item: presenter-file entries (``{"table": {...}}``,
        ``{"summary": "…"}``, ``{"markdown": "…"}``, ``{"list": "…"}``), blocks from
        :mod:`toolwire.ui`, or callables given the item that return blocks, ``None`` or an
        iterable of them."""
        return self._append(("ui", "item"), self._entries("ui", "ui", entries, reads, _ui_entry))

    def collection_ui(self, *entries: Any, reads: Iterable[str] | None = None) -> Presenter:
        """UI blocks for a collection: as :meth:`ui`, callables given the kept collection."""
        return self._append(
            ("ui", "collection"), self._entries("collection_ui", "ui", entries, reads, _ui_entry)
        )

    def suggest(self, *suggestions: Any, reads: Iterable[str] | None = None) -> Presenter:
        """Action suggestions for a single item (and for a collection's first kept item when
        it has no collection suggestions): ``(tool, reason)``, :class:`Suggestion` or
        ``{"tool", "reason"}``, or callables given the item that return them (one, ``None``
        or an iterable)."""
        return self._append(
            ("suggest", "item"), self._entries("suggest", "suggest", suggestions, reads, _suggest_entry)
        )

    def collection_suggest(self, *suggestions: Any, reads: Iterable[str] | None = None) -> Presenter:
        """Action suggestions for a non-empty collection: as :meth:`suggest`, callables
        given the kept collection."""
        return self._append(
            ("suggest", "collection"),
            self._entries("collection_suggest", "suggest", suggestions, reads, _suggest_entry),
        )

    def redact(self, *paths: str, censor: str | Callable[[Any], str] | None = None) -> Presenter:
        """Redact these paths (``a.b``, ``a[*].b``, ``*``) in every block, with ``censor``
        (default ``[REDACTED]``): a string, or a callable of the validated value returning the
        string shown (``lambda v: "****" + str(v)[-4:]``), which alone sees the value."""
        if censor is not None and not isinstance(censor, str) and not callable(censor):
            raise TypeError("redact: censor must be a string or a callable returning one")

        def edit(spec: dict[str, Any]) -> None:
            old = spec.get("redact") if isinstance(spec.get("redact"), Mapping) else {}
            red = dict(old)
            red["paths"] = [*(red.get("paths") or []), *_flatten(paths)]
            if isinstance(censor, str):
                red["censor"] = censor
            elif censor is not None:
                red["censor"] = _Slot("censor", censor, self._label("redact", censor), None)
            spec["redact"] = red

        return self._with(edit)

    def limit(self, n: int | None) -> Presenter:
        """Keep at most ``n`` items of a collection (a notice says how many are hidden)."""
        return self._set("limit", n)

    def token_budget(self, n: int | None) -> Presenter:
        """Keep as many whole items as fit in ``n`` o200k tokens of the data block."""
        return self._set("token_budget", n)

    def select(self, on: bool = True) -> Presenter:
        """Enable ``_select``: the agent may ask for some root fields only."""
        return self._set("select", on)

    def format(self, name: str) -> Presenter:
        """The data format: one of :data:`toolwire.FORMATS`."""
        return self._set("format", name)

    def embed(self, key: str, child: Any) -> Presenter:
        """Present ``item[key]`` with ``child`` (a :class:`Presenter` or a presenter file):
        its schema and redaction govern the nested data, its rules, suggestions and UI join
        the parent's."""
        if not isinstance(child, Presenter):
            child = Presenter(child)

        def edit(spec: dict[str, Any]) -> None:
            old = spec.get("embed") if isinstance(spec.get("embed"), Mapping) else {}
            spec["embed"] = {**old, key: child}

        return self._with(edit)

    # -- reading --------------------------------------------------------------------------

    def _render(self, slots: list[_Slot] | None) -> dict[str, Any]:
        """The presenter file; callables become ``{"callback": n}`` entries numbered into
        ``slots`` (``None``: a callable is an error)."""

        def walk(v: Any) -> Any:
            if isinstance(v, _Slot):
                if slots is None:
                    raise TypeError(
                        f"presenter {self.name!r} holds Python callables: a presenter file cannot"
                    )
                slots.append(v)
                entry: dict[str, Any] = {"callback": len(slots) - 1}
                if v.reads is not None:
                    entry["reads"] = v.reads
                return entry
            if isinstance(v, Presenter):
                return v._render_into(slots)
            if isinstance(v, Mapping):
                return {k: walk(x) for k, x in v.items()}
            if isinstance(v, (list, tuple)):
                return [walk(x) for x in v]
            return v

        return walk(self._file())  # type: ignore[no-any-return]

    def _render_into(self, slots: list[_Slot] | None) -> dict[str, Any]:
        return self._render(slots)

    def to_file(self) -> dict[str, Any]:
        """The presenter file (CLI.md) of this presenter, for ``toolwire present --presenter``
        or any binding. ``TypeError`` when it holds Python callables."""
        return self._render(None)

    def check(self) -> Presenter:
        """Compiles the presenter now (it is compiled when first used): raises
        :class:`PresenterError` for the first problem. Returns ``self``."""
        self._native_presenter()
        return self

    def _native_presenter(self) -> Any:
        if self._compiled is None:
            slots: list[_Slot] = []
            text = json.dumps(self._render(slots), ensure_ascii=False, allow_nan=False)
            callbacks = [(s.kind, s.label, s.fn) for s in slots] if slots else None
            self._compiled = _native.Presenter(text, callbacks)
        return self._compiled

    @property
    def _native(self) -> Any:
        return self._native_presenter()

    @property
    def spec(self) -> Any:
        """The presenter file as given (dict or JSON text) or as built (:meth:`to_file`)."""
        if self._text is not None and not self._spec:
            return self._text
        return self.to_file()

    @property
    def name(self) -> str:
        if self._text is not None and not self._spec:
            return str(self._native_presenter().name)
        return str(self._file().get("name"))

    @property
    def select_enabled(self) -> bool:
        return bool(self._native_presenter().select_enabled)

    def select_names(self) -> list[str]:
        """The ``_select`` enum (the schema's root keys, sorted bytewise)."""
        return list(self._native_presenter().select_names())

    def select_property(self) -> dict[str, Any] | None:
        """The ``_select`` property of the tool's ``inputSchema``; ``None`` when select is off."""
        prop = self._native_presenter().input_schema_property()
        return None if prop is None else json.loads(prop)

    def output_schema(self, *, collection: bool = False, protocol: str = "2025-11-25") -> dict[str, Any]:
        """The tool's ``outputSchema`` (WIRE.md §7) for items, or a collection of them."""
        return json.loads(self._native_presenter().output_schema(protocol, collection))  # type: ignore[no-any-return]

    def __repr__(self) -> str:
        return f"Presenter({self.name!r})"


def as_presenter(p: Any) -> Presenter:
    """``p`` as a :class:`Presenter`: one already, or a presenter file (a ``dict`` or its JSON
    text). A ``str`` here is JSON text, never a name: a path or a name given by mistake is
    the positioned error of a file that is not JSON."""
    return p if isinstance(p, Presenter) else Presenter.from_file(p)


_NOT_OPTIONS = frozenset({"from_file", "to_file", "check", "select_names", "select_property", "output_schema"})


def _rule(r: Any) -> Any:
    if r is not None and not isinstance(r, str):
        raise TypeError(f"a rule must be a str or a callable, not {type(r).__name__}")
    return r


def _ui_entry(e: Any) -> Any:
    if not isinstance(e, Mapping):
        raise TypeError(
            "a UI entry is a presenter-file entry (dict), a toolwire.ui block or a callable, "
            f"not {type(e).__name__}"
        )
    return copy.deepcopy(dict(e))


def _suggest_entry(s: Any) -> dict[str, str]:
    pair = _suggestion(s)
    if pair is None:
        raise TypeError(
            "a suggestion is a Suggestion(tool, reason), a (tool, reason) tuple, a "
            f"{{'tool', 'reason'}} dict or a callable, not {s!r:.60}"
        )
    return {"tool": pair[0], "reason": pair[1]}
