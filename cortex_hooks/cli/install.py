"""CLI install / uninstall: where the settings files are, reading, diffing, backing up, writing.

The merge itself is pure, in cortex_hooks.wiring.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import sys
from dataclasses import asdict, dataclass
from typing import Any

from cortex_hooks import clock, location
from cortex_hooks.cli import database, learn_command, render
from cortex_hooks.errors import USAGE, CortexError
from cortex_hooks.store.connection import open_database
from cortex_hooks.wiring import (
    SCRIPTS,
    UNTOUCHED,
    Change,
    ClaudeSettings,
    check,
    diff,
    dumped,
    installed,
    uninstalled,
)

SCOPES = ("project", "local", "user")


@dataclass
class Plan:
    """One file install or uninstall would change: its text before and after (None: absent)."""

    path: str
    before: bytes | None
    after: str | None
    changes: list[Change]

    @property
    def changed(self) -> bool:
        return bool(self.changes)

    def action(self) -> str:
        if not self.changed:
            return "unchanged"
        if self.before is None:
            return "created"
        return "removed" if self.after is None else "updated"


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
        command.set_defaults(run=run, action=name, with_learn_command=False)
    commands.choices["install"].add_argument(
        "--with-learn-command",
        action="store_true",
        help="also write the /learn slash command (.claude/commands/learn.md)",
    )


def run(args: argparse.Namespace) -> int:
    plans = [_settings_plan(args)]
    learn = _learn_plan(args)
    if learn is not None:
        plans.append(learn)
    if args.dry_run:
        _report_dry_run(args, plans)
        return 0
    project_database = None
    if args.action == "install" and args.scope != "user":
        # first: a database this version cannot use stops the install before any file is written
        project_database = _ensure_database(args)
    backups = {plan.path: _apply(plan) for plan in plans if plan.changed}
    _report(args, plans, backups, project_database)
    return 0


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
    raw = _read(path)
    settings: ClaudeSettings = {} if raw is None else check(_parse(raw, path), path)
    if args.action == "install":
        commands = {event: shlex.quote(script_path(name)) for event, name in SCRIPTS.items()}
        merged, changes = installed(settings, commands)
    else:
        merged, changes = uninstalled(settings)
    original = None if raw is None else raw.decode("utf-8")
    return Plan(path, raw, dumped(merged, original) if changes else original, changes)


def _learn_plan(args: argparse.Namespace) -> Plan | None:
    path = os.path.join(_claude_dir(args.scope), "commands", "learn.md")
    raw = _read(path)
    ours = raw is not None and learn_command.MARKER.encode() in raw
    if args.action == "uninstall":
        if not ours or raw is None:
            return None
        return Plan(path, raw, None, [Change("command", "removed", "/learn")])
    if not args.with_learn_command:
        return None
    text = learn_command.text(shlex.quote(script_path("cortex-hooks")))
    if raw is not None and not ours:
        raise CortexError(f"{path} exists and was not written by cortex-hooks; {UNTOUCHED}", USAGE)
    if raw == text.encode():
        return Plan(path, raw, text, [])
    return Plan(path, raw, text, [Change("command", "updated" if raw else "added", "/learn")])


def _read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        return None
    except OSError as error:
        raise CortexError(f"cannot read {path}: {error.strerror or error}") from None


def _parse(raw: bytes, path: str) -> object:
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as error:
        problem = f"not UTF-8 (byte {error.start})"
    except json.JSONDecodeError as error:
        problem = f"{error.msg} at line {error.lineno} column {error.colno}"
    raise CortexError(f"{path} is not valid JSON ({problem}); {UNTOUCHED}", USAGE)


def _apply(plan: Plan) -> str | None:
    """Make the change on disk; the backup of the previous file (None when there was none)."""
    try:
        backup = None if plan.before is None else _backup(plan.path, plan.before)
        if plan.after is None:
            os.remove(plan.path)
        else:
            _write(plan.path, plan.after)
    except OSError as error:
        raise CortexError(f"cannot write {error.filename or plan.path}: {error.strerror or error}") from None
    return backup


def _backup(path: str, content: bytes) -> str:
    """A new timestamped copy beside the file: an earlier backup is never overwritten."""
    stamp = clock.now().strftime("%Y%m%dT%H%M%SZ")
    for attempt in range(1, 1000):
        candidate = f"{path}.{stamp}{'' if attempt == 1 else f'-{attempt}'}.bak"
        try:
            with open(candidate, "xb") as handle:
                handle.write(content)
        except FileExistsError:
            continue
        shutil.copymode(path, candidate)
        return candidate
    raise CortexError(f"cannot find a free backup name beside {path}")


def _write(path: str, text: str) -> None:
    """Write through a temporary file and a rename: Claude Code never reads half a file.

    A symlinked settings file (dotfiles) is written where it points, and stays a link.
    """
    path = os.path.realpath(path)
    directory = os.path.dirname(path)
    os.makedirs(directory, exist_ok=True)
    temporary = os.path.join(directory, f".{os.path.basename(path)}.cortex-hooks-{os.getpid()}")
    try:
        with open(temporary, "w", encoding="utf-8") as handle:
            handle.write(text)
        if os.path.exists(path):
            shutil.copymode(path, temporary)
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)


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
                "files": [{**_plan_json(plan, None), "diff": diffs[plan.path]} for plan in plans],
            }
        )
        return
    for plan in plans:
        if plan.changed:
            sys.stdout.write(diffs[plan.path])
        else:
            render.say(f"{render.clean(plan.path)}: nothing would change.")
    render.say("Dry run: nothing was written.")


def _plan_json(plan: Plan, backup: str | None) -> dict[str, Any]:
    return {
        "path": plan.path,
        "action": plan.action(),
        "backup": backup,
        "changes": [asdict(change) for change in plan.changes],
    }


def _report(
    args: argparse.Namespace,
    plans: list[Plan],
    backups: dict[str, str | None],
    project_database: dict[str, Any] | None,
) -> None:
    if args.json:
        files = [_plan_json(plan, backups.get(plan.path)) for plan in plans]
        render.emit_json(
            {"scope": args.scope, "dry_run": False, "files": files, "database": project_database}
        )
        return
    settings, *others = plans
    where = f"{render.clean(settings.path)} ({args.scope} scope)"
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
                f" (was {render.clean(change.previous)})"
                if change.previous and change.previous != change.command
                else ""
            )
            render.say(f"  {change.action:<8} {change.where:<13} {render.clean(change.command)}{was}")
    for plan in others:
        if plan.changed:
            render.say(f"{plan.action().capitalize()} the /learn command: {render.clean(plan.path)}")
        else:
            render.say(f"The /learn command is already in {render.clean(plan.path)}.")
    for plan in plans:
        backup = backups.get(plan.path)
        if backup:
            render.say(f"Backup of the previous {os.path.basename(plan.path)}: {render.clean(backup)}")
        elif plan.changed and plan.before is None:
            render.say(f"{render.clean(plan.path)} did not exist: created it, nothing to back up.")
    if project_database is not None:
        state = "created" if project_database["created"] else "in place"
        render.say(f"Database {render.clean(project_database['path'])}: {state}.")
