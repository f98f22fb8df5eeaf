"""CLI install / uninstall: where the settings files are, reading, diffing, backing up, writing.

The merge itself is pure, in cortex_hooks.install.wiring.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import sys
from typing import Any

from cortex_hooks import location
from cortex_hooks.api import purge
from cortex_hooks.cli import database, install_agents, render
from cortex_hooks.cli import install_report as report
from cortex_hooks.cli import purge as purge_cli
from cortex_hooks.cli.install_report import Outcome
from cortex_hooks.errors import CortexError
from cortex_hooks.install import file_changes, files, mcp_registration, restore, settings_text
from cortex_hooks.install.file_changes import Plan
from cortex_hooks.install.wiring import SCRIPTS, ClaudeSettings, check, installed, uninstalled
from cortex_hooks.store.connection import open_database

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
            run=run,
            action=name,
            with_learn_command=False,
            with_commands=False,
            with_mcp=False,
            purge=False,
            yes=False,
        )
    purge_cli.register(commands.choices["uninstall"])
    install_agents.register(commands.choices["install"], commands.choices["uninstall"])
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
    agent = install_agents.asked(args)
    if agent is not None:  # another coding agent's own hook file (SPEC §22)
        return install_agents.run(args, agent, script_path=script_path, ensure_database=ensure_database)
    _refuse_another_projects_folder(args)
    memories = purge_cli.memories(args) if args.action == "uninstall" else []
    doomed = memories if args.purge else []
    if not purge_cli.confirmed(args, doomed):  # asked first: a "no" leaves everything as it was
        render.say("Nothing was changed.")
        return 0
    outcome = Outcome(_plans(args), kept=[memory for memory in memories if memory not in doomed])
    if args.dry_run:
        outcome.doomed = doomed
        outcome.packs = _packs(args, dry_run=True)
        report.dry_run(args, outcome)
        return 0
    for plan in outcome.plans:
        if plan.changed:
            file_changes.refuse_read_only(plan.path)  # before anything is written
    if args.action == "install" and args.scope != "user":
        # first: a database this version cannot use stops the install before any file is written
        outcome.database = ensure_database(args)
    for plan in outcome.plans:
        if plan.changed:
            _apply(plan)
    outcome.emptied = _remove_empty(files.emptied_folders(args, _claude_dir(args.scope)))
    for memory in doomed:
        outcome.removed += _purged(memory)
        outcome.doomed.append(memory)
    outcome.packs = _packs(args, dry_run=False)
    report.done(args, outcome)
    install_agents.mention_found(args)
    return 0


def _plans(args: argparse.Namespace) -> list[Plan]:
    """Every file install or uninstall changes, the settings first."""
    plans = [_settings_plan(args)]
    plans += files.command_plans(
        args, _claude_dir(args.scope), lambda: shlex.quote(script_path("cortex-hooks"))
    )
    servers = mcp_registration.servers_plan(
        args.action, args.scope, args.with_mcp, lambda: script_path("cortex-hooks")
    )
    found = [servers, files.import_plan(args), files.surface_plan(args)]
    return plans + [plan for plan in found if plan is not None]


def _remove_empty(folders: list[str]) -> list[str]:
    """The folders removed of these (in order), each only when nothing is in it."""
    removed = []
    for folder in folders:
        try:
            if os.path.isdir(folder) and not os.path.islink(folder) and not os.listdir(folder):
                os.rmdir(folder)
                removed.append(folder)
        except OSError:  # made or filled meanwhile, or not ours to remove: it stays
            continue
    return removed


def _purged(memory: purge.Memory) -> list[str]:
    try:
        return purge.remove(memory)
    except OSError as error:
        raise CortexError(
            f"cannot remove {error.filename or memory.path}: {error.strerror or error} "
            "(the hooks are uninstalled; remove the rest by hand)"
        ) from None


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


def _refuse_another_projects_folder(args: argparse.Namespace) -> None:
    """Install wires the folder Claude Code starts in (SPEC §19): one inside another project is
    refused, naming both (location.install_project), before anything is written."""
    if args.action == "install" and args.scope != "user":
        location.install_project()


def ensure_database(args: argparse.Namespace) -> dict[str, Any]:
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
            # No backup of a file we give back as it was, or remove with nothing of theirs in it:
            # what uninstall replaces is then the original and our hooks, and nothing else.
            before = restore.before_install(path, original, settings)
            if before is not None:
                return Plan(path, raw, before, changes, backed_up=False)
            if merged == {}:
                stale = restore.backups_of_only_ours(path)
                return Plan(path, raw, None, changes, backed_up=False, stale=stale)
    return Plan(path, raw, settings_text.dumped(merged, original) if changes else original, changes)


def _apply(plan: Plan) -> None:
    """Make the change on disk, after a backup of the previous file (when there was one)."""
    try:
        if plan.before is not None and plan.backed_up:
            plan.backup, plan.removed_backups = file_changes.back_up(plan.path, plan.before)
        if plan.after is None:
            os.remove(plan.path)
        else:
            file_changes.write(plan.path, plan.after)
        for stale in plan.stale:
            os.remove(stale)
    except OSError as error:
        raise CortexError(f"cannot write {error.filename or plan.path}: {error.strerror or error}") from None
