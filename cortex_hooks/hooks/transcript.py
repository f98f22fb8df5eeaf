"""Reading a session transcript (JSON lines): the first user prompt and the files changed (a
Codex rollout or a Gemini chat read as Claude Code's records: capture.agent_transcripts).

Transcripts grow to hundreds of megabytes, and SessionEnd has a small time budget, so the file
is streamed line by line, only lines that can matter are parsed, and every read loop stops at a
deadline with what it has found. Only a regular file is read (see cortex_hooks.regular_file).
"""

from __future__ import annotations

import json
import re
import time
from typing import Any, BinaryIO

from cortex_hooks import regular_file

SUMMARY_LENGTH = 200
REDACTED_WINDOW = 8_000  # of a longer prompt only this much is redacted: far more than is kept
MAX_CHANGES = 50
PARSE_LIMIT = 1 << 20  # of a longer line only this much is read, with a byte pattern, not parsed

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


class Summary:
    __slots__ = ("key_changes", "summary")

    def __init__(self, summary: str | None, key_changes: list[dict[str, str]]) -> None:
        self.summary = summary
        self.key_changes = key_changes


def summarize(path: str, budget_seconds: float = 0.5) -> Summary:
    """The first user prompt (redacted, cut to 200 characters) and the files written or edited,
    per tool.

    Malformed lines are skipped. A tool call whose result was an error (a denied Write, say)
    is not a change. OSError propagates, also for a path that is not a regular file: the caller
    decides what an unreadable file means.
    """
    deadline = time.monotonic() + budget_seconds
    from cortex_hooks.capture import agent_transcripts

    kind = agent_transcripts.format_of(path)
    if kind != agent_transcripts.CLAUDE:
        return _summarize_agent(path, kind, deadline)
    prompt: str | None = None
    changes: dict[str, tuple[str, str]] = {}  # tool_use id -> (file, tool), in order
    with regular_file.open_regular(path) as stream:
        # Lines are read at most PARSE_LIMIT bytes at a time: a 60 MB Write line costs no more
        # memory than a short one. Of a longer line only the head is read (a tool call's name
        # and path come first), the rest is skipped. A line may take up to PARSE_LIMIT bytes
        # of work, so the deadline is checked before every one.
        while time.monotonic() < deadline and (line := stream.readline(PARSE_LIMIT)):
            if len(line) == PARSE_LIMIT and not line.endswith(b"\n"):
                changes.update(_raw_changes(line))
                _skip_rest_of_line(stream, deadline)
                continue
            # cheap byte tests first: only lines that can matter are parsed
            if prompt is None and b'"user"' in line:
                prompt = _prompt(_parse(line))
            if b'"tool_use"' in line and any(marker in line for marker in _TOOL_MARKERS):
                changes.update(_changes(line))
            elif b'"is_error"' in line and b'"tool_result"' in line:
                for failed in _failed(_parse(line)):
                    changes.pop(failed, None)
    unique: dict[tuple[str, str], None] = dict.fromkeys(changes.values())
    key_changes = [{"file": file, "action": tool} for file, tool in unique][:MAX_CHANGES]
    return Summary(prompt, key_changes)


def _summarize_agent(path: str, kind: str, deadline: float) -> Summary:
    """Another agent's transcript (a Codex rollout, a Gemini chat), read as Claude Code's records."""
    from cortex_hooks.capture import agent_transcripts

    state = agent_transcripts.state_for(path, kind)
    prompt: str | None = None
    changes: dict[str, tuple[str, str]] = {}
    with regular_file.open_regular(path) as stream:
        while time.monotonic() < deadline and (line := stream.readline(PARSE_LIMIT)):
            if len(line) == PARSE_LIMIT and not line.endswith(b"\n"):
                _skip_rest_of_line(stream, deadline)
                continue
            record = _parse(line)
            for each in agent_transcripts.records(record, kind, state) if isinstance(record, dict) else ():
                if prompt is None and each["type"] == "user":
                    prompt = _prompt(each)
                content = _message_content(each)
                for block in content if isinstance(content, list) else ():
                    if block.get("type") == "tool_use" and block.get("name") in _TOOLS:
                        file = block["input"].get("file_path")
                        if isinstance(file, str) and file:
                            changes[str(block["id"])] = (file, block["name"])
                for failed in _failed(each):
                    changes.pop(failed, None)
    unique: dict[tuple[str, str], None] = dict.fromkeys(changes.values())
    return Summary(prompt, [{"file": file, "action": tool} for file, tool in unique][:MAX_CHANGES])


def _skip_rest_of_line(stream: BinaryIO, deadline: float) -> None:
    """Read past the rest of an over-long line (a file without newlines has no end of it)."""
    while time.monotonic() < deadline and (chunk := stream.readline(PARSE_LIMIT)):
        if chunk.endswith(b"\n"):
            return


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
    from cortex_hooks.redact import redact  # SPEC §19: no secret of a prompt is kept

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
