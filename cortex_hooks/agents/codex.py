"""OpenAI Codex CLI's hooks (verified with 0.169.0, reference/other-agents.md): `PreToolUse`'s
payload is Claude-shaped — `tool_name` Bash with `tool_input.command`, `apply_patch` with the
patch as `tool_input.command`, an MCP tool as `mcp__SERVER__TOOL` with its arguments.

Codex discards an answer that holds anything its schema does not know, and then runs the
command, silently: an unknown key at any level, `ask`, `allow` without `updatedInput`,
`updatedInput` without `allow`, a deny without a reason, `continue`, `stopReason` or
`suppressOutput`. So an ask is answered as a deny that says to ask the person, and every answer is
built from the few keys below (tests/test_agents_wire.py holds every verdict to that schema).
There is no SessionEnd: the learnings decay once per day of use, and `Stop` (the end of a turn)
stores the summary and scans the rollout for proposals.
"""

from __future__ import annotations

from cortex_hooks.agents import payload_fields
from cortex_hooks.errors import CortexError
from cortex_hooks.guard import matching
from cortex_hooks.guard.call import Call

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from cortex_hooks.guard.judge import Judgment

NAME = "codex"
EVENTS = {"PreToolUse": ("PreToolUse",), "SessionStart": ("SessionStart",), "SessionEnd": ("Stop",)}
FAILED = 1  # a non-zero exit other than 2 is a non-blocking hook failure (the tool runs)
DECAY = "day"
PATCH_TOOL = "apply_patch"


def calls(payload: dict[str, Any]) -> tuple[list[Call], bool]:
    tool = payload_fields.text(payload, "tool_name")
    assert tool is not None
    tool_input = payload_fields.object_of(payload, "tool_input")
    cwd = payload_fields.text(payload, "cwd", required=False)
    session = payload.get("session_id")
    if tool == PATCH_TOOL and isinstance(tool_input.get("command"), str):
        from cortex_hooks.guard import apply_patch

        made = apply_patch.calls(tool_input["command"], cwd)
        if made is not None:
            return [Call(name, given, cwd, session=session, agent=NAME) for name, given in made], False
    problem = matching.mistyped(tool, tool_input)
    if problem:
        raise CortexError(f"invalid payload: {problem}")
    return [Call(tool, tool_input, cwd, session=session, agent=NAME)], tool == "Bash"


def payload(tool: str, tool_input: dict[str, Any], cwd: str) -> dict[str, Any]:
    """A PreToolUse payload as Codex sends it (for explain)."""
    return {
        "session_id": "explain",
        "turn_id": "explain",
        "transcript_path": None,
        "cwd": cwd,
        "hook_event_name": "PreToolUse",
        "model": "explain",
        "permission_mode": "default",
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": "explain",
    }


def pre_tool_use(judged: Judgment, payload: dict[str, Any]) -> dict[str, Any] | None:
    """Exactly the keys Codex 0.169's PreToolUse schema knows (additionalProperties false)."""
    from cortex_hooks.agents import said  # a match only: never on the no-match path

    told = said.said(judged, ask=False, rewrite=True)
    specific: dict[str, Any] = {"hookEventName": "PreToolUse"}
    if told.decision == "deny":
        specific["permissionDecision"] = "deny"
        specific["permissionDecisionReason"] = told.reason
    elif told.decision == "rewrite":
        specific["permissionDecision"] = "allow"  # Codex takes updatedInput only with allow
        specific["updatedInput"] = told.updated_input
    elif told.decision is None:
        return None
    if told.context:
        specific["additionalContext"] = told.context  # a developer message beside the call
    return {"hookSpecificOutput": specific}


def project(payload: dict[str, Any]) -> str | None:
    """The project the hook works for (named CLAUDE_PROJECT_DIR by the pipeline): the nearest
    folder holding `.cortex/` at or above the call's."""
    return payload_fields.project_of(payload.get("cwd"))


def session(payload: dict[str, Any], event: str) -> dict[str, Any]:
    canonical = {
        "hook_event_name": event,
        "session_id": payload.get("session_id"),
        "cwd": payload.get("cwd"),
        "transcript_path": payload.get("transcript_path"),
    }
    if event == "SessionStart":
        canonical["source"] = payload.get("source")
    else:
        canonical["reason"] = "stop"
    return canonical


def session_start(text: str | None, message: str | None) -> dict[str, Any] | None:
    """The context as a developer message in every request (verified); the message to the person
    in `systemMessage`, which Codex's schema knows."""
    if not text and not message:
        return None
    answer: dict[str, Any] = {}
    if text:
        answer["hookSpecificOutput"] = {"hookEventName": "SessionStart", "additionalContext": text}
    if message:
        answer["systemMessage"] = message
    return answer
