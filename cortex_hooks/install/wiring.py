"""Our three hooks in Claude Code's settings, pure: merged in, merged out, never clobbering.

A settings.json object (ClaudeSettings) in, the merged object and the list of changes out;
cortex_hooks.cli.install reads, diffs, backs up and writes the files around it.
"""

from __future__ import annotations

import copy
import difflib
import os
import shlex
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from cortex_hooks.errors import USAGE, CortexError

SCRIPTS = {
    "PreToolUse": "cortex-pre-tool-use",
    "SessionStart": "cortex-session-start",
    "SessionEnd": "cortex-session-end",
}
MATCHERS = {"PreToolUse": "*"}  # the session events take no matcher: every source, every reason
TIMEOUT = 30  # seconds; for SessionEnd it also lifts Claude Code's 1.5 s budget

ClaudeSettings = dict[str, Any]


@dataclass(frozen=True)
class Change:
    where: str  # a hook event, or "command" for the /learn file
    action: Literal["added", "updated", "removed"]
    command: str
    previous: str | None = None


def script_of(command: object) -> str | None:
    """Our script name when `command` runs one of our hooks, whatever its path."""
    if not isinstance(command, str):
        return None
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if not words:
        return None
    name = os.path.basename(words[0].replace("\\", "/")).removesuffix(".exe")
    return name if name in SCRIPTS.values() else None


def hooks_block(commands: Mapping[str, str]) -> ClaudeSettings:
    """The `hooks` block install writes for a fresh file (settings.example.json, with paths)."""
    return {"hooks": {event: [_group(event, commands[event])] for event in SCRIPTS}}


def _group(event: str, command: str) -> ClaudeSettings:
    group: ClaudeSettings = {"matcher": MATCHERS[event]} if event in MATCHERS else {}
    group["hooks"] = [{"type": "command", "command": command, "timeout": TIMEOUT}]
    return group


def check(settings: object, path: str) -> ClaudeSettings:
    """The settings object, or CortexError (exit 2) when it is not something we can merge into:
    not an object, or hooks Claude Code would reject (it then ignores the whole file)."""
    if not isinstance(settings, dict):
        raise CortexError(f"{path} is a JSON {type(settings).__name__}, not an object; {UNTOUCHED}", USAGE)
    hooks = settings.get("hooks", {})
    if not isinstance(hooks, dict):
        raise CortexError(f'{path}: "hooks" is not an object; {UNTOUCHED}', USAGE)
    for event, groups in hooks.items():
        problem = _malformed(f"hooks.{event}", groups)
        if problem:
            raise CortexError(f"{path}: {problem}; {UNTOUCHED}", USAGE)
    return settings


def _malformed(where: str, groups: object) -> str | None:
    """What is wrong with an event's list of matcher groups, named by its path, if anything."""
    if not isinstance(groups, list):
        return f"{where} is not a list"
    for index, group in enumerate(groups):
        at = f"{where}[{index}]"
        if not isinstance(group, dict):
            return f"{at} is not an object"
        if not isinstance(group.get("matcher", ""), str):
            return f"{at}.matcher is not a string"
        if not isinstance(group.get("hooks"), list):
            return f"{at}.hooks is missing or not a list"
        for number, handler in enumerate(group["hooks"]):
            if not isinstance(handler, dict):
                return f"{at}.hooks[{number}] is not an object"
            if not isinstance(handler.get("type"), str):
                return f"{at}.hooks[{number}].type is missing or not a string"
            # other types (http, prompt, …) carry a url or a prompt instead of a command
            if handler["type"] == "command" and not isinstance(handler.get("command"), str):
                return f"{at}.hooks[{number}].command is missing or not a string"
    return None


UNTOUCHED = "left untouched (fix or move it, then run this again)"


def _handlers(group: object) -> Iterator[ClaudeSettings]:
    if isinstance(group, dict) and isinstance(group.get("hooks"), list):
        yield from (handler for handler in group["hooks"] if isinstance(handler, dict))


def our_commands(settings: object) -> dict[str, list[str]]:
    """The commands of our hooks in a settings object, per event, however malformed it is."""
    hooks = settings.get("hooks") if isinstance(settings, dict) else None
    found: dict[str, list[str]] = {}
    for event, script in SCRIPTS.items():
        groups = hooks.get(event) if isinstance(hooks, dict) else None
        found[event] = [
            handler["command"]
            for group in (groups if isinstance(groups, list) else [])
            for handler in _handlers(group)
            if isinstance(handler.get("command"), str) and script_of(handler["command"]) == script
        ]
    return found


