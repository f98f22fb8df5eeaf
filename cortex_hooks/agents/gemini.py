"""Google Gemini CLI's hooks (verified with 0.61.0, reference/other-agents.md): `BeforeTool` with
Gemini's own tools — `run_shell_command` {command, dir_path}, `write_file` {file_path, content},
`replace` {file_path, old_string, new_string}, `read_file` {file_path} … — and an MCP tool as
`mcp_SERVER_TOOL` with `mcp_context` naming its server and tool.

Gemini reads the top-level `decision` ("deny") and `reason`, which the model reads as "Tool
execution blocked: REASON"; a Claude-style permissionDecision is ignored (the command runs). A
rewrite is `hookSpecificOutput.tool_input`, merged over the call's input. `ask` waits for a
confirmation that `gemini -p` never shows (verified: the run hangs until killed), so an ask is
answered as a deny that says to ask the person. BeforeTool's additionalContext never reaches the
model: a warning is told to the person (`systemMessage`), and joined to a deny's reason. The
SessionEnd hook is not awaited: the learnings decay once per day of use.
"""

from __future__ import annotations

import os

from cortex_hooks.agents import payload_fields
from cortex_hooks.errors import CortexError
from cortex_hooks.guard import agent_tools, matching
from cortex_hooks.guard.call import Call

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from cortex_hooks.guard.judge import Judgment

NAME = "gemini"
EVENTS = {"PreToolUse": ("BeforeTool",), "SessionStart": ("SessionStart",), "SessionEnd": ("SessionEnd",)}
FAILED = 1  # any exit but 0 and 2 is a non-blocking warning (the tool runs)
DECAY = "day"

_PATHS = ("file_path", "path")


def calls(payload: dict[str, Any]) -> tuple[list[Call], bool]:
    name = payload_fields.text(payload, "tool_name")
    assert name is not None
    given = payload_fields.object_of(payload, "tool_input")
    cwd = _cwd(payload)
    session = payload.get("session_id")
    known = agent_tools.renamed(agent_tools.GEMINI, name, given)
    if known is None:
        tool, tool_input = _other(name, payload), given
    else:
        tool, tool_input = known
        for key in _PATHS:
            if key in tool_input:
                tool_input[key] = payload_fields.absolute(tool_input[key], cwd)
        if tool == "Edit" and "replace_all" not in tool_input:
            tool_input["replace_all"] = given.get("allow_multiple") is True
    problem = matching.mistyped(tool, tool_input)
    if problem:
        raise CortexError(f"invalid payload: {problem}")
    where = cwd
    if tool == "Bash" and isinstance(given.get("dir_path"), str) and cwd is not None:
        where = os.path.normpath(os.path.join(cwd, given["dir_path"]))
    # A rewrite answers the input Gemini gave, with the command corrected (merged, as Gemini does).
    call = Call(tool, given if tool == "Bash" else tool_input, where, session=session, agent=NAME)
    return [call], tool == "Bash"


def _other(name: str, payload: dict[str, Any]) -> str:
    """An MCP tool as every agent's call names it (fields.mcp_tool); any other tool as Gemini names it."""
    context = payload.get("mcp_context")
    if isinstance(context, dict):
        server, tool = context.get("server_name"), context.get("tool_name")
        if isinstance(server, str) and isinstance(tool, str) and server and tool:
            return payload_fields.mcp_tool(server, tool)
    return name


def project(payload: dict[str, Any]) -> str | None:
    """The folder Gemini runs in: GEMINI_PROJECT_DIR (which Gemini sets, and CLAUDE_PROJECT_DIR
    beside it), else the nearest folder holding `.cortex/` at or above the call's."""
    folder = os.environ.get("GEMINI_PROJECT_DIR")
    if folder and os.path.isabs(folder):
        return folder
    return payload_fields.project_of(payload.get("cwd"))


def _cwd(payload: dict[str, Any]) -> str | None:
    cwd = payload.get("cwd")
    return cwd if isinstance(cwd, str) and os.path.isabs(cwd) else project(payload)


def payload(tool: str, tool_input: dict[str, Any], cwd: str) -> dict[str, Any]:
    """A BeforeTool payload as Gemini CLI sends it (for explain)."""
    return {
        "session_id": "explain",
        "transcript_path": None,
        "cwd": cwd,
        "hook_event_name": "BeforeTool",
        "tool_name": tool,
        "tool_input": tool_input,
    }


def pre_tool_use(judged: Judgment, payload: dict[str, Any]) -> dict[str, Any] | None:
    from cortex_hooks.agents import said  # a match only: never on the no-match path

    told = said.said(judged, ask=False, rewrite=True)
    if told.decision == "deny":
        assert told.reason is not None
        return {"decision": "deny", "reason": said.joined(told.reason, told.context)}
    if told.decision == "rewrite":
        assert told.updated_input is not None
        answer: dict[str, Any] = {
            "hookSpecificOutput": {"hookEventName": "BeforeTool", "tool_input": told.updated_input}
        }
        if told.context:
            answer["systemMessage"] = told.context
        return answer
    if told.decision == "warn":
        return {"systemMessage": told.context}
    return None


def session(payload: dict[str, Any], event: str) -> dict[str, Any]:
    canonical = {
        "hook_event_name": event,
        "session_id": payload.get("session_id"),
        "cwd": payload.get("cwd"),
        "transcript_path": payload.get("transcript_path"),
    }
    canonical["source" if event == "SessionStart" else "reason"] = payload.get(
        "source" if event == "SessionStart" else "reason"
    )
    return canonical


def session_start(text: str | None, message: str | None) -> dict[str, Any] | None:
    """The context in the first user turn (verified, as `<hook_context>…</hook_context>`); plain
    text would reach only the person's terminal."""
    if not text and not message:
        return None
    answer: dict[str, Any] = {}
    if text:
        answer["hookSpecificOutput"] = {"hookEventName": "SessionStart", "additionalContext": text}
    if message:
        answer["systemMessage"] = message
    return answer
