"""The guard's files the keeper watches: each database's config file, and the settings
files that hold the hooks' wiring. Each is kept as cortex-hooks last accepted it, in the keeper's
folder; a change another program made is compared with that copy: one that weakens the guard is
put back (the changed file set aside, the person told the command that makes it for real), any
other is accepted as the new copy.

A settings file weakens the guard when a hook of ours is removed or changed, `disableAllHooks`
turns on, our plugin is disabled, an `env` entry would reach the guard's processes (CORTEX_*,
CLAUDE_CONFIG_DIR, HOME, XDG_STATE_HOME), or a permission deny rule install wrote is gone. A
config file weakens it when it raises the block gate, lowers the boost, the start, the ceiling or
the floor, raises the decay, shortens the regex timeout or prunes sooner.
"""

from __future__ import annotations

import json
import os

from cortex_hooks import clock, regular_file

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

FILES = "files"  # the copies, in the keeper's folder
SET_ASIDE = "set-aside"  # the changed files put back, kept for the person
LIMIT = 1 << 20  # bytes of a watched file read: a larger one is not ours to read whole
_REACHING = ("CLAUDE_CONFIG_DIR", "HOME", "XDG_STATE_HOME")


def text_of(path: str) -> str | None:
    """A watched file's text (None: no file, or none that can be read as a small text file)."""
    try:
        return regular_file.read_small(path, LIMIT).decode("utf-8")
    except (OSError, ValueError):  # ValueError: not UTF-8, or a path no file can have (a NUL)
        return None


def keep(folder: str, path: str, kind: str) -> dict[str, Any]:
    """The file as it is now, copied into the keeper's folder: its ledger entry."""
    name = _copy_name(path)
    text = text_of(path)
    os.makedirs(os.path.join(folder, FILES), mode=0o700, exist_ok=True)
    copy = os.path.join(folder, FILES, name)
    if text is None:
        if os.path.exists(copy):
            os.remove(copy)
    else:
        regular_file.write_whole(copy, text.encode("utf-8"), mode=0o600)
    return {"kind": kind, "copy": name, "fingerprint": regular_file.fingerprint(path)}


def checked(folder: str, path: str, entry: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    """A watched file against its copy: its new ledger entry, and what was put back (None: it
    had not changed, or changed without weakening the guard, and its copy follows it)."""
    if regular_file.fingerprint(path) == entry.get("fingerprint"):
        return entry, None
    kind = str(entry.get("kind"))
    copy = os.path.join(folder, FILES, str(entry.get("copy")))
    before, after = text_of(copy), text_of(path)
    if kind == "agent":  # another agent's settings or hook file (install --agent)
        from cortex_hooks.guard.weakening import hooks_dropped

        lost = hooks_dropped(before, after)
    else:
        lost = settings_lost(before, after) if kind == "settings" else config_lost(before, after)
    if not lost:
        return keep(folder, path, kind), None
    aside = _set_aside(folder, path, after)
    if before is None:
        os.remove(path)
    else:
        regular_file.write_whole(path, before.encode("utf-8"), mode=0o600, keep_mode=True)
    where = f"; the changed file is kept at {aside}" if aside else ""
    command = (
        "cortex-hooks uninstall"
        if kind == "settings"
        else "cortex-hooks uninstall --agent NAME"
        if kind == "agent"
        else "cortex-hooks integrity accept (after reading it)"
    )
    said = (
        f"{path} was changed ({'; '.join(lost)}): put back{where} "
        f"(to make the change for real, in your own terminal: {command})"
    )
    return keep(folder, path, kind), said


def _set_aside(folder: str, path: str, text: str | None) -> str | None:
    if text is None:
        return None
    stamp = clock.iso(clock.now()).replace(":", "")
    aside = os.path.join(folder, SET_ASIDE, f"{_copy_name(path)}.{stamp}")
    os.makedirs(os.path.dirname(aside), mode=0o700, exist_ok=True)
    regular_file.write_whole(aside, text.encode("utf-8"), mode=0o600)
    return aside


def _copy_name(path: str) -> str:
    return "".join(char if char.isalnum() or char in "._" else "-" for char in os.path.abspath(path)).strip(
        "-"
    )


def settings_lost(before: str | None, after: str | None) -> list[str]:
    """What of the guard a settings file loses between two texts, in words (empty: nothing)."""
    from cortex_hooks.install import wiring

    if after is None:
        return ["it was removed (Claude Code no longer runs the hooks it held)"] if before is not None else []
    lost = wiring.weakened(before, after)
    old, new = _object(before), _object(after)
    if new is None:
        return lost
    kept_env = _mapping(old.get("env")) if old else {}
    for name in _mapping(new.get("env")):
        if (name.startswith("CORTEX_") or name in _REACHING) and name not in kept_env:
            lost.append(f"its env block sets {name}, which the guard's processes would read")
    denied = set(_denied(old)) - set(_denied(new))
    if denied:
        lost.append(f"the permission deny rules {', '.join(sorted(denied))} were removed")
    return lost


def _object(text: str | None) -> dict[str, Any] | None:
    if text is None:
        return None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _mapping(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _denied(settings: dict[str, Any] | None) -> list[str]:
    rules = _mapping(_mapping(settings).get("permissions")).get("deny")
    return [rule for rule in rules if isinstance(rule, str)] if isinstance(rules, list) else []


def config_lost(before: str | None, after: str | None) -> list[str]:
    """What of the guard a config file loses between two texts, in words (empty: nothing). A
    file that does not validate is read as the defaults (as every process reads it)."""
    from cortex_hooks.guard.weakening import config_lowered

    return config_lowered(_config(before), _config(after))


def _config(text: str | None) -> Any:
    from cortex_hooks.config import DEFAULT

    if text is None:
        return DEFAULT
    from cortex_hooks import config_file

    return config_file.parse(text.encode("utf-8"))[0]