def installed(settings: ClaudeSettings, commands: Mapping[str, str]) -> tuple[ClaudeSettings, list[Change]]:
    """`settings` with our three hooks in it: ours (known by script name) get the new path in
    place, anything missing is appended; every other key, hook and order stays as it is."""
    result = copy.deepcopy(settings)
    changes: list[Change] = []
    hooks = result.setdefault("hooks", {})
    for event, script in SCRIPTS.items():
        command = commands[event]
        groups = hooks.setdefault(event, [])
        ours = [h for group in groups for h in _handlers(group) if script_of(h.get("command")) == script]
        for handler in ours:
            previous = handler.get("command")
            if previous != command or "timeout" not in handler:
                changes.append(Change(event, "updated", command, str(previous)))
            handler["command"] = command
            handler.setdefault("timeout", TIMEOUT)  # a timeout the user chose is theirs
        if not ours:
            groups.append(_group(event, command))
            changes.append(Change(event, "added", command))
    return result, changes


def uninstalled(settings: ClaudeSettings) -> tuple[ClaudeSettings, list[Change]]:
    """`settings` without our hooks, in any event; a group, event list or `hooks` object that
    only held ours goes too, anything that was empty before stays."""
    result = copy.deepcopy(settings)
    changes: list[Change] = []
    hooks = result.get("hooks")
    if not isinstance(hooks, dict):
        return result, changes
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        emptied = 0
        for group in list(groups):
            mine = [h for h in _handlers(group) if script_of(h.get("command"))]
            if not mine:
                continue
            changes += [Change(event, "removed", str(h["command"])) for h in mine]
            group["hooks"] = [h for h in group["hooks"] if all(h is not m for m in mine)]
            if not group["hooks"]:
                groups[:] = [g for g in groups if g is not group]  # by identity: equal ones stay
                emptied += 1
        if emptied and not groups:
            del hooks[event]
    if changes and not hooks:
        del result["hooks"]
    return result, changes


def diff(path: str, before: str | None, after: str | None) -> str:
    return "".join(
        difflib.unified_diff(
            (before or "").splitlines(keepends=True),
            (after or "").splitlines(keepends=True),
            fromfile="/dev/null" if before is None else path,
            tofile="/dev/null" if after is None else path,
        )
    )


PLUGIN = "cortex-hooks"  # our plugin's name (plugin/.claude-plugin/plugin.json): `enabledPlugins` keys


def weakened(before: str | None, after: str | None) -> list[str]:
    """What of our hooks a settings file loses when its text goes from `before` to `after` (None:
    no such file; for `after`, a text that cannot be known), in words (empty: nothing). Ours are
    lost when a handler of ours goes or changes (its command, matcher, timeout …), when the file
    stops being settings Claude Code reads (it then ignores the whole file), when
    `disableAllHooks` turns on, or when our plugin is disabled (docs/guide/selfguard.md)."""
    old = _loaded(before)
    held = _ours(old) if old is not None else set()
    plugins = _enabled_plugins(old)
    if after is None:
        return ["what the file would say cannot be known"] if held or plugins else []
    new = _loaded(after)
    if new is None:
        gone = "Claude Code would ignore the file (it would not be valid settings)"
        return [gone] if held or plugins or "disableAllHooks" in after else []
    lost = [
        f"its {event} hook would be removed or changed"
        for event in sorted({e for e, _, _ in held - _ours(new)})
    ]
    if _true(new.get("disableAllHooks")) and not (old is not None and _true(old.get("disableAllHooks"))):
        lost.append("disableAllHooks would turn every hook off")
    if plugins - _enabled_plugins(new):
        lost.append("the cortex-hooks plugin would be disabled")
    return lost


def _loaded(text: str | None) -> ClaudeSettings | None:
    """A settings file's object when Claude Code would read it; None for no file or one it ignores."""
    import json

    if text is None:
        return None
    try:
        return check(json.loads(text), "settings")
    except (ValueError, RecursionError, CortexError):
        return None


def _ours(settings: ClaudeSettings) -> set[tuple[str, str, str]]:
    """Our handlers as (event, matcher, handler), each exactly as written."""
    import json

    found = set()
    for event, groups in settings.get("hooks", {}).items():
        for group in groups:
            for handler in _handlers(group):
                if script_of(handler.get("command")) is not None:
                    matcher = json.dumps(group.get("matcher"))
                    found.add((event, matcher, json.dumps(handler, sort_keys=True)))
    return found


def _enabled_plugins(settings: ClaudeSettings | None) -> set[str]:
    plugins = settings.get("enabledPlugins") if settings is not None else None
    if not isinstance(plugins, dict):
        return set()
    return {name for name, on in plugins.items() if str(name).split("@", 1)[0] == PLUGIN and _true(on)}


def _true(value: object) -> bool:
    return value is not None and value is not False and value not in {0, ""}
