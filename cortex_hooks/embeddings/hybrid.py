"""Hybrid recall's candidates (docs/guide/embeddings.md): FTS5 hits and the nearest items by cosine above the
model's floor, each with its cosine and the scope's keyword weight; and the query's vector, or
None for keyword recall.

`pending` (or `query_vector`) and `candidates` are what recall (api.recall) calls, cold from the
CLI and warm in the MCP server (the model and each database's vectors stay loaded in the process:
see backend and index). Callers test `backend.on` first: off, this module is never imported.
"""

from __future__ import annotations

import sqlite3
import threading

from cortex_hooks.embeddings import index
from cortex_hooks.embeddings.backend import embedder, model_id
from cortex_hooks.embeddings.model import VoyageError
from cortex_hooks.embeddings.vector_math import MINILM, Thresholds, thresholds
from cortex_hooks.errors import CortexError
from cortex_hooks.store import recall as recall_store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cortex_hooks.notes import Notes

NEAREST = 50  # candidates by cosine, per database
# The keyword weight (memory.query) between the model's `distinct` and `alike` mean cosines:
# chosen on the labelled sets of benchmarks/quality (docs/internals/recall-quality.md).
LEAST, MOST = 0.4, 1.2


def query_vector(setting: str, query: str, notes: Notes) -> tuple[str, bytes] | None:
    """(model id, vector) of a query; None when semantic recall is off or the query cannot be
    embedded (an outage, a timeout, a refused model file: said in `notes`), so recall is keyword
    recall."""
    try:
        model = embedder(setting)
        if model is None:
            return None
        return model.model_id, model.embed([query], query=True)[0]
    except (VoyageError, CortexError) as error:
        reason = error.message if isinstance(error, CortexError) else str(error)
        notes.add(f"keyword recall only ({reason})")
        return None


class Pending:
    """A query's vector computed in a thread of its own: in a cold process the model's session
    and the query's embedding (onnxruntime and the HTTP call release the GIL) overlap the FTS5
    query and the reading of the stored vectors. Importing the model's stack holds the GIL, so
    the caller waits for `imported` before it reads the vectors; `result` waits for the vector."""

    def __init__(self, setting: str, query: str, model: str, notes: Notes) -> None:
        self.model = model  # the model id, known without loading the model
        self.imported = threading.Event()
        self._vector: tuple[str, bytes] | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(setting, query, notes), daemon=True)
        self._thread.start()

    def _run(self, setting: str, query: str, notes: Notes) -> None:
        try:
            if self.model == MINILM:
                from cortex_hooks.embeddings.local import import_stack

                import_stack()
            self.imported.set()
            self._vector = query_vector(setting, query, notes)
        except BaseException as error:  # re-raised by result(), in the caller's thread
            self._error = error
        finally:
            self.imported.set()

    def result(self) -> tuple[str, bytes] | None:
        """(model id, vector), or None when the query could not be embedded (said in the notes)."""
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._vector


def pending(setting: str, query: str, notes: Notes) -> Pending | None:
    """The query's vector, started now; None when semantic recall is off."""
    model = model_id(setting)
    return None if model is None else Pending(setting, query, model, notes)


def candidates(
    connection: sqlite3.Connection,
    path: str,
    vector: tuple[str, bytes] | Pending,
    kinds: set[str],
    hits: list[dict[str, object]],
) -> list[dict[str, object]]:
    """The FTS5 hits and the nearest active items (relevance 0 when not a hit), each with its
    `cosine` (0.0 for an item without a vector of this model: not embedded yet) and the scope's
    keyword weight. A database with no vector of this model, or a query that could not be
    embedded, gives its hits as they are: keyword recall."""
    if isinstance(vector, Pending):
        vector.imported.wait()
    vectors = index.of(connection, path, vector.model if isinstance(vector, Pending) else vector[0])
    # Waited for even when unused: a query that could not be embedded is said in the notes.
    resolved = vector.result() if isinstance(vector, Pending) else vector
    if not vectors.keys or resolved is None:  # nothing embedded with this model yet: keyword recall
        return hits
    model, query = resolved
    near = index.search(vectors, query, kinds, thresholds(model).floor, 2 * NEAREST)
    weight = keyword_weight(near.mean, thresholds(model))
    have = {(row["kind"], row["id"]) for row in hits}
    wanted: dict[str, dict[int, float]] = {}
    for kind, item_id in near.best:
        if (kind, item_id) not in have:
            wanted.setdefault(kind, {})[item_id] = 0.0
    extra = recall_store.rows(connection, wanted)  # the active ones: archived items have vectors too
    extra.sort(key=lambda row: -(near.lookup(str(row["kind"]), int(str(row["id"]))) or 0.0))
    found = hits + extra[:NEAREST]
    for row in found:
        row["cosine"] = near.lookup(str(row["kind"]), int(str(row["id"]))) or 0.0
        row["keyword_weight"] = weight
        row["spread"], row["mean_cosine"] = near.spread, near.mean  # for benchmarks/quality's other rankings
    return found


def keyword_weight(mean: float, model: Thresholds) -> float:
    """How much the keywords count beside the cosine in one scope (memory.query), from the mean
    cosine of the query with all the scope's vectors: LEAST while the database is no more alike
    to the query than the model's `distinct` (the meaning tells its notes apart), rising linearly
    to MOST at `alike` (the meaning cannot: the words must decide)."""
    if model.alike <= model.distinct:
        return MOST
    share = min(1.0, max(0.0, (mean - model.distinct) / (model.alike - model.distinct)))
    return LEAST + (MOST - LEAST) * share
