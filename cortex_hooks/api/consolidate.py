"""Consolidation (docs/guide/aging.md): the memories flagged as nearly the same merged after a checkpoint,
and a checkpoint put back."""

from __future__ import annotations

import os
import shlex
import sqlite3
from contextlib import closing

from cortex_hooks import clock
from cortex_hooks.api import databases as db
from cortex_hooks.api.databases import Databases
from cortex_hooks.api.wording import clean, count, memory_count
from cortex_hooks.errors import USAGE, CortexError
from cortex_hooks.frozen import Record
from cortex_hooks.memory import merge_plan
from cortex_hooks.notes import Notes
from cortex_hooks.store import checkpoint, memories
from cortex_hooks.store import consolidation as store
from cortex_hooks.store.checkpoint import KEPT
from cortex_hooks.store.connection import SCHEMA_VERSION, Transaction, open_database
from cortex_hooks.stored.memory_rows import Flag


class Outcome:
    """What a consolidation did (dry: would do)."""

    def __init__(self, *, ran: bool) -> None:
        self.ran = ran  # False when `auto` found no trigger
        self.trigger: str | None = None
        self.flagged: list[Flag] = []
        self.merges: list[merge_plan.Merge] = []
        self.summaries: dict[int, str] = {}
        self.checkpoint: str | None = None
        self.removed: list[str] = []  # old checkpoints rotated out

    @property
    def superseded(self) -> int:
        return sum(len(merge.superseded) for merge in self.merges)


def consolidate(databases: Databases, *, dry_run: bool = False, auto: bool = False) -> Outcome:
    """Merge each flagged group: the highest-ranked memory survives with the union of tags, the
    others become superseded. A checkpoint of the database is written first (none on a dry
    run); `auto` runs only when a trigger is met. No database: nothing flagged, none created."""
    outcome = Outcome(ran=True)
    connection = db.for_reading(databases)
    if connection is None:
        return outcome
    with closing(connection):
        if auto:
            outcome.trigger = merge_plan.trigger(
                store.extractions_since_last(connection), store.active_count(connection)
            )
            outcome.ran = outcome.trigger is not None
            if not outcome.ran:
                return outcome
        if dry_run:
            _plan(connection, outcome)
            return outcome
        now = clock.now()
        path = databases.path
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
    return outcome


def _plan(connection: sqlite3.Connection, outcome: Outcome) -> None:
    outcome.flagged = store.flagged(connection)
    pairs = [(row.first_id, row.second_id) for row in outcome.flagged]
    candidates = store.candidates(connection, [member for pair in pairs for member in pair])
    # The survivor's content is its own: with an LLM configured (docs/guide/capture.md, not built yet) its
    # merge of the group would be passed here as `merge`.
    outcome.merges = merge_plan.plan(candidates, pairs, memories.max_in_degree(connection))
    outcome.summaries = {candidate.id: candidate.summary for candidate in candidates}


class Restored(Record):
    restored: str  # the checkpoint put back
    database: str
    schema_version: int  # the checkpoint's
    checkpoint: str | None  # of the state before the restore (None on a dry run)
    removed: list[str]


def restore(databases: Databases, file: str, notes: Notes, *, dry_run: bool = False) -> Restored:
    """Put a checkpoint back into the database acted on, a checkpoint of its current state first.
    A checkpoint of another database is refused; a copy kept elsewhere is restored, and named."""
    path = databases.path
    version = checkpoint.check(file, path)
    _whose(file, path, notes)
    before: str | None = None
    removed: list[str] = []
    if not dry_run:
        with closing(db.for_writing(databases, notes)) as connection:
            with Transaction(connection):  # nobody writes while the current state is copied
                before = checkpoint.create(path, clock.now())
            checkpoint.restore(file, connection)
        if version < SCHEMA_VERSION:
            open_database(path).close()  # a checkpoint of an older version: migrated now
        removed = checkpoint.rotate(path)
    return Restored(file, path, version, before, removed)


