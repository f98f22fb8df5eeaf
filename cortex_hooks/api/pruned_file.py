"""The pruned memories' file (docs/guide/aging.md): each memory the lifecycle prunes, in full, appended to
`pruned.jsonl` beside its database and on disk before the memory is deleted."""

from __future__ import annotations

import json
import os
import sqlite3
from typing import Any

from cortex_hooks import clock, confidence
from cortex_hooks.memory import decay
from cortex_hooks.memory.rank import centrality
from cortex_hooks.store import lifecycle as store
from cortex_hooks.stored import memory_rows

FILENAME = "pruned.jsonl"


def path(database: str) -> str:
    return os.path.join(os.path.dirname(os.path.abspath(database)), FILENAME)


def _shown(row: memory_rows.Memory, scope: str, top: int) -> dict[str, Any]:
    """A memory as `memories show --json` prints it (memory.records.Memory, whose import would
    cost a session end more than the pass itself; tests/test_lifecycle.py holds the two equal)."""
    tags = json.loads(row.tags or "[]")
    if not isinstance(tags, list):
        raise ValueError(f"its tags {row.tags!r} are not a list")
    return {
        "id": row.id,
        "scope": scope,
        "type": row.type,
        "content": row.content,
        "summary": row.summary,
        "priority": row.priority,
        "confidence": confidence.as_number(row.confidence),
        "pinned": bool(row.pinned),
        "tags": tags,
        "source": row.source,
        "source_session": row.source_session,
        "status": row.status,
        "path": row.path,
        "access_count": row.access_count,
        "last_accessed": row.last_accessed,
        "created_at": row.created_at,
        "updated_at": row.updated_at,
        "archived_at": row.archived_at,
        "centrality": round(centrality(row.in_degree, top), 2),
    }


def keep(
    connection: sqlite3.Connection,
    database: str,
    scope: str,
    top: int,
    rows: list[tuple[memory_rows.Aging, decay.Step]],
) -> tuple[list[int], list[str]]:
    """Each pruned memory in full, as `memories show --json` prints it (edges included), appended
    to pruned.jsonl and on disk before the deletion is written; the ids kept there, and a note
    for each memory that could not be read (left in place)."""
    ids = [row.id for row, _ in rows]
    full = {row.id: row for row in store.rows(connection, ids)}
    edges: dict[int, list[dict[str, object]]] = {memory_id: [] for memory_id in ids}
    for edge in store.edges_touching(connection, ids):
        shown = {
            "type": edge.type,
            "from": edge.from_id,
            "to": edge.to_id,
            "strength": edge.strength,
        }
        for end in {edge.from_id, edge.to_id} & edges.keys():
            edges[end].append(shown)
    lines, kept, unreadable = [], [], []
    for row, step in rows:
        try:
            record = _shown(full[row.id], scope, top)
        except ValueError as error:
            unreadable.append(f"memory #{row.id} not pruned: it cannot be read ({error})")
            continue
        record.update(  # as the lifecycle left it: archived (perhaps in this very pass)
            confidence=confidence.as_number(step.confidence),
            status=step.status,
            archived_at=clock.iso(step.archived_at) if step.archived_at else record["archived_at"],
            edges=edges[row.id],
        )
        lines.append(json.dumps(record, ensure_ascii=False) + "\n")
        kept.append(row.id)
    data = "".join(lines).encode("utf-8")
    descriptor = os.open(path(database), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        while data:
            data = data[os.write(descriptor, data) :]
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
    return kept, unreadable
