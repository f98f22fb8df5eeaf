"""The tool calls of one transcript, as the agent asked for them, with their results: what replay
and SessionEnd's outcomes read, streamed and bounded by transcripts.source.

Claude Code's transcript lines (docs/guide/capture.md): an `assistant` line holds `tool_use`
blocks (`name`, `input`), with the line's `timestamp` and `sessionId`. A transcript is what the
agent sent, not what ran: a call a hook corrected is shown as the agent wrote it, and a denied
one is there too: replay judges what was asked. What was left out is said in `left`.

With `grams` (the prefilter keys of the learnings replayed, guard.prefilter, when every one of
them reads Bash commands and they are replayed alone, without the built-in protection), a line is
parsed only when it holds one of them: replaying one proposal reads only the calls its keys hit.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

from cortex_hooks.frozen import Record
from cortex_hooks.guard import matching, prefilter
from cortex_hooks.transcripts import formats, source
from cortex_hooks.transcripts.source import MAX_LINE, Left

__all__ = ["MAX_LINE", "Call", "Grams", "Left", "Result", "grams", "read", "scan"]
_TOOL_USE = b'"tool_use"'
_TOOL_RESULT = b'"tool_result"'
_RESULT_ID = formats.RESULT_ID
_ERROR = formats.FAILED
_COMMAND = re.compile(rb'"command"\s*:\s*"((?:[^"\\]|\\.)*)"')  # a tool input's command, as written
_BLOCK = b'"type":"tool_use"'  # one per call, in the compact JSON Claude Code writes
_STAMP = b'"timestamp":"'


class Call(Record):
    """One tool call: its tool and input, when and in which session it was asked, the folder the
    agent worked in (the line's `cwd`: the built-in protection's base), and where it was read
    (the line's number, and its byte offset); its id (`tool_use` id, what its result names)."""

    tool: str
    input: dict[str, Any]
    at: str  # the line's timestamp ("" when it has none)
    session: str
    path: str
    line: int
    cwd: str | None = None
    id: str = ""
    offset: int = 0


class Result(Record):
    """A tool call's result (read with `results`): the id of the call it answers, whether it is
    an error, the head of its text (of an error only: what a refusal says), where it was read."""

    id: str
    error: bool
    text: str
    line: int
    offset: int


class Grams:
    """The loosened prefilter grams a line must hold one of (folded ones in lower case); with
    `commands`, in one of its commands (a `command` string of a tool's input): a short gram such
    as a program's name then never meets the line's other fields (`gitBranch`, `cwd`)."""

    __slots__ = ("commands", "exact", "folded")

    def __init__(self, exact: list[bytes], folded: list[bytes], *, commands: bool = False) -> None:
        self.exact = exact
        self.folded = folded
        self.commands = commands

    def held(self, line: bytes) -> bool:
        """Whether the line may hold a command with one of the grams (never a false no)."""
        if self.commands:
            return any(self.in_command(found.group(1)) for found in _COMMAND.finditer(line))
        return self._holds(line)

    def in_command(self, written: bytes) -> bool:
        """Whether a command, as a JSON string's bytes (escapes and all), may hold a gram."""
        return self._holds(b'"' + written + b'"')

    def _holds(self, text: bytes) -> bool:
        loose = prefilter.loosen_json(text)
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
        found = prefilter.line_grams(keys)
        if tool != matching.READ_TOOL or target not in ("content", "raw") or found is None:
            return None
        exact |= found[0]
        folded |= found[1]
    if len(exact) + len(folded) > 64:
        return None  # so many that nearly every line holds one: parse them all
    return Grams([gram.encode() for gram in sorted(exact)], [gram.encode() for gram in sorted(folded)])


def read(
    path: str,
    *,
    deadline: float,
    since: str | None,
    grams: Grams | None,
    left: Left,
    start: int = 0,
    after: int = 0,
    results: bool | Callable[[str], bool] = False,
    body: Callable[[bytes], None] | None = None,
    head: Callable[[bytes], None] | None = None,
) -> Iterator[Call | Result]:
    """The tool calls of the transcript at `path` (at or after `since`, an ISO instant), one by
    one, of the lines from byte `after` on, read from byte `start` (a line's start) until the end
    or the deadline (monotonic clock); what was left out is said in `left`. With `results`, each
    call's result too, in the order they were written (what became of each call:
    docs/guide/outcomes.md); `results` may be a test of a call's id: then only the results it
    wants. `body` and `head` are given the bytes read (source.lines), for a second reader of the
    same pass. OSError when the file cannot be opened (raised at the first item asked for). A
    Codex rollout or a Gemini chat gives its calls and results as Claude Code's
    (transcripts.formats)."""
    if formats.format_of(path) != formats.CLAUDE:
        yield from _agent_calls(
            path, deadline=deadline, since=since, left=left, start=max(start, after), results=results
        )
        return
    wanted = results if callable(results) else None
    unreadable = 0
    for number, at, line in source.lines(
        path, start=start, deadline=deadline, left=left, body=body, head=head
    ):
        if at < after:
            continue
        if _TOOL_USE not in line:
            if results and _TOOL_RESULT in line:
                yield from _results(line, number, at, wanted)
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
        yield from _calls(record, since, path, number, at)
    if unreadable:
        left.problems.append((path, f"{unreadable:,} unreadable line{'s' if unreadable > 1 else ''} skipped"))


def scan(
    path: str,
    *,
    deadline: float,
    grams: Grams,
    wanted: Callable[[str], bool],
    left: Left,
    start: int = 0,
    after: int = 0,
    body: Callable[[bytes], None] | None = None,
    head: Callable[[bytes], None] | None = None,
) -> Iterator[Call | Result]:
    """A quicker `read` for a few calls that matter (SessionEnd's outcomes): the calls of the
    lines where a command holds one of the `grams` (Bash calls: `grams.commands`), and the results
    `wanted`, in the order they were written, from byte `start`; of the lines before byte `after`
    none (the bytes are read from `start` for `body`, a second reader of the same pass). The file
    is read a block at a time and a line is looked at only where one of its commands or result
    ids is: a 100 MB transcript costs a few byte searches, not a hundred thousand lines of
    Python. Bounded as `read`."""
    for base, number, whole in source.blocks(path, start=start, deadline=deadline, left=left, head=head):
        if body is not None:
            body(whole)
        if base + len(whole) <= after:
            continue
        yield from _scanned(whole, base, number, grams=grams, wanted=wanted, path=path, after=after)


_KEYS = (b'"command"', b'"tool_use_id"')


def _scanned(
    body: bytes,
    base: int,
    number: int,
    *,
    grams: Grams,
    wanted: Callable[[str], bool],
    path: str,
    after: int,
) -> Iterator[Call | Result]:
    """The calls and results of whole lines (`body`, at byte `base`, after `number` lines) that
    matter: each line where a command or a result id is found, looked at once, in order."""
    found: list[int] = []
    for key in _KEYS:
        position = body.find(key)
        while position >= 0:
            found.append(position)
            position = body.find(key, position + len(key))
    found.sort()
    done = -1
    counted_to, counted = 0, number  # lines before `counted_to`, counted as the positions go on
    for position in found:
        # the cheap tests first: most commands hold no gram, most results are not wanted
        if body.startswith(b'"command"', position):
            command = _COMMAND.match(body, position)
            if command is None or not grams.in_command(command.group(1)):
                continue
            wants, kind = _TOOL_USE, "calls"
        else:
            result = _RESULT_ID.match(body, position)
            if result is None or not wanted(result.group(1).decode("utf-8", "replace")):
                continue
            wants, kind = _TOOL_RESULT, "results"
        begins, line = source.line_at(body, position)
        if begins == done or wants not in line or base + begins < after:
            continue
        done = begins
        counted += body.count(b"\n", counted_to, begins)
        counted_to = begins
        if kind == "results":
            yield from _results(line, counted + 1, base + begins, wanted)
            continue
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):
            continue
        yield from _calls(record, None, path, counted + 1, base + begins)


