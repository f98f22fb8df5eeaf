"""SQL for the push surface (docs/guide/surface.md): the few memories it shows, read without an access.

Every query reads at most what a surface can show (an entry is at least 20 characters, and the
budget at most 8,000: SHOWN rows), through an index where one exists:

- pinned: the `memory_pinned` partial index;
- top-ranked: the rank (memory.rank) needs the largest access count of the ranked set (one aggregate,
  `most_accessed`) and the largest in-degree (store.memories). The order itself is the Python
  rule (memory.rank) registered with SQLite, so the rule is written once and only the top rows
  reach Python. Any active memory may be among the best: this one pass reads every active row's
  few numbers, inside SQLite;
- touched lately: the `memory_touched` index on max(confirmed_at, updated_at) (schema 8);
- naming the branch or a changed file: the full-text index (store.search), phrase queries;
- code descriptions: the `memory_active` index on (type, id).

Code memories (a file's content) are never shown; a code description stands for them.
"""

from __future__ import annotations

import sqlite3

from cortex_hooks import stored
from cortex_hooks.memory import rank
from cortex_hooks.stored.memory_rows import SurfaceItem

SHOWN = 400  # 8,000 characters / 20: more than any surface can list
# the team file's id of a memory that came from it (docs/guide/team.md), NULL for any other
_TEAM = "(SELECT e.id FROM team_entry AS e WHERE e.kind = 'memory' AND e.row_id = {table}.id)"
_RANK = """cortex_rank(confidence, priority, cortex_centrality(in_degree, :top), access_count, :max_log)"""
_ITEM = stored.columns(SurfaceItem, team=_TEAM.format(table="memory"), rank="NULL")
_PROSE = "status = 'active' AND type NOT IN ('code', 'code_description')"
_RANKED = _PROSE + " AND pinned = 0"


def _listed(connection: sqlite3.Connection, sql: str, **parameters: object) -> list[SurfaceItem]:
    return stored.made(SurfaceItem, connection.execute(sql, parameters))


def pinned(connection: sqlite3.Connection) -> tuple[list[SurfaceItem], int]:
    """Pinned memories (highest priority first) and how many there are."""
    rows = _listed(
        connection,
        f"""SELECT {_ITEM} FROM memory WHERE status = 'active' AND pinned = 1
               AND type NOT IN ('code', 'code_description')
           ORDER BY priority DESC, id LIMIT :limit""",
        limit=SHOWN,
    )
    total = connection.execute(f"SELECT count(*) FROM memory WHERE {_PROSE} AND pinned = 1").fetchone()[0]
    return rows, int(total)


def most_accessed(connection: sqlite3.Connection) -> int:
    """The largest access count among the memories ranked for the surface (memory.rank's max_log)."""
    most = connection.execute(
        f"SELECT coalesce(max(access_count), 0) FROM memory WHERE {_RANKED}"
    ).fetchone()[0]
    return int(most)


def top_ranked(
    connection: sqlite3.Connection, *, max_log: float, max_in_degree: int, limit: int
) -> list[SurfaceItem]:
    """The unpinned memories of highest rank (memory.rank), best first, each with its `rank`."""
    connection.create_function("cortex_rank", 5, rank.rank, deterministic=True)
    connection.create_function("cortex_centrality", 2, rank.centrality, deterministic=True)
    return _listed(
        connection,
        f"""SELECT {stored.columns(SurfaceItem, team=_TEAM.format(table="memory"), rank=_RANK)}
            FROM memory WHERE {_RANKED} ORDER BY rank DESC, id LIMIT :limit""",
        top=max_in_degree,
        max_log=max_log,
        limit=limit,
    )


def touched(connection: sqlite3.Connection, since: str) -> list[SurfaceItem]:
    """Memories created, updated or accessed at or after `since`, latest first."""
    return _listed(
        connection,
        f"""SELECT {_ITEM} FROM memory
            WHERE status = 'active' AND max(confirmed_at, updated_at) >= :since
                AND type NOT IN ('code', 'code_description')
            ORDER BY max(confirmed_at, updated_at) DESC, id DESC LIMIT :limit""",
        since=since,
        limit=SHOWN,
    )


def naming(connection: sqlite3.Connection, phrases: list[str]) -> list[SurfaceItem]:
    """Memories whose text or tags hold one of these phrases, best first. Each phrase is quoted:
    FTS5 splits it into words as it split the stored text (`feature/x` finds `feature-x`)."""
    match = " OR ".join('"' + phrase.replace('"', '""') + '"' for phrase in phrases)
    if not match:
        return []
    return _listed(
        connection,
        f"""SELECT {stored.columns(SurfaceItem, "m", team=_TEAM.format(table="m"), rank="NULL")} FROM (
                SELECT rowid / 8 AS id, bm25(search) AS relevance FROM search
                WHERE search MATCH :match AND rowid % 8 = 1 ORDER BY bm25(search) LIMIT :limit) AS hit
            JOIN memory AS m ON m.id = hit.id
            WHERE m.status = 'active' AND m.type NOT IN ('code', 'code_description')
            ORDER BY hit.relevance, m.id""",
        match=match,
        limit=SHOWN,
    )


def code_descriptions(connection: sqlite3.Connection) -> tuple[list[SurfaceItem], int]:
    """Active code descriptions with their paths (newest first) and how many there are."""
    where = "status = 'active' AND type = 'code_description'"
    rows = _listed(
        connection,
        f"SELECT {_ITEM} FROM memory WHERE {where} ORDER BY id DESC LIMIT :limit",
        limit=SHOWN,
    )
    total = connection.execute(f"SELECT count(*) FROM memory WHERE {where}").fetchone()[0]
    return rows, int(total)
