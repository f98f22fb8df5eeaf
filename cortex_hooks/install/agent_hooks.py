"""Our hooks in the other agents' own hook files, pure: where each file is, our entries
merged in and taken out, never touching another entry.

- codex: `.codex/hooks.json` (project) or `$CODEX_HOME/hooks.json` (user): PreToolUse,
  SessionStart, Stop;
- gemini: `.gemini/settings.json` or `~/.gemini/settings.json`: BeforeTool, SessionStart, SessionEnd;
- copilot: `.github/hooks/cortex-hooks.json` or `$COPILOT_HOME/hooks/cortex-hooks.json` (a file of
  its own): preToolUse, sessionStart, sessionEnd;
- cursor: `.cursor/hooks.json` or `~/.cursor/hooks.json`: preToolUse, sessionStart.

Codex and Gemini nest handlers in matcher groups (`{"matcher": …, "hooks": [handler]}`), Copilot
and Cursor list them flat. Timeouts: Codex and Cursor in seconds, Gemini in milliseconds, Copilot
`timeoutSec`. Our handler is known by its command (install.wiring.script_of: one of our scripts).
"""

from __future__ import annotations

import copy
import os
from typing import TYPE_CHECKING

from cortex_hooks.errors import USAGE, CortexError
from cortex_hooks.install.wiring import SCRIPTS, UNTOUCHED, Change, script_of

if TYPE_CHECKING:
    from typing import Any

AGENTS = ("codex", "gemini", "copilot", "cursor")
TITLES = {"codex": "Codex CLI", "gemini": "Gemini CLI", "copilot": "Copilot CLI", "cursor": "Cursor"}
# our event → the agent's name of it; an event the agent is not wired for is absent
EVENTS: dict[str, dict[str, str]] = {
    "codex": {"PreToolUse": "PreToolUse", "SessionStart": "SessionStart", "SessionEnd": "Stop"},
    "gemini": {"PreToolUse": "BeforeTool", "SessionStart": "SessionStart", "SessionEnd": "SessionEnd"},
    "copilot": {"PreToolUse": "preToolUse", "SessionStart": "sessionStart", "SessionEnd": "sessionEnd"},
    "cursor": {"PreToolUse": "preToolUse", "SessionStart": "sessionStart"},
}
NESTED = frozenset({"codex", "gemini"})
TIMEOUT = 30  # seconds, as for Claude Code
COPILOT_FILE = "cortex-hooks.json"


def path(agent: str, scope: str, project: str, environ: dict[str, str] | None = None) -> str:
    """The hook file install writes for an agent at a scope (project or user)."""
    environ = dict(os.environ) if environ is None else environ
    home = environ.get("HOME") or os.path.expanduser("~")
    if scope not in ("project", "user"):
        raise CortexError(
            f"{TITLES[agent]} has no {scope} scope: use --scope project (this project) or --scope user "
            "(every project)",
            USAGE,
        )
    user = scope == "user"
    if agent == "codex":
        folder = (
            (environ.get("CODEX_HOME") or os.path.join(home, ".codex"))
            if user
            else os.path.join(project, ".codex")
        )
        return os.path.join(folder, "hooks.json")
    if agent == "gemini":
        return os.path.join(home if user else project, ".gemini", "settings.json")
    if agent == "copilot":
        folder = (
            (environ.get("COPILOT_HOME") or os.path.join(home, ".copilot"))
            if user
            else os.path.join(project, ".github")
        )
        return os.path.join(folder, "hooks", COPILOT_FILE)
    return os.path.join(home if user else project, ".cursor", "hooks.json")


def check(agent: str, document: object, where: str) -> dict[str, Any]:
    """The file's object, or CortexError (exit 2) when it is nothing we can merge into."""
    if not isinstance(document, dict):
        raise CortexError(f"{where} is a JSON {type(document).__name__}, not an object; {UNTOUCHED}", USAGE)
    hooks = document.get("hooks", {})
    if not isinstance(hooks, dict):
        raise CortexError(f'{where}: "hooks" is not an object; {UNTOUCHED}', USAGE)
    for event in EVENTS[agent].values():
        entries = hooks.get(event, [])
        if not isinstance(entries, list) or not all(isinstance(entry, dict) for entry in entries):
            raise CortexError(f"{where}: hooks.{event} is not a list of objects; {UNTOUCHED}", USAGE)
        if agent in NESTED and not all(isinstance(entry.get("hooks", []), list) for entry in entries):
            raise CortexError(
                f"{where}: a group of hooks.{event} has hooks that are no list; {UNTOUCHED}", USAGE
            )
    return document


