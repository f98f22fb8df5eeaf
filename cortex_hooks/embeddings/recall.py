"""Hybrid recall's candidates (SPEC §12): FTS5 hits and the nearest items by cosine above the
model's floor, each with its cosine and the scope's keyword weight; and the query's vector, or
None for keyword recall.

`query_vector` and `candidates` are what the CLI calls cold and the MCP server warm (the model
and each database's vectors stay loaded in the process: see backend and index).
"""

from __future__ import annotations

import sqlite3
import sys

from cortex_hooks.embeddings import index
from cortex_hooks.embeddings.backend import embedder
from cortex_hooks.embeddings.model import VoyageError
from cortex_hooks.embeddings.vectors import thresholds
from cortex_hooks.errors import CortexError
from cortex_hooks.store import recall as recall_store

NEAREST = 50  # candidates by cosine, per database
# The best cosine minus the fifth best below which the keywords count in full (memory.recall):
# chosen on the labelled sets of benchmarks/quality (MiniLM; a plateau from about 0.05 to 0.10).
SPREAD = 0.07


def query_vector(setting: str, query: str) -> tuple[str, bytes] | None:
    """(model id, vector) of a query; None when semantic recall is off or the query cannot be
    embedded (an outage, a timeout, a refused model file: said on stderr), so recall is keyword
    recall."""
    try:
        model = embedder(setting)
        if model is None:
            return None
        return model.model_id, model.embed([query], query=True)[0]
    except (VoyageError, CortexError) as error:
        reason = error.message if isinstance(error, CortexError) else str(error)
        print(f"cortex-hooks: keyword recall only ({reason})", file=sys.stderr)
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
    lookup, best, spread = index.search(vectors, query, kinds, thresholds(model).floor, 2 * NEAREST)
    weight = keyword_weight(spread)
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
        row["keyword_weight"] = weight
    return found


def keyword_weight(spread: float) -> float:
    """How much the keywords count beside the cosine in one scope (memory.recall): 1 while the
    five nearest items by meaning lie within SPREAD of each other (meaning cannot tell them
    apart), falling with the square of SPREAD / spread as the nearest stands out."""
    return min(1.0, (SPREAD / spread) ** 2) if spread > SPREAD else 1.0
