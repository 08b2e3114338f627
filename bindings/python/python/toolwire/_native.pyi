"""Stubs of the native extension (``toolwire._native``); use the public modules instead."""

from collections.abc import Callable
from typing import Any

class Presenter:
    def __init__(
        self,
        json: str | bytes | bytearray,
        callbacks: list[tuple[str, str, Callable[[Any], Any]]] | None = None,
    ) -> None: ...
    @property
    def name(self) -> str: ...
    @property
    def select_enabled(self) -> bool: ...
    def select_names(self) -> list[str]: ...
    def input_schema_property(self) -> str | None: ...
    def output_schema(self, protocol: str, collection: bool) -> str: ...

class UiBlock:
    @staticmethod
    def markdown(text: str, title: str | None, width: str | None, priority: int | None) -> UiBlock: ...
    @staticmethod
    def summary(text: str, title: str | None, width: str | None, priority: int | None) -> UiBlock: ...
    @staticmethod
    def mermaid(diagram: str, title: str | None, width: str | None, priority: int | None) -> UiBlock: ...
    @staticmethod
    def code_block(
        lang: str, code: str, title: str | None, width: str | None, priority: int | None
    ) -> UiBlock: ...
    @staticmethod
    def list(items: list[str], title: str | None, width: str | None, priority: int | None) -> UiBlock: ...
    @staticmethod
    def table(
        headers: list[str],
        rows: list[list[Any]],
        title: str | None,
        width: str | None,
        priority: int | None,
    ) -> UiBlock: ...
    @staticmethod
    def json(value: Any, title: str | None, width: str | None, priority: int | None) -> UiBlock: ...
    @staticmethod
    def echarts(config: Any, title: str | None, width: str | None, priority: int | None) -> UiBlock: ...
    @property
    def type(self) -> str: ...
    @property
    def content(self) -> str: ...
    @property
    def title(self) -> str | None: ...
    @property
    def width(self) -> str | None: ...
    @property
    def priority(self) -> int | None: ...
    def text(self) -> str: ...

class SideDoor:
    def as_dict(self) -> dict[str, Any]: ...

def dumps(
    obj: Any,
    indent_size: int,
    delimiter: str,
    default: Callable[[Any], Any] | None,
    sort_keys: bool,
) -> str: ...
def encode_json(
    data: bytes | bytearray | memoryview | str, indent_size: int = 2, delimiter: str = ","
) -> str: ...
def loads(
    s: str,
    strict: bool,
    indent_size: int,
    parse_float: Callable[[str], Any] | None,
    parse_int: Callable[[str], Any] | None,
    object_hook: Callable[[dict[str, Any]], Any] | None,
    object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None,
) -> Any: ...
def present(
    data: Any,
    presenter: Presenter | None = None,
    *,
    select: Any = None,
    format: str | None = None,
    limit: int | None = None,
    token_budget: int | None = None,
    action: str | None = None,
    line: bool = False,
    structured: bool = False,
) -> tuple[list[str], bool | None, SideDoor, bytes | None, BaseException | None]: ...
def toon_description(
    tool_name: str,
    description: str,
    discriminator: str,
    actions: list[tuple[str, str, list[str], bool]],
) -> str: ...
def format_names() -> list[str]: ...
def handler_error(tool_action: str, message: str) -> tuple[str, bool | None]: ...
