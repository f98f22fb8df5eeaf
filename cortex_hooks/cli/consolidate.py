"""CLI consolidate (SPEC §9.7): merge the memories flagged as nearly the same, after a checkpoint;
`--restore FILE` puts a checkpoint back.

`--json` prints one object (README, "Consolidation"): `dry_run`, `scope`, `ran` (False when `--auto`
found no trigger), `trigger`, `flagged` (the pairs: `first`, `second`, `similarity`), `merges`
(`survivor`, `superseded`, `tags`, `pinned`), `superseded` (how many), `checkpoint`, `removed_checkpoints`
and `undo` (the command that puts the checkpoint back). With `--restore`: `restored`, `database`,
`checkpoint` (the state before the restore), `schema_version`, `dry_run`, `removed_checkpoints`, `undo`.
"""

from __future__ import annotations

import argparse
import shlex
import sqlite3
from contextlib import closing
from typing import Any

from cortex_hooks import clock
from cortex_hooks.cli import database, options, render
from cortex_hooks.errors import USAGE, CortexError
from cortex_hooks.memory import consolidation
from cortex_hooks.store import checkpoint, memories
from cortex_hooks.store import consolidation as store
from cortex_hooks.store.connection import SCHEMA_VERSION, Transaction, open_database


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


def run(args: argparse.Namespace) -> int:
    if args.restore is not None:
        if args.auto:
            raise CortexError("--restore and --auto do not go together", USAGE)
        return _restore(args)
    connection = database.for_reading(args)
    if connection is None:  # no database: nothing flagged, and none is created
        return _report(args, _Outcome(ran=True))
    with closing(connection):
        outcome = _Outcome(ran=True)
        if args.auto:
            outcome.trigger = consolidation.trigger(
                store.extractions_since_last(connection), store.active_count(connection)
            )
            outcome.ran = outcome.trigger is not None
            if not outcome.ran:
                return _report(args, outcome)
        if args.dry_run:
            _plan(connection, outcome)
            return _report(args, outcome)
        now = clock.now()
        path = database.path(args)
        # The write lock is held from the checkpoint to the merge's commit: the checkpoint is the
        # very state the merge changes, and a crash anywhere leaves the old state or the new one.
        with Transaction(connection):
            _plan(connection, outcome)
            if outcome.merges:
                outcome.checkpoint = checkpoint.create(path, now)
                store.apply(connection, outcome.merges, clock.iso(now))
                store.record(connection, clock.iso(now), outcome.checkpoint, outcome.merges)
        if outcome.checkpoint is not None:
            outcome.removed = checkpoint.rotate(path)
    return _report(args, outcome)


class _Outcome:
    def __init__(self, *, ran: bool) -> None:
        self.ran = ran
        self.trigger: str | None = None
        self.flagged: list[sqlite3.Row] = []
        self.merges: list[consolidation.Merge] = []
        self.summaries: dict[int, str] = {}
        self.checkpoint: str | None = None
        self.removed: list[str] = []


def _plan(connection: sqlite3.Connection, outcome: _Outcome) -> None:
    outcome.flagged = store.flagged(connection)
    pairs = [(row["first_id"], row["second_id"]) for row in outcome.flagged]
    candidates = store.candidates(connection, [member for pair in pairs for member in pair])
    # The survivor's content is its own: with an LLM configured (SPEC §10.4, not built yet) its
    # merge of the group would be passed here as `merge`.
    outcome.merges = consolidation.plan(candidates, pairs, memories.max_in_degree(connection))
    outcome.summaries = {candidate.id: candidate.summary for candidate in candidates}


def _command(args: argparse.Namespace, restore: str) -> str:
    """The restore command as the user would type it for this database."""
    words = ["cortex-hooks", "consolidate", "--restore", restore]
    for option, name in (("--db", "db"), ("--global-db", "global_db")):
        if getattr(args, name, None):
            words += [option, getattr(args, name)]
    command = " ".join(shlex.quote(word) for word in words)
    return database.scoped(args, command)


