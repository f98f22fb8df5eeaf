"""One pass of the memory lifecycle over one database (docs/guide/aging.md): decay, archive, prune.

Only the memories due for a look are read (store.lifecycle.due, through an index): each one's
next look is written beside it, at the time its stored state next has to change. A pass with a
deadline (SessionEnd) stops between batches; the rest stays due and the next pass goes on.
Pruned memories are appended to `pruned.jsonl` beside the database and fsync'd before they are
deleted (cortex_hooks.api.pruned_file); the caller's transaction holds the deletion and every other
write of the pass.
"""

from __future__ import annotations

import sqlite3
import time
from datetime import datetime
from typing import Any

from cortex_hooks import clock, confidence
from cortex_hooks.api import pruned_file
from cortex_hooks.memory import decay, vocabulary
from cortex_hooks.memory.rank import centrality
from cortex_hooks.store import lifecycle as store
from cortex_hooks.store import memories
from cortex_hooks.stored import memory_rows

BATCH = 200  # memories per batch under a deadline (SessionEnd): the deadline is checked between
WHOLE_BATCH = 5000  # without one (the command)


class Report:
    """What a pass did (or, dry, would do)."""

    def __init__(self) -> None:
        self.changes: list[dict[str, Any]] = []  # {"id", "field", "before", "after"}
        self.skipped: list[str] = []  # one note per memory that cannot be read
        self.complete = True  # False: the deadline came first; the rest stays due

    def counts(self) -> dict[str, int]:
        counted = {"decayed": 0, "archived": 0, "pruned": 0}
        for change in self.changes:
            if change["field"] == "confidence":
                counted["decayed"] += 1
            elif change["after"] in ("archived", "pruned"):
                counted[str(change["after"])] += 1
        return counted


def read(row: memory_rows.Aging, top: int) -> decay.Aging | str:
    """A stored memory as the lifecycle reads it, or what keeps it from reading it (a hand edit)."""
    for column in ("base_confidence", "confidence"):
        value = getattr(row, column)
        if type(value) is not int or not 0 <= value <= 100:
            return f"its {column} {value!r} is not a number of hundredths (0 to 100)"
    if row.type not in vocabulary.TYPES:
        return f"its type {row.type!r} is not one of {', '.join(vocabulary.TYPES)}"
    for column in ("access_count", "in_degree"):
        if type(getattr(row, column)) is not int or getattr(row, column) < 0:
            return f"its {column} {getattr(row, column)!r} is not a whole number >= 0"
    if row.pinned not in (0, 1):
        return f"its pinned {row.pinned!r} is not 0 or 1"
    instants: dict[str, datetime | None] = {}
    for column in ("confirmed_at", "updated_at", "archived_at"):
        value = getattr(row, column)
        try:
            instants[column] = None if value is None and column == "archived_at" else clock.parse(value)
        except (TypeError, ValueError, AttributeError):
            return f"its {column} {value!r} is not an ISO-8601 instant"
    confirmed, touched = instants["confirmed_at"], instants["updated_at"]
    assert confirmed is not None
    assert touched is not None
    assert row.base_confidence is not None  # checked above
    return decay.Aging(
        c0=row.base_confidence,
        confidence=row.confidence,
        type=row.type,
        pinned=bool(row.pinned),
        access_count=row.access_count,
        centrality=centrality(row.in_degree, top),
        status=row.status,
        confirmed_at=confirmed,
        touched_at=touched,
        archived_at=instants["archived_at"],
    )


def run(
    connection: sqlite3.Connection,
    database: str,
    scope: str,
    now: datetime,
    half_lives: dict[str, float | None],
    *,
    dry_run: bool = False,
    deadline: float | None = None,
) -> Report:
    """One pass at `now`, inside the caller's write transaction. `deadline` (time.monotonic())
    bounds it: batches stop once it has passed."""
    report = Report()
    store.roomy_cache(connection)
    top = memories.max_in_degree(connection)
    store.refresh_centrality(connection, top)
    stamp = clock.iso(now)
    position = ("", 0)
    while True:
        if deadline is not None and time.monotonic() >= deadline:
            report.complete = False
            break
        rows = store.due(connection, stamp, position, BATCH if deadline is not None else WHOLE_BATCH)
        if not rows:
            break
        position = (rows[-1].lifecycle_due or "", rows[-1].id)
        _batch(connection, rows, _Pass(database, scope, now, half_lives, top=top, dry_run=dry_run), report)
    return report


class _Pass:
    """What every batch of one pass shares."""

    def __init__(
        self,
        database: str,
        scope: str,
        now: datetime,
        half_lives: dict[str, float | None],
        *,
        top: int,
        dry_run: bool,
    ) -> None:
        self.database = database
        self.scope = scope
        self.now = now
        self.half_lives = half_lives
        self.top = top
        self.dry_run = dry_run


def _batch(connection: sqlite3.Connection, rows: list[memory_rows.Aging], run: _Pass, report: Report) -> None:
    decays: list[dict[str, object]] = []  # the confidence and the next look only
    archives: list[dict[str, object]] = []
    never: list[int] = []
    pruned: list[tuple[memory_rows.Aging, decay.Step]] = []
    for row in rows:
        aging = read(row, run.top)
        if isinstance(aging, str):
            report.skipped.append(f"memory #{row.id} skipped by the lifecycle: {aging}")
            continue
        step = decay.step(aging, run.now, run.half_lives)
        if step is None:
            if row.status not in ("active", "archived"):
                never.append(row.id)  # superseded: nothing will ever change
            continue
        _report(report, row, step)
        due = clock.iso(step.due) if step.due else None
        if step.pruned:
            pruned.append((row, step))
        elif step.status != row.status:
            archived_at = clock.iso(step.archived_at) if step.archived_at else None
            archives.append(
                {"id": row.id, "confidence": step.confidence, "archived_at": archived_at, "due": due}
            )
        else:
            decays.append({"id": row.id, "confidence": step.confidence, "due": due})
    if run.dry_run:
        return
    store.decay(connection, decays)
    store.archive(connection, archives)
    if never:
        store.reschedule(connection, never, None)
    if pruned:
        kept, unreadable = pruned_file.keep(connection, run.database, run.scope, run.top, pruned)
        report.skipped += unreadable
        store.delete(connection, kept, clock.iso(run.now)[:10])


def _report(report: Report, row: memory_rows.Aging, step: decay.Step) -> None:
    memory_id = row.id
    if step.confidence != row.confidence:
        before, after = confidence.as_number(row.confidence), confidence.as_number(step.confidence)
        report.changes.append({"id": memory_id, "field": "confidence", "before": before, "after": after})
    if step.status != row.status:
        report.changes.append(
            {"id": memory_id, "field": "status", "before": row.status, "after": step.status}
        )
        archived = clock.iso(step.archived_at) if step.archived_at else None
        report.changes.append({"id": memory_id, "field": "archived_at", "before": None, "after": archived})
    if step.pruned:
        report.changes.append({"id": memory_id, "field": "status", "before": "archived", "after": "pruned"})
