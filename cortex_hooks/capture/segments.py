"""Shell command lines cut into segments (at `&&`, `||`, `;`, `|`) and words, quote-aware."""

from __future__ import annotations

import re

OPERATORS = ("&&", "||", ";", "|")


def split(command: str) -> list[str]:
    """The segments of a command line, stripped, operators dropped; quotes and backslashes
    respected (an operator inside quotes is text). A newline also ends a segment."""
    segments: list[str] = []
    current: list[str] = []
    quote: str | None = None
    index = 0
    while index < len(command):
        char = command[index]
        if quote is not None:
            current.append(char)
            if char == quote:
                quote = None
            elif char == "\\" and quote == '"' and index + 1 < len(command):
                current.append(command[index + 1])
                index += 1
        elif char == "\\" and index + 1 < len(command):
            current.append(command[index : index + 2])
            index += 1
        elif char in "'\"":
            quote = char
            current.append(char)
        elif char in ";|\n" or command.startswith("&&", index):
            segments.append("".join(current).strip())
            current = []
            if command.startswith(("&&", "||"), index):
                index += 1
        else:
            current.append(char)
        index += 1
    segments.append("".join(current).strip())
    return [segment for segment in segments if segment]


def words(segment: str) -> list[str]:
    """The words of one segment as written (quotes kept): what a person reads and a regex matches."""
    found: list[str] = []
    current: list[str] = []
    quote: str | None = None
    for char in segment:
        if quote is not None:
            current.append(char)
            if char == quote:
                quote = None
        elif char in "'\"":
            quote = char
            current.append(char)
        elif char.isspace():
            if current:
                found.append("".join(current))
                current = []
        else:
            current.append(char)
    if current:
        found.append("".join(current))
    return found


_ASSIGNMENT = re.compile(r"[A-Za-z_]\w*=")


def assignments(words: list[str]) -> int:
    """How many of a segment's first words set variables for its command (`PGPASSWORD=… psql`):
    the command word comes after them."""
    count = 0
    while count < len(words) - 1 and _ASSIGNMENT.match(words[count]):
        count += 1
    return count