def _report(args: argparse.Namespace, outcome: _Outcome) -> int:
    undo = _command(args, outcome.checkpoint) if outcome.checkpoint else None
    if args.json:
        render.emit_json(
            {
                "dry_run": args.dry_run,
                "scope": database.scope(args),
                "ran": outcome.ran,
                "trigger": outcome.trigger,
                "flagged": [
                    {"first": row["first_id"], "second": row["second_id"], "similarity": row["similarity"]}
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
                "superseded": sum(len(merge.superseded) for merge in outcome.merges),
                "checkpoint": outcome.checkpoint,
                "removed_checkpoints": outcome.removed,
                "undo": undo,
            }
        )
        return 0
    if not outcome.ran:
        render.say(
            "No consolidation trigger is met (10 extractions since the last one, or more than "
            "500 active memories): nothing done."
        )
        return 0
    lines = [f"Trigger: {outcome.trigger}."] if outcome.trigger else []
    if not outcome.merges:
        render.say(
            "\n".join([*lines, "Nothing to consolidate: no active memories are flagged as nearly the same."])
        )
        return 0
    superseded = sum(len(merge.superseded) for merge in outcome.merges)
    if args.dry_run:
        lines.append(
            f"Would merge {render.count(len(outcome.merges), 'groups')} "
            f"({_memories(superseded)} superseded); dry run, nothing written:"
        )
    else:
        lines.append(f"Checkpoint: {render.clean(outcome.checkpoint)}")
        lines.append(
            f"Merged {render.count(len(outcome.merges), 'groups')} ({_memories(superseded)} superseded):"
        )
    similarity = {(row["first_id"], row["second_id"]): row["similarity"] for row in outcome.flagged}
    for merge in outcome.merges:
        members = sorted((merge.survivor, *merge.superseded))
        closest = max(
            value for (first, second), value in similarity.items() if first in members and second in members
        )
        tags = ", ".join(merge.tags) or "none"
        lines.append(
            f"  #{merge.survivor} kept (tags: {render.clean(tags, one_line=True)}"
            f"{', pinned' if merge.pinned else ''}; similarity up to {closest:.2f}): "
            f"{_summary(outcome, merge.survivor)}"
        )
        lines.extend(f"    #{other} superseded: {_summary(outcome, other)}" for other in merge.superseded)
    for path in outcome.removed:
        lines.append(
            f"Removed the old checkpoint {render.clean(path)} (the last {checkpoint.KEPT} are kept)."
        )
    if undo:
        lines.append(f"Undo: {undo}")
    render.say("\n".join(lines))
    return 0


def _summary(outcome: _Outcome, memory_id: int) -> str:
    return render.clean(outcome.summaries.get(memory_id, ""), one_line=True)[:80]


def _restore(args: argparse.Namespace) -> int:
    path = database.path(args)
    version = checkpoint.check(args.restore, path)
    before: str | None = None
    removed: list[str] = []
    if not args.dry_run:
        with closing(database.for_writing(args)) as connection:
            with Transaction(connection):  # nobody writes while the current state is copied
                before = checkpoint.create(path, clock.now())
            checkpoint.restore(args.restore, connection)
        if version < SCHEMA_VERSION:
            open_database(path).close()  # a checkpoint of an older version: migrated now
        removed = checkpoint.rotate(path)
    undo = _command(args, before) if before else None
    if args.json:
        render.emit_json(
            {
                "dry_run": args.dry_run,
                "restored": args.restore,
                "database": path,
                "schema_version": version,
                "checkpoint": before,
                "removed_checkpoints": removed,
                "undo": undo,
            }
        )
        return 0
    if args.dry_run:
        render.say(
            f"Would restore {render.clean(args.restore)} (schema version {version}) into "
            f"{render.clean(path)}; dry run, nothing written."
        )
        return 0
    lines = [
        f"Restored {render.clean(args.restore)} into {render.clean(path)}.",
        f"Checkpoint of the state before the restore: {render.clean(before)}",
        *(
            f"Removed the old checkpoint {render.clean(old)} (the last {checkpoint.KEPT} are kept)."
            for old in removed
        ),
        f"Undo: {undo}",
    ]
    render.say("\n".join(lines))
    return 0


def _memories(count: int) -> str:
    return f"{count} {'memory' if count == 1 else 'memories'}"
