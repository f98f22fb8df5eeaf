"""A session's summary from its transcript: the first user prompt and the files changed.

Transcripts grow to hundreds of megabytes and SessionEnd has a small time budget, so the file is
read a block at a time (transcripts.source) and only the lines where a byte search finds what can
matter are parsed: the first prompt, a Write or Edit call, a failed result. A `Summarizer` can
also be fed the blocks another reader reads (SessionEnd's outcomes), so that the transcript is
read once.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

from cortex_hooks.transcripts import formats, source

SUMMARY_LENGTH = 200
REDACTED_WINDOW = 8_000  # of a longer prompt only this much is redacted: far more than is kept
MAX_CHANGES = 50

_TOOLS = ("Write", "Edit", "MultiEdit", "NotebookEdit")
_TOOL_MARKERS = tuple(f'"{tool}"'.encode() for tool in _TOOLS)
# Claude Code writes compact JSON; these byte patterns also accept the spaces other writers put
# after `:` and `,`, so a transcript written by json.dumps with its defaults is read the same.
_RAW_CHANGE = re.compile(
    rb'"type"\s*:\s*"tool_use"\s*,\s*"id"\s*:\s*"([^"]*)"\s*,\s*"name"\s*:\s*"('
    + "|".join(_TOOLS).encode()
    + rb')"\s*,\s*"input"\s*:\s*\{'
)
_RAW_PATH = re.compile(rb'"(?:file_path|notebook_path)"\s*:\s*"((?:[^"\\]|\\.)*)"')
_FAILED = formats.FAILED
_USER = b'"user"'
_RESULT_ID = formats.RESULT_ID


class Summary:
    __slots__ = ("key_changes", "summary")

    def __init__(self, summary: str | None, key_changes: list[dict[str, str]]) -> None:
        self.summary = summary
        self.key_changes = key_changes


class Summarizer:
    """A summary gathered from the blocks of whole lines of a Claude Code transcript, in order
    (`body`), and the heads of lines too long to read (`head`). Fed by another reader, it is told
    where that reading stopped (`read_to`, a line's start) and whether at the file's end."""

    __slots__ = ("changes", "ended", "prompt", "read_to", "searching")

    def __init__(self) -> None:
        self.prompt: str | None = None
        self.changes: dict[str, tuple[str, str]] = {}  # tool_use id -> (file, tool), in order
        self.read_to = 0
        self.ended = False
        self.searching = True  # for the first prompt

    def body(self, body: bytes) -> None:
        # line by line, cheap byte tests first: only lines that can matter are parsed
        for line in body.split(b"\n"):
            if self.searching and _USER in line:
                record = _parse(line)
                if isinstance(record, dict) and record.get("type") == "user":
                    self.prompt = _prompt(record)
                    self.searching = self.prompt is None
            if b'"tool_use"' in line and any(marker in line for marker in _TOOL_MARKERS):
                self.changes.update(_changes(line))
            elif b'"is_error"' in line and b'"tool_result"' in line and _FAILED.search(line):
                ids = _RESULT_ID.findall(line)
                if len(ids) == 1:  # one result, an error: its id read from the bytes, not parsed
                    self.changes.pop(ids[0].decode("utf-8", "replace"), None)
                    continue
                for failed in _failed(_parse(line)):
                    self.changes.pop(failed, None)

    def head(self, head: bytes) -> None:
        """The head of a line too long to read: a huge Write's name and path come first."""
        self.changes.update(_raw_changes(head))

    def record(self, record: dict[str, Any]) -> None:
        """One record of another agent's transcript, read as Claude Code's."""
        if self.prompt is None and record.get("type") == "user":
            self.prompt = _prompt(record)
        content = _message_content(record)
        for block in content if isinstance(content, list) else ():
            if block.get("type") == "tool_use" and block.get("name") in _TOOLS:
                file = block["input"].get("file_path")
                if isinstance(file, str) and file:
                    self.changes[str(block["id"])] = (file, block["name"])
        for failed in _failed(record):
            self.changes.pop(failed, None)

    def summary(self) -> Summary:
        unique: dict[tuple[str, str], None] = dict.fromkeys(self.changes.values())
        return Summary(self.prompt, [{"file": file, "action": tool} for file, tool in unique][:MAX_CHANGES])


def summarize(
    path: str, budget_seconds: float = 0.5, *, into: Summarizer | None = None, start: int = 0
) -> Summary:
    """The first user prompt (redacted, cut to 200 characters) and the files written or edited,
    per tool; `into` a summary gathered so far from the bytes before `start`.

    Malformed lines are skipped. A tool call whose result was an error (a denied Write, say)
    is not a change. OSError propagates, also for a path that is not a regular file: the caller
    decides what an unreadable file means.
    """
    deadline = time.monotonic() + budget_seconds
    found = into or Summarizer()
    left = source.Left()
    if formats.format_of(path) != formats.CLAUDE:
        for _, _, record in formats.read(path, start=start, deadline=deadline, left=left):
            found.record(record)
        return found.summary()
    for _, _, body in source.blocks(path, start=start, deadline=deadline, left=left, head=found.head):
        found.body(body)
    return found.summary()


def _parse(line: bytes) -> Any:
    try:
        return json.loads(line)
    except (ValueError, RecursionError):
        return None


def _message_content(record: Any) -> Any:
    if not isinstance(record, dict):
        return None
    message = record.get("message")
    return message.get("content") if isinstance(message, dict) else None


def _prompt(record: Any) -> str | None:
    if not isinstance(record, dict) or record.get("type") != "user":
        return None
    if record.get("isSidechain") or record.get("isMeta"):
        return None
    content = _message_content(record)
    if isinstance(content, list):
        content = " ".join(
            block.get("text", "")
            for block in content
            if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str)
        )
    if not isinstance(content, str):
        return None
    from cortex_hooks.redact import redact  # no secret of a prompt is kept (docs/guide/secrets.md)

    text = redact(content.strip()[:REDACTED_WINDOW])  # as written, secrets aside (shown on one line)
    return text[:SUMMARY_LENGTH] or None


def _changes(line: bytes) -> dict[str, tuple[str, str]]:
    record = _parse(line)
    if record is None:  # not JSON as a whole: its tool calls may still be read from the bytes
        return _raw_changes(line)
    found: dict[str, tuple[str, str]] = {}
    content = _message_content(record)
    for block in content if isinstance(content, list) else ():
        if not isinstance(block, dict) or block.get("type") != "tool_use" or block.get("name") not in _TOOLS:
            continue
        tool_input = block.get("input")
        if not isinstance(tool_input, dict):
            continue
        file = tool_input.get("file_path") or tool_input.get("notebook_path")
        if isinstance(file, str) and file:
            found[str(block.get("id", len(found)))] = (file, block["name"])
    return found


def _raw_changes(line: bytes) -> dict[str, tuple[str, str]]:
    """The changes in a line's bytes (too long to parse whole): each tool_use header, then the
    path field after it."""
    found: dict[str, tuple[str, str]] = {}
    for header in _RAW_CHANGE.finditer(line):
        path = _RAW_PATH.search(line, header.end())
        if path is None:
            continue
        try:
            file = json.loads(b'"' + path.group(1) + b'"')
        except ValueError:
            continue
        found[header.group(1).decode("utf-8", "replace")] = (file, header.group(2).decode())
    return found


def _failed(record: Any) -> list[str]:
    content = _message_content(record)
    blocks = content if isinstance(content, list) else []
    return [
        str(block.get("tool_use_id"))
        for block in blocks
        if isinstance(block, dict) and block.get("type") == "tool_result" and block.get("is_error") is True
    ]
