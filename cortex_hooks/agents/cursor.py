"""Cursor's agent hooks, written from Cursor's documentation (cursor.com/docs/hooks): no Cursor
client can run on this project's machines, so unlike the other adapters this one is not verified
with the real client; tests/test_agents_wire.py holds its answers to the documented format.

- `preToolUse` (every tool; the one `install --agent cursor` wires): `tool_name` (Shell, Read,
  Write, Edit, StrReplace, Delete, Grep, MCP:TOOL …), `tool_input`, `cwd`, `workspace_roots`. The
  answer: `permission` allow or deny, `agent_message` (what the agent reads), `user_message`,
  `updated_input` (the tool's whole input, replaced). "ask" is accepted there but not enforced,
  so an ask is answered as a deny that says to ask the person.
- `beforeShellExecution` {command, cwd} and `beforeMCPExecution` {tool_name, tool_input}, for a
  person who wires them: the same answer without `updated_input`, and with ask.
- `sessionStart`: `additional_context` reaches the model. `sessionEnd` is not awaited: the
  learnings decay once per day of use.

Cursor runs the call when a hook fails (any exit but 0 and 2) unless the hook is marked
`failClosed`; install does not mark it (a hook failure never blocks the work, docs/internals/guarantees.md).
Cursor reads a JSON answer on every path: nothing to say is `{}`.
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

NAME = "cursor"
EVENTS = {
    "PreToolUse": ("preToolUse", "beforeShellExecution", "beforeMCPExecution"),
    "SessionStart": ("sessionStart",),
    "SessionEnd": ("sessionEnd",),
}
FAILED = 1  # fails open (the call runs) unless the hook is marked failClosed
DECAY = "day"
NOTHING: dict[str, Any] = {}

_PATHS = ("file_path", "path", "target_file")
_CONTENTS = ("content", "contents", "file_text")
TOOLS = {
    "Shell": "Bash",
    "Write": "Write",
    "Edit": "Edit",
    "StrReplace": "Edit",
    "MultiEdit": "MultiEdit",
    "Read": "Read",
    "Grep": "Grep",
    "Glob": "Glob",
    "LS": "LS",
}


def calls(payload: dict[str, Any]) -> tuple[list[Call], bool]:
    event = payload.get("hook_event_name")
    cwd = _cwd(payload)
    session = payload.get("conversation_id") or payload.get("session_id")
    if event == "beforeShellExecution":  # its answer cannot carry a rewrite: a deny names it (said)
        command = payload_fields.text(payload, "command")
        return [Call("Bash", {"command": command}, cwd, session=session, agent=NAME)], True
    name = payload_fields.text(payload, "tool_name")
    assert name is not None
    given = payload_fields.object_of(payload, "tool_input")
    if event == "beforeMCPExecution" or name.startswith("MCP:"):
        server = payload.get("server_name") or payload.get("server")
        tool = payload_fields.mcp_tool(
            server if isinstance(server, str) and server else "cursor", name.removeprefix("MCP:")
        )
        return [Call(tool, given, cwd, session=session, agent=NAME)], False
    if name == "Delete":
        path = next((given[key] for key in _PATHS if isinstance(given.get(key), str)), None)
        if path is None:
            raise CortexError("invalid payload: a Delete's tool_input names no file_path")
        import shlex

        removed = f"rm -f -- {shlex.quote(str(payload_fields.absolute(path, cwd)))}"
        return [Call("Bash", {"command": removed}, cwd, session=session, agent=NAME)], False
    tool = TOOLS.get(name, name)
    tool_input = dict(given)
    for key in _PATHS:
        if key in tool_input:
            tool_input["file_path"] = payload_fields.absolute(tool_input.pop(key), cwd)
    if tool == "Write":
        for key in _CONTENTS:
            if key in tool_input:
                tool_input["content"] = tool_input.pop(key)
    for short, field in (("old_str", "old_string"), ("new_str", "new_string")):
        if tool == "Edit" and short in tool_input and field not in tool_input:
            tool_input[field] = tool_input.pop(short)
    problem = matching.mistyped(tool, tool_input)
    if problem:
        raise CortexError(f"invalid payload: {problem}")
    call = Call(
        tool, given if tool == "Bash" else tool_input, _shell_cwd(given, cwd), session=session, agent=NAME
    )
    return [call], tool == "Bash"


def _root(payload: dict[str, Any]) -> str | None:
    roots = payload.get("workspace_roots")
    return roots[0] if isinstance(roots, list) and roots and isinstance(roots[0], str) else None


def _cwd(payload: dict[str, Any]) -> str | None:
    cwd = payload.get("cwd")
    return cwd if isinstance(cwd, str) else _root(payload)


def project(payload: dict[str, Any]) -> str | None:
    """The workspace's first root (else the call's folder), or the nearest folder above it
    holding `.cortex/`."""
    return payload_fields.project_of(_root(payload) or payload.get("cwd"))


def _shell_cwd(given: dict[str, Any], cwd: str | None) -> str | None:
    folder = given.get("working_directory")
    return folder if isinstance(folder, str) and folder else cwd


def payload(tool: str, tool_input: dict[str, Any], cwd: str) -> dict[str, Any]:
    """A preToolUse payload as Cursor's documentation gives it (for explain)."""
    return {
        "conversation_id": "explain",
        "hook_event_name": "preToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
        "cwd": cwd,
        "workspace_roots": [cwd],
    }


def pre_tool_use(judged: Judgment, payload: dict[str, Any]) -> dict[str, Any] | None:
    """Cursor's permission answer; `{}` when there is nothing to say (a warning has no place
    beside an allowed call in Cursor's answer: the learning still gains confidence)."""
    from cortex_hooks.agents import said  # a match only: never on the no-match path

    generic = payload.get("hook_event_name") in ("preToolUse", None)
    told = said.said(judged, ask=not generic, rewrite=generic)
    if told.decision in ("deny", "ask"):
        assert told.reason is not None
        return {
            "permission": told.decision,
            "user_message": _first_line(told.reason),
            "agent_message": said.joined(told.reason, told.context),
        }
    if told.decision == "rewrite":
        answer: dict[str, Any] = {"permission": "allow", "updated_input": told.updated_input}
        if told.context:
            answer["agent_message"] = told.context
        return answer
    return NOTHING


def _first_line(text: str) -> str:
    return text.split("\n", 1)[0][:500]


def session(payload: dict[str, Any], event: str) -> dict[str, Any]:
    cwd = _cwd(payload)
    canonical = {
        "hook_event_name": event,
        "session_id": payload.get("session_id") or payload.get("conversation_id"),
        "cwd": cwd,
        "transcript_path": payload.get("transcript_path"),
    }
    canonical["source" if event == "SessionStart" else "reason"] = payload.get(
        "source" if event == "SessionStart" else "reason"
    )
    return canonical


def session_start(text: str | None, message: str | None) -> dict[str, Any] | None:
    said_text = "\n\n".join(part for part in (message, text) if part)
    return {"additional_context": said_text} if said_text else NOTHING
