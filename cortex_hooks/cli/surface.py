"""CLI surface (SPEC §9.6): write the push surface, `.claude/cortex-memory.local.md`, now."""

from __future__ import annotations

import argparse
from typing import Any

from cortex_hooks import clock, location
from cortex_hooks.cli import database, options, render
from cortex_hooks.errors import USAGE, CortexError
from cortex_hooks.install import surface_import
from cortex_hooks.scopes import close
from cortex_hooks.upkeep import surface


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    command = commands.add_parser(
        "surface", parents=[common], help="write the memory digest Claude Code reads at session start"
    )
    command.add_argument("--dry-run", action="store_true", help="print what would be written, write nothing")
    options.json_flag(command)
    command.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if getattr(args, "global_scope", False):
        raise CortexError("surface always reads both scopes: --global does not apply", USAGE)
    project = location.project_root()
    budget = location.config_for(location.cli_database(getattr(args, "db", None))).surface_budget
    scopes, skipped = database.both(args)
    try:
        result = surface.refresh(
            scopes, project, budget=budget, now=clock.now(), dry_run=args.dry_run, cli=location.cli_command()
        )
    finally:
        close(scopes)
    skipped += result.skipped
    if args.json:
        render.emit_json(
            {
                "path": result.path,
                "written": result.written and not args.dry_run,
                "changed": result.written,
                "dry_run": args.dry_run,
                "budget": budget,
                "text": result.text,
                "sections": result.digest.sections,
                "branch": result.branch,
                "changed_files": result.changed_files,
                "skipped": skipped,
            }
        )
        return 0
    for note in skipped:
        render.note(note)
    if args.dry_run:
        render.say(result.text)
        verb = "would change" if result.written else "would stay as it is"
        render.note(f"dry run: {result.path} {verb}; nothing was written")
        return 0
    counts = ", ".join(
        f"{len(entries)} {name.replace('_', ' ')}" for name, entries in result.digest.sections.items()
    )
    state = "Wrote" if result.written else "Up to date:"
    render.say(
        f"{state} {render.clean(result.path)} ({counts}; {len(result.digest.text)} of {budget} characters)."
    )
    if not surface_import.imported(project):
        render.say(
            f"Claude Code reads it only through an import in {surface_import.FILENAME}: "
            "`cortex-hooks install` adds it."
        )
    return 0
