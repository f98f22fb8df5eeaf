"""Vectors as stored and compared, pure: float32 packing, cosine, and each model's thresholds.

Every stored vector is L2-normalised, so cosine is a dot product. Thresholds differ by model
(cosine scales do: MiniLM puts unrelated notes near 0.1, Voyage's models higher), so each model
id carries its own recall floor, auto-link and consolidation thresholds.
"""

from __future__ import annotations

import math
import os
from array import array

from cortex_hooks.frozen import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class Thresholds(Record):
    floor: float  # below this cosine an item is no candidate of recall ("nothing found" stays possible)
    relates: float  # auto-link: a `relates_to` edge at or above (docs/guide/aging.md)
    consolidate: float  # flagged for consolidation, and `reflect similar`'s default
    # Recall's keyword weight follows how alike a database is as a whole to a query (the mean
    # cosine of all its vectors, embeddings.hybrid.keyword_weight): least at or below `distinct`
    # (notes on many subjects: the meaning picks the one asked about), most at or above `alike`
    # (a conversation's turns, all about the same two people: the words must decide).
    distinct: float = 0.0
    alike: float = 0.0


MINILM = "all-MiniLM-L6-v2-int8"
VOYAGE = "voyage-3.5-lite"
THRESHOLDS = {
    # distinct/alike measured on benchmarks/quality's sets (docs/internals/recall-quality.md)
    MINILM: Thresholds(floor=0.25, relates=0.60, consolidate=0.85, distinct=0.12, alike=0.24),
    # Not measured (no labelled run with Voyage): MiniLM's, moved with the floor.
    VOYAGE: Thresholds(floor=0.35, relates=0.70, consolidate=0.90, distinct=0.22, alike=0.34),
}
DEFAULT_THRESHOLDS = Thresholds(floor=0.30, relates=0.65, consolidate=0.88, distinct=0.17, alike=0.29)


def thresholds(model: str) -> Thresholds:
    """The thresholds of a model id (a model we have not measured gets middling ones)."""
    return THRESHOLDS.get(model, DEFAULT_THRESHOLDS)


def normalized(values: list[float]) -> list[float]:
    norm = math.sqrt(sum(value * value for value in values))
    return [value / norm for value in values] if norm > 0 else list(values)


def pack(values: list[float]) -> bytes:
    """A vector as its float32 BLOB (little-endian, as numpy and array write it on every platform
    cortex-hooks runs on)."""
    return array("f", values).tobytes()


def unpack(blob: bytes) -> list[float]:
    values = array("f")
    values.frombytes(blob)
    return values.tolist()


def cosine(first: list[float], second: list[float]) -> float:
    """The cosine of two normalised vectors of one model (0.0 when their lengths differ)."""
    if len(first) != len(second):
        return 0.0
    return math.fsum(a * b for a, b in zip(first, second, strict=True))


def similar(first: bytes | None, second: bytes | None) -> float | None:
    """The cosine of two stored vectors of one model, or None when either is missing: the caller
    then falls back to the lexical similarity (docs/guide/embeddings.md)."""
    if first is None or second is None or len(first) != len(second):
        return None
    return cosine(unpack(first), unpack(second))


def numpy() -> Any:
    """numpy, with OpenBLAS on one thread unless the environment says otherwise: a recall's
    products of a matrix and one vector gain nothing from more, and starting OpenBLAS's threads
    was about a fifth of numpy's import in a cold process."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    import numpy as module

    return module
