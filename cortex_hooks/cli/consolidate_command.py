"""CLI consolidate (docs/guide/aging.md): merge the memories flagged as nearly the same, after a checkpoint;
`--restore FILE` puts a checkpoint back.

`--json` prints one object (docs/guide/graph.md): `dry_run`, `scope`, `ran` (False when `--auto`
found no trigger), `trigger`, `flagged` (the pairs: `first`, `second`, `similarity`), `merges`
(`survivor`, `superseded`, `tags`, `pinned`), `superseded` (how many), `checkpoint`, `removed_checkpoints`
and `undo` (the command that puts the checkpoint back). With `--restore`: `restored`, `database`,
`checkpoint` (the state before the restore), `schema_version`, `dry_run`, `removed_checkpoints`, `undo`.
"""

from __future__ import annotations

import argparse
from typing import Any

from cortex_hooks.api import consolidate as api
from cortex_hooks.cli import database, options, render
from cortex_hooks.errors import USAGE, CortexError


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    command = commands.add_parser(
        "consolidate",
        parents=[common],
        help="merge memories flagged as nearly the same (a checkpoint first)",
    )
    command.add_argument("--dry-run", action="store_true", help="print what would merge, write nothing")
    command.add_argument(
        "--auto", action="store_true", help="only when a trigger is met (10 extractions, 500 memories)"
    )
    command.add_argument(
        "--restore", metavar="FILE", help="put a checkpoint back (itself checkpointed first)"
    )
    options.json_flag(command)
    command.set_defaults(run=run)


def _undo(args: argparse.Namespace, checkpoint: str | None) -> str | None:
    if checkpoint is None:
        return None
    scope = database.of(args).scope
    return api.undo(
        checkpoint, scope, db=getattr(args, "db", None), global_db=getattr(args, "global_db", None)
    )


def run(args: argparse.Namespace) -> int:
    if args.restore is not None:
        if args.auto:
            raise CortexError("--restore and --auto do not go together", USAGE)
        return _restore(args)
    where = database.of(args)
    outcome = api.consolidate(where, dry_run=args.dry_run, auto=args.auto)
    undo = _undo(args, outcome.checkpoint)
    if args.json:
        render.emit_json(
            {
                "dry_run": args.dry_run,
                "scope": where.scope,
                "ran": outcome.ran,
                "trigger": outcome.trigger,
                "flagged": [
                    {"first": row.first_id, "second": row.second_id, "similarity": row.similarity}
                    for row in outcome.flagged
                ],
                "merges": [
                    {
                        "survivor": merge.survivor,
                        "superseded": list(merge.superseded),
                        "tags": list(merge.tags),
                        "pinned": merge.pinned,
                    }
                    for merge in outcome.merges
                ],
                "superseded": outcome.superseded,
                "checkpoint": outcome.checkpoint,
                "removed_checkpoints": outcome.removed,
                "undo": undo,
            }
        )
    else:
        render.say(api.outcome(outcome, dry_run=args.dry_run, undo=undo))
    return 0


def _restore(args: argparse.Namespace) -> int:
    result = api.restore(database.of(args), args.restore, database.notes(), dry_run=args.dry_run)
    undo = _undo(args, result.checkpoint)
    if args.json:
        render.emit_json(
            {
                "dry_run": args.dry_run,
                "restored": result.restored,
                "database": result.database,
                "schema_version": result.schema_version,
                "checkpoint": result.checkpoint,
                "removed_checkpoints": result.removed,
                "undo": undo,
            }
        )
    else:
        render.say(api.restored(result, dry_run=args.dry_run, undo=undo))
    return 0
