"""SQL of the memory lifecycle and of reflect (docs/guide/aging.md, docs/guide/graph.md): the
memories due for a look, what the lifecycle writes, the pruned memories' deletion, and reflect
decay's selection."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager

from cortex_hooks import stored
from cortex_hooks.store.memories import EDGES
from cortex_hooks.stored.memory_rows import Aging, Edge, Memory

_AGING = f"SELECT {stored.columns(Aging)} FROM memory"


CACHE_KIB = 16 * 1024  # a pass touches pages all over a large table: SQLite's 2 MiB default rereads them


def roomy_cache(connection: sqlite3.Connection) -> None:
    """A page cache large enough for one pass over a large database (this connection only)."""
    connection.execute(f"PRAGMA cache_size = -{CACHE_KIB}")


@contextmanager
def without_waiting(connection: sqlite3.Connection) -> Iterator[None]:
    """Write transactions begun inside fail at once, rather than wait, when another process holds
    the write lock (the connection's own wait is put back after)."""
    waited = connection.execute("PRAGMA busy_timeout").fetchone()[0]
    connection.execute("PRAGMA busy_timeout = 0")
    try:
        yield
    finally:
        connection.execute(f"PRAGMA busy_timeout = {int(waited)}")


def due(connection: sqlite3.Connection, now: str, after: tuple[str, int], limit: int) -> list[Aging]:
    """The memories due for a look at `now` (through the index `memory_due`), after a position
    (due, id) in that order: a pass goes through them in batches."""
    return stored.made(
        Aging,
        connection.execute(
            f"""{_AGING} WHERE lifecycle_due IS NOT NULL AND lifecycle_due <= :now
                    AND (lifecycle_due, id) > (:due, :id)
                ORDER BY lifecycle_due, id LIMIT :limit""",
            {"now": now, "due": after[0], "id": after[1], "limit": limit},
        ),
    )


def refresh_centrality(connection: sqlite3.Connection, max_in_degree: int) -> None:
    """When the largest in-degree has changed since the last pass, the memories whose centrality
    may have crossed 0.5 (in-degree >= half the smaller of the two) are due now."""
    row = connection.execute("SELECT max_in_degree FROM lifecycle_state WHERE id = 1").fetchone()
    before = None if row is None else row[0]
    if before == max_in_degree:
        return
    smaller = min(before or 0, max_in_degree)
    connection.execute(
        "UPDATE memory SET lifecycle_due = '' WHERE in_degree > 0 AND in_degree * 2 >= :smaller",
        {"smaller": smaller},
    )
    connection.execute(
        """INSERT INTO lifecycle_state (id, max_in_degree) VALUES (1, :max)
           ON CONFLICT (id) DO UPDATE SET max_in_degree = excluded.max_in_degree""",
        {"max": max_in_degree},
    )


def decay(connection: sqlite3.Connection, changes: Iterable[Mapping[str, object]]) -> None:
    """The lifecycle's own writes (never a confirmation: confirmed_at and updated_at stay as
    they are): the curve's value and the next look."""
    connection.executemany(
        "UPDATE memory SET confidence = :confidence, lifecycle_due = :due WHERE id = :id", changes
    )


def archive(connection: sqlite3.Connection, changes: Iterable[Mapping[str, object]]) -> None:
    """Memories the lifecycle archives, with their value then and their next look (the prune)."""
    connection.executemany(
        """UPDATE memory SET confidence = :confidence, status = 'archived', archived_at = :archived_at,
               lifecycle_due = :due WHERE id = :id""",
        changes,
    )


def reschedule(connection: sqlite3.Connection, ids: list[int], due: str | None) -> None:
    connection.execute(
        "UPDATE memory SET lifecycle_due = :due WHERE id IN (SELECT value FROM json_each(:ids))",
        {"due": due, "ids": json.dumps(ids)},
    )


def rows(connection: sqlite3.Connection, ids: list[int]) -> list[Memory]:
    """Whole memories (what a pruned memory is kept as)."""
    return stored.made(
        Memory,
        connection.execute(
            f"SELECT {stored.columns(Memory)} FROM memory WHERE id IN (SELECT value FROM json_each(:ids))",
            {"ids": json.dumps(ids)},
        ),
    )


def edges_touching(connection: sqlite3.Connection, ids: list[int]) -> list[Edge]:
    """Every edge from or to one of these memories, in the order `memories show` lists them."""
    rows = connection.execute(
        f"""{EDGES} WHERE from_id IN (SELECT value FROM json_each(:ids))
           UNION {EDGES} WHERE to_id IN (SELECT value FROM json_each(:ids))
           ORDER BY from_id, to_id, type""",
        {"ids": json.dumps(ids)},
    )
    return stored.made(Edge, rows)


def delete(connection: sqlite3.Connection, ids: list[int], day: str) -> None:
    """Pruned memories, with every edge touching them; counted in the history of `day`."""
    from cortex_hooks.store import history

    history.count_memories(connection, day, "pruned", len(ids))
    chosen = {"ids": json.dumps(ids)}
    connection.execute(
        """DELETE FROM edge WHERE from_id IN (SELECT value FROM json_each(:ids))
               OR to_id IN (SELECT value FROM json_each(:ids))""",
        chosen,
    )
    connection.execute("DELETE FROM memory WHERE id IN (SELECT value FROM json_each(:ids))", chosen)


def unaccessed(connection: sqlite3.Connection, before: str, floor: int) -> list[Memory]:
    """Active, unpinned memories not accessed since `before` (never accessed: created before it)
    whose confidence lies above the floor: what `reflect decay` scales."""
    rows = connection.execute(
        f"""SELECT {stored.columns(Memory)} FROM memory
           WHERE status = 'active' AND pinned = 0 AND coalesce(last_accessed, created_at) < :before
               AND confidence > :floor AND base_confidence IS NOT NULL
           ORDER BY id""",
        {"before": before, "floor": floor},
    )
    return stored.made(Memory, rows)


def scale(connection: sqlite3.Connection, changes: Iterable[Mapping[str, object]]) -> None:
    """reflect decay's writes: the stored value and the curve's start (not a confirmation)."""
    connection.executemany(
        "UPDATE memory SET confidence = :confidence, base_confidence = :base WHERE id = :id", changes
    )


def active_texts(connection: sqlite3.Connection) -> sqlite3.Cursor:
    """Every active memory's id and content, read as they come (reflect similar's input)."""
    return connection.execute("SELECT id, content AS text FROM memory WHERE status = 'active' ORDER BY id")


def active_learning_texts(connection: sqlite3.Connection) -> sqlite3.Cursor:
    """Every active learning's id, and anti-pattern + correct pattern + regex together."""
    return connection.execute(
        """SELECT id, anti_pattern || ' ' || correct_pattern || ' ' || coalesce(regex, '') AS text
           FROM learning WHERE archived_at IS NULL ORDER BY id"""
    )


NAMES = {
    "memory": "SELECT id, summary FROM memory WHERE id IN (SELECT value FROM json_each(:ids))",
    "learning": "SELECT id, anti_pattern FROM learning WHERE id IN (SELECT value FROM json_each(:ids))",
}


def names(connection: sqlite3.Connection, kind: str, ids: list[int]) -> dict[int, str]:
    """What a pair shows of each item: a memory's summary, a learning's anti-pattern."""
    return dict(connection.execute(NAMES[kind], {"ids": json.dumps(ids)}).fetchall())
