"""A database of given learnings alone, in a temporary folder, as if they were the whole guard:
what a replay of one learning, a pack or a proposal judges with (each of its processes opens it),
and what a pack's or a team file's own examples are proved on (the hook's own query reads it)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager

from cortex_hooks import location
from cortex_hooks.store import learnings
from cortex_hooks.store.connection import open_database
from cortex_hooks.store.transaction import Transaction


@contextmanager
def database(rows: Sequence[Mapping[str, object]]) -> Iterator[tuple[str, list[int]]]:
    """A database holding these learnings (every column of store.learnings.COLUMNS given), and
    their ids in the order given; removed with its folder on leaving."""
    folder = tempfile.mkdtemp(prefix="cortex-rules-")
    try:
        path = os.path.join(folder, location.DIRECTORY, location.FILENAME)
        connection = open_database(path, create=True)
        try:
            with Transaction(connection):
                ids = [learnings.insert(connection, row) for row in rows]
        finally:
            connection.close()
        yield path, ids
    finally:
        shutil.rmtree(folder, ignore_errors=True)
