"""What happens to a memory as it is stored: its vector when semantic recall is
on, and its comparison with the memories of its scope: `relates_to` edges and consolidation flags."""

from __future__ import annotations

import sqlite3

from cortex_hooks.memory import similarity
from cortex_hooks.memory.given import MemoryFields
from cortex_hooks.notes import Notes
from cortex_hooks.store import consolidation as flags
from cortex_hooks.store import memories as store
from cortex_hooks.store import recall as recall_store


class Related:
    """An older memory a new one was compared with and found alike."""

    __slots__ = ("flagged", "id", "similarity")

    def __init__(self, memory_id: int, similarity: float, flagged: bool) -> None:
        self.id = memory_id
        self.similarity = similarity
        self.flagged = flagged  # nearly the same: flagged for consolidation


def auto_link(
    connection: sqlite3.Connection,
    memory_id: int,
    content: str,
    now: str,
    vector: tuple[str, bytes] | None = None,
    *,
    link: bool = True,
) -> list[Related]:
    """Compare a memory just stored with the active memories of its scope: a
    `relates_to` edge from it to each older one like it (unless `link` is False: a content update
    adds no edge), and the pairs nearly the same flagged for consolidation. Candidates come from
    the full-text index and, with a vector, from the nearest vectors of its model, never from a
    scan of the rows; a pair with both vectors of one model is compared by cosine (the model's
    thresholds), else lexically (0.60 / 0.85)."""
    words = similarity.words(content)
    candidates: dict[int, str] = {}
    if words:
        for row in recall_store.similar_memories(
            connection, recall_store.match(connection, sorted(words)), memory_id
        ):
            candidates[row.id] = row.content
    theirs: dict[int, bytes] = {}
    if vector is not None:
        from cortex_hooks.embeddings import index, vector_math
        from cortex_hooks.store import vectors as stored

        model, blob = vector
        limit = vector_math.thresholds(model).relates
        _, near = index.nearest(index.of(connection, None, model), blob, {"memory"}, limit, 50)
        ids = {item_id: 0.0 for _, item_id in near if item_id != memory_id}
        for found in recall_store.rows(connection, {"memory": ids}):
            candidates[int(str(found["id"]))] = str(found["content"])
        theirs = stored.of_items(connection, model, "memory", candidates)
    from cortex_hooks.embeddings.similar import between

    linked = []
    for other, text in sorted(candidates.items()):
        likeness = between(
            content, text, vector[0] if vector else None, vector[1] if vector else None, theirs.get(other)
        )
        if likeness.relates:
            value = min(likeness.value, 1.0)  # a cosine may pass 1 by a rounding error
            if link:
                store.link(connection, memory_id, other, "relates_to", strength=round(value, 2), now=now)
            linked.append(Related(other, value, likeness.consolidates))
    flags.flag(connection, memory_id, [(item.id, item.similarity) for item in linked if item.flagged], now)
    return linked


def vector_of(setting: str, fields: MemoryFields, notes: Notes) -> tuple[str, bytes] | None:
    """A new memory's vector when semantic recall is on (never a `code` memory's:
    docs/guide/embeddings.md); None when off or when embedding fails (then it stays queued for
    `cortex-hooks embed`)."""
    from cortex_hooks.embeddings.backend import on

    if fields.type == "code" or not on(setting):
        return None
    from cortex_hooks.embeddings.queue import document_vector

    row: dict[str, object] = {"content": fields.content, "summary": fields.stored_summary()}
    return document_vector(setting, "memory", row, notes)
