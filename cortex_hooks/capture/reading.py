"""The transcript as capture reads it (docs/guide/capture.md): tool calls with their results, and
the person's own prompts, from a byte offset, within a deadline (read by transcripts.formats).

Only the real format is read: records whose `type` is `user` or `assistant`, content blocks in
`message.content`, a `tool_use` paired with its `tool_result` by id; a Codex rollout or a Gemini
chat is read as those records. What is never the person's
words: sidechain, meta and compact-summary lines, tool results, and text the client writes in the
person's name (slash-command echoes, reminders, task notifications, `!` shell input).
"""

from __future__ import annotations

import re
from typing import Any

from cortex_hooks import regular_file
from cortex_hooks.redact import redact
from cortex_hooks.transcripts import formats, source

OUTPUT_KEPT = 1000  # characters of a result kept from its head and again from its tail
PROMPT_KEPT = 301  # one more than a correction may have: a longer prompt is known to be longer

_NOT_WORDS = ("<command-name>", "<local-command-", "<system-reminder>", "<task-notification>", "<bash-input>")
# Results that are not a failure of the call as written: the client refused it before it ran
# (validation), a hook or the person denied it, or the person interrupted it.
_NOT_FAILURES = (
    "<tool_use_error>",
    "cortex-hooks blocked this tool call",  # our own deny (cortex_hooks.guard.verdict_texts.BLOCKED)
    "cortex-hooks asks the user before this tool call",  # our ask, refused where no one can answer
    "cortex-hooks corrected this command",  # our deny of a corrected command (guard.verdict_texts)
    "The user doesn't want to proceed",
    "The user doesn't want to take this action",
    "[Request interrupted by user",
    "Interrupted by user",
    "Permission to use",
    "hook error",
    "denied this tool",
    "blocked by hook",
)
_EXIT = re.compile(r"\AExit code (\d+)")


