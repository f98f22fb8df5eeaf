"""Claude Code's hooks (reference/claude-code-hooks.md): the payload is already the internal call's
shape, and the answer is judging.protocol's. The other adapters translate to and from this."""

from __future__ import annotations

from cortex_hooks.errors import CortexError
from cortex_hooks.guard import matching
from cortex_hooks.guard.call import Call

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from cortex_hooks.guard.judge import Judgment

NAME = "claude"
EVENTS = {"PreToolUse": ("PreToolUse",), "SessionStart": ("SessionStart",), "SessionEnd": ("SessionEnd",)}
FAILED = 1  # Claude Code reports exit 1 as a non-blocking hook error, and runs the tool
DECAY = "end"


def calls(payload: dict[str, Any]) -> tuple[list[Call], bool]:
    """The fields the decision reads, checked with the standard library (no pydantic here);
    nothing else (docs/guide/selfguard.md): the session id, a description, an extra key of any type or depth
    never stops a deny."""
    tool_name = payload.get("tool_name")
    tool_input = payload.get("tool_input")
    if not isinstance(tool_name, str) or not tool_name:
        raise CortexError("invalid payload: tool_name must be a non-empty string")
    if not isinstance(tool_input, dict):
        raise CortexError("invalid payload: tool_input must be a JSON object")
    problem = matching.mistyped(tool_name, tool_input)
    if problem:
        raise CortexError(f"invalid payload: {problem}")
    return [Call(tool_name, tool_input, payload.get("cwd"), session=payload.get("session_id"))], True


def payload(tool: str, tool_input: dict[str, Any], cwd: str) -> dict[str, Any]:
    """A PreToolUse payload as Claude Code sends it (for explain)."""
    return {
        "session_id": "explain",
        "cwd": cwd,
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
    }


def pre_tool_use(judged: Judgment, payload: dict[str, Any]) -> dict[str, Any] | None:
    from cortex_hooks.judging import protocol

    return protocol.pre_tool_use(judged) if judged.answer != "allow" else None


def project(payload: dict[str, Any]) -> str | None:
    """None: Claude Code names its project itself (CLAUDE_PROJECT_DIR)."""
    return None


def session(payload: dict[str, Any], event: str) -> dict[str, Any]:
    return payload


def session_start(text: str | None, message: str | None) -> dict[str, Any] | None:
    from cortex_hooks.judging import protocol

    if text:
        return protocol.session_start(text, message)
    return {"systemMessage": message} if message else None
