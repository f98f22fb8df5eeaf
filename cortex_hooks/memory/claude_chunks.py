"""Claude Code's memory files cut into what recall returns, pure: an auto-memory topic
file (one fact, under a frontmatter) is one chunk; any other file (`MEMORY.md`, a `CLAUDE.md`, a
rule file) one chunk per heading's section, and the text before its first heading one more."""

from __future__ import annotations

import re

from cortex_hooks.frozen import Record

CHUNK = 4_000  # characters of one chunk at most: a longer section is cut at line ends
SUMMARY = 200
MAX_CHUNKS = 200  # per file: what lies beyond is not indexed
_HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_FIELD = re.compile(r"^([A-Za-z_][\w-]*):\s*(.*?)\s*$")


class Chunk(Record):
    line: int  # where it begins in the file, from 1
    summary: str
    content: str


def chunks(text: str) -> list[Chunk]:
    """The chunks of a file's text, in file order (none for a file with nothing but blanks)."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    fields, body = _frontmatter(lines)
    if fields is not None:
        return _topic(lines, fields, body)
    return _sections(lines, 0)[:MAX_CHUNKS]


def _frontmatter(lines: list[str]) -> tuple[dict[str, str] | None, int]:
    """The top-level fields of a `---` frontmatter, and the index of the first line after it;
    (None, 0) without one."""
    if not lines or lines[0].strip() != "---":
        return None, 0
    fields: dict[str, str] = {}
    for index in range(1, min(len(lines), 200)):
        if lines[index].strip() == "---":
            return fields, index + 1
        found = _FIELD.match(lines[index])
        if found and found.group(2):
            fields[found.group(1).lower()] = found.group(2).strip("'\"")
    return None, 0


def _topic(lines: list[str], fields: dict[str, str], body: int) -> list[Chunk]:
    """A topic file as one chunk: its description (else name) as the summary, its body as the
    content; the body's sections when it is too long for one."""
    text = "\n".join(lines[body:]).strip()
    summary = fields.get("description") or fields.get("name") or _first_line(text)
    if not text and not summary:
        return []
    if len(text) <= CHUNK:
        start = body + next((i for i, line in enumerate(lines[body:]) if line.strip()), 0)
        return [Chunk(start + 1, _cut(summary, SUMMARY), text or summary)]
    return [chunk._replace(summary=_cut(summary, SUMMARY)) for chunk in _sections(lines[body:], body)][
        :MAX_CHUNKS
    ]


def _sections(lines: list[str], offset: int) -> list[Chunk]:
    """One chunk per heading's section (headings inside fenced code are text), long ones cut."""
    found: list[Chunk] = []
    heading: str | None = None
    start = 0
    fence: str | None = None
    for index, line in enumerate(lines):
        marker = _FENCE.match(line)
        if marker:
            fence = None if fence and marker.group(1).startswith(fence) else fence or marker.group(1)[:3]
        match = _HEADING.match(line) if fence is None and not marker else None
        if match:
            found += _section(lines[start:index], heading, start + offset)
            heading, start = match.group(2), index + 1
    found += _section(lines[start:], heading, start + offset)
    return found


def _section(lines: list[str], heading: str | None, first: int) -> list[Chunk]:
    """A section's chunks: its text cut at line ends into pieces of at most CHUNK characters."""
    pieces: list[tuple[int, list[str]]] = []
    size = 0
    for index, whole in enumerate(lines):
        line = whole[:CHUNK]
        if not pieces or size + len(line) + 1 > CHUNK:
            pieces.append((index, []))
            size = 0
        pieces[-1][1].append(line)
        size += len(line) + 1
    found = []
    for index, piece in pieces:
        text = "\n".join(piece).strip()
        if not text:
            continue
        skipped = next(i for i, line in enumerate(piece) if line.strip())
        summary = heading or _first_line(text)
        found.append(Chunk(first + index + skipped + 1, _cut(summary, SUMMARY), text))
    if not found and heading:  # a heading alone still says something
        found.append(Chunk(first, _cut(heading, SUMMARY), heading))
    return found


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def _cut(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
