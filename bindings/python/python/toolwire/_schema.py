"""A pydantic v2 model (or dataclass) as the JSON Schema subset the engine validates with
(CLI.md "Presenter file": ``type``, ``properties``, ``required``, ``items``, ``enum``,
``additionalProperties``).

The model's serialization schema is used (what ``model_dump(mode="json")`` writes, which is
how the engine receives model instances), with ``$ref`` inlined. Keywords the engine does not
check are dropped: constraints (``minLength``, ``maximum``, ``pattern``, ``format``, …) and
annotations (``title``, ``default``, …) — pydantic checks them when a model is built, the
engine checks types and ``enum`` and strips undeclared fields. A construct the engine cannot
express without stripping too little or rejecting good data is a :class:`PresenterError`
naming its path: unions of objects or arrays, tuples, recursive models, ``not``,
``patternProperties``, conditionals, and dicts whose values are objects.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ._errors import PresenterError

# Keywords the engine has no check for: dropped.
_DROPPED = frozenset(
    {
        "title",
        "default",
        "examples",
        "format",
        "pattern",
        "minLength",
        "maxLength",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minItems",
        "maxItems",
        "uniqueItems",
        "minProperties",
        "maxProperties",
        "readOnly",
        "writeOnly",
        "deprecated",
        "contentEncoding",
        "contentMediaType",
        "contentSchema",
        "$comment",
        "$schema",
    }
)
_LEAF_TYPES = frozenset({"string", "integer", "number", "boolean", "null"})


def is_model(obj: Any) -> bool:
    """Whether ``obj`` is a pydantic model class or a dataclass type."""
    if not isinstance(obj, type):
        return False
    if dataclasses.is_dataclass(obj):
        return True
    try:
        from pydantic import BaseModel
    except ImportError:  # pragma: no cover - pydantic is optional
        return False
    return issubclass(obj, BaseModel)


def model_schema(model: type) -> dict[str, Any]:
    """The engine schema of ``model`` (a pydantic v2 model class or a dataclass type)."""
    try:
        from pydantic import BaseModel, TypeAdapter
    except ImportError as exc:  # pragma: no cover - pydantic is optional
        raise TypeError("a model as the schema needs pydantic v2: pip install pydantic") from exc
    if issubclass(model, BaseModel):
        # The keys model_dump(mode="json") writes: field names, or aliases when the model
        # serializes by alias.
        by_alias = bool(model.model_config.get("serialize_by_alias", False))
        raw = model.model_json_schema(mode="serialization", by_alias=by_alias)
    else:
        raw = TypeAdapter(model).json_schema(mode="serialization", by_alias=False)
    defs = raw.pop("$defs", {})
    return _Converter(defs).node(raw, "schema", ())


class _Converter:
    def __init__(self, defs: dict[str, Any]) -> None:
        self.defs = defs

    def fail(self, path: str, message: str) -> PresenterError:
        return PresenterError(f"{path}: {message}", path)

    def resolve(self, ref: Any, path: str, seen: tuple[str, ...]) -> tuple[dict[str, Any], tuple[str, ...]]:
        prefix = "#/$defs/"
        if not isinstance(ref, str) or not ref.startswith(prefix) or ref[len(prefix):] not in self.defs:
            raise self.fail(path, f"unresolvable $ref {ref!r}")
        name = ref[len(prefix):]
        if name in seen:
            raise self.fail(path, f"recursive model {name!r} is not supported (the engine's schemas are finite)")
        return self.defs[name], (*seen, name)

    def node(self, schema: Any, path: str, seen: tuple[str, ...]) -> dict[str, Any]:
        if not isinstance(schema, dict):
            raise self.fail(path, "expected a schema object")
        schema = dict(schema)
        if "$ref" in schema:
            target, seen = self.resolve(schema.pop("$ref"), path, seen)
            # Sibling keywords (a field's description next to its model) apply too.
            schema = {**target, **schema}
        if "allOf" in schema:
            parts = schema.pop("allOf")
            if not isinstance(parts, list) or len(parts) != 1:
                raise self.fail(path, "allOf of several schemas is not supported")
            inner = self.node(parts[0], path, seen)
            return self.merge(self.node(schema, path, seen), inner, path) if schema else inner
        for key in ("anyOf", "oneOf"):
            if key in schema:
                branches = schema.pop(key)
                schema.pop("discriminator", None)
                union = self.union(branches, f"{path}.{key}", seen)
                rest = self.node(schema, path, seen)
                return self.merge(rest, union, path)
        out: dict[str, Any] = {}
        for key, value in schema.items():
            at = f"{path}.{key}"
            if key in _DROPPED:
                continue
            if key == "description":
                if isinstance(value, str):
                    out[key] = value
            elif key == "type":
                out[key] = value
            elif key == "const":
                out["enum"] = [value]
            elif key == "enum":
                out[key] = list(value)
            elif key == "properties":
                out[key] = {name: self.node(sub, f"{at}.{name}", seen) for name, sub in value.items()}
            elif key == "required":
                out[key] = list(value)
            elif key == "items":
                if not isinstance(value, dict):
                    raise self.fail(at, "tuple-style items are not supported")
                out[key] = self.node(value, at, seen)
            elif key == "additionalProperties":
                out[key] = self.additional(value, at, seen)
            elif key == "prefixItems":
                raise self.fail(at, "tuples (prefixItems) are not supported; use list[...]")
            else:
                raise self.fail(at, "this JSON Schema keyword is not supported by the engine's schemas")
        return out

    def additional(self, value: Any, path: str, seen: tuple[str, ...]) -> bool:
        if isinstance(value, bool):
            return value
        sub = self.node(value, path, seen)
        if _holds_objects(sub):
            raise self.fail(
                path,
                "a dict whose values are objects is not supported: the engine could not "
                "strip their undeclared fields",
            )
        # dict[str, <leaf>]: kept whole (the values' types are not checked).
        return True

    def union(self, branches: Any, path: str, seen: tuple[str, ...]) -> dict[str, Any]:
        if not isinstance(branches, list) or not branches:
            raise self.fail(path, "expected a list of schemas")
        nodes = [self.node(b, f"{path}[{i}]", seen) for i, b in enumerate(branches)]
        nullable = any(n == {"type": "null"} for n in nodes)
        others = [n for n in nodes if n != {"type": "null"}]
        if len(others) == 1:
            out = dict(others[0])
        elif all(_is_leaf_type(n) for n in others):
            types: list[str] = []
            for n in others:
                for t in _types(n):
                    if t not in types:
                        types.append(t)
            out = {"type": types}
        else:
            raise self.fail(
                path,
                "a union of objects, arrays or enums is not supported (Optional[...] and "
                "unions of plain str/int/float/bool are)",
            )
        if nullable and out:
            if "type" in out:
                types = _types(out)
                if "null" not in types:
                    out["type"] = [*types, "null"]
            if "enum" in out and None not in out["enum"]:
                out["enum"] = [*out["enum"], None]
        return out

    def merge(self, a: dict[str, Any], b: dict[str, Any], path: str) -> dict[str, Any]:
        out = dict(b)
        for key, value in a.items():
            if key == "description":
                out.setdefault(key, value)
            elif key in out and out[key] != value:
                raise self.fail(path, f"conflicting {key!r} next to a union")
            else:
                out[key] = value
        return out


def _types(node: dict[str, Any]) -> list[str]:
    t = node.get("type")
    if t is None:
        return []
    return [t] if isinstance(t, str) else list(t)


def _is_leaf_type(node: dict[str, Any]) -> bool:
    keys = set(node) - {"description"}
    return keys == {"type"} and all(t in _LEAF_TYPES for t in _types(node))


def _holds_objects(node: dict[str, Any]) -> bool:
    if "object" in _types(node) or "properties" in node:
        return True
    items = node.get("items")
    return isinstance(items, dict) and _holds_objects(items)
