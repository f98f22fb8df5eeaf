"""CLI install / uninstall: where the settings files are, reading, diffing, backing up, writing.

The merge itself is pure, in cortex_hooks.install.wiring.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import sys
from dataclasses import asdict
from typing import Any

from cortex_hooks import location
from cortex_hooks.cli import database, render
from cortex_hooks.errors import CortexError
from cortex_hooks.install import file_changes, files, mcp_registration, settings_text
from cortex_hooks.install.file_changes import Plan
from cortex_hooks.install.wiring import (
    SCRIPTS,
    ClaudeSettings,
    check,
    diff,
    installed,
    our_commands,
    uninstalled,
)
from cortex_hooks.store.connection import open_database
from cortex_hooks.texts.words import clean

SCOPES = ("project", "local", "user")


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    for name, help_text in (
        ("install", "wire the hooks into Claude Code's settings (merged, with a backup)"),
        ("uninstall", "remove our hooks from Claude Code's settings (only ours)"),
    ):
        command = commands.add_parser(name, parents=[common], help=help_text)
        command.add_argument(
            "--scope",
            choices=SCOPES,
            default="project",
            help="project: .claude/settings.json (default); local: .claude/settings.local.json; "
            "user: ~/.claude/settings.json",
        )
        command.add_argument("--dry-run", action="store_true", help="print the diff, write nothing")
        command.add_argument("--json", action="store_true", help="print what was done as JSON")
        command.set_defaults(
            run=run, action=name, with_learn_command=False, with_commands=False, with_mcp=False
        )
    commands.choices["install"].add_argument(
        "--with-commands",
        action="store_true",
        help="also write the /learn, /remember and /recall slash commands (.claude/commands/)",
    )
    commands.choices["install"].add_argument(
        "--with-learn-command",
        action="store_true",
        help="also write the /learn slash command only (.claude/commands/learn.md)",
    )
    commands.choices["install"].add_argument(
        "--packs",
        metavar="NAMES",
        help="also enable these packs (comma-separated; core: every core pack); see cortex-hooks packs",
    )
    commands.choices["install"].add_argument(
        "--with-mcp",
        action="store_true",
        help="also register the MCP server (.mcp.json; user scope: ~/.claude.json) and allow its tools",
    )


def run(args: argparse.Namespace) -> int:
    _refuse_another_projects_folder(args)
    plans = [_settings_plan(args)]
    plans += files.command_plans(
        args, _claude_dir(args.scope), lambda: shlex.quote(script_path("cortex-hooks"))
    )
    servers = mcp_registration.servers_plan(
        args.action, args.scope, args.with_mcp, lambda: script_path("cortex-hooks")
    )
    if servers is not None:
        plans.append(servers)
    surface_import = files.import_plan(args)
    if surface_import is not None:
        plans.append(surface_import)
    if args.dry_run:
        _report_dry_run(args, plans)
        if not args.json:
            for line in _pack_lines(_packs(args, dry_run=True)):
                render.say(line)
        return 0
    for plan in plans:
        if plan.changed:
            file_changes.refuse_read_only(plan.path)  # before anything is written
    project_database = None
    if args.action == "install" and args.scope != "user":
        # first: a database this version cannot use stops the install before any file is written
        project_database = _ensure_database(args)
    for plan in plans:
        if plan.changed:
            _apply(plan)
    enabled = _packs(args, dry_run=False)
    _report(args, plans, project_database, enabled)
    if args.action == "install" and not args.json:
        for line in _pack_lines(enabled):
            render.say(line)
    return 0


def _packs(args: argparse.Namespace, *, dry_run: bool) -> list[dict[str, Any]] | None:
    """`--packs`: each pack enabled (SPEC §14: install enables none by itself), in the project's
    database, or with `--scope user` in the global one; None when none were asked for."""
    if args.action != "install" or not getattr(args, "packs", None):
        return None
    from cortex_hooks.api import packs as api
    from cortex_hooks.guard import packs

    where = database.of(args).acting_on("global" if args.scope == "user" else "project")
    names = [name for given in args.packs.split(",") if given.strip() for name in packs.expand(given.strip())]
    notes = database.notes()
    return [
        summary
        for name in dict.fromkeys(names)
        for summary in api.enable(where, name, notes, dry_run=dry_run)
    ]


def _pack_lines(enabled: list[dict[str, Any]] | None) -> list[str]:
    """What install says of packs: those it enabled, or which exist and how to enable them."""
    from cortex_hooks.guard import packs

    if enabled is None:
        return [
            f"Packs of protective learnings (none enabled): {', '.join(packs.names())};"
            " enable them with: cortex-hooks packs enable core (or install --packs core)"
        ]
    from cortex_hooks.texts import packs as texts

    return [texts.enabled(summary) for summary in enabled]


def _refuse_another_projects_folder(args: argparse.Namespace) -> None:
    """Install wires the folder Claude Code starts in (SPEC §19): one inside another project is
    refused, naming both (location.install_project), before anything is written."""
    if args.action == "install" and args.scope != "user":
        location.install_project()


def _ensure_database(args: argparse.Namespace) -> dict[str, Any]:
    """The project's database, created (private) if need be: hooks never create one, so without
    it the hooks just wired would stay silent. (A user-scope install wires every project; each
    gets its database from its first `cortex-hooks add` or `install`.)"""
    path = database.path(args)
    existed = os.path.exists(path)
    open_database(path, create=True).close()
    return {"path": path, "created": not existed}


def _claude_dir(scope: str) -> str:
    if scope == "user":
        return os.path.join(os.path.abspath(os.path.expanduser("~")), ".claude")
    return os.path.join(location.project_root(), ".claude")


def settings_path(scope: str) -> str:
    name = "settings.local.json" if scope == "local" else "settings.json"
    return os.path.join(_claude_dir(scope), name)


def script_path(name: str) -> str:
    """The absolute path of our installed script `name`: beside the running CLI or its Python
    (not resolved: a virtualenv's python is a symlink out of it), else on PATH."""
    places = [os.path.dirname(os.path.abspath(sys.executable))]
    if sys.argv and sys.argv[0]:
        places.insert(0, os.path.dirname(os.path.abspath(sys.argv[0])))
    for place in places:
        candidate = os.path.join(place, name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    found = shutil.which(name)
    if found:
        return os.path.abspath(found)
    raise CortexError(f"cannot find the installed script {name} beside {sys.executable} or on PATH")


def _settings_plan(args: argparse.Namespace) -> Plan:
    path = settings_path(args.scope)
    raw = file_changes.read(path)
    settings: ClaudeSettings = {} if raw is None else check(settings_text.parse(raw, path), path)
    original = None if raw is None else raw.decode("utf-8")
    if args.action == "install":
        commands = {event: shlex.quote(script_path(name)) for event, name in SCRIPTS.items()}
        merged, changes = installed(settings, commands)
        if args.with_mcp:
            changes += mcp_registration.allowed(merged, path)
    else:
        merged, changes = uninstalled(settings)
        changes += mcp_registration.disallowed(merged, path)
        if changes and original is not None:
            before = _before_install(path, original, settings)
            if before is not None:
                return Plan(path, raw, before, changes)
    return Plan(path, raw, settings_text.dumped(merged, original) if changes else original, changes)


def _before_install(path: str, text: str, settings: ClaudeSettings) -> str | None:
    """The file as it was before our install, when nothing but that install changed it since:
    the newest backup B holds no hooks of ours, and the file is, byte for byte, what install
    writes from B with the commands it now holds. Uninstall then gives back B's very bytes;
    otherwise (the file was edited since) our hooks are removed from what it now is."""
    found = our_commands(settings)
    newest = file_changes.backups(path)[:1]
    if not newest or any(len(commands) != 1 for commands in found.values()):
        return None
    try:
        raw = file_changes.read(newest[0]) or b""
        earlier = check(settings_text.parse(raw, newest[0]), newest[0])
    except CortexError:  # a backup we cannot read: the removal below does without it
        return None
    original = raw.decode("utf-8")
    reinstalled, _ = installed(earlier, {event: commands[0] for event, commands in found.items()})
    if any(our_commands(earlier).values()) or settings_text.dumped(reinstalled, original) != text:
        return None
    return original


def _apply(plan: Plan) -> None:
    """Make the change on disk, after a backup of the previous file (when there was one)."""
    try:
        if plan.before is not None and plan.backed_up:
            plan.backup, plan.removed_backups = file_changes.back_up(plan.path, plan.before)
        if plan.after is None:
            os.remove(plan.path)
        else:
            file_changes.write(plan.path, plan.after)
    except OSError as error:
        raise CortexError(f"cannot write {error.filename or plan.path}: {error.strerror or error}") from None


def _report_dry_run(args: argparse.Namespace, plans: list[Plan]) -> None:
    diffs = {
        plan.path: diff(plan.path, None if plan.before is None else plan.before.decode(), plan.after)
        for plan in plans
    }
    if args.json:
        render.emit_json(
            {
                "scope": args.scope,
                "dry_run": True,
                "files": [{**_plan_json(plan), "diff": diffs[plan.path]} for plan in plans],
                "notes": files.notes(args),
            }
        )
        return
    for plan in plans:
        if plan.changed:
            sys.stdout.write(diffs[plan.path])
        else:
            render.say(f"{clean(plan.path)}: nothing would change.")
    for note in files.notes(args):
        render.say(note)
    render.say("Dry run: nothing was written.")


def _plan_json(plan: Plan) -> dict[str, Any]:
    return {
        "path": plan.path,
        "action": plan.action(),
        "backup": plan.backup,
        "removed_backups": plan.removed_backups,
        "changes": [asdict(change) for change in plan.changes],
    }


def _report(
    args: argparse.Namespace,
    plans: list[Plan],
    project_database: dict[str, Any] | None,
    enabled: list[dict[str, Any]] | None = None,
) -> None:
    notes = files.notes(args)
    if args.json:
        render.emit_json(
            {
                "scope": args.scope,
                "dry_run": False,
                "files": [_plan_json(plan) for plan in plans],
                "database": project_database,
                "notes": notes,
                **({"packs": enabled or []} if args.action == "install" else {}),
            }
        )
        return
    settings, *others = plans
    where = f"{clean(settings.path)} ({args.scope} scope)"
    if not settings.changed:
        render.say(
            f"The cortex-hooks hooks are already in {where}; nothing changed."
            if args.action == "install"
            else f"No cortex-hooks hooks in {where}; nothing changed."
        )
    else:
        verb = (
            "Installed the cortex-hooks hooks in"
            if args.action == "install"
            else "Removed the cortex-hooks hooks from"
        )
        render.say(f"{verb} {where}:")
        for change in settings.changes:
            was = (
                f" (was {clean(change.previous)})"
                if change.previous and change.previous != change.command
                else ""
            )
            render.say(f"  {change.action:<8} {change.where:<13} {clean(change.command)}{was}")
    for plan in others:
        if plan.changed:
            render.say(f"{plan.changes[0].action.capitalize()} {plan.label}: {clean(plan.path)}")
        else:
            render.say(f"{plan.label[:1].upper() + plan.label[1:]} is already in {clean(plan.path)}.")
    for note in notes:
        render.say(note)
    for plan in plans:
        if plan.backup:
            render.say(f"Backup of the previous {os.path.basename(plan.path)}: {clean(plan.backup)}")
            render.say(
                f"  (backups go beside it; the {file_changes.KEPT_BACKUPS} newest are kept"
                + "".join(f", removed {clean(old)}" for old in plan.removed_backups)
                + ")"
            )
        elif plan.changed and plan.before is None:
            render.say(f"{clean(plan.path)} did not exist: created it, nothing to back up.")
    if project_database is not None:
        state = "created" if project_database["created"] else "in place"
        render.say(f"Database {clean(project_database['path'])}: {state}.")
