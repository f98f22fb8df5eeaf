"""How alike two items are, pure: the cosine of their vectors of one model
with that model's thresholds, else the lexical similarity with its own.

For auto-link in `remember`, and for the similar pairs of reflect and consolidation: pass both
items' texts, and their vectors of the model in force when there are (store.vectors.of_items).
"""

from __future__ import annotations

from cortex_hooks.embeddings.vector_math import Thresholds, similar, thresholds
from cortex_hooks.frozen import Record
from cortex_hooks.memory import similarity

LEXICAL = Thresholds(floor=0.0, relates=similarity.RELATES, consolidate=similarity.CONSOLIDATE)


class Likeness(Record):
    value: float
    limits: Thresholds
    semantic: bool  # a cosine (True) or the lexical similarity (False)

    @property
    def relates(self) -> bool:
        return self.value >= self.limits.relates

    @property
    def consolidates(self) -> bool:
        return self.value >= self.limits.consolidate


def between(
    first: str,
    second: str,
    model: str | None = None,
    first_vector: bytes | None = None,
    second_vector: bytes | None = None,
) -> Likeness:
    """Cosine when both vectors of `model` are given (never two models: the caller reads both of
    one model id), else the lexical similarity of the texts."""
    value = similar(first_vector, second_vector) if model is not None else None
    if value is not None and model is not None:
        return Likeness(value, thresholds(model), True)
    return Likeness(similarity.similarity(first, second), LEXICAL, False)
