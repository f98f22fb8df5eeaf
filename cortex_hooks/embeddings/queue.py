"""Filling vectors: the items without one are the queue; the writes and `embed` fill it.

A write embeds what it wrote once committed, in a transaction of its own; when that fails (an
outage, a timeout, a refused model file) the item simply stays in the queue, the command
succeeds with a note on stderr, and `cortex-hooks embed` fills it later (NFR-010).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable

from cortex_hooks.embeddings.backend import embedder, on
from cortex_hooks.embeddings.model import Embedder, VoyageError
from cortex_hooks.embeddings.text import text_of
from cortex_hooks.errors import CortexError
from cortex_hooks.store import vectors
from cortex_hooks.store.recall import NUMBERS
from cortex_hooks.store.transaction import Transaction

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cortex_hooks.notes import Notes

BATCH = 128  # texts embedded and written per transaction


def fill(
    connection: sqlite3.Connection,
    model: Embedder,
    *,
    everything: bool = False,
    items: dict[str, Iterable[int]] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> int:
    """Embed the active items without a vector of this model (or, with `everything`, all of
    them again; or only `items`, by kind): how many were embedded."""
    pending = [
        (kind, row)
        for kind in NUMBERS
        if items is None or kind in items
        for row in vectors.sources(
            connection,
            kind,
            missing_for=None if everything else model.model_id,
            ids=None if items is None else items[kind],
        )
    ]
    done = 0
    for start in range(0, len(pending), BATCH):
        batch = pending[start : start + BATCH]
        blobs = model.embed([text_of(kind, row) for kind, row in batch])
        with Transaction(connection):
            for kind in {kind for kind, _ in batch}:
                vectors.put(
                    connection,
                    model.model_id,
                    kind,
                    {row["id"]: blob for (k, row), blob in zip(batch, blobs, strict=True) if k == kind},
                )
        done += len(batch)
        if progress is not None:
            progress(done, len(pending))
    if everything and items is None:
        with Transaction(connection):
            vectors.drop_other_models(connection, model.model_id)
    return done


def document_vector(
    setting: str, kind: str, row: dict[str, object], notes: Notes
) -> tuple[str, bytes] | None:
    """(model id, vector) of an item about to be written; None when off or when embedding fails
    (said in `notes`: the item stays queued)."""
    try:
        model = embedder(setting)
        if model is None:
            return None
        return model.model_id, model.embed([text_of(kind, row)])[0]
    except (VoyageError, CortexError) as error:
        notes.add(_queued(error))
        return None


def _queued(error: Exception) -> str:
    reason = error.message if isinstance(error, CortexError) else str(error)
    return f"not embedded yet ({reason}); `cortex-hooks embed` fills it later"


def embed_written(
    setting: str, connection: sqlite3.Connection, kind: str, ids: list[int], notes: Notes
) -> None:
    """Embed items just written, when semantic recall is on: a failure leaves them queued for
    `cortex-hooks embed` (said in `notes`), the command succeeds (docs/guide/embeddings.md)."""
    if not on(setting):
        return
    try:
        model = embedder(setting)
        if model is not None:
            fill(connection, model, items={kind: ids})
    except (VoyageError, CortexError) as error:
        notes.add(_queued(error))