def _whose(file: str, database: str, notes: Notes) -> None:
    """Refuse a checkpoint of another database (one in the `checkpoints/` folder beside another
    database: another project's); name a file kept elsewhere (a copy, it may be of anything)."""
    folder = os.path.dirname(os.path.realpath(file))
    ours = os.path.realpath(checkpoint.folder(database))
    if os.path.basename(folder) == checkpoint.FOLDER and folder != ours:
        raise CortexError(
            f"{file} is a checkpoint of another database (the one beside {os.path.dirname(folder)}), not of "
            f"{database}: nothing restored (restore it with --db naming its own database)",
            USAGE,
        )
    if folder != ours:
        notes.add(
            f"{file} is none of the checkpoints of {database} (those are in {ours}): make sure it is a "
            "copy of this database (the undo command puts back the state before)"
        )


# What people read of it, from the CLI and the MCP server alike. The texts of consolidation: what
# merged (dry: would merge), what was restored, how to undo it.


def undo(checkpoint: str, scope: str, *, db: str | None = None, global_db: str | None = None) -> str:
    """The restore command as the user would type it for this database (the options they gave)."""
    words = ["cortex-hooks", "consolidate", "--restore", checkpoint]
    for option, value in (("--db", db), ("--global-db", global_db)):
        if value:
            words += [option, value]
    command = " ".join(shlex.quote(word) for word in words)
    return f"{command} --global" if scope == "global" else command


def outcome(result: Outcome, *, dry_run: bool, undo: str | None) -> str:
    if not result.ran:
        return (
            "No consolidation trigger is met (10 extractions since the last one, or more than "
            "500 active memories): nothing done."
        )
    lines = [f"Trigger: {result.trigger}."] if result.trigger else []
    if not result.merges:
        return "\n".join(
            [*lines, "Nothing to consolidate: no active memories are flagged as nearly the same."]
        )
    groups = count(len(result.merges), "groups")
    if dry_run:
        lines.append(
            f"Would merge {groups} ({memory_count(result.superseded)} superseded); dry run, nothing written:"
        )
    else:
        lines.append(f"Checkpoint: {clean(result.checkpoint)}")
        lines.append(f"Merged {groups} ({memory_count(result.superseded)} superseded):")
    similarity = {(row.first_id, row.second_id): row.similarity for row in result.flagged}
    for merge in result.merges:
        members = sorted((merge.survivor, *merge.superseded))
        closest = max(
            value for (first, second), value in similarity.items() if first in members and second in members
        )
        tags = ", ".join(merge.tags) or "none"
        lines.append(
            f"  #{merge.survivor} kept (tags: {clean(tags, one_line=True)}"
            f"{', pinned' if merge.pinned else ''}; similarity up to {closest:.2f}): "
            f"{_summary(result, merge.survivor)}"
        )
        lines.extend(f"    #{other} superseded: {_summary(result, other)}" for other in merge.superseded)
    lines.extend(removed(result.removed))
    if undo:
        lines.append(f"Undo: {undo}")
    return "\n".join(lines)


def restored(result: Restored, *, dry_run: bool, undo: str | None) -> str:
    if dry_run:
        return (
            f"Would restore {clean(result.restored)} (schema version {result.schema_version}) into "
            f"{clean(result.database)}; dry run, nothing written."
        )
    return "\n".join(
        [
            f"Restored {clean(result.restored)} into {clean(result.database)}.",
            f"Checkpoint of the state before the restore: {clean(result.checkpoint)}",
            *removed(result.removed),
            f"Undo: {undo}",
        ]
    )


def removed(paths: list[str]) -> list[str]:
    return [f"Removed the old checkpoint {clean(path)} (the last {KEPT} are kept)." for path in paths]


def _summary(result: Outcome, memory_id: int) -> str:
    return clean(result.summaries.get(memory_id, ""), one_line=True)[:80]
