"""Hybrid recall's candidates (SPEC §12): FTS5 hits and the nearest items by cosine above the
model's floor, each with its cosine; and the query's vector, or None for keyword recall.

`query_vector` and `candidates` are what recall (api.recall) calls, cold from the CLI and warm in
the MCP server (the model and each database's vectors stay loaded in the process: see backend
and index).
"""

from __future__ import annotations

import sqlite3

from cortex_hooks.embeddings import index
from cortex_hooks.embeddings.backend import embedder
from cortex_hooks.embeddings.model import VoyageError
from cortex_hooks.embeddings.vectors import thresholds
from cortex_hooks.errors import CortexError
from cortex_hooks.store import recall as recall_store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cortex_hooks.notes import Notes

NEAREST = 50  # candidates by cosine, per database


def query_vector(setting: str, query: str, notes: Notes) -> tuple[str, bytes] | None:
    """(model id, vector) of a query; None when semantic recall is off or the query cannot be
    embedded (an outage, a timeout, a refused model file: said in `notes`), so recall is keyword
    recall. Callers test `backend.on` first: off, this module is never imported."""
    try:
        model = embedder(setting)
        if model is None:
            return None
        return model.model_id, model.embed([query], query=True)[0]
    except (VoyageError, CortexError) as error:
        reason = error.message if isinstance(error, CortexError) else str(error)
        notes.add(f"keyword recall only ({reason})")
        return None


def candidates(
    connection: sqlite3.Connection,
    path: str,
    vector: tuple[str, bytes],
    kinds: set[str],
    hits: list[dict[str, object]],
) -> list[dict[str, object]]:
    """The FTS5 hits and the nearest active items (relevance 0 when not a hit), each with its
    `cosine` (0.0 for an item without a vector of this model: not embedded yet). A database
    with no vector of this model gives its hits as they are: keyword recall."""
    model, query = vector
    vectors = index.of(connection, path, model)
    if not vectors.keys:  # nothing embedded with this model yet (`embed` fills it): keyword recall
        return hits
    lookup, best = index.nearest(vectors, query, kinds, thresholds(model).floor, 2 * NEAREST)
    have = {(row["kind"], row["id"]) for row in hits}
    wanted: dict[str, dict[int, float]] = {}
    for kind, item_id in best:
        if (kind, item_id) not in have:
            wanted.setdefault(kind, {})[item_id] = 0.0
    extra = recall_store.rows(connection, wanted)  # the active ones: archived items have vectors too
    extra.sort(key=lambda row: -(lookup(str(row["kind"]), int(str(row["id"]))) or 0.0))
    found = hits + extra[:NEAREST]
    for row in found:
        row["cosine"] = lookup(str(row["kind"]), int(str(row["id"]))) or 0.0
    return found
