"""The team file (docs/guide/team.md), pure: where it lives, how it is cut into lines within bounds, what a
line puts in a row, and what is in force before and after `team trust`.

`.claude/cortex-team.jsonl` is tracked in git and read by every clone, so what it says is not
taken on trust: until the person runs `cortex-hooks team trust` (which records the file's digest,
as direnv's `allow` does), its blocks and asks act as warnings and its rewrites do nothing; a
changed file needs trusting again. It only ever adds learnings of its own (rows of the project
database, pack `team`): a learning of the project or global scope is never changed by it.
"""

from __future__ import annotations

from cortex_hooks.location import TEAM_FOLDER, TEAM_NAME

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

PACK = "team"  # the `pack` of a team learning's row (no shipped pack has this name)
MAX_BYTES = 1 << 20  # read at most this much of the file (a 1,000-line file is ~400 KB)
MAX_LINES = 2_000  # and at most this many lines of it
MAX_SAID = 20  # problems named one by one; the rest counted
STRICTNESS = {"warn": 0, "ask": 1, "block": 2}
BOM = b"\xef\xbb\xbf"


def digest(data: bytes) -> str:
    """What says two texts are the same: a file's (trust) or a line's (read again only when new)."""
    import hashlib  # only where the file is read: PreToolUse imports this module for its name

    return hashlib.sha256(data).hexdigest()[:32]


class Line:
    """One line of the file as read: its number, its text (None: not UTF-8) and its digest."""

    __slots__ = ("digest", "number", "text")

    def __init__(self, number: int, text: str | None, line_digest: str) -> None:
        self.number = number
        self.text = text
        self.digest = line_digest


def lines(data: bytes, *, cut: bool) -> tuple[list[Line], list[str]]:
    """The file's non-blank lines (a BOM and CR line ends read past), at most MAX_LINES, and what
    was left unread; `cut`: the file was longer than MAX_BYTES (its last, partial line is dropped)."""
    said: list[str] = []
    if data.startswith(BOM):
        data = data[len(BOM) :]
    raw = data.split(b"\n")
    if cut:
        raw.pop()
        said.append(
            f"the file is larger than {MAX_BYTES:,} bytes: only its first {len(raw):,} lines were read"
        )
    found: list[Line] = []
    for number, ended in enumerate(raw, 1):
        line = ended.removesuffix(b"\r")
        if not line.strip():
            continue
        if len(found) == MAX_LINES:
            said.append(f"only the first {MAX_LINES:,} entries were read (line {number} and after were not)")
            break
        try:
            text: str | None = line.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        found.append(Line(number, text, digest(line)))
    return found, said


DECLARED = ("anti_pattern", "correct_pattern", "regex", "tool", "target", "severity", "context")


def declared(record: Mapping[str, Any]) -> dict[str, object]:
    """The columns a team learning's row takes from its line's values (its state is the person's)."""
    return {column: record[column] for column in DECLARED}


def memory_declared(record: Mapping[str, Any]) -> dict[str, object]:
    """The columns a team memory's row takes from its line's values."""
    import json

    from cortex_hooks.memory.given import summary_of

    return {
        "type": record["type"],
        "content": record["content"],
        "summary": summary_of(record["content"]),
        "tags": json.dumps(record["tags"], ensure_ascii=False),
    }


def in_force(action: str | None, rewrite: str | None, trusted: bool) -> tuple[str, str | None]:
    """What a team learning does now: as declared once the file is trusted; before, a warning
    (its block or ask) and no rewrite."""
    if trusted:
        return action or "warn", rewrite
    return "warn", None


def waiting(entries: list[tuple[str | None, str | None]]) -> dict[str, int]:
    """What trust would put in force, by what the entries (action, rewrite) declare: blocks, asks
    and rewrites that act as warnings (or nothing) until then."""
    counted = {"block": 0, "ask": 0, "rewrite": 0}
    for action, rewrite in entries:
        if action in ("block", "ask"):
            counted[action] += 1
        if rewrite is not None:
            counted["rewrite"] += 1
    return counted


def bounded(problems: list[str]) -> list[str]:
    """At most MAX_SAID problems, then how many more."""
    if len(problems) <= MAX_SAID:
        return problems
    return [*problems[:MAX_SAID], f"and {len(problems) - MAX_SAID} more problems (cortex-hooks team check)"]


def waiting_line(counted: dict[str, int]) -> str | None:
    """SessionStart's one line while the file waits to be trusted (None: nothing waits)."""
    acting = [
        f"{counted[name]} {plural if counted[name] != 1 else plural[:-1]}"
        for name, plural in (("block", "blocks"), ("ask", "asks"), ("rewrite", "rewrites"))
        if counted[name]
    ]
    if not acting:
        return None
    return (
        f"cortex-hooks: the team file {TEAM_FOLDER}/{TEAM_NAME} is not trusted here, so what it declares "
        f"({', '.join(acting)}) only warns: review it, then run `cortex-hooks team trust`."
    )
