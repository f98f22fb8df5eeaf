"""What install adds so that the client and the operating system guard the guard, pure:
Claude Code permission deny rules for the guard's files — the file tools are then refused by the
client itself, and with Claude Code's sandbox on the same paths are read-only to Bash — and the
places a wiring lives out of the project's reach.

The rules are written in the settings file install writes; the user's settings also get the
rules for the user's own files (their settings, the global database, the keeper's folder).
Uninstall removes exactly these rules, and nothing else of the lists they are in.
"""

from __future__ import annotations

from typing import Any

from cortex_hooks.errors import USAGE, CortexError
from cortex_hooks.install.wiring import UNTOUCHED, Change

PROJECT_RULES = (
    "Edit(.cortex/**)",
    "Edit(.claude/settings.json)",
    "Edit(.claude/settings.local.json)",
    "Edit(.claude/cortex-team.jsonl)",
)
USER_RULES = (
    "Edit(~/.claude/settings.json)",
    "Edit(~/.claude/memory/**)",
    "Edit(~/.local/state/cortex-hooks/**)",
)


def rules_for(scope: str) -> tuple[str, ...]:
    """The deny rules a settings file of this scope holds (a project's, or the user's)."""
    return USER_RULES if scope in ("user", "managed") else PROJECT_RULES


def denied(settings: dict[str, Any], rules: tuple[str, ...], path: str) -> list[Change]:
    """Add the deny rules to settings (in place); the changes made."""
    listed = _deny_list(settings, path)
    added = [rule for rule in rules if rule not in listed]
    listed += added
    return [Change("permission", "added", rule) for rule in added]


def undenied(settings: dict[str, Any]) -> list[Change]:
    """Remove every deny rule of ours from settings (in place), and the lists it leaves empty."""
    permissions = settings.get("permissions")
    listed = permissions.get("deny") if isinstance(permissions, dict) else None
    if not isinstance(listed, list):
        return []
    ours = set(PROJECT_RULES) | set(USER_RULES)
    removed = [rule for rule in listed if rule in ours]
    listed[:] = [rule for rule in listed if rule not in ours]
    if removed and not listed:
        del permissions["deny"]  # type: ignore[union-attr]
        if not permissions:
            del settings["permissions"]
    return [Change("permission", "removed", rule) for rule in removed]


def _deny_list(settings: dict[str, Any], path: str) -> list[Any]:
    permissions = settings.setdefault("permissions", {})
    if not isinstance(permissions, dict) or not isinstance(permissions.setdefault("deny", []), list):
        raise CortexError(f"{path}: permissions.deny is not a list; {UNTOUCHED}", USAGE)
    rules: list[Any] = permissions["deny"]
    return rules