def handler(agent: str, event: str, command: str) -> dict[str, Any]:
    """Our handler for an event, in the agent's format."""
    if agent == "copilot":
        return {"type": "command", "bash": command, "timeoutSec": TIMEOUT}
    if agent == "cursor":
        return {"command": command, "timeout": TIMEOUT}
    timeout = TIMEOUT * 1000 if agent == "gemini" else TIMEOUT  # Gemini counts milliseconds
    return {"type": "command", "command": command, "timeout": timeout}


def _command_of(agent: str, entry: dict[str, Any]) -> object:
    return entry.get("bash") if agent == "copilot" else entry.get("command")


def _handlers(agent: str, entries: list[Any]) -> list[tuple[list[Any], int]]:
    """Each handler of an event's list, as (the list holding it, its index)."""
    found: list[tuple[list[Any], int]] = []
    for position, entry in enumerate(entries):
        if agent in NESTED:
            inner = entry.get("hooks") if isinstance(entry, dict) else None
            if isinstance(inner, list):
                found += [(inner, index) for index, item in enumerate(inner) if isinstance(item, dict)]
        elif isinstance(entry, dict):
            found.append((entries, position))
    return found


def ours(agent: str, document: object) -> dict[str, list[str]]:
    """The commands of our handlers in an agent's file, by our event."""
    hooks = document.get("hooks") if isinstance(document, dict) else None
    found: dict[str, list[str]] = {}
    for event, name in EVENTS[agent].items():
        entries = hooks.get(name) if isinstance(hooks, dict) else None
        found[event] = [
            str(_command_of(agent, holder[index]))
            for holder, index in _handlers(agent, entries if isinstance(entries, list) else [])
            if script_of(_command_of(agent, holder[index])) == SCRIPTS[event]
        ]
    return found


def wired(
    agent: str, document: dict[str, Any], commands: dict[str, str]
) -> tuple[dict[str, Any], list[Change]]:
    """The file with our handler for each of the agent's events (`commands`: our event → the
    command line), and what changed; an entry of ours already there is updated in place."""
    merged = copy.deepcopy(document)
    if agent in ("copilot", "cursor"):
        merged.setdefault("version", 1)
    hooks = merged.setdefault("hooks", {})
    changes: list[Change] = []
    for event, name in EVENTS[agent].items():
        command = commands[event]
        entries = hooks.setdefault(name, [])
        mine = [
            (holder, index)
            for holder, index in _handlers(agent, entries)
            if script_of(_command_of(agent, holder[index])) == SCRIPTS[event]
        ]
        if mine:
            holder, index = mine[0]
            previous = _command_of(agent, holder[index])
            if previous != command:
                holder[index] = handler(agent, event, command)
                changes.append(Change(name, "updated", command, str(previous)))
            continue
        entry = handler(agent, event, command)
        if agent in NESTED:
            group: dict[str, Any] = {"matcher": "*"} if agent == "gemini" and event == "PreToolUse" else {}
            group["hooks"] = [entry]
            entry = group
        entries.append(entry)
        changes.append(Change(name, "added", command))
    return merged, changes


def unwired(agent: str, document: dict[str, Any]) -> tuple[dict[str, Any] | None, list[Change]]:
    """The file without our handlers (None: nothing but ours was in it, so no file), and what
    was removed. A group or an event list we emptied goes too; nothing else is touched."""
    left = copy.deepcopy(document)
    hooks = left.get("hooks")
    changes: list[Change] = []
    if not isinstance(hooks, dict):
        return left, changes
    for event, name in EVENTS[agent].items():
        entries = hooks.get(name)
        if not isinstance(entries, list):
            continue
        kept: list[Any] = []
        for entry in entries:
            if agent in NESTED and isinstance(entry, dict) and isinstance(entry.get("hooks"), list):
                inner = [item for item in entry["hooks"] if not _is_ours(agent, event, item, changes, name)]
                if inner or not entry["hooks"]:
                    kept.append({**entry, "hooks": inner})
            elif agent in NESTED or not _is_ours(agent, event, entry, changes, name):
                kept.append(entry)
        if kept:
            hooks[name] = kept
        else:
            del hooks[name]
    if not hooks:
        del left["hooks"]
    if not left or (agent in ("copilot", "cursor") and set(left) == {"version"}):
        return None, changes
    return left, changes


def _is_ours(agent: str, event: str, entry: object, changes: list[Change], name: str) -> bool:
    command = _command_of(agent, entry) if isinstance(entry, dict) else None
    if script_of(command) != SCRIPTS[event]:
        return False
    changes.append(Change(name, "removed", str(command)))
    return True