class Call:
    """One tool call; `status` is pending until its result is read, then ok, error or ignored."""

    __slots__ = ("decided", "exit_code", "id", "output", "status", "text", "tool")

    def __init__(
        self,
        id: str,
        tool: str,
        text: str,
        *,
        status: str = "pending",
        output: str = "",
        exit_code: int | None = None,
        decided: bool = False,
    ) -> None:
        self.id = id
        self.tool = tool
        self.text = text  # a Bash command ("" for another tool)
        self.status = status
        self.output = output
        self.exit_code = exit_code
        self.decided = decided  # a failure already counted (fixed or not): never again

    def to_json(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> Call:
        return cls(**{name: value[name] for name in cls.__slots__})


class Prompt:
    """What the person typed (at most PROMPT_KEPT characters of it)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


Event = Call | Prompt


class Chunk:
    """The events read from `start` to `end` (a line boundary), and whether the file ended there."""

    __slots__ = ("end", "events", "finished", "session_id")

    def __init__(self, events: list[Event], end: int, finished: bool, session_id: str | None) -> None:
        self.events = events
        self.end = end
        self.finished = finished
        self.session_id = session_id


def read(path: str, start: int, deadline: float, known: dict[str, Call] | None = None) -> Chunk:
    """The events of the transcript from byte `start` until the end of the file or the deadline
    (monotonic clock), read by transcripts.formats (any agent's, bounded by transcripts.source).
    Only whole lines are read: a last line still being written is left for the next scan.
    `known` are calls of earlier chunks still waiting for their result. OSError or ValueError when
    the path is not a readable regular file."""
    pending = dict(known or {})
    events: list[Event] = []
    session_id: str | None = None
    left = source.Left()
    for _, _, record in formats.read(path, start=start, deadline=deadline, left=left, wanted=_spoken):
        if session_id is None and isinstance(record.get("sessionId"), str) and record["sessionId"]:
            session_id = record["sessionId"]
        events += _events(record, pending)
    return Chunk(events, left.offset, left.ended or left.cut, session_id)


def _spoken(line: bytes) -> bool:
    """Whether a line of Claude Code's may be a user's or the assistant's record."""
    return b'"user"' in line or b'"assistant"' in line


def _events(record: dict[str, Any], pending: dict[str, Call]) -> list[Event]:
    kind = record.get("type")
    message = record.get("message")
    if kind not in ("user", "assistant") or not isinstance(message, dict):
        return []
    if record.get("isSidechain") is True:
        return []  # a subagent's calls and prompts are not this conversation's
    content = message.get("content")
    if kind == "assistant":
        return _calls(content, pending)
    if isinstance(content, list):
        _results(content, pending)
    if record.get("isMeta") is True or record.get("isCompactSummary") is True:
        return []
    prompt = _prompt_text(content)
    if prompt is None:
        return []
    # the person's words, secrets aside (redacted before the cut: no secret is kept half)
    return [Prompt(redact(prompt[: 8 * PROMPT_KEPT])[:PROMPT_KEPT])]


def _calls(content: Any, pending: dict[str, Call]) -> list[Event]:
    calls: list[Event] = []
    for block in content if isinstance(content, list) else ():
        if not isinstance(block, dict) or block.get("type") != "tool_use":
            continue
        call_id, name, tool_input = block.get("id"), block.get("name"), block.get("input")
        if not isinstance(call_id, str) or not isinstance(name, str) or not isinstance(tool_input, dict):
            continue
        command = tool_input.get("command")
        # The detectors read Bash commands only; of other calls the tool is enough (their
        # inputs, a whole file's content for a Write, are never serialized nor kept).
        text = command if name == "Bash" and isinstance(command, str) else ""
        # Redacted as read: no secret reaches the scan state, the evidence or a regex.
        call = Call(call_id, name, redact(text) if text else "")
        pending[call_id] = call
        calls.append(call)
    return calls


def _results(content: list[Any], pending: dict[str, Call]) -> None:
    for block in content:
        if not isinstance(block, dict) or block.get("type") != "tool_result":
            continue
        call = pending.pop(str(block.get("tool_use_id")), None)
        if call is None:
            continue
        if block.get("is_error") is not True:
            call.status = "ok"  # a success's output is never needed: not read, not redacted
            continue
        output = formats.result_text(block.get("content"))
        if len(output) > 2 * OUTPUT_KEPT:
            output = output[:OUTPUT_KEPT] + "\n…\n" + output[-OUTPUT_KEPT:]
        call.output = redact(output)
        exit_code = _EXIT.match(output)
        call.exit_code = int(exit_code.group(1)) if exit_code else None
        call.status = "ignored" if any(marker in output for marker in _NOT_FAILURES) else "error"


def _prompt_text(content: Any) -> str | None:
    """A prompt the person typed: a string or text blocks (no tool result), not client text."""
    if isinstance(content, list):
        if any(isinstance(block, dict) and block.get("type") == "tool_result" for block in content):
            return None
        texts = [
            block["text"]
            for block in content
            if isinstance(block, dict)
            and block.get("type") == "text"
            and isinstance(block.get("text"), str)
            and not block["text"].lstrip().startswith(_NOT_WORDS)
        ]
        content = "\n".join(texts) if texts else None
    if not isinstance(content, str):
        return None
    text = content.split("<system-reminder>", 1)[0].strip()  # a reminder the client appended
    if not text or text.startswith(_NOT_WORDS):
        return None
    return text


def session_of(path: str, limit: int = 1 << 20) -> str | None:
    """The transcript's own session id (the first `sessionId` in its first `limit` bytes; a
    rollout's session_meta id)."""
    kind = formats.format_of(path)
    if kind != formats.CLAUDE:
        return formats.state_for(path, kind).session
    with regular_file.open_regular(path) as stream:
        head = stream.read(limit)
    found = re.search(rb'"sessionId"\s*:\s*"([^"\\]{1,200})"', head)
    return found.group(1).decode("utf-8", "replace") if found else None
