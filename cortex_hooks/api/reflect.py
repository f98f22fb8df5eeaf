"""Reflect (docs/guide/graph.md): `decay` scales the confidence of memories left unused; `similar` names
the pairs of items that say nearly the same (it writes nothing)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import closing
from datetime import timedelta
from typing import Any

from cortex_hooks import clock, confidence
from cortex_hooks.api import databases as db
from cortex_hooks.api.databases import BOTH, Databases
from cortex_hooks.api.wording import clean, memory_count
from cortex_hooks.errors import USAGE, CortexError
from cortex_hooks.memory import pairs, similarity
from cortex_hooks.notes import Notes
from cortex_hooks.store import lifecycle as store
from cortex_hooks.store.connection import Transaction
from cortex_hooks.store.scopes import Scope, close

FLOOR = 10  # hundredths: reflect decay never takes a memory below 0.10
FACTOR = 0.9
DAYS = 30
LIMIT = 20
KINDS = {"memory": store.active_texts, "learning": store.active_learning_texts}


def decay(databases: Databases, *, days: int = DAYS, dry_run: bool = False) -> list[dict[str, Any]]:
    """Memories not accessed for `days` and above the floor: confidence x 0.9 (floor 0.10). Each
    one changed (dry: that would be), as `reflect decay --json` lists them."""
    if not 0 <= days <= 36_500:
        raise CortexError(f"--days must lie in [0, 36500], got {days}", USAGE)
    now = clock.now()
    connection = db.for_reading(databases)
    if connection is None:
        return []
    with closing(connection), Transaction(connection, keep=not dry_run):
        rows = store.unaccessed(connection, clock.iso(now - timedelta(days=days)), FLOOR)
        changes = [
            {
                "id": row.id,
                "confidence": max(FLOOR, round(row.confidence * FACTOR)),
                "base": max(FLOOR, round((row.base_confidence or row.confidence) * FACTOR)),
            }
            for row in rows
        ]
        store.scale(connection, changes)
        return [
            {
                "id": row.id,
                "name": row.summary,
                "old_confidence": confidence.as_number(row.confidence),
                "new_confidence": confidence.as_number(change["confidence"]),
            }
            for row, change in zip(rows, changes, strict=True)
        ]


def similar(
    databases: Databases, notes: Notes, *, threshold: float = similarity.CONSOLIDATE, limit: int = LIMIT
) -> list[dict[str, Any]]:
    """Pairs of active items (memories; learnings with learnings) at or above the threshold, most
    similar first. With the global scope acted on, across both scopes; else the project's items
    among themselves. Writes nothing."""
    if not 0 < threshold <= 1:
        raise CortexError(f"--threshold must lie in (0, 1], got {threshold}", USAGE)
    if limit < 1:
        raise CortexError(f"--limit must be at least 1, got {limit}", USAGE)
    names = BOTH if databases.scope == "global" else ("project",)
    scopes, skipped = db.both(databases, names)
    found: list[dict[str, Any]] = []
    try:
        for kind, read in KINDS.items():
            found += _similar(kind, read, scopes, threshold)
    finally:
        close(scopes)
    found.sort(key=lambda pair: -float(pair["similarity"]))  # stable: each kind's order kept on ties
    notes.extend(skipped)
    return found[:limit]


def _similar(
    kind: str, read: Callable[[sqlite3.Connection], sqlite3.Cursor], scopes: list[Scope], threshold: float
) -> list[dict[str, Any]]:
    """The pairs of one kind at or above the threshold, across the scopes given (project first)."""
    canonical: dict[str, str] = {}  # one copy of each word, however many texts hold it
    items: list[tuple[tuple[int, int], frozenset[str]]] = []
    for rank, scope in enumerate(scopes):
        for memory_id, text in read(scope.connection):
            words = similarity.words(text)
            items.append(((rank, memory_id), frozenset(canonical.setdefault(word, word) for word in words)))
    canonical.clear()
    found = pairs.similar(items, threshold)
    del items
    shown: dict[tuple[int, int], str] = {}
    for rank, scope in enumerate(scopes):
        ids = sorted({key[1] for pair in found for key in pair[:2] if key[0] == rank})
        shown.update(((rank, item), name) for item, name in store.names(scope.connection, kind, ids).items())
    return [
        {
            "kind": kind,
            "entity1_id": first[1],
            "entity1_name": shown[first],
            "entity2_id": second[1],
            "entity2_name": shown[second],
            "similarity": round(value, 4),
            "scope1": scopes[first[0]].name,
            "scope2": scopes[second[0]].name,
        }
        for first, second, value in found
    ]


# What people read of it, from the CLI and the MCP server alike. The texts of reflect: each memory
# decayed, each pair of near-duplicates.


def decayed(entities: list[dict[str, Any]], *, days: int, scope: str, dry_run: bool) -> str:
    lines = [
        f"#{entity['id']} {entity['old_confidence']:.2f} -> {entity['new_confidence']:.2f}  "
        f"{clean(entity['name'], one_line=True)[:80]}"
        for entity in entities
    ]
    verb = "Would decay" if dry_run else "Decayed"
    lines.append(f"{verb} {memory_count(len(entities))} not accessed for {days} days ({scope}).")
    return "\n".join(lines)


def near_pairs(found: list[dict[str, Any]], threshold: float) -> str:
    if not found:
        return f"No pairs at or above {threshold:g}."
    return "\n".join(
        f"{pair['similarity']:.2f}  {pair['kind']} #{pair['entity1_id']} ({pair['scope1']}) ~ "
        f"#{pair['entity2_id']} ({pair['scope2']})\n"
        f"      {clean(pair['entity1_name'], one_line=True)[:80]}\n"
        f"      {clean(pair['entity2_name'], one_line=True)[:80]}"
        for pair in found
    )
