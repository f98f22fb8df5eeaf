"""SQL for memories and the edges between them (docs/guide/memories.md, docs/guide/aging.md)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping

from cortex_hooks import stored
from cortex_hooks.stored.memory_rows import Edge, Memory, Source

# What a write gives: the graph's count and the lifecycle's schedule are kept by triggers and the pass.
COLUMNS = tuple(field for field in Memory._fields if field not in ("id", "in_degree", "lifecycle_due"))
_ROWS = f"SELECT {stored.columns(Memory)} FROM memory"
SHOWN = {
    "active": "status = 'active'",
    "archived": "status = 'archived'",
    "all": "1",
}


def insert(connection: sqlite3.Connection, values: Mapping[str, object]) -> int:
    """A new memory row (every column of COLUMNS given); its id."""
    columns = [column for column in COLUMNS if column in values]
    cursor = connection.execute(
        f"INSERT INTO memory ({', '.join(columns)}) VALUES ({', '.join(':' + c for c in columns)})",
        {column: values[column] for column in columns},
    )
    assert cursor.lastrowid is not None
    return cursor.lastrowid


def update(connection: sqlite3.Connection, memory_id: int, changes: Mapping[str, object]) -> None:
    unknown = set(changes) - set(COLUMNS)
    assert not unknown, unknown
    if changes:
        assignments = ", ".join(f"{column} = :{column}" for column in changes)
        connection.execute(f"UPDATE memory SET {assignments} WHERE id = :id", {**changes, "id": memory_id})


def delete(connection: sqlite3.Connection, memory_id: int) -> None:
    """Remove a memory (a move's source, once the copy is committed); its edges and consolidation
    flags go with it (the trigger memory_gone, schema 9)."""
    connection.execute("DELETE FROM memory WHERE id = :id", {"id": memory_id})


def get(connection: sqlite3.Connection, memory_id: int) -> Memory | None:
    found = stored.made(Memory, connection.execute(f"{_ROWS} WHERE id = :id", {"id": memory_id}))
    return found[0] if found else None


def select(
    connection: sqlite3.Connection, shown: str = "active", memory_type: str | None = None
) -> list[Memory]:
    """Memories shown (active, archived, all), of one type or every type, oldest first."""
    where = SHOWN[shown] + (" AND type = :type" if memory_type else "")
    return stored.made(
        Memory, connection.execute(f"{_ROWS} WHERE {where} ORDER BY id", {"type": memory_type})
    )


def max_in_degree(connection: sqlite3.Connection) -> int:
    value: int = connection.execute("SELECT coalesce(max(in_degree), 0) FROM memory").fetchone()[0]
    return value


def record_access(connection: sqlite3.Connection, ids: list[int], now: str) -> None:
    """Count one access of each (a show, a recall): an access is also a confirmation."""
    connection.execute(
        """UPDATE memory SET access_count = access_count + 1, last_accessed = :now, confirmed_at = :now
           WHERE id IN (SELECT value FROM json_each(:ids))""",
        {"now": now, "ids": json.dumps(ids)},
    )


def link(
    connection: sqlite3.Connection, from_id: int, to_id: int, edge_type: str, *, strength: float, now: str
) -> None:
    """An edge between two memories (one of a type each way: linking again sets its strength)."""
    connection.execute(
        """INSERT INTO edge (from_id, to_id, type, strength, created_at)
           VALUES (:from_id, :to_id, :type, :strength, :now)
           ON CONFLICT (from_id, to_id, type) DO UPDATE SET strength = excluded.strength""",
        {"from_id": from_id, "to_id": to_id, "type": edge_type, "strength": strength, "now": now},
    )


EDGES = f"SELECT {stored.columns(Edge)} FROM edge"


def edges_of(connection: sqlite3.Connection, memory_id: int) -> list[Edge]:
    """Every edge touching a memory."""
    rows = connection.execute(
        f"{EDGES} WHERE from_id = :id OR to_id = :id ORDER BY created_at, from_id, to_id", {"id": memory_id}
    )
    return stored.made(Edge, rows)


def edges_among(connection: sqlite3.Connection, ids: list[int]) -> list[Edge]:
    """The edges between memories of a set (an export, a move)."""
    rows = connection.execute(
        f"""{EDGES} WHERE from_id IN (SELECT value FROM json_each(:ids))
               AND to_id IN (SELECT value FROM json_each(:ids))
           ORDER BY from_id, to_id, type""",
        {"ids": json.dumps(ids)},
    )
    return stored.made(Edge, rows)


def sources_of(connection: sqlite3.Connection, ids: list[int]) -> dict[int, list[Source]]:
    """What each memory's `source_of` edges lead to (a code description's code memory)."""
    linked: dict[int, list[Source]] = {}
    rows = connection.execute(
        f"""SELECT {stored.columns(Source, "m", from_id="e.from_id")}
           FROM edge AS e JOIN memory AS m ON m.id = e.to_id
           WHERE e.type = 'source_of' AND e.from_id IN (SELECT value FROM json_each(:ids))
           ORDER BY m.id""",
        {"ids": json.dumps(ids)},
    )
    for source in stored.made(Source, rows):
        linked.setdefault(source.from_id, []).append(source)
    return linked
