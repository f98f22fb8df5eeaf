"""What install and uninstall say: the files changed, their backups, the folders and memory left
or removed, the packs; as text for a person or one JSON value."""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import asdict, dataclass, field
from typing import Any

from cortex_hooks.api import databases, packs, purge
from cortex_hooks.api.wording import clean
from cortex_hooks.cli import render
from cortex_hooks.cli import uninstall_purge as purge_cli
from cortex_hooks.guard.packs import shipped
from cortex_hooks.install import file_changes, files
from cortex_hooks.install.file_changes import Plan
from cortex_hooks.install.wiring import diff


@dataclass
class Protection:
    """The packs of an install: what it enabled (or would), and every pack enabled in the scope
    after it, with its number of learnings."""

    scope: str  # project, or global for a user-scope install
    enabled: list[dict[str, Any]]  # api.packs.enable's summary of each pack install enabled
    on: dict[str, int]  # the packs enabled in the scope then, by name: their learnings


@dataclass
class Outcome:
    """What an install or uninstall did (or, dry, would do)."""

    plans: list[Plan]  # the settings first
    database: dict[str, Any] | None = None  # install: the project's database, and whether created
    packs: Protection | None = None  # install: the packs; None for uninstall
    surface: str | None = None  # install: the push surface's file, written
    emptied: list[str] = field(default_factory=list)  # uninstall: folders it left empty, removed
    removed: list[str] = field(default_factory=list)  # uninstall --purge: the memory's paths removed
    doomed: list[purge.Memory] = field(default_factory=list)  # …the memories they were
    kept: list[purge.Memory] = field(default_factory=list)  # uninstall: the memory left in place


def dry_run(args: argparse.Namespace, outcome: Outcome) -> None:
    plans = outcome.plans
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
    _last_words(args, outcome)


def _plan_json(plan: Plan) -> dict[str, Any]:
    return {
        "path": plan.path,
        "action": plan.action(),
        "backup": plan.backup,
        "removed_backups": plan.removed_backups,
        "changes": [asdict(change) for change in plan.changes],
    }


def done(args: argparse.Namespace, outcome: Outcome) -> None:
    if args.json:
        _json(args, outcome)
        return
    settings, *others = outcome.plans
    _settings(args, settings)
    for plan in others:
        if plan.changed:
            gone = plan.after is None and plan.before is not None and plan.changes[0].where != "command"
            render.say(
                f"{plan.changes[0].action.capitalize()} {plan.label}: {clean(plan.path)}"
                + (" (nothing else was in it: the file is gone)" if gone else "")
            )
        else:
            render.say(f"{plan.label[:1].upper() + plan.label[1:]} is already in {clean(plan.path)}.")
    for note in files.notes(args):
        render.say(note)
    for plan in outcome.plans:
        for line in _what_became_of(plan, first=plan is settings):
            render.say(line)
    for folder in outcome.emptied:
        render.say(f"Removed the folder {clean(folder)}: nothing was left in it.")
    if outcome.database is not None:
        state = "created" if outcome.database["created"] else "in place"
        render.say(f"Database {clean(outcome.database['path'])}: {state}.")
    if outcome.surface is not None:
        render.say(
            f"Memory surface {clean(outcome.surface)}: up to date (Claude Code reads it at session start)."
        )
    _last_words(args, outcome)


def _json(args: argparse.Namespace, outcome: Outcome) -> None:
    done = {
        "scope": args.scope,
        "dry_run": False,
        "files": [_plan_json(plan) for plan in outcome.plans],
        "database": outcome.database,
        "notes": files.notes(args),
    }
    if args.action == "install":
        done["surface"] = outcome.surface
        done["packs"] = outcome.packs.enabled if outcome.packs else []
        done["protected"] = outcome.packs.on if outcome.packs else {}
    else:
        done["removed_folders"] = outcome.emptied
        done["memory"] = {"removed": outcome.removed, "kept": [memory.path for memory in outcome.kept]}
    render.emit_json(done)


def _settings(args: argparse.Namespace, settings: Plan) -> None:
    where = f"{clean(settings.path)} ({args.scope} scope)"
    if not settings.changed:
        render.say(
            f"The cortex-hooks hooks are already in {where}; nothing changed."
            if args.action == "install"
            else f"No cortex-hooks hooks in {where}; nothing changed."
        )
        return
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


def _what_became_of(plan: Plan, *, first: bool) -> list[str]:
    """Its backup, or why it has none: created, removed with nothing of theirs in it, given back."""
    if plan.backup:
        return [
            f"Backup of the previous {os.path.basename(plan.path)}: {clean(plan.backup)}",
            f"  (backups go beside it; the {file_changes.KEPT_BACKUPS} newest are kept"
            + "".join(f", removed {clean(old)}" for old in plan.removed_backups)
            + ")",
        ]
    if not plan.changed:
        return []
    if plan.before is None:
        return [f"{clean(plan.path)} did not exist: created it, nothing to back up."]
    if first and plan.after is None:
        return [f"{clean(plan.path)} held nothing else: removed it."] + [
            f"  and our backup of it that held nothing else either: {clean(stale)}" for stale in plan.stale
        ]
    if first and not plan.backed_up:
        return [f"{clean(plan.path)}: given back as it was before install, byte for byte."]
    return []


def _last_words(args: argparse.Namespace, outcome: Outcome) -> None:
    """install: what protects the scope now; uninstall: the memory it kept or removed."""
    if args.action == "install":
        lines = [protected(outcome.packs, dry_run=args.dry_run)] if outcome.packs else []
        enabled = [{"pack": name} for name in outcome.packs.on] if outcome.packs else []
        lines += packs.fit_lines(databases.find(), enabled)
    else:
        lines = purge_cli.lines(args, outcome.kept, outcome.doomed)
    for line in lines:
        render.say(line)


def protected(packs: Protection, *, dry_run: bool = False) -> str:
    """install's last line: which packs protect the scope, or how to have them."""
    where = "in this project" if packs.scope == "project" else "in every project (the user-global memory)"
    if not packs.on:
        return (
            f"No pack protects {where}: the guard holds your learnings only (cortex-hooks packs enable core)."
        )

    names = list(packs.on)
    core = set(names) == {name for name in shipped.names() if name.startswith("core.")}
    listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
    return (
        f"{'Would protect' if dry_run else 'Protected'} {where}: {'pack' if len(names) == 1 else 'packs'} "
        f"{listed}, {sum(packs.on.values())} learnings that deny destructive commands before they run "
        f"(cortex-hooks packs {'show core' if core else 'list'})."
    )
