"""A transcript's records in one shape, Claude Code's, whatever agent wrote it: Claude Code's own
JSON lines as they are, and the other agents' transcripts (docs/guide/agents/overview.md) read as
the Claude Code records each line stands for, so that capture, the session summary and replay
read one shape: Codex CLI's rollouts (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-….jsonl`) and
Gemini CLI's chats (`~/.gemini/tmp/PROJECT/chats/session-….jsonl`) give `user` records (a prompt,
or tool results) and `assistant` records (tool calls, in Claude Code's tools of their kind:
guard.agent_tools).

Verified with Codex CLI 0.169.0 and Gemini CLI 0.61.0:
- a rollout line is `{"timestamp", "type", "payload"}`: `session_meta` (id, cwd), `response_item`
  with a `message` (role user: the prompt; the client's own context is wrapped in `<…>` tags),
  a `function_call` (`exec_command` {cmd}, an MCP tool), a `custom_tool_call` (`apply_patch`, its
  input the patch) and their `…_output` (the exit status in the text);
- a chat starts `{"sessionId", "projectHash", "kind"}`; a `user` line holds the prompt's parts, a
  `gemini` line its `toolCalls` (name, args, status, result); `$set` lines update metadata.
"""

from __future__ import annotations

import json
import os
import re

from cortex_hooks import regular_file
from cortex_hooks.guard import agent_tools
from cortex_hooks.transcripts import source

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any

CLAUDE, CODEX, GEMINI = "claude", "codex", "gemini"
# A tool result's id and error flag as Claude Code writes them (compact JSON, or with json.dumps'
# spaces): read from the bytes, a result's line is parsed only when it must be
RESULT_ID = re.compile(rb'"tool_use_id"\s*:\s*"([^"\\]{1,200})"')
FAILED = re.compile(rb'"is_error"\s*:\s*true')
SNIFF = 1 << 16  # bytes of the first line read to tell the format
_EXITED = re.compile(r"(?:Process exited with code|Exit code:?)\s+(-?\d+)", re.IGNORECASE)
_BLOCKED = "blocked by PreToolUse hook"  # Codex's words for a call a hook denied
_GEMINI_MCP = re.compile(r"mcp_([^_]+)_(.+)")


def format_of(path: str) -> str:
    """The transcript's format, told by its first line: claude (anything else), codex or gemini."""
    try:
        with regular_file.open_regular(path) as stream:
            head = stream.readline(SNIFF)
    except (OSError, ValueError):
        return CLAUDE
    return format_of_line(head)


def format_of_line(line: bytes) -> str:
    if line.startswith(b'{"timestamp"') and b'"type":"session_meta"' in line:
        return CODEX
    if b'"projectHash"' in line and b'"sessionId"' in line and b'"kind"' in line:
        return GEMINI
    return CLAUDE


class State:
    """What a reading carries from line to line: the session, its folder, the calls waiting for
    their result (a patch's id stands for each of its files' calls)."""

    __slots__ = ("calls", "cwd", "session")

    def __init__(self, session: str | None = None, cwd: str | None = None) -> None:
        self.session = session
        self.cwd = cwd
        self.calls: dict[str, list[str]] = {}


def state_for(path: str, kind: str) -> State:
    """The state a reading from the middle of a transcript starts with: its session and folder
    (a rollout's first line; a chat's project root, kept beside its chats folder)."""
    state = State()
    try:
        with regular_file.open_regular(path) as stream:
            head = stream.readline(SNIFF)
    except (OSError, ValueError):
        return state
    record = _parsed(head)
    if kind == CODEX and isinstance(record, dict):
        records(record, kind, state)
    elif kind == GEMINI and isinstance(record, dict):
        records(record, kind, state)
        try:
            with open(
                os.path.join(os.path.dirname(os.path.dirname(path)), ".project_root"), encoding="utf-8"
            ) as root:
                state.cwd = root.read().strip() or None
        except OSError:
            pass
    return state


