"""TOON 4.4 with the ``toon_format`` 1.2 interface, encoded and decoded by the toolwire engine.

A drop-in for ``toon_format``: the same names, keywords, results and exceptions::

    >>> from toolwire import toon
    >>> toon.dumps({"users": [{"id": 1, "name": "Ada"}, {"id": 2, "name": "Bob"}]})
    'users[2]{id,name}:\\n  1,Ada\\n  2,Bob'
    >>> toon.loads("tags[2]: a,b")
    {'tags': ['a', 'b']}

:func:`encode_json` encodes JSON text (``bytes`` or ``str``) without building Python
objects, the GIL released while the engine works.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from enum import Enum
from typing import IO, Any

from . import _native
from ._errors import ToonDecodeError

__all__ = [
    "Delimiter",
    "ToonDecodeError",
    "__toon_spec__",
    "decode",
    "dump",
    "dumps",
    "encode",
    "encode_json",
    "load",
    "loads",
]

__toon_spec__ = "4.4"
"""Version of the TOON specification implemented."""

_DELIMITERS = (",", "\t", "|")


class Delimiter(str, Enum):
    """The delimiters TOON supports (§11). Members compare equal to their character."""

    COMMA = ","
    TAB = "\t"
    PIPE = "|"

    def __str__(self) -> str:
        return self.value


# Quoted strings (skipped), or a run of characters that can be an unquoted number token.
_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|[^\s,|:"\[\]{}]+')
_FLOAT_TOKEN = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")


class _FloatTokens:
    """``parse_float`` with the number's own token: the engine decodes floats to f64, so the
    token text is found again in the document, in order (floats are decoded in document
    order), as the next unquoted token with the same value. A number the search cannot
    find (never in an encoder's output) gets its canonical text."""

    def __init__(self, text: str, parse_float: Callable[[str], Any]) -> None:
        self.tokens = _TOKEN.finditer(text)
        self.text = text
        self.parse_float = parse_float

    def __call__(self, canonical: str) -> Any:
        value = float(canonical)
        for m in self.tokens:
            t = m.group()
            if t[0] == '"' or ("." not in t and "e" not in t and "E" not in t):
                continue
            if not _FLOAT_TOKEN.fullmatch(t) or float(t) != value:
                continue
            rest = self.text[m.end() : m.end() + 64].lstrip(" ")
            if rest.startswith(":") or rest.startswith("["):
                continue  # an unquoted key, not a value
            return self.parse_float(t)
        return self.parse_float(canonical)


def _indent(indent_size: Any) -> int:
    if isinstance(indent_size, bool) or not isinstance(indent_size, int):
        raise TypeError(f"indent_size must be an int, not {type(indent_size).__name__}")
    if indent_size < 1:
        raise ValueError(f"indent_size must be at least 1, got {indent_size}")
    return int(indent_size)


def _delimiter(delimiter: Any) -> str:
    if delimiter not in _DELIMITERS:
        raise ValueError(f"delimiter must be ',', '\\t', or '|', got {delimiter!r}")
    return str.__str__(delimiter)


def dumps(
    obj: Any,
    *,
    indent_size: int = 2,
    delimiter: str = ",",
    default: Callable[[Any], Any] | None = None,
    sort_keys: bool = False,
) -> str:
    """Serialize ``obj`` to a TOON document (no trailing newline).

    ``dict``, ``list``, ``tuple``, ``str``, ``int`` (any size, exact), ``float``
    (``nan``/``inf`` become ``null``), ``bool`` and ``None`` map onto the JSON data model;
    so do ``Decimal`` (every digit), mappings, sets (sorted), ``datetime``/``date``/``time``
    (ISO text), ``UUID``, paths, enums, dataclasses, attrs classes and pydantic models.
    ``default`` is called with anything else.

    Raises:
        TypeError: A value or a mapping key cannot be encoded.
        ValueError: An option is invalid, a reference cycle, an unpaired surrogate, two
            keys that convert to the same text, or nesting deeper than 1000 levels.
    """
    return _native.dumps(
        obj, _indent(indent_size), _delimiter(delimiter), default, bool(sort_keys)
    )


def dump(
    obj: Any,
    fp: IO[str],
    *,
    indent_size: int = 2,
    delimiter: str = ",",
    default: Callable[[Any], Any] | None = None,
    sort_keys: bool = False,
) -> None:
    """Serialize ``obj`` as a TOON document to the text file ``fp`` (options of :func:`dumps`)."""
    fp.write(
        dumps(
            obj,
            indent_size=indent_size,
            delimiter=delimiter,
            default=default,
            sort_keys=sort_keys,
        )
    )


def encode_json(
    data: bytes | bytearray | memoryview | str,
    *,
    indent_size: int = 2,
    delimiter: str = ",",
) -> str:
    """Encode JSON text as TOON without building Python objects.

    Equals ``dumps(json.loads(data))`` for any JSON document, except that integers keep
    every digit, and malformed JSON (``1e400``, a lone surrogate in TOON) is a
    :class:`toolwire.ToolwireError` with its line and column. The GIL is released while the
    engine parses and encodes, so threads run in parallel.
    """
    return _native.encode_json(data, _indent(indent_size), _delimiter(delimiter))


def loads(
    s: str | bytes | bytearray,
    *,
    strict: bool = True,
    indent_size: int = 2,
    parse_float: Callable[[str], Any] | None = None,
    parse_int: Callable[[str], Any] | None = None,
    object_hook: Callable[[dict[str, Any]], Any] | None = None,
    object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None,
) -> Any:
    """Deserialize a TOON document (``str``, or UTF-8 ``bytes``) to a Python object.

    The hooks are those of :func:`json.loads`; ``parse_float`` receives the number's token
    as written (``Decimal`` decodes losslessly).

    Raises:
        ToonDecodeError: The document is not valid TOON.
        ValueError: An option is invalid.
    """
    if isinstance(s, (bytes, bytearray)):
        try:
            s = s.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ToonDecodeError(f"Invalid UTF-8: {exc.reason} at byte {exc.start}") from None
    elif not isinstance(s, str):
        raise TypeError(
            f"the TOON document must be str, bytes or bytearray, not {type(s).__name__}"
        )
    return _native.loads(
        s,
        bool(strict),
        _indent(indent_size),
        None if parse_float is None else _FloatTokens(s, parse_float),
        parse_int,
        object_hook,
        object_pairs_hook,
    )


def load(
    fp: IO[str] | IO[bytes],
    *,
    strict: bool = True,
    indent_size: int = 2,
    parse_float: Callable[[str], Any] | None = None,
    parse_int: Callable[[str], Any] | None = None,
    object_hook: Callable[[dict[str, Any]], Any] | None = None,
    object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None,
) -> Any:
    """Deserialize a TOON document read from ``fp`` (text or binary; options of :func:`loads`)."""
    return loads(
        fp.read(),
        strict=strict,
        indent_size=indent_size,
        parse_float=parse_float,
        parse_int=parse_int,
        object_hook=object_hook,
        object_pairs_hook=object_pairs_hook,
    )


encode = dumps
"""Alias of :func:`dumps`."""

decode = loads
"""Alias of :func:`loads`."""