def _agent_calls(
    path: str,
    *,
    deadline: float,
    since: str | None,
    left: Left,
    start: int,
    results: bool | Callable[[str], bool],
) -> Iterator[Call | Result]:
    """Another agent's transcript, its records read as Claude Code's (transcripts.formats)."""
    wanted = results if callable(results) else None
    for number, at, record in formats.read(path, start=start, deadline=deadline, left=left):
        if record.get("type") == "assistant":
            yield from _calls(record, since, path, number, at)
        elif results:
            yield from _record_results(record, number, at, wanted)


def _stamp(line: bytes) -> bytes:
    """A line's timestamp, read without parsing it (b"" when it has none)."""
    start = line.find(_STAMP)
    if start < 0:
        return b""
    start += len(_STAMP)
    return line[start : line.find(b'"', start)]


def _results(line: bytes, number: int, at: int, wanted: Callable[[str], bool] | None) -> list[Result]:
    """The results a line holds (those `wanted`, when it is given). Most are a success and the
    largest lines of a transcript (a file read, a command's output): their ids are read from the
    bytes, never parsed; an error's line is parsed for its text (a refusal says who refused)."""
    ids = [found.group(1).decode("utf-8", "replace") for found in _RESULT_ID.finditer(line)]
    if wanted is not None and not any(wanted(call_id) for call_id in ids):
        return []
    if _ERROR.search(line) is None:
        return [Result(call_id, False, "", number, at) for call_id in ids]
    try:
        record = json.loads(line)
    except (ValueError, RecursionError):
        return []
    return _record_results(record, number, at, None)


def _record_results(record: Any, number: int, at: int, wanted: Callable[[str], bool] | None) -> list[Result]:
    """The results a parsed record holds (those `wanted`, when it is given)."""
    message = record.get("message") if isinstance(record, dict) else None
    content = message.get("content") if isinstance(message, dict) else None
    found = []
    for block in content if isinstance(content, list) else ():
        if not isinstance(block, dict) or block.get("type") != "tool_result":
            continue
        call_id = block.get("tool_use_id")
        if isinstance(call_id, str) and (wanted is None or wanted(call_id)):
            error = block.get("is_error") is True
            found.append(
                Result(
                    call_id,
                    error,
                    formats.result_text(block.get("content"))[:2000] if error else "",
                    number,
                    at,
                )
            )
    return found


def _calls(record: Any, since: str | None, path: str, number: int, at: int = 0) -> list[Call]:
    if not isinstance(record, dict) or record.get("type") != "assistant":
        return []
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list):
        return []
    stamp = record.get("timestamp")
    stamp = stamp if isinstance(stamp, str) else ""
    if since is not None and stamp < since:
        return []
    session = record.get("sessionId")
    session = session if isinstance(session, str) else ""
    cwd = record.get("cwd")
    cwd = cwd if isinstance(cwd, str) else None
    return [
        Call(block["name"], block["input"], stamp, session, path, number, cwd, _id(block), at)
        for block in content
        if isinstance(block, dict)
        and block.get("type") == "tool_use"
        and isinstance(block.get("name"), str)
        and isinstance(block.get("input"), dict)
    ]


def _id(block: dict[str, Any]) -> str:
    call_id = block.get("id")
    return call_id if isinstance(call_id, str) else ""
