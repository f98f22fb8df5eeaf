"""The text of a Claude Code settings file: parsed keeping number spellings, written in its own style.

install rewrites a file the user owns: what it does not change should read as the user wrote it
(indentation, line ends, the final newline, `\\u00e9` escapes, `1.50` and `1e3`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from cortex_hooks.errors import USAGE, CortexError
from cortex_hooks.install.wiring import UNTOUCHED


class Number(float):
    """A JSON number with a fraction or exponent, as the file spells it: written back the same."""

    text: str

    def __new__(cls, text: str) -> Number:
        number = super().__new__(cls, text)
        number.text = text
        return number

    def __copy__(self) -> Number:
        return self

    def __deepcopy__(self, memo: object) -> Number:
        return self


def parse(raw: bytes, path: str) -> object:
    """The JSON value of a settings file, or CortexError (exit 2) naming what is wrong."""
    try:
        return json.loads(raw.decode("utf-8"), parse_float=Number)
    except UnicodeDecodeError as error:
        problem = f"not UTF-8 (byte {error.start})"
    except json.JSONDecodeError as error:
        problem = f"{error.msg} at line {error.lineno} column {error.colno}"
    raise CortexError(f"{path} is not valid JSON ({problem}); {UNTOUCHED}", USAGE)


@dataclass(frozen=True)
class _Style:
    indent: str
    newline: str
    ascii: bool  # the file escapes non-ASCII (`\u00e9`) rather than writing it
    before: str  # whitespace around the value, kept as it was (a final newline or none)
    after: str

    @classmethod
    def of(cls, text: str | None) -> _Style:
        if text is None:  # a new file
            return cls("  ", "\n", False, "", "\n")
        return cls(
            indent=_indent(text),
            newline="\r\n" if "\r\n" in text else "\n",
            ascii=text.isascii() and "\\u" in text,
            before=text[: len(text) - len(text.lstrip())],
            after=text[len(text.rstrip()) :],
        )


def dumped(settings: Any, original: str | None) -> str:
    """The file text of `settings`, written in the style of the original text (None: a new file)."""
    style = _Style.of(original)
    return style.before + _render(settings, style, 0) + style.after


def _render(value: Any, style: _Style, depth: int) -> str:
    if isinstance(value, Number):
        return value.text
    if isinstance(value, dict) and value:
        items = [
            f"{_render(str(key), style, 0)}: {_render(item, style, depth + 1)}" for key, item in value.items()
        ]
        return _block("{", items, "}", style, depth)
    if isinstance(value, list) and value:
        return _block("[", [_render(item, style, depth + 1) for item in value], "]", style, depth)
    return json.dumps(value, ensure_ascii=style.ascii)  # a scalar, {} or []


def _block(start: str, items: list[str], end: str, style: _Style, depth: int) -> str:
    inner = style.newline + style.indent * (depth + 1)
    return start + inner + ("," + inner).join(items) + style.newline + style.indent * depth + end


def _indent(text: str) -> str:
    """The file's indentation unit: that of its first indented line (two spaces if none is)."""
    for line in text.splitlines()[1:]:
        stripped = line.lstrip(" \t")
        if stripped and stripped != line:
            return line[: len(line) - len(stripped)]
    return "  "
