"""Filling the vectors semantic recall uses (docs/guide/embeddings.md): the items without one, or every item
again after a model change."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import closing

from cortex_hooks.api import databases as db
from cortex_hooks.api.databases import Databases
from cortex_hooks.errors import CortexError
from cortex_hooks.frozen import Record
from cortex_hooks.notes import Notes


class Embedded(Record):
    model: str
    embedded: int  # items embedded now
    vectors: int  # vectors of this model stored in all


def fill(
    databases: Databases,
    notes: Notes,
    *,
    everything: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> Embedded:
    """Embed the items of the database acted on that have no vector of the model in force
    (`everything`: all of them); with semantic recall off, a usage error saying why."""
    from cortex_hooks.embeddings.backend import required
    from cortex_hooks.embeddings.model import VoyageError
    from cortex_hooks.embeddings.queue import fill as embed
    from cortex_hooks.store import vectors

    model = required(db.embeddings(databases, notes))
    if hasattr(model, "timeout"):  # a remote backend: `embed` is there to wait for it
        from cortex_hooks.embeddings.voyage import PATIENT

        model.timeout = PATIENT
    connection = db.for_reading(databases)
    if connection is None:
        return Embedded(model.model_id, 0, 0)
    with closing(connection):
        try:
            done = embed(connection, model, everything=everything, progress=progress)
        except VoyageError as error:
            raise CortexError(f"{error}; what was embedded so far is kept, run embed again") from None
        return Embedded(model.model_id, done, vectors.counts(connection).get(model.model_id, 0))
