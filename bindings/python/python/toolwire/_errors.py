"""Exceptions of toolwire: ``ValueError`` subclasses with the engine's category and position."""

from __future__ import annotations

__all__ = ["PresenterError", "ToolwireError", "ToonDecodeError"]


class ToolwireError(ValueError):
    """Malformed input or data that cannot be encoded, as the engine reports it.

    Attributes:
        msg: The message, without position.
        category: The engine's category (``"syntax"``, ``"eof"``, ``"utf8"``, ``"number"``,
            ``"depth"``, ``"limit"``, ``"count"``, ``"indent"``, ``"encode"``, ``"io"``).
        line, column: 1-based position in the input (``None`` when not about input).
        offset: 0-based byte offset in the input (``None`` when not about input).
    """

    msg: str
    category: str
    line: int | None
    column: int | None
    offset: int | None

    def __init__(
        self,
        msg: str,
        category: str = "syntax",
        line: int | None = None,
        column: int | None = None,
        offset: int | None = None,
    ) -> None:
        self.msg = msg
        self.category = category
        self.line = line
        self.column = column
        self.offset = offset
        super().__init__(f"{line}:{column}: {msg}" if line is not None else msg)

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return type(self), (self.msg, self.category, self.line, self.column, self.offset)


class PresenterError(ValueError):
    """A presenter file is invalid: ``path`` names the key (``ui.collection[0].table``),
    ``line``/``column`` the position when it is not JSON."""

    def __init__(
        self,
        msg: str,
        path: str = "",
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        self.msg = msg
        self.path = path
        self.line = line
        self.column = column
        super().__init__(msg)

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return type(self), (self.msg, self.path, self.line, self.column)


class ToonDecodeError(ValueError):
    """A TOON document cannot be decoded (``toon_format.ToonDecodeError``'s shape).

    Attributes:
        msg: The message without the line.
        line: 1-based line of the problem, or ``None``.
        source: That line as written, or ``None``.
    """

    msg: str
    line: int | None
    source: str | None

    def __init__(
        self, msg: str, line: int | None = None, source: str | None = None
    ) -> None:
        self.msg = msg
        self.line = line
        self.source = source
        super().__init__(f"line {line}: {msg}" if line is not None else msg)

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return type(self), (self.msg, self.line, self.source)
