"""JSON values of any depth: read, walked and written without recursion.

The standard library's parser and encoder recurse once per level and stop at the interpreter's
recursion limit (about 1,000): a hook payload with a key nested 1,000 deep in a field no decision
reads would make the hook fail, and let the tool call through (docs/guide/selfguard.md). Here the fast C code
does the work as long as it can; past its limit an explicit stack takes over, so depth costs
time in proportion to the text and never a RecursionError.
"""

from __future__ import annotations

import json
import json.decoder
import re
from collections.abc import Callable, Iterator

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# the C string scanner json.loads uses (not in the type stubs): a string at any depth is read fast
scanstring: Callable[[str, int], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]

_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?")
_SPACE = re.compile(r"[ \t\n\r]*")
# as json.loads reads them, NaN and the infinities included (before numbers: "-Infinity")
_LITERALS = {
    "true": True,
    "false": False,
    "null": None,
    "NaN": float("nan"),
    "Infinity": float("inf"),
    "-Infinity": float("-inf"),
}
_COMPACT: dict[str, Any] = {"separators": (",", ":"), "ensure_ascii": False}


def loads(text: str) -> Any:
    """The value of a JSON text, as json.loads gives it, at any depth; ValueError (a
    json.JSONDecodeError) when the text is not JSON."""
    try:
        return json.loads(text)
    except RecursionError:
        return _parse(text)


def compact(value: Any) -> str:
    """The compact JSON of a value (`,` and `:` without spaces, non-ASCII kept), at any depth."""
    try:
        return json.dumps(value, **_COMPACT)
    except RecursionError:
        return "".join(_pieces(value))


def strings(value: Any) -> Iterator[str]:
    """Every string in a parsed JSON value, keys included, at any depth."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            for key, inner in item.items():
                yield key
                stack.append(inner)
        elif isinstance(item, list):
            stack.extend(item)


def storable(value: object) -> bool:
    """Whether every string in a value (a parsed JSON value, say, at any depth) can be stored and
    shown: JSON escapes and command-line bytes can make lone surrogates, which UTF-8 cannot
    encode."""
    try:
        for text in strings(value):
            text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def map_strings(value: Any, change: Callable[[str], str]) -> Any:
    """The value with `change` applied to every string in it, keys included, at any depth.
    Containers are changed in place (a dict whose keys change is rebuilt in its order)."""
    if isinstance(value, str):
        return change(value)
    stack = [value] if isinstance(value, (dict, list)) else []
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            for index, inner in enumerate(item):
                if isinstance(inner, str):
                    item[index] = change(inner)
                elif isinstance(inner, (dict, list)):
                    stack.append(inner)
            continue
        pairs = list(item.items())
        if any(change(key) != key for key, _ in pairs):
            item.clear()
        for key, inner in pairs:
            if isinstance(inner, (dict, list)):
                stack.append(inner)
            item[change(key)] = change(inner) if isinstance(inner, str) else inner
    return value


def _parse(text: str) -> Any:
    """json.loads with a stack of open containers instead of the call stack."""
    stack: list[list[Any]] = []  # [container, the key awaiting its value in a dict]
    position = _skip(text, 0)
    while True:
        value, position, opened = _value(text, position)
        if opened is not None:
            stack.append([opened, None])
            position = _skip(text, position)
            if not text.startswith("}" if isinstance(opened, dict) else "]", position):
                if isinstance(opened, dict):
                    stack[-1][1], position = _key(text, position)
                continue  # on to the container's first value
            value, position = stack.pop()[0], position + 1  # empty
        # a value is complete: put it in its container, and close each container it completes
        while stack:
            container, key = stack[-1]
            if key is None:
                container.append(value)
            else:
                container[key] = value
            position = _skip(text, position)
            if text.startswith(",", position):
                position = _skip(text, position + 1)
                if isinstance(container, dict):
                    stack[-1][1], position = _key(text, position)
                break
            closer = "}" if isinstance(container, dict) else "]"
            if not text.startswith(closer, position):
                raise json.JSONDecodeError(f"Expecting ',' delimiter or {closer!r}", text, position)
            value, position = stack.pop()[0], position + 1
        else:
            end = _skip(text, position)
            if end != len(text):
                raise json.JSONDecodeError("Extra data", text, end)
            return value


def _skip(text: str, position: int) -> int:
    """The position after the JSON whitespace at `position`."""
    return _SPACE.match(text, position).end()  # type: ignore[union-attr]


def _key(text: str, position: int) -> tuple[str, int]:
    """A dict's key and the position after its `:`."""
    if not text.startswith('"', position):
        raise json.JSONDecodeError("Expecting property name enclosed in double quotes", text, position)
    key, position = scanstring(text, position + 1)
    position = _skip(text, position)
    if not text.startswith(":", position):
        raise json.JSONDecodeError("Expecting ':' delimiter", text, position)
    return key, _skip(text, position + 1)


def _value(text: str, position: int) -> tuple[Any, int, dict[str, Any] | list[Any] | None]:
    """A scalar and the position after it, or a container just opened (third item)."""
    char = text[position : position + 1]
    if char == "{":
        return None, position + 1, {}
    if char == "[":
        return None, position + 1, []
    if char == '"':
        found, end = scanstring(text, position + 1)
        return found, end, None
    for word, literal in _LITERALS.items():
        if text.startswith(word, position):
            return literal, position + len(word), None
    number = _NUMBER.match(text, position)
    if number is None:
        raise json.JSONDecodeError("Expecting value", text, position)
    whole = number.group(0)
    value = float(whole) if number.group(1) or number.group(2) else int(whole)
    return value, number.end(), None


def _pieces(value: Any) -> Iterator[str]:
    """The compact JSON of a value, piece by piece, from a stack of what is left to write."""
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, _Raw):
            yield item
        elif isinstance(item, dict):
            stack.append(_Raw("}"))
            for index, (key, inner) in enumerate(reversed(item.items())):
                stack.append(inner)
                separator = "," if index < len(item) - 1 else ""
                stack.append(_Raw(separator + json.dumps(str(key), ensure_ascii=False) + ":"))
            yield "{"
        elif isinstance(item, list):
            stack.append(_Raw("]"))
            for index, inner in enumerate(reversed(item)):
                stack.append(inner)
                if index < len(item) - 1:
                    stack.append(_Raw(","))
            yield "["
        else:
            yield json.dumps(item, **_COMPACT)


class _Raw(str):
    """JSON text already written (a bracket, a separator, a key): emitted as it is."""
