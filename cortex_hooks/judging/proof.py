"""The proof of rules' examples (docs/internals/judge.md), through the one judge and the hook's own path: the
rules of a database, proved in place (doctor, the report), and rules given as values (a pack's, a
team file's lines), written first into a database of their own (store.scratch)."""

from __future__ import annotations

from contextlib import closing
from typing import Any

from cortex_hooks import clock
from cortex_hooks.guard import examples
from cortex_hooks.judging.in_force import InForce
from cortex_hooks.store import learnings as store
from cortex_hooks.store import scratch
from cortex_hooks.store.connection import open_database
from cortex_hooks.store.scopes import Scope

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Sequence

    from cortex_hooks.config import Config
    from cortex_hooks.guard.packs.shared_format import SharedLearning
    from cortex_hooks.stored import Learning


def stored(connection: sqlite3.Connection, path: str) -> list[tuple[Learning, examples.Failure]]:
    """Each active, unmuted learning of this database whose examples do not hold, with its row."""
    rows = store.select(connection, "active")
    rules = InForce([Scope("project", connection, path)])
    found = []
    for row in rows:
        if row.examples and not row.muted:
            name = f"learning #{row.id}" + (f" ({row.slug})" if row.slug else "")
            found += [(row, failure) for failure in examples.proved(rules, row, "project", name)]
    return found


def proving(connection: sqlite3.Connection) -> int:
    """How many active, unmuted learnings of this database carry examples."""
    return sum(1 for row in store.select(connection, "active") if row.examples and not row.muted)


def given(records: Sequence[SharedLearning], source: str, config: Config) -> list[examples.Failure]:
    """Each rule of these (named by its id) whose examples do not hold."""
    rows = [learning_row(record, source, config) for record in records]
    if not any(row["examples"] for row in rows):
        return []
    found: list[examples.Failure] = []
    with scratch.database(rows) as (path, ids), closing(open_database(path)) as connection:
        rules = InForce([Scope("project", connection, path)])
        learnings = {learning.id: learning for learning in store.select(connection, "all")}
        for number, record in zip(ids, records, strict=True):
            found += examples.proved(rules, learnings[number], "project", record.id)
    return found


def learning_row(record: SharedLearning, pack: str, config: Config) -> dict[str, Any]:
    """The stored learning a pack's (or a team file's) line makes, as enabling the pack adds it:
    pinned, at the start confidence, its line's action, rewrite and examples; every column of
    store.learnings.COLUMNS."""
    now = clock.iso(clock.now())
    return {
        "anti_pattern": record.anti_pattern,
        "correct_pattern": record.correct_pattern,
        "severity": record.severity,
        "regex": record.regex,
        "tool": record.tool,
        "target": record.target,
        "action": record.action,
        "rewrite": record.rewrite,
        "confidence": config.policy.start,
        "context": record.context,
        "examples": record.examples,
        "pinned": 1,
        "access_count": 0,
        "last_accessed": None,
        "created_at": now,
        "updated_at": now,
        "archived_at": None,
        "muted": 0,
        "slug": record.id,
        "pack": pack,
    }
