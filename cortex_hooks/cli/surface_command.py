"""CLI surface (docs/guide/surface.md): write the push surface, `.claude/cortex-memory.local.md`, now."""

from __future__ import annotations

import argparse
from typing import Any

from cortex_hooks.api import surface as api
from cortex_hooks.api.wording import clean
from cortex_hooks.cli import database, options, render
from cortex_hooks.install import surface_import


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    command = commands.add_parser(
        "surface", parents=[common], help="write the memory digest Claude Code reads at session start"
    )
    command.add_argument("--dry-run", action="store_true", help="print what would be written, write nothing")
    options.json_flag(command)
    command.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    written = api.refresh(database.of(args), database.notes(), dry_run=args.dry_run)
    result, budget = written.result, written.budget
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
                "skipped": result.skipped,
            }
        )
        return 0
    for note in result.skipped:
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
    render.say(f"{state} {clean(result.path)} ({counts}; {len(result.digest.text)} of {budget} characters).")
    if not written.imported:
        render.say(
            f"Claude Code reads it only through an import in {surface_import.FILENAME}: "
            "`cortex-hooks install` adds it."
        )
    return 0
