"""The tool calls of one transcript, as the agent asked for them, streamed and bounded.

Claude Code's transcript lines (the format capture reads, SPEC §10.2): an `assistant` line holds
`tool_use` blocks (`name`, `input`), with the line's `timestamp` and `sessionId`. A transcript is
what the agent sent, not what ran: a call a hook corrected is shown as the agent wrote it, and a
denied one is there too: replay judges what was asked.

Bounded, whatever the file: only a regular file is opened (never a FIFO or a device, see
regular_file), a line longer than MAX_LINE is passed over unread, and the reading stops at its
deadline; what was left out is said in `left`. A line cut off mid-way (a transcript still
being written, or truncated) is counted as unreadable, never fatal.

With `grams` (the prefilter keys of the learnings replayed, guard.prefilter, when every one of
them reads Bash commands and they are replayed alone, without the built-in protection), a line is
parsed only when it holds one of them: replaying one proposal reads only the calls its keys hit.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any, NamedTuple

from cortex_hooks import regular_file
from cortex_hooks.guard import matching, prefilter

MAX_LINE = 8 << 20  # bytes: a longer line (a Write of a huge file) is not read
_TOOL_USE = b'"tool_use"'
_BLOCK = b'"type":"tool_use"'  # one per call, in the compact JSON Claude Code writes
_STAMP = b'"timestamp":"'
# JSON escapes as guard.prefilter.loosen treats what they stand for: a quote, a backslash and
# whitespace are deleted, the rest kept (\u escapes are not worked out: such a line is parsed).
_ESCAPES = ((b'\\"', b""), (b"\\n", b""), (b"\\t", b""), (b"\\r", b""), (b"\\f", b""), (b"\\b", b"\x08"))
_LOOSENED = b"'\"\\$ \t\n\r\x0b\x0c\x00"


class Call(NamedTuple):
    """One tool call: its tool and input, when and in which session it was asked, the folder the
    agent worked in (the line's `cwd`: the built-in protection's base), and where it was read."""

    tool: str
    input: dict[str, Any]
    at: str  # the line's timestamp ("" when it has none)
    session: str
    path: str
    line: int
    cwd: str | None = None


class Grams:
    """The loosened prefilter grams a line must hold one of (folded ones in lower case)."""

    __slots__ = ("exact", "folded")

    def __init__(self, exact: list[bytes], folded: list[bytes]) -> None:
        self.exact = exact
        self.folded = folded

    def held(self, line: bytes) -> bool:
        """Whether the line may hold a command with one of the grams (never a false no)."""
        loose = loosened(line)
        if loose is None:
            return True
        if any(gram in loose for gram in self.exact):
            return True
        if self.folded:
            lowered = loose.lower()
            return any(gram in lowered for gram in self.folded)
        return False


def grams(learnings: list[tuple[str, str, list[str]]]) -> Grams | None:
    """The grams a transcript line must hold one of for a call in it to matter to these learnings
    ((tool matcher, target, prefilter keys) each); None when a line cannot be passed over unread:
    a learning of another tool than Bash reads every call, and so does a `*` key, a folded gram
    that is not ASCII, or so many grams that nearly every line holds one. (The built-in
    protection reads every call: a replay with it has no grams.)"""
    exact: set[str] = set()
    folded: set[str] = set()
    for tool, target, keys in learnings:
        if tool != matching.READ_TOOL or target not in ("content", "raw"):
            return None
        for key in keys:
            if key[0] != prefilter.LOOSE:
                continue
            gram = key[2:]
            if key[1] == "*" or not gram or (key[1] == "~" and not gram.isascii()):
                return None
            (folded if key[1] == "~" else exact).add(gram)
    if len(exact) + len(folded) > 64:
        return None  # so many that nearly every line holds one: parse them all
    return Grams([gram.encode() for gram in sorted(exact)], [gram.encode() for gram in sorted(folded)])


def loosened(line: bytes) -> bytes | None:
    """A raw JSON line as guard.prefilter.loosen would leave the strings in it once decoded, or
    None when it cannot tell (a \\u escape). Escaped backslashes go first, pair by pair as a
    JSON reader pairs them, so every backslash left starts one escape."""
    text = line.replace(b"\\\\", b"")
    if b"\\u" in text:
        return None
    for escape, meaning in _ESCAPES:
        text = text.replace(escape, meaning)
    return text.translate(None, _LOOSENED)


class Left:
    """What a reading left out: its problems (path, what), and the calls it passed over unread
    (their lines hold none of the grams; counted by their `tool_use` blocks, in the window)."""

    __slots__ = ("passed", "problems")

    def __init__(self) -> None:
        self.problems: list[tuple[str, str]] = []
        self.passed = 0


def read(path: str, *, deadline: float, since: str | None, grams: Grams | None, left: Left) -> Iterator[Call]:
    """The tool calls of the transcript at `path` (at or after `since`, an ISO instant), one by
    one, read until the end or the deadline (monotonic clock); what was left out is said in
    `left`. OSError when the file cannot be opened (raised at the first call asked for). A Codex
    rollout or a Gemini chat gives its calls as Claude Code's (capture.agent_transcripts)."""
    from cortex_hooks.capture import agent_transcripts

    kind = agent_transcripts.format_of(path)
    if kind != agent_transcripts.CLAUDE:
        return _agent_calls(path, kind, deadline, since, left)
    return _claude_calls(path, deadline, since, grams, left)


