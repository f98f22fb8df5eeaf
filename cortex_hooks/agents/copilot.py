"""GitHub Copilot CLI's hooks (verified with 1.0.102): `preToolUse` from `.github/hooks/*.json` or
the user's `~/.copilot/hooks/`, with a camelCase payload — `toolName`, `toolArgs` (an object, or
the patch text for `apply_patch`, or a JSON string), `cwd`, `sessionId` — and no event name.
Its tools: `bash` {command}, `apply_patch` (the patch format Codex uses), `create` {path,
file_text}, `edit` / `str_replace` {path, old_str, new_str}, `view` {path}, `rg`, `glob`; an MCP
tool as `SERVER-TOOL` (the servers of its MCP configuration tell where the server's name ends).

The answer is `permissionDecision` deny or ask with `permissionDecisionReason` (the model reads
"Denied by preToolUse hook: REASON"; in `copilot -p` an ask is refused the same way, "unable to
ask user for confirmation"), `modifiedArgs` for a rewrite (verified: the corrected command ran)
and `additionalContext` (the model reads it as "Additional context from preToolUse hook"). A hook
that fails denies the call in Copilot ("hook errored"): so a failure here exits 0, its one line
on stderr, and the call runs, as docs/internals/guarantees.md asks. sessionEnd is awaited: decay there.
"""

from __future__ import annotations

import json
import os

from cortex_hooks.agents import payload_fields
from cortex_hooks.errors import CortexError
from cortex_hooks.guard import agent_tools, matching
from cortex_hooks.guard.call import Call

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from cortex_hooks.guard.judge import Judgment

NAME = "copilot"
EVENTS: dict[str, tuple[str, ...]] = {"PreToolUse": (), "SessionStart": (), "SessionEnd": ()}
FAILED = 0  # Copilot denies a call whose preToolUse hook fails: a failure must not block the work
DECAY = "end"

PATCH_TOOL = "apply_patch"


def calls(payload: dict[str, Any]) -> tuple[list[Call], bool]:
    name = payload_fields.text(payload, "toolName")
    assert name is not None
    cwd = payload_fields.text(payload, "cwd", required=False)
    session = payload.get("sessionId")
    arguments = payload.get("toolArgs")
    if name == PATCH_TOOL and isinstance(arguments, str):
        from cortex_hooks.guard import apply_patch

        made = apply_patch.calls(arguments, cwd)
        if made is not None:
            return [Call(tool, given, cwd, session=session, agent=NAME) for tool, given in made], False
        arguments = {"patch": arguments}
    given = payload_fields.object_of({"toolArgs": arguments}, "toolArgs")
    known = agent_tools.renamed(agent_tools.COPILOT, name, given)
    if known is None:
        tool, tool_input = _mcp(name, cwd) or name, given
    else:
        tool, tool_input = known
        if "file_path" in tool_input:
            tool_input["file_path"] = payload_fields.absolute(tool_input["file_path"], cwd)
    problem = matching.mistyped(tool, tool_input)
    if problem:
        raise CortexError(f"invalid payload: {problem}")
    # A rewrite answers the arguments Copilot gave, with the command corrected.
    call = Call(tool, given if tool == "Bash" else tool_input, cwd, session=session, agent=NAME)
    return [call], tool == "Bash"


def _mcp(name: str, cwd: str | None) -> str | None:
    """`SERVER-TOOL` as mcp__SERVER__TOOL, for a server of Copilot's MCP configuration (the user's
    and the project's); None for any other name."""
    if "-" not in name:
        return None
    servers: set[str] = set()
    home = os.environ.get("COPILOT_HOME") or os.path.join(os.path.expanduser("~"), ".copilot")
    places = [os.path.join(home, "mcp-config.json")]
    if cwd:
        places += [os.path.join(cwd, ".mcp.json"), os.path.join(cwd, ".vscode", "mcp.json")]
    for place in places:
        try:
            with open(place, encoding="utf-8") as stream:
                configured = json.load(stream)
        except (OSError, ValueError):
            continue
        for key in ("mcpServers", "servers"):
            if isinstance(configured, dict) and isinstance(configured.get(key), dict):
                servers.update(str(server) for server in configured[key])
    for server in sorted(servers, key=len, reverse=True):
        if name.startswith(server + "-") and len(name) > len(server) + 1:
            return payload_fields.mcp_tool(server, name[len(server) + 1 :])
    return None


def payload(tool: str, tool_input: dict[str, Any], cwd: str) -> dict[str, Any]:
    """A preToolUse payload as Copilot CLI sends it (for explain)."""
    return {"sessionId": "explain", "timestamp": 0, "cwd": cwd, "toolName": tool, "toolArgs": tool_input}


def pre_tool_use(judged: Judgment, payload: dict[str, Any]) -> dict[str, Any] | None:
    from cortex_hooks.agents import said  # a match only: never on the no-match path

    told = said.said(judged, ask=True, rewrite=True)
    answer: dict[str, Any] = {}
    if told.decision in ("deny", "ask"):
        answer["permissionDecision"] = told.decision
        answer["permissionDecisionReason"] = told.reason
    elif told.decision == "rewrite":
        # No permissionDecision: an "allow" would also skip the approval the person may want.
        answer["modifiedArgs"] = told.updated_input
    elif told.decision is None:
        return None
    if told.context:
        answer["additionalContext"] = told.context
    return answer


def project(payload: dict[str, Any]) -> str | None:
    """The project the hook works for (named CLAUDE_PROJECT_DIR by the pipeline): the nearest
    folder holding `.cortex/` at or above the call's."""
    return payload_fields.project_of(payload.get("cwd"))


def session(payload: dict[str, Any], event: str) -> dict[str, Any]:
    canonical = {
        "hook_event_name": event,
        "session_id": payload.get("sessionId"),
        "cwd": payload.get("cwd"),
        "transcript_path": None,  # Copilot's session store is its own database, not read here
    }
    canonical["source" if event == "SessionStart" else "reason"] = payload.get(
        "source" if event == "SessionStart" else "reason"
    )
    return canonical


def session_start(text: str | None, message: str | None) -> dict[str, Any] | None:
    """The context injected into the conversation (Copilot shows no message to the person from
    this hook: the review's one line goes into the context too)."""
    said_text = "\n\n".join(part for part in (message, text) if part)
    return {"additionalContext": said_text} if said_text else None
