"""A database's vectors of one model in memory, and the cosines of a query against them.

Read once per process and reused while the stored vectors are unchanged (store.vectors.stamp):
the MCP server answers warm. With numpy (the extra) the vectors are one float32 matrix; without
it (Voyage without the extra) they are compared in plain Python, fine up to about 10,000 items.
"""

from __future__ import annotations

import heapq
import sqlite3
from collections.abc import Callable
from importlib.util import find_spec

from cortex_hooks.embeddings import vector_math as vectors_module
from cortex_hooks.embeddings.vector_math import cosine, unpack
from cortex_hooks.frozen import Record
from cortex_hooks.store import vectors
from cortex_hooks.store.recall import KINDS, NUMBERS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class Index:
    """The vectors of one model in one database: (kind number, item id) → position."""

    def __init__(self, rows: list[tuple[int, int, bytes]], stamp: tuple[int, int]) -> None:
        self.stamp = stamp
        self.keys = [(kind, item_id) for kind, item_id, _ in rows]
        self.positions = {key: position for position, key in enumerate(self.keys)}
        self.matrix: Any
        self._kinds: Any = None
        sizes = {len(blob) for _, _, blob in rows}
        if len(sizes) > 1:  # a model's vectors have one length; anything else is not compared
            rows = []
            self.keys, self.positions = [], {}
        if rows and find_spec("numpy") is not None:
            numpy = vectors_module.numpy()
            self.matrix = numpy.frombuffer(b"".join(blob for _, _, blob in rows), dtype="<f4").reshape(
                len(rows), -1
            )
        else:
            self.matrix = [unpack(blob) for _, _, blob in rows]

    def kinds(self) -> Any:
        """The kind number of every vector, by position (a numpy array, made once)."""
        if self._kinds is None:
            numpy = vectors_module.numpy()
            self._kinds = numpy.array([kind for kind, _ in self.keys], dtype=numpy.int8)
        return self._kinds

    def cosines(self, query: bytes) -> Any:
        """The cosine of the query with every vector, by position (a numpy array with the
        extra, else a list); empty when the query's length is not the model's."""
        if not self.keys:
            return []
        if isinstance(self.matrix, list):
            vector = unpack(query)
            return [cosine(vector, row) for row in self.matrix] if len(vector) == len(self.matrix[0]) else []
        numpy = vectors_module.numpy()
        if len(query) != self.matrix.shape[1] * 4:
            return []
        return self.matrix @ numpy.frombuffer(query, dtype="<f4")


_cached: dict[tuple[str, str], Index] = {}
# The connection itself (held, so that its id is never another's), its data_version and its own
# changes when the index was last checked.
_unchanged: dict[tuple[str, str], tuple[sqlite3.Connection, int, int]] = {}


def of(connection: sqlite3.Connection, path: str | None, model: str) -> Index:
    """The index of a database's vectors of a model: cached by path while its stamp holds (not
    cached without a path: inside a write transaction that has not committed yet). A warm
    process on one connection skips even the stamp while nothing at all was committed since."""
    if path is not None:
        quick = (connection, _data_version(connection), connection.total_changes)
        if _unchanged.get((path, model)) == quick and (path, model) in _cached:
            return _cached[(path, model)]
    stamp = vectors.stamp(connection, model)
    if path is None:
        return Index(vectors.every(connection, model), stamp)
    index = _cached.get((path, model))
    if index is None or index.stamp != stamp:
        index = Index(vectors.every(connection, model), stamp)
        _cached[(path, model)] = index
    _unchanged[(path, model)] = quick
    return index


def _data_version(connection: sqlite3.Connection) -> int:
    """Changes when another connection commits to the database (SQLite's PRAGMA data_version)."""
    version: int = connection.execute("PRAGMA data_version").fetchone()[0]
    return version


def nearest(
    index: Index, query: bytes, kinds: set[str], floor: float, limit: int
) -> tuple[Callable[[str, int], float | None], list[tuple[str, int]]]:
    """A lookup of any item's cosine with the query (None without a vector), and the best
    `limit` items of these kinds at or above the floor, best first."""
    found = search(index, query, kinds, floor, limit)
    return found.lookup, found.best


class Found(Record):
    """What a query's vector finds in one database's vectors."""

    lookup: Callable[[str, int], float | None]  # any item's cosine with the query (None: no vector)
    best: list[tuple[str, int]]  # the nearest items of the kinds asked for, at or above the floor
    spread: float  # the best cosine of those kinds minus the fifth best (0.0 with fewer items)
    mean: float  # the mean cosine of every vector: how alike the database is as a whole to the query


def search(
    index: Index, query: bytes, kinds: set[str], floor: float, limit: int, *, spread_of: int = 5
) -> Found:
    """`nearest`, the spread of the best cosines of these kinds and the mean cosine of every
    vector. Compared without a Python loop per row (numpy)."""
    values = index.cosines(query)
    wanted = {NUMBERS[kind] for kind in kinds}
    if isinstance(values, list):
        mean = sum(values) / len(values) if values else 0.0
        chosen = [
            (value, position) for position, value in enumerate(values) if index.keys[position][0] in wanted
        ]
        best = heapq.nlargest(limit, ((value, position) for value, position in chosen if value >= floor))
        top = heapq.nlargest(spread_of, (value for value, _ in chosen))
    else:
        numpy = vectors_module.numpy()
        mean = float(values.mean()) if len(values) else 0.0
        if len(wanted) < len(KINDS):  # only the kinds asked for compete
            values = numpy.where(numpy.isin(index.kinds(), list(wanted)), values, -2.0)
        count = min(max(limit, spread_of), len(values))
        positions = numpy.argpartition(-values, count - 1)[:count] if count else numpy.array([], dtype=int)
        ordered = positions[numpy.argsort(-values[positions], kind="stable")]
        top = [float(value) for value in values[ordered[:spread_of]] if value > -2.0]
        best = [(float(values[p]), int(p)) for p in ordered[:limit] if values[p] >= floor]

    def lookup(kind: str, item_id: int) -> float | None:
        position = index.positions.get((NUMBERS[kind], item_id))
        return None if position is None or len(values) == 0 else float(values[position])

    spread = top[0] - top[-1] if len(top) == spread_of else 0.0
    nearest = [(KINDS[index.keys[position][0]], index.keys[position][1]) for _, position in best]
    return Found(lookup, nearest, spread, mean)
