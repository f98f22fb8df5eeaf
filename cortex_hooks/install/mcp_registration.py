"""What `install --with-mcp` adds: the `cortex` MCP server where Claude Code looks for it (the
project's `.mcp.json`, or for the user scope `~/.claude.json` as `claude mcp add --scope user`
writes it) and the allow rule `mcp__cortex` in the scope's settings. Uninstall removes only ours.
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Callable
from typing import Any

from cortex_hooks import location
from cortex_hooks.errors import USAGE, CortexError
from cortex_hooks.install import file_changes
from cortex_hooks.install.file_changes import Plan
from cortex_hooks.install.wiring import UNTOUCHED, Change

SERVER = "cortex"  # the model sees its tools as mcp__cortex__<tool>
RULE = f"mcp__{SERVER}"  # allows every tool of the server
LABEL = f"the MCP server {SERVER}"


def entry(command: str) -> dict[str, Any]:
    """The server as `claude mcp add cortex -- COMMAND mcp` writes it (checked with 2.1.197)."""
    return {"type": "stdio", "command": command, "args": ["mcp"], "env": {}}


def ours(server: object) -> bool:
    """Whether a server entry runs our `cortex-hooks mcp`, whatever its path."""
    return (
        isinstance(server, dict)
        and server.get("args") == ["mcp"]
        and isinstance(server.get("command"), str)
        and os.path.basename(server["command"]) == "cortex-hooks"
    )


def servers_path(scope: str) -> str:
    if scope == "user":
        return os.path.join(os.path.abspath(os.path.expanduser("~")), ".claude.json")
    return os.path.join(location.project_root(), ".mcp.json")


def servers_plan(action: str, scope: str, wanted: bool, command: Callable[[], str]) -> Plan | None:
    """The file of MCP servers with ours added (install with `wanted`) or removed (uninstall);
    None when there is nothing to do."""
    path = servers_path(scope)
    raw = file_changes.read(path)
    if (action == "install" and not wanted) or (action == "uninstall" and raw is None):
        return None
    data = {} if raw is None else _servers_file(raw, path)
    result = copy.deepcopy(data)
    servers = result.setdefault("mcpServers", {})
    current = servers.get(SERVER)
    if action == "install":
        if current is not None and not ours(current):
            raise CortexError(
                f"{path} already has an MCP server named {SERVER} that is not cortex-hooks'; {UNTOUCHED}",
                USAGE,
            )
        servers[SERVER] = entry(command())
        changes = (
            []
            if current == servers[SERVER]
            else [
                Change(
                    "mcp",
                    "updated" if current else "added",
                    f"{SERVER}: {servers[SERVER]['command']} mcp",
                    None if current is None else f"{current['command']} mcp",
                )
            ]
        )
    else:
        if not ours(current):
            return None
        del servers[SERVER]
        changes = [Change("mcp", "removed", f"{SERVER}: {current['command']} mcp")]
    after: str | None = json.dumps(result, indent=2, ensure_ascii=False) + "\n"
    if scope != "user" and result == {"mcpServers": {}}:
        after = None  # the .mcp.json install created, or one that held only ours
    return Plan(
        path,
        raw,
        after if changes else raw.decode() if raw else None,
        changes,
        label=LABEL,
        backed_up=after is not None,  # a file that held only ours is no one else's to keep
    )


def _servers_file(raw: bytes, path: str) -> dict[str, Any]:
    try:
        data = json.loads(raw)
    except ValueError as error:
        raise CortexError(f"{path} is not valid JSON ({error}); {UNTOUCHED}") from None
    if not isinstance(data, dict) or not isinstance(data.get("mcpServers", {}), dict):
        raise CortexError(f"{path} is not an object with an mcpServers object; {UNTOUCHED}")
    return data


def allowed(settings: dict[str, Any], path: str) -> list[Change]:
    """Add the allow rule to settings (in place); the change made, if any."""
    rules = _rules(settings, path)
    if RULE in rules:
        return []
    rules.append(RULE)
    return [Change("permission", "added", RULE)]


def disallowed(settings: dict[str, Any], path: str) -> list[Change]:
    """Remove the allow rule from settings (in place), and the lists it leaves empty."""
    permissions = settings.get("permissions")
    if not isinstance(permissions, dict) or RULE not in (permissions.get("allow") or []):
        return []
    rules = _rules(settings, path)
    rules[:] = [rule for rule in rules if rule != RULE]
    if not rules:
        del permissions["allow"]
        if not permissions:
            del settings["permissions"]
    return [Change("permission", "removed", RULE)]


def _rules(settings: dict[str, Any], path: str) -> list[Any]:
    permissions = settings.setdefault("permissions", {})
    if not isinstance(permissions, dict) or not isinstance(permissions.setdefault("allow", []), list):
        raise CortexError(f"{path}: permissions.allow is not a list; {UNTOUCHED}", USAGE)
    rules: list[Any] = permissions["allow"]
    return rules
