"""The files install writes beside Claude Code's settings (those are cli.install's): the slash
commands in `.claude/commands/` and the import line of the project's `CLAUDE.local.md`.

`--with-commands` writes /learn, /remember and /recall; `--with-learn-command` (older) writes
/learn alone. Uninstall removes every command file that carries our marker, and only those.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable

from cortex_hooks import location
from cortex_hooks.errors import USAGE, CortexError
from cortex_hooks.install import file_changes, slash_commands, surface_import
from cortex_hooks.install.file_changes import Plan
from cortex_hooks.install.wiring import UNTOUCHED, Change

USER_SCOPE_NOTE = (
    f"{surface_import.FILENAME}: not changed. The memory surface is per project, and a user-scope "
    "install has none: run `cortex-hooks install` in a project to import it there."
)


def command_plans(args: argparse.Namespace, claude_dir: str, cli: Callable[[], str]) -> list[Plan]:
    """The slash command files to write (install) or remove (uninstall); `cli` names our CLI."""
    wanted = slash_commands.NAMES if args.with_commands else ("learn",) if args.with_learn_command else ()
    plans = []
    for name in slash_commands.NAMES:
        path = os.path.join(claude_dir, "commands", f"{name}.md")
        raw = file_changes.read(path)
        label = f"the /{name} command"
        if args.action == "uninstall":
            if slash_commands.ours(raw):  # its marker says uninstall removes it: no backup of ours
                removal = [Change("command", "removed", f"/{name}")]
                plans.append(Plan(path, raw, None, removal, label=label, backed_up=False))
            continue
        if name not in wanted:
            continue
        if raw is not None and not slash_commands.ours(raw):
            raise CortexError(f"{path} exists and was not written by cortex-hooks; {UNTOUCHED}", USAGE)
        text = slash_commands.text(name, cli())
        changes = (
            [] if raw == text.encode() else [Change("command", "updated" if raw else "added", f"/{name}")]
        )
        plans.append(Plan(path, raw, text, changes, label=label))
    return plans


def import_plan(args: argparse.Namespace) -> Plan | None:
    """The project's CLAUDE.local.md with (install) or without (uninstall) the import of the push
    surface; None where there is nothing to say (a user-scope command, nothing to remove)."""
    if args.scope == "user":
        return None
    path = surface_import.path_in(location.project_root())
    raw = file_changes.read(path)
    label = f"the memory surface import ({surface_import.LINE})"
    try:
        if args.action == "install":
            after: str | None = surface_import.added(raw)
            change = Change("import", "added", surface_import.LINE)
        elif raw is not None and surface_import.imports(raw):
            after = surface_import.removed(raw)
            change = Change("import", "removed", surface_import.LINE)
        else:
            return None
    except UnicodeDecodeError as error:
        raise CortexError(f"{path} is not UTF-8 (byte {error.start}); {UNTOUCHED}") from None
    unchanged = raw is not None and after is not None and after.encode() == raw
    return Plan(path, raw, after, [] if unchanged else [change], label=label, backed_up=False)


def surface_plan(args: argparse.Namespace) -> Plan | None:
    """Uninstall: the push surface's file without our block (SessionEnd and `surface` write it);
    removed when nothing else is in it. None when there is none, or nothing of ours in it."""
    if args.action != "uninstall" or args.scope == "user":
        return None
    path = os.path.join(location.project_root(), surface_import.SURFACE)
    if os.path.islink(path):  # a link is the person's arrangement: what it points at stays theirs
        return None
    raw = file_changes.read(path)
    if raw is None:
        return None
    try:
        after = surface_import.without_block(raw)
    except UnicodeDecodeError:
        return None
    if after is not None and after.encode() == raw:
        return None
    change = Change("surface", "removed", surface_import.SURFACE)
    return Plan(path, raw, after, [change], label="the memory surface", backed_up=False)


def emptied_folders(args: argparse.Namespace, claude_dir: str) -> list[str]:
    """Uninstall: the folders to remove once our files are gone, when nothing is left in them:
    `.claude/commands/` and, of a project, `.claude/` itself (never the user's ~/.claude)."""
    if args.action != "uninstall":
        return []
    folders = [os.path.join(claude_dir, "commands")]
    if args.scope != "user":
        folders.append(claude_dir)
    return folders


def notes(args: argparse.Namespace) -> list[str]:
    return [USER_SCOPE_NOTE] if args.scope == "user" and args.action == "install" else []
