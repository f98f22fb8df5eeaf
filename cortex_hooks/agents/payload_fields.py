"""What every adapter reads of its agent's payload, checked with the standard library (the
PreToolUse hot path imports no pydantic): a field of the right type or a CortexError naming it,
a path made absolute, an MCP tool's name as every agent's calls carry it, the project a hook of
an agent without CLAUDE_PROJECT_DIR works for."""

from __future__ import annotations

import os

from cortex_hooks.errors import CortexError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def text(payload: dict[str, Any], name: str, *, required: bool = True) -> str | None:
    """A string field; None when absent and not required; CortexError when of another type."""
    value = payload.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, str) or (required and not value):
        got = "missing" if value is None else f"a {type(value).__name__}"
        raise CortexError(f"invalid payload: {name} must be a non-empty string (got {got})")
    return value


def object_of(payload: dict[str, Any], name: str) -> dict[str, Any]:
    """An object field, or a JSON object given as a string (Copilot's toolArgs, Cursor's MCP
    tool_input may be either); CortexError otherwise."""
    value = payload.get(name)
    if isinstance(value, str):
        import json

        try:
            value = json.loads(value)
        except ValueError:
            raise CortexError(f"invalid payload: {name} is a string that is no JSON object") from None
    if not isinstance(value, dict):
        got = "missing" if value is None else f"a {type(value).__name__}"
        raise CortexError(f"invalid payload: {name} must be a JSON object (got {got})")
    return value


def absolute(path: object, cwd: str | None) -> object:
    """A relative path made absolute from the call's folder (Claude Code's tools give absolute
    paths; learnings' path regexes and the built-in protection read them so); anything else as
    it is."""
    if not isinstance(path, str) or not path or os.path.isabs(path) or cwd is None:
        return path
    return os.path.normpath(os.path.join(cwd, path))


def mcp_tool(server: str, tool: str) -> str:
    """An MCP server's tool as every agent's call is judged: Claude Code's `mcp__SERVER__TOOL`,
    so one learning (`--tool mcp__github__.*`, or the kind `mcp`) matches it in every agent."""
    return f"mcp__{server}__{tool}"


def project_of(cwd: object) -> str | None:
    """The project a hook works for when its agent names none (Codex, Copilot, Cursor): the
    nearest folder at or above the call's that holds the guard's `.cortex/`, else the call's own
    (an agent started in a subfolder of a project still finds its memory). None when the payload
    names no absolute folder."""
    if not isinstance(cwd, str) or not os.path.isabs(cwd):
        return None
    here = os.path.normpath(cwd)
    home = os.path.expanduser("~")
    while True:
        if here != home and os.path.isdir(os.path.join(here, ".cortex")):
            return here
        parent = os.path.dirname(here)
        if here in (parent, home):
            return os.path.normpath(cwd)
        here = parent