def read(
    path: str,
    *,
    start: int = 0,
    deadline: float,
    left: source.Left,
    wanted: Callable[[bytes], bool] | None = None,
) -> Iterator[tuple[int, int, dict[str, Any]]]:
    """The transcript's records from byte `start` (a line's start), each with its line's number
    and byte offset, bounded as source.lines; of Claude Code's own lines only those `wanted` (a
    cheap test of the bytes) are parsed. A line that is not JSON is counted in `left`'s problems;
    one that is not an object is passed over."""
    kind = format_of(path)
    state = state_for(path, kind) if kind != CLAUDE else None
    unreadable = 0
    loads = json.loads
    for number, at, line in source.lines(path, start=start, deadline=deadline, left=left):
        if state is None and wanted is not None and not wanted(line):
            continue
        try:
            record = loads(line)
        except (ValueError, RecursionError):
            unreadable += line.strip() != b""
            continue
        if type(record) is not dict:
            continue
        if state is None:
            yield number, at, record
        else:
            for each in records(record, kind, state):
                yield number, at, each
    if unreadable:
        left.problems.append((path, f"{unreadable:,} unreadable line{'s' if unreadable > 1 else ''} skipped"))


def _parsed(line: bytes) -> Any:
    try:
        return json.loads(line)
    except (ValueError, RecursionError):
        return None


def records(record: dict[str, Any], kind: str, state: State) -> list[dict[str, Any]]:
    """The Claude Code records one line of a Codex rollout or a Gemini chat stands for."""
    return _codex(record, state) if kind == CODEX else _gemini(record, state)


def _base(state: State, at: object) -> dict[str, Any]:
    return {
        "timestamp": at if isinstance(at, str) else "",
        "sessionId": state.session or "",
        "cwd": state.cwd,
    }


def _codex(record: dict[str, Any], state: State) -> list[dict[str, Any]]:
    kind, payload = record.get("type"), record.get("payload")
    if not isinstance(payload, dict):
        return []
    if kind == "session_meta":
        session, cwd = payload.get("id") or payload.get("session_id"), payload.get("cwd")
        state.session = session if isinstance(session, str) else state.session
        state.cwd = cwd if isinstance(cwd, str) else state.cwd
        return []
    if kind != "response_item":
        return []
    base = _base(state, record.get("timestamp"))
    item = payload.get("type")
    if item == "message" and payload.get("role") == "user":
        text = "\n".join(
            part["text"]
            for part in payload.get("content") or []
            if isinstance(part, dict) and isinstance(part.get("text"), str)
        )
        if not text.strip() or text.lstrip().startswith("<"):  # the client's context, not the person's words
            return []
        return [{**base, "type": "user", "message": {"role": "user", "content": text}}]
    if item in ("function_call", "custom_tool_call"):
        return _codex_call(payload, base, state)
    if item in ("function_call_output", "custom_tool_call_output"):
        call_id = str(payload.get("call_id"))
        output = payload.get("output")
        text = output if isinstance(output, str) else json.dumps(output)
        return _results(state, call_id, base, text, _codex_failed(text))
    return []


def _codex_call(payload: dict[str, Any], base: dict[str, Any], state: State) -> list[dict[str, Any]]:
    call_id, name = str(payload.get("call_id")), payload.get("name")
    if not isinstance(name, str):
        return []
    if payload.get("type") == "custom_tool_call":
        given: Any = payload.get("input")
    else:
        given = _parsed(str(payload.get("arguments") or "{}").encode())
    calls: list[tuple[str, dict[str, Any]]] = []
    if name == agent_tools.PATCH_TOOL and isinstance(given, str):
        from cortex_hooks.guard import apply_patch

        calls = apply_patch.calls(given, state.cwd) or [(name, {"patch": given})]
    elif isinstance(given, dict):
        known = agent_tools.renamed(agent_tools.CODEX, name, given)
        tool, tool_input = known if known is not None else (name, given)
        command = tool_input.get("command")
        if tool == "Bash" and isinstance(command, list):  # the older `shell` tool: an argv
            tool_input = {**tool_input, "command": " ".join(str(word) for word in command)}
        calls = [(tool, tool_input)]
    return _uses(state, call_id, base, calls)


