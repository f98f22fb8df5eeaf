"""The line of the project's `CLAUDE.local.md` that makes Claude Code read the push surface, pure.

Claude Code (2.1.197) does not load `.claude/*.local.md` files by itself; it follows `@path`
imports in `CLAUDE.local.md` (docs/guide/surface.md). `install` adds the line once, `uninstall` takes away
exactly what install added, so the rest of the file keeps its bytes:

- a file that ends with a line end gets `LINE` and a line end; one that does not gets a line end
  and `LINE` (no line end after it, as the file had none);
- removal takes the line with its line end, or, for a last line without one, the line end
  before it; a file left empty by the removal holds nothing of the user's, and is removed.
"""

from __future__ import annotations

import os

LINE = "@.claude/cortex-memory.local.md"
FILENAME = "CLAUDE.local.md"
SURFACE = os.path.join(".claude", "cortex-memory.local.md")  # the file the line imports
START = "<!-- CORTEX:START -->"  # our block in that file lies between these (api.surface_file)
END = "<!-- CORTEX:END -->"
MAX_BYTES = 1024 * 1024  # of CLAUDE.local.md read to find the line


def path_in(project: str) -> str:
    return os.path.join(project, FILENAME)


def wanted(project: str) -> bool:
    """Whether SessionEnd keeps a surface here: there is one already, or CLAUDE.local.md imports it
    (install or `cortex-hooks surface` asked for it). A user-scope install runs SessionEnd in
    every project the user opens; none of them gets a file it did not ask for."""
    return os.path.lexists(os.path.join(project, SURFACE)) or imported(project)


def imported(project: str) -> bool:
    """Whether the project's CLAUDE.local.md imports the surface (read only as a regular file:
    a FIFO there must not hold SessionEnd)."""
    from cortex_hooks import regular_file

    try:
        content = regular_file.read_small(path_in(project), MAX_BYTES)
    except (OSError, ValueError):
        return False
    return imports(content)


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def _ours(line: str) -> bool:
    return line.rstrip("\r\n").strip() == LINE


def imports(content: bytes | None) -> bool:
    """Whether the file already imports the surface."""
    return content is not None and any(_ours(line) for line in _lines(content.decode("utf-8", "replace")))


def added(content: bytes | None) -> str:
    """The file with the import line (unchanged when it has one)."""
    if content is None or not content:
        return LINE + "\n"
    text = content.decode("utf-8")
    if imports(content):
        return text
    first = text.find("\n")
    newline = "\r\n" if first > 0 and text[first - 1] == "\r" else "\n"
    return text + LINE + newline if text.endswith("\n") else text + newline + LINE


def removed(content: bytes) -> str | None:
    """The file without our import line; None when nothing would be left of it."""
    lines = _lines(content.decode("utf-8"))
    kept: list[str] = []
    for index, line in enumerate(lines):
        if not _ours(line):
            kept.append(line)
        elif index == len(lines) - 1 and not line.endswith("\n") and kept:
            kept[-1] = kept[-1].rstrip("\r\n")  # install put that line end before the line
    text = "".join(kept)
    return text or None


def without_block(content: bytes) -> str | None:
    """The surface file without our block and the line end after it (uninstall); None when
    nothing but blank lines would be left of it. A file whose markers do not pair is not ours to
    cut: it is returned as it is."""
    text = content.decode("utf-8")
    if text.count(START) != 1 or text.count(END) != 1 or text.index(START) > text.index(END):
        return text
    head, rest = text.split(START)
    tail = rest.split(END)[1]
    tail = tail[2:] if tail.startswith("\r\n") else tail[1:] if tail.startswith("\n") else tail
    if head.endswith(("\n\n", "\r\n\r\n")) and not tail:  # the blank line put before an appended block
        head = head[: -2 if head.endswith("\r\n") else -1]
    left = head + tail
    return left if left.strip() else None
