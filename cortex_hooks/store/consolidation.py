"""SQL of consolidation (docs/guide/aging.md): the flagged pairs, the groups' members, the merge, the runs."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence

from cortex_hooks import stored
from cortex_hooks.stored.memory_rows import Flag

TYPE_CHECKING = False
if TYPE_CHECKING:  # its dataclasses cost `remember`, which only flags pairs, 10 ms of imports
    from cortex_hooks.memory.merge_plan import Candidate, Merge


def flag(
    connection: sqlite3.Connection, memory_id: int, others: Iterable[tuple[int, float]], now: str
) -> None:
    """Flag a memory with each of `others` (id, similarity) for consolidation; a pair once."""
    connection.executemany(
        """INSERT INTO consolidation_flag (first_id, second_id, similarity, flagged_at)
           VALUES (min(:a, :b), max(:a, :b), :similarity, :now)
           ON CONFLICT (first_id, second_id) DO UPDATE SET similarity = excluded.similarity""",
        [
            {"a": memory_id, "b": other, "similarity": round(value, 2), "now": now}
            for other, value in others
            if other != memory_id
        ],
    )


def flagged(connection: sqlite3.Connection) -> list[Flag]:
    """The flagged pairs of two active memories, smaller id first."""
    rows = connection.execute(
        f"""SELECT {stored.columns(Flag, "f")} FROM consolidation_flag AS f
           JOIN memory AS a ON a.id = f.first_id JOIN memory AS b ON b.id = f.second_id
           WHERE a.status = 'active' AND b.status = 'active' ORDER BY f.first_id, f.second_id"""
    )
    return stored.made(Flag, rows)


def candidates(connection: sqlite3.Connection, ids: Iterable[int]) -> list[Candidate]:
    """These memories, the active ones, as a merge plan reads them."""
    from cortex_hooks.memory.merge_plan import Candidate

    return [
        Candidate(
            id=row["id"],
            confidence=row["confidence"],
            priority=row["priority"],
            in_degree=row["in_degree"],
            access_count=row["access_count"],
            pinned=bool(row["pinned"]),
            tags=tuple(json.loads(row["tags"] or "[]")),
            content=row["content"],
            summary=row["summary"],
        )
        for row in connection.execute(
            """SELECT id, confidence, priority, in_degree, access_count, pinned, tags, content, summary
               FROM memory WHERE status = 'active' AND id IN (SELECT value FROM json_each(:ids))
               ORDER BY id""",
            {"ids": json.dumps(sorted(set(ids)))},
        )
    ]


def apply(connection: sqlite3.Connection, merges: Sequence[Merge], now: str) -> None:
    """Write the merges (inside the caller's transaction): each survivor's tags, pin and content,
    the others superseded with a `supersedes` edge from the survivor, the group's flags cleared."""
    for merge in merges:
        changes = {"id": merge.survivor, "tags": json.dumps(list(merge.tags), ensure_ascii=False)}
        connection.execute(
            """UPDATE memory SET tags = :tags, pinned = max(pinned, :pinned), updated_at = :now
               WHERE id = :id AND (tags != :tags OR pinned < :pinned)""",
            {**changes, "pinned": int(merge.pinned), "now": now},
        )
        if merge.content is not None and merge.summary is not None:
            connection.execute(
                "UPDATE memory SET content = :content, summary = :summary WHERE id = :id",
                {"id": merge.survivor, "content": merge.content, "summary": merge.summary},
            )
        connection.executemany(
            "UPDATE memory SET status = 'superseded', updated_at = :now WHERE id = :id",
            [{"id": other, "now": now} for other in merge.superseded],
        )
        connection.executemany(
            """INSERT INTO edge (from_id, to_id, type, strength, created_at)
               VALUES (:survivor, :other, 'supersedes', 1.0, :now)
               ON CONFLICT (from_id, to_id, type) DO NOTHING""",
            [{"survivor": merge.survivor, "other": other, "now": now} for other in merge.superseded],
        )
    merged = [member for merge in merges for member in (merge.survivor, *merge.superseded)]
    connection.execute(
        """DELETE FROM consolidation_flag WHERE first_id IN (SELECT value FROM json_each(:ids))
               OR second_id IN (SELECT value FROM json_each(:ids))""",
        {"ids": json.dumps(merged)},
    )


def record(connection: sqlite3.Connection, now: str, checkpoint: str | None, merges: Sequence[Merge]) -> None:
    """One consolidation that changed something: when, its checkpoint, what it merged."""
    connection.execute(
        """INSERT INTO consolidation (at, checkpoint, groups, superseded, last_memory_id)
           VALUES (:now, :checkpoint, :groups, :superseded, (SELECT coalesce(max(id), 0) FROM memory))""",
        {
            "now": now,
            "checkpoint": checkpoint,
            "groups": len(merges),
            "superseded": sum(len(merge.superseded) for merge in merges),
        },
    )


def extractions_since_last(connection: sqlite3.Connection) -> int:
    """Memories written by capture (source `conversation`) after the last consolidation's newest
    memory: ids only grow, so this reads the rows written since, never the whole table."""
    count: int = connection.execute(
        """SELECT count(*) FROM memory WHERE source = 'conversation'
           AND id > (SELECT coalesce(max(last_memory_id), 0) FROM consolidation)"""
    ).fetchone()[0]
    return count


def active_count(connection: sqlite3.Connection) -> int:
    count: int = connection.execute("SELECT count(*) FROM memory WHERE status = 'active'").fetchone()[0]
    return count