def _codex_failed(text: str) -> bool:
    if _BLOCKED in text:
        return True
    code = _EXITED.search(text)
    return code is not None and code.group(1) != "0"


def _gemini(record: dict[str, Any], state: State) -> list[dict[str, Any]]:
    if isinstance(record.get("sessionId"), str) and "projectHash" in record:
        state.session = record["sessionId"]
        return []
    kind = record.get("type")
    base = _base(state, record.get("timestamp"))
    if kind == "user":
        parts = record.get("content")
        if not isinstance(parts, list) or any(
            isinstance(part, dict) and "functionResponse" in part for part in parts
        ):
            return []
        text = "\n".join(
            part["text"] for part in parts if isinstance(part, dict) and isinstance(part.get("text"), str)
        )
        if not text.strip() or text.lstrip().startswith("<session_context>"):
            return []
        return [{**base, "type": "user", "message": {"role": "user", "content": text}}]
    if kind != "gemini" or not isinstance(record.get("toolCalls"), list):
        return []
    found: list[dict[str, Any]] = []
    for call in record["toolCalls"]:
        if (
            not isinstance(call, dict)
            or not isinstance(call.get("name"), str)
            or not isinstance(call.get("args"), dict)
        ):
            continue
        call_id = str(call.get("id"))
        known = agent_tools.renamed(agent_tools.GEMINI, call["name"], call["args"])
        written = known[1].get("file_path") if known is not None else None
        if known is not None and isinstance(written, str) and state.cwd:
            known = (known[0], {**known[1], "file_path": os.path.join(state.cwd, written)})
        if known is None:
            mcp = _GEMINI_MCP.fullmatch(call["name"])
            name = f"mcp__{mcp.group(1)}__{mcp.group(2)}" if mcp else call["name"]
            known = (name, call["args"])
        found += _uses(state, call_id, base, [known])
        if call.get("status") in ("success", "error", "cancelled"):
            text = _gemini_output(call.get("result"))
            code = _EXITED.search(text)  # a shell command that failed ran "successfully"
            failed = call.get("status") != "success" or (code is not None and code.group(1) != "0")
            found += _results(state, call_id, base, text, failed)
    return found


def _gemini_output(result: object) -> str:
    """What a call of a chat answered: its responses' output or error, as the model read it."""
    texts = []
    for part in result if isinstance(result, list) else []:
        response = part.get("functionResponse", {}).get("response") if isinstance(part, dict) else None
        if isinstance(response, dict):
            texts += [str(response[key]) for key in ("output", "error") if key in response]
    return "\n".join(texts)[:50_000]


def _uses(
    state: State, call_id: str, base: dict[str, Any], calls: list[tuple[str, dict[str, Any]]]
) -> list[dict[str, Any]]:
    """An assistant record of these tool calls (a patch's files under ids of their own)."""
    ids = [call_id] if len(calls) == 1 else [f"{call_id}#{number}" for number in range(len(calls))]
    state.calls[call_id] = ids
    blocks = [
        {"type": "tool_use", "id": each, "name": tool, "input": tool_input}
        for each, (tool, tool_input) in zip(ids, calls, strict=True)
    ]
    return (
        [{**base, "type": "assistant", "message": {"role": "assistant", "content": blocks}}] if blocks else []
    )


def _results(
    state: State, call_id: str, base: dict[str, Any], text: str, failed: bool
) -> list[dict[str, Any]]:
    """A user record of the call's results (each of a patch's files shares the patch's)."""
    ids = state.calls.pop(call_id, [call_id])
    code = _EXITED.search(text)
    content = f"Exit code {code.group(1)}\n{text}" if failed and code is not None else text
    blocks = [
        {"type": "tool_result", "tool_use_id": each, "content": content, "is_error": failed} for each in ids
    ]
    return [{**base, "type": "user", "message": {"role": "user", "content": blocks}}]


def result_text(content: Any) -> str:
    """A tool result's text: the string, or the text blocks of a list joined by lines."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            block["text"]
            for block in content
            if isinstance(block, dict) and isinstance(block.get("text"), str)
        )
    return ""
