"""CLI lifecycle (SPEC §9.5): decay, archive and prune the memories of one scope now.

`--json` prints {"scope", "dry_run", "complete", "counts": {"decayed", "archived", "pruned"},
"changes": [{"id", "field", "before", "after"}], "skipped": [note]}; confidences are decimals,
`archived_at` an instant, and a pruned memory is a change of `status` from "archived" to "pruned".
"""

from __future__ import annotations

import argparse
import sqlite3
from contextlib import closing
from typing import Any

from cortex_hooks import clock, location
from cortex_hooks.cli import database, options, render
from cortex_hooks.errors import CortexError
from cortex_hooks.store.connection import Transaction
from cortex_hooks.upkeep import lifecycle, pruned_file


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    command = commands.add_parser(
        "lifecycle", parents=[common], help="decay, archive and prune memories now (SessionEnd does it too)"
    )
    command.add_argument("--dry-run", action="store_true", help="report what would change, change nothing")
    options.json_flag(command)
    command.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    report = lifecycle.Report()
    scope = database.scope(args)
    path = database.path(args)
    connection = database.for_reading(args)
    if connection is not None:
        with closing(connection):
            half_lives = location.config_for(path).half_lives
            try:
                with Transaction(connection, keep=not args.dry_run):
                    report = lifecycle.run(
                        connection, path, scope, clock.now(), half_lives, dry_run=args.dry_run
                    )
            except sqlite3.OperationalError as error:
                raise CortexError(
                    f"lifecycle not run: cannot write {path} ({error}); nothing changed"
                ) from None
            except OSError as error:
                where = pruned_file.path(path)
                raise CortexError(
                    f"lifecycle not run: cannot write {where} ({error.strerror or error}); nothing changed"
                ) from None
    for note in report.skipped:
        render.note(note)
    counts = report.counts()
    if args.json:
        render.emit_json(
            {
                "scope": scope,
                "dry_run": args.dry_run,
                "complete": report.complete,
                "counts": counts,
                "changes": report.changes,
                "skipped": report.skipped,
            }
        )
        return 0
    for change in report.changes:
        render.say(
            f"#{change['id']} {change['field']}: {_shown(change['before'])} -> {_shown(change['after'])}"
        )
    verb = "Would change" if args.dry_run else "Changed"
    render.say(
        f"{verb} {scope} memories: {counts['decayed']} decayed, {counts['archived']} archived, "
        f"{counts['pruned']} pruned"
        + (f" (pruned memories kept in {render.clean(pruned_file.path(path))})" if counts["pruned"] else "")
        + "."
    )
    return 0


def _shown(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.2f}"
    return "-" if value is None else str(value)
