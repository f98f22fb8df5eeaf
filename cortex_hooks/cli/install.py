"""CLI install / uninstall: where the settings files are, reading, diffing, backing up, writing.

The merge itself is pure, in cortex_hooks.install.wiring.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import sys
from contextlib import closing
from typing import Any

from cortex_hooks import location
from cortex_hooks.api import databases as db
from cortex_hooks.api import packs as api
from cortex_hooks.api import purge, surface
from cortex_hooks.cli import database, install_agents, render
from cortex_hooks.cli import install_report as report
from cortex_hooks.cli import uninstall_purge as purge_cli
from cortex_hooks.cli.install_report import Outcome, Protection
from cortex_hooks.errors import CortexError
from cortex_hooks.guard.packs import shipped as packs
from cortex_hooks.install import file_changes, files, guarding, mcp_registration, restore, settings_text
from cortex_hooks.install.file_changes import Plan
from cortex_hooks.install.wiring import SCRIPTS, ClaudeSettings, check, installed, uninstalled
from cortex_hooks.keeper import check as keeper
from cortex_hooks.store.connection import open_database

SCOPES = ("project", "local", "user", "managed")


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
            "user: ~/.claude/settings.json; managed: the machine's managed settings (administrators)",
        )
        command.add_argument(
            "--managed",
            dest="scope",
            action="store_const",
            const="managed",
            help="the same as --scope managed",
        )
        command.add_argument(
            "--project-only",
            action="store_true",
            help="wire the project's settings only, not also yours (then git stash -u or git clean can "
            "remove the wiring)",
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
    packs = commands.choices["install"].add_mutually_exclusive_group()
    packs.add_argument(
        "--packs",
        metavar="NAMES",
        help="the packs to enable (comma-separated; default: core, every core pack); see cortex-hooks packs",
    )
    packs.add_argument(
        "--no-packs",
        dest="packs",
        action="store_const",
        const="",
        help="enable no pack: the guard starts empty (cortex-hooks packs enable core later)",
    )
    commands.choices["install"].add_argument(
        "--with-mcp",
        action="store_true",
        help="also register the MCP server (.mcp.json; user scope: ~/.claude.json) and allow its tools",
    )


def run(args: argparse.Namespace) -> int:
    agent = install_agents.asked(args)
    if agent is not None:  # another coding agent's own hook file (docs/guide/agents/overview.md)
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
    outcome.surface = _surface(args)
    _kept(args, [plan.path for plan in outcome.plans[:2] if plan.path.endswith(".json")])
    report.done(args, outcome)
    install_agents.mention_found(args)
    return 0


def _kept(args: argparse.Namespace, settings: list[str]) -> None:
    """The project's database kept by the keeper from now on, with its config file and these
    settings files watched; uninstall stops watching the settings (its hooks are gone)."""
    path = database.path(args)
    if args.scope in ("user", "managed") or not os.path.exists(path):
        return
    with closing(open_database(path)) as connection:
        if args.action == "install":
            watched = {**keeper.watched(path, location.project_root()), **dict.fromkeys(settings, "settings")}
            keeper.adopt(connection, path, watched)
        else:
            keeper.unwatch(path, list(keeper.watched(path, location.project_root())) + settings)


def _plans(args: argparse.Namespace) -> list[Plan]:
    """Every file install or uninstall changes, the settings first: the scope's, and for a
    project's the user's too (the same hooks: Claude Code runs them once; there no git command of
    the project reaches them, docs/internals/integrity.md)."""
    plans = [_settings_plan(args, settings_path(args.scope), args.scope)]
    if args.scope in ("project", "local") and not args.project_only:
        plans.append(_settings_plan(args, settings_path("user"), "user"))
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


def _packs(args: argparse.Namespace, *, dry_run: bool) -> Protection | None:
    """The packs install enables (the core packs unless `--no-packs` or `--packs` names others: a
    new user is protected from the first session), in the project's database, or with `--scope
    user` in the global one; and which packs protect that scope then. None for uninstall."""
    if args.action != "install":
        return None

    where = database.of(args).acting_on(_packs_scope(args))
    asked = "core" if args.packs is None else args.packs  # None: neither --packs nor --no-packs
    names = [name for given in asked.split(",") if given.strip() for name in packs.expand(given.strip())]
    notes = database.notes()
    enabled = [
        summary
        for name in dict.fromkeys(names)
        for summary in api.enable(where, name, notes, dry_run=dry_run)
    ]
    on = {summary["pack"] for summary in enabled}
    on |= {name for name, state in api.states(where).items() if state[_packs_scope(args)]}
    return Protection(_packs_scope(args), enabled, {name: len(packs.load(name)) for name in sorted(on)})


def _surface(args: argparse.Namespace) -> str | None:
    """install in a project: the push surface written now, so that the import install added
    resolves from the first session (SessionEnd and every change of a memory keep it current);
    its path, or None (a user-scope install, or the surface turned off in config.toml)."""
    if args.action != "install" or args.scope == "user":
        return None

    where, notes = database.of(args).acting_on("project"), database.notes()
    if not db.config(where, notes).surface:
        return None
    written = surface.refresh(where, notes)
    notes.extend(written.result.skipped)
    return written.result.path


def _packs_scope(args: argparse.Namespace) -> str:
    return "global" if args.scope == "user" else "project"


def _refuse_another_projects_folder(args: argparse.Namespace) -> None:
    """Install wires the folder Claude Code starts in (docs/guide/selfguard.md): one inside another project is
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
    if scope in ("user", "managed"):
        return os.path.join(os.path.abspath(os.path.expanduser("~")), ".claude")
    return os.path.join(location.project_root(), ".claude")


def settings_path(scope: str) -> str:
    if scope == "managed":  # CORTEX_MANAGED_SETTINGS: another place (a test's, an image being built)
        return os.environ.get("CORTEX_MANAGED_SETTINGS") or location.managed_path(sys.platform)
    name = "settings.local.json" if scope == "local" else "settings.json"
    return os.path.join(_claude_dir(scope), name)


def script_path(name: str) -> str:
    """The absolute path of our installed script `name`: beside the running CLI or its Python
    (not resolved: a virtualenv's python is a symlink out of it), else on PATH. A CLI run through
    a link on PATH (`~/.local/bin/cortex-hooks`, as the README's install, pipx and uv make them)
    names the scripts beside what the link points at: the installation itself, whatever becomes
    of the links."""
    places = [os.path.dirname(os.path.abspath(sys.executable))]
    if sys.argv and sys.argv[0]:
        invoked = os.path.abspath(sys.argv[0])
        places.insert(0, os.path.dirname(invoked))
        if os.path.islink(invoked):  # one step only: the installation's own folder may be a link
            places.insert(0, os.path.dirname(os.path.join(os.path.dirname(invoked), os.readlink(invoked))))
    for place in places:
        candidate = os.path.join(place, name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    found = shutil.which(name)
    if found:
        return os.path.abspath(found)
    raise CortexError(f"cannot find the installed script {name} beside {sys.executable} or on PATH")


def _settings_plan(args: argparse.Namespace, path: str, scope: str) -> Plan:
    raw = file_changes.read(path)
    settings: ClaudeSettings = {} if raw is None else check(settings_text.parse(raw, path), path)
    original = None if raw is None else raw.decode("utf-8")
    if args.action == "install":
        commands = {event: shlex.quote(script_path(name)) for event, name in SCRIPTS.items()}
        merged, changes = installed(settings, commands)
        changes += guarding.denied(merged, guarding.rules_for(scope), path)  # the client guards too
        if args.with_mcp and scope == args.scope:
            changes += mcp_registration.allowed(merged, path)
    else:
        merged, changes = uninstalled(settings)
        changes += guarding.undenied(merged)
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
