"""CLI lifecycle (docs/guide/aging.md): decay, archive and delete (prune) the memories of one scope now.

`--json` prints {"scope", "dry_run", "complete", "counts": {"decayed", "archived", "pruned"},
"changes": [{"id", "field", "before", "after"}], "skipped": [note]}; confidences are decimals,
`archived_at` an instant, and a pruned memory is a change of `status` from "archived" to "pruned".
"""

from __future__ import annotations

import argparse
from typing import Any

from cortex_hooks.api import lifecycle as api
from cortex_hooks.cli import database, options, render


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    command = commands.add_parser(
        "lifecycle",
        parents=[common],
        help="decay memories, archive the faded ones, delete (prune) those archived 90 days, "
        "written out to pruned.jsonl first (SessionEnd does it too)",
    )
    command.add_argument("--dry-run", action="store_true", help="report what would change, change nothing")
    options.json_flag(command)
    command.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    where = database.of(args)
    report = api.run(where, database.notes(), dry_run=args.dry_run)
    if args.json:
        render.emit_json(
            {
                "scope": where.scope,
                "dry_run": args.dry_run,
                "complete": report.complete,
                "counts": report.counts(),
                "changes": report.changes,
                "skipped": report.skipped,
            }
        )
    else:
        render.say(api.report(report, where, dry_run=args.dry_run))
    return 0