def _claude_calls(
    path: str, deadline: float, since: str | None, grams: Grams | None, left: Left
) -> Iterator[Call]:
    problems = left.problems
    unreadable = overlong = 0
    number = 0
    with regular_file.open_regular(path) as stream:
        while True:
            if time.monotonic() >= deadline:
                problems.append((path, f"read to line {number:,} within its deadline; the rest skipped"))
                break
            line = stream.readline(MAX_LINE + 1)
            if not line:
                break
            number += 1
            if len(line) > MAX_LINE and not line.endswith(b"\n"):
                overlong += 1
                if not _skip_rest(stream, deadline):
                    problems.append((path, f"line {number:,} is over {MAX_LINE >> 20} MiB and was cut short"))
                    break
                continue
            if not line.endswith(b"\n") and not _complete(line):
                problems.append((path, f"line {number:,}, its last, is cut off mid-way: not read"))
                break
            if _TOOL_USE not in line:
                continue
            if grams is not None and not grams.held(line):
                if since is None or _stamp(line) >= since.encode():
                    left.passed += line.count(_BLOCK)
                continue
            try:
                record = json.loads(line)
            except (ValueError, RecursionError):
                unreadable += 1
                continue
            yield from _calls(record, since, path, number)
    if unreadable:
        problems.append((path, f"{unreadable:,} unreadable line{'s' if unreadable > 1 else ''} skipped"))
    if overlong:
        problems.append(
            (path, f"{overlong:,} line{'s' if overlong > 1 else ''} over {MAX_LINE >> 20} MiB skipped")
        )


def _agent_calls(path: str, kind: str, deadline: float, since: str | None, left: Left) -> Iterator[Call]:
    """Another agent's transcript, line by line, its calls read as Claude Code's records."""
    from cortex_hooks.capture import agent_transcripts

    state = agent_transcripts.state_for(path, kind)
    unreadable = number = 0
    with regular_file.open_regular(path) as stream:
        while time.monotonic() < deadline:
            line = stream.readline(MAX_LINE + 1)
            if not line:
                break
            number += 1
            if len(line) > MAX_LINE and not line.endswith(b"\n"):
                if not _skip_rest(stream, deadline):
                    break
                continue
            try:
                record = json.loads(line)
            except (ValueError, RecursionError):
                unreadable += 1
                continue
            for each in agent_transcripts.records(record, kind, state) if isinstance(record, dict) else ():
                yield from _calls(each, since, path, number)
    if unreadable:
        left.problems.append((path, f"{unreadable:,} unreadable line{'s' if unreadable > 1 else ''} skipped"))


def _complete(line: bytes) -> bool:
    """Whether a last line without its newline is whole JSON (a transcript cut off mid-line, or
    still being written, is not)."""
    try:
        json.loads(line)
    except (ValueError, RecursionError):
        return False
    return True


def _stamp(line: bytes) -> bytes:
    """A line's timestamp, read without parsing it (b"" when it has none)."""
    start = line.find(_STAMP)
    if start < 0:
        return b""
    start += len(_STAMP)
    return line[start : line.find(b'"', start)]


def _skip_rest(stream: Any, deadline: float) -> bool:
    """Pass over the rest of an over-long line; False when the file ended or the deadline came
    before its end."""
    while time.monotonic() < deadline:
        chunk = stream.readline(MAX_LINE)
        if not chunk:
            return False
        if chunk.endswith(b"\n"):
            return True
    return False


def _calls(record: Any, since: str | None, path: str, number: int) -> list[Call]:
    if not isinstance(record, dict) or record.get("type") != "assistant":
        return []
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list):
        return []
    at = record.get("timestamp")
    at = at if isinstance(at, str) else ""
    if since is not None and at < since:
        return []
    session = record.get("sessionId")
    session = session if isinstance(session, str) else ""
    cwd = record.get("cwd")
    cwd = cwd if isinstance(cwd, str) else None
    return [
        Call(block["name"], block["input"], at, session, path, number, cwd)
        for block in content
        if isinstance(block, dict)
        and block.get("type") == "tool_use"
        and isinstance(block.get("name"), str)
        and isinstance(block.get("input"), dict)
    ]
