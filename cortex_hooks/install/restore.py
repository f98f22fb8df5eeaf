"""What uninstall gives back of a settings file: its bytes before install, when nothing but install
changed it since; no file at all, when nothing but ours is in it (a `{}` left behind is not the
original bytes of a file that did not exist).

Both are found by reading, not by remembering: install keeps no record of its own.
"""

from __future__ import annotations

from cortex_hooks.errors import CortexError
from cortex_hooks.install import file_changes, guarding, mcp_registration, settings_text
from cortex_hooks.install.wiring import ClaudeSettings, check, installed, our_commands, uninstalled


def before_install(path: str, text: str, settings: ClaudeSettings) -> str | None:
    """The file as it was before our install, when nothing but that install changed it since:
    the newest backup B holds no hooks of ours, and the file is, byte for byte, what install
    writes from B with the commands it now holds (with or without the MCP allow rule of
    `--with-mcp`). Uninstall then gives back B's very bytes; otherwise (the file was edited
    since) our hooks are removed from what it now is."""
    found = our_commands(settings)
    newest = file_changes.backups(path)[:1]
    if not newest or any(len(commands) != 1 for commands in found.values()):
        return None
    try:
        raw = file_changes.read(newest[0]) or b""
        earlier = check(settings_text.parse(raw, newest[0]), newest[0])
    except CortexError:  # a backup we cannot read: the removal below does without it
        return None
    if any(our_commands(earlier).values()):
        return None
    original = raw.decode("utf-8")
    candidates = []
    for rules in (guarding.PROJECT_RULES, guarding.USER_RULES):  # the scope's deny rules
        reinstalled, _ = installed(earlier, {event: commands[0] for event, commands in found.items()})
        try:
            guarding.denied(reinstalled, rules, path)
        except CortexError:  # permissions.deny is not a list: install refused it too
            continue
        candidates.append(settings_text.dumped(reinstalled, original))
        try:
            mcp_registration.allowed(reinstalled, path)
            candidates.append(settings_text.dumped(reinstalled, original))
        except CortexError:  # permissions.allow is not a list: install --with-mcp refused it too
            pass
    return original if text in candidates else None


def only_ours(settings: ClaudeSettings) -> bool:
    """Whether nothing but our hooks (and our MCP allow rule) is in these settings: removing
    ours leaves an empty object."""
    left, _ = uninstalled(settings)
    try:
        guarding.undenied(left)
        mcp_registration.disallowed(left, "")
    except CortexError:  # an allow list that is no list: not ours, so something of theirs is left
        return False
    return left == {}


def backups_of_only_ours(path: str) -> list[str]:
    """Our backups of `path` that hold nothing but our hooks: a copy of a file install wrote,
    taken when a later install changed it. Nothing of the person's is in them."""
    found = []
    for backup in file_changes.backups(path):
        try:
            raw = file_changes.read(backup) or b""
            if only_ours(check(settings_text.parse(raw, backup), backup)):
                found.append(backup)
        except CortexError:  # unreadable or not ours to judge: kept
            continue
    return found
