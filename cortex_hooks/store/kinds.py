"""SQL for the kinds beside learnings — decisions, errors, todos — and for learnings where it fits.

Table and column names come from the fixed KINDS below, never from input; values are always
named parameters.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping

from cortex_hooks import stored
from cortex_hooks.store import visibility
from cortex_hooks.stored.kind_rows import Decision, Error, Kept, Todo

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cortex_hooks.guard.pruning import Cutoffs

# kind -> (table, the column its age is counted from, columns a user may give)
KINDS: dict[str, tuple[str, str]] = {
    "learnings": ("learning", "created_at"),
    "decisions": ("decision", "created_at"),
    "errors": ("error", "first_seen"),
    "todos": ("todo", "created_at"),
}
# Never pruned (docs/guide/aging.md, docs/guide/actions.md): learnings that block or ask, pinned
# learnings, superseded decisions.
_EXEMPT = {
    "learnings": "action = 'warn' AND pinned = 0",
    "decisions": "superseded_by IS NULL",
    "errors": "1",
}
PRUNED_KINDS = tuple(_EXEMPT)
RECORDS: dict[str, type[Kept]] = {"decisions": Decision, "errors": Error, "todos": Todo}


# What tells one row of a kind from another it may repeat: its text and the time it began.
IDENTITY = {
    "learnings": ("anti_pattern", "created_at"),
    "decisions": ("title", "created_at"),
    "errors": ("message", "first_seen"),
    "todos": ("text", "created_at"),
}


def _table(kind: str) -> str:
    return KINDS[kind][0]


def identities(connection: sqlite3.Connection, kind: str) -> set[tuple[str, str]]:
    """The (text, time it began) of every row of a kind, archived ones included."""
    text, began = IDENTITY[kind]
    return {(row[0], row[1]) for row in connection.execute(f"SELECT {text}, {began} FROM {_table(kind)}")}


def insert(connection: sqlite3.Connection, kind: str, values: Mapping[str, object]) -> int:
    columns = ", ".join(values)
    placeholders = ", ".join(f":{column}" for column in values)
    cursor = connection.execute(
        f"INSERT INTO {_table(kind)} ({columns}) VALUES ({placeholders})", dict(values)
    )
    assert cursor.lastrowid is not None
    return cursor.lastrowid


def update(connection: sqlite3.Connection, kind: str, row_id: int, values: Mapping[str, object]) -> None:
    if values:
        assignments = ", ".join(f"{column} = :{column}" for column in values)
        connection.execute(
            f"UPDATE {_table(kind)} SET {assignments} WHERE id = :id", {**values, "id": row_id}
        )


def _rows(kind: str) -> str:
    return f"SELECT {stored.columns(RECORDS[kind])} FROM {_table(kind)}"


def get(connection: sqlite3.Connection, kind: str, row_id: int) -> Kept | None:
    found = stored.made(RECORDS[kind], connection.execute(f"{_rows(kind)} WHERE id = :id", {"id": row_id}))
    return found[0] if found else None


def select(connection: sqlite3.Connection, kind: str, shown: str = "active") -> list[Kept]:
    where = visibility.WHERE[shown]
    return stored.made(RECORDS[kind], connection.execute(f"{_rows(kind)} WHERE {where} ORDER BY id"))


def record_access(connection: sqlite3.Connection, kind: str, row_id: int, now: str) -> bool:
    """Count one single-item read; False when there is no such row."""
    cursor = connection.execute(
        f"UPDATE {_table(kind)} SET access_count = access_count + 1, last_accessed = :now WHERE id = :id",
        {"now": now, "id": row_id},
    )
    return cursor.rowcount == 1


def most_accessed(
    connection: sqlite3.Connection, kind: str, limit: int = 10
) -> list[tuple[int, str, int, str]]:
    """The active rows read or matched most often, most recent first among equals: each one's
    id, text, access count and last access."""
    text = IDENTITY[kind][0]
    return connection.execute(
        f"SELECT id, {text}, access_count, last_accessed FROM {_table(kind)} "
        "WHERE archived_at IS NULL AND access_count > 0 "
        "ORDER BY access_count DESC, last_accessed DESC, id LIMIT :limit",
        {"limit": limit},
    ).fetchall()


def prune(connection: sqlite3.Connection, kind: str, cutoffs: Cutoffs, now: str, *, dry_run: bool) -> int:
    """Archive (or, dry, count) the active rows of a kind that the pruning rule picks."""
    table, born = KINDS[kind]
    where = (
        f"archived_at IS NULL AND {_EXEMPT[kind]} AND {born} < :older_than_either AND ("
        f"({born} < :unused_before AND access_count = 0) OR "
        f"({born} < :rarely_used_before AND access_count < :rarely_used_accesses))"
    )  # the first bound lets SQLite read only old rows (index learning_prunable)
    parameters = {
        "older_than_either": max(cutoffs.unused_before, cutoffs.rarely_used_before),
        "unused_before": cutoffs.unused_before,
        "rarely_used_before": cutoffs.rarely_used_before,
        "rarely_used_accesses": cutoffs.rarely_used_accesses,
        "now": now,
    }
    if dry_run:
        count: int = connection.execute(f"SELECT count(*) FROM {table} WHERE {where}", parameters).fetchone()[
            0
        ]
        return count
    return connection.execute(f"UPDATE {table} SET archived_at = :now WHERE {where}", parameters).rowcount


def find_active_error(connection: sqlite3.Connection, message: str) -> Error | None:
    found = stored.made(
        Error,
        connection.execute(
            f"{_rows('errors')} WHERE message = :message AND archived_at IS NULL ORDER BY id LIMIT 1",
            {"message": message},
        ),
    )
    return found[0] if found else None


def seen_again(connection: sqlite3.Connection, error_id: int, now: str) -> None:
    connection.execute(
        "UPDATE error SET occurrences = occurrences + 1, last_seen = :now WHERE id = :id",
        {"now": now, "id": error_id},
    )
