"""SQL of semantic recall (docs/guide/embeddings.md): the stored vectors of each item and model, and
the texts of the items that have none yet (the queue `embed` and the writes fill)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable

from cortex_hooks.store.recall import NUMBERS

# Each kind's active rows with the columns its embedded text is made of (embeddings.text).
# A `code` memory is never embedded (the plan's NFR-031): it is never even read here.
_SOURCES = {
    "memory": """SELECT id, content, summary FROM memory WHERE status = 'active' AND type != 'code'""",
    "learning": """SELECT id, anti_pattern, correct_pattern, context FROM learning
                   WHERE archived_at IS NULL""",
    "decision": """SELECT id, title, reasoning FROM decision
                   WHERE archived_at IS NULL AND superseded_by IS NULL""",
    "error": "SELECT id, message, fix FROM error WHERE archived_at IS NULL",
    "todo": "SELECT id, text FROM todo WHERE archived_at IS NULL AND done = 0",
}


def sources(
    connection: sqlite3.Connection,
    kind: str,
    *,
    missing_for: str | None = None,
    ids: Iterable[int] | None = None,
) -> list[sqlite3.Row]:
    """The active rows of a kind to embed: all of them, those without a vector of `missing_for`,
    and/or those of some ids; oldest first."""
    sql = f"SELECT * FROM ({_SOURCES[kind]}) AS item WHERE 1"
    values: dict[str, object] = {"kind": NUMBERS[kind]}
    if missing_for is not None:
        sql += """ AND NOT EXISTS (SELECT 1 FROM vector AS v
                   WHERE v.model = :model AND v.kind = :kind AND v.item_id = item.id)"""
        values["model"] = missing_for
    if ids is not None:
        sql += " AND id IN (SELECT value FROM json_each(:ids))"
        values["ids"] = json.dumps(list(ids))
    return connection.execute(sql + " ORDER BY id", values).fetchall()


def put(connection: sqlite3.Connection, model: str, kind: str, vectors: dict[int, bytes]) -> None:
    """Store (or replace) vectors of one model for items of a kind. A replaced row gets a new id."""
    connection.executemany(
        "INSERT OR REPLACE INTO vector (kind, item_id, model, data) VALUES (:kind, :item_id, :model, :data)",
        [
            {"kind": NUMBERS[kind], "item_id": item_id, "model": model, "data": data}
            for item_id, data in vectors.items()
        ],
    )


def drop_other_models(connection: sqlite3.Connection, model: str) -> int:
    """Forget the vectors of every other model (after `embed --all`): how many."""
    return connection.execute("DELETE FROM vector WHERE model != :model", {"model": model}).rowcount


def of_items(connection: sqlite3.Connection, model: str, kind: str, ids: Iterable[int]) -> dict[int, bytes]:
    """The vectors of `model` of some items of a kind."""
    return {
        row[0]: row[1]
        for row in connection.execute(
            """SELECT item_id, data FROM vector WHERE model = :model AND kind = :kind
               AND item_id IN (SELECT value FROM json_each(:ids))""",
            {"model": model, "kind": NUMBERS[kind], "ids": json.dumps(list(ids))},
        )
    }


def stamp(connection: sqlite3.Connection, model: str) -> tuple[int, int]:
    """(count, largest id) of a model's vectors: changes with every write of them (ids are never reused)."""
    count, largest = connection.execute(
        "SELECT count(*), coalesce(max(id), 0) FROM vector WHERE model = :model", {"model": model}
    ).fetchone()
    return int(count), int(largest)


def every(connection: sqlite3.Connection, model: str) -> list[tuple[int, int, bytes]]:
    """(kind number, item id, vector) of every vector of a model."""
    return connection.execute(
        "SELECT kind, item_id, data FROM vector WHERE model = :model", {"model": model}
    ).fetchall()


def counts(connection: sqlite3.Connection) -> dict[str, int]:
    """How many vectors each model has."""
    return dict(connection.execute("SELECT model, count(*) FROM vector GROUP BY model ORDER BY model"))


def reader(path: str) -> sqlite3.Connection:
    """A connection of its own that can only read (a warming thread's: never one a long-running
    process keeps and lends to its commands, which belong to another thread)."""
    from urllib.parse import quote

    return sqlite3.connect(f"file:{quote(path)}?mode=ro", uri=True, isolation_level=None, timeout=1.0)
