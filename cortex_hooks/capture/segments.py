"""Shell command lines cut into segments and words: the segments are the simple commands the
command reader reads (guard.shell.reader, SPEC §13) — the one reader PreToolUse matches with."""

from __future__ import annotations

import re


def split(command: str) -> list[str]:
    """The segments of a command line: its simple commands as the shell runs them (split at
    `&&`, `||`, `;`, `|`, newlines and inside `$( )`, wrappers removed, words as written)."""
    from cortex_hooks.guard.shell import reader

    reading = reader.read(command)
    return [
        simple.text
        for simple in reading.commands
        if simple.depth == 0 and not (simple.wrapped or simple.pipeline or simple.fed)
    ]


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
