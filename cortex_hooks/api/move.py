"""Moving a learning or a memory from one scope to the other, in one step (docs/guide/scopes.md).

The copy is committed in the target before the original is removed from the source, so a crash
between the two leaves the item in both scopes, never in neither. Edges stay behind: they link
memories of the source scope.
"""

from __future__ import annotations

from contextlib import closing
from typing import Any

from cortex_hooks.api.databases import Databases
from cortex_hooks.errors import USAGE, CortexError, unknown
from cortex_hooks.frozen import Record
from cortex_hooks.store import learnings, memories
from cortex_hooks.store.connection import Missing, Transaction, open_database


class Moved(Record):
    kind: str  # learning or memory
    source: str
    target: str
    old_id: int
    new_id: int
    edges_left: int  # a memory's edges, which stay in the source scope


def move(databases: Databases, item_id: int, to: str, *, memory: bool = False) -> Moved:
    paths = {"project": databases.project, "global": databases.user}
    source, target = ("project", "global") if to == "global" else ("global", "project")
    if paths[source] == paths[target]:
        raise CortexError("the project and the global database are the same file: nothing to move", USAGE)
    kind = "memory" if memory else "learning"
    store: Any = memories if memory else learnings
    try:
        origin = open_database(paths[source])
    except Missing:
        raise unknown(kind, item_id) from None
    with closing(origin):
        row = store.get(origin, item_id)
        if row is None:
            raise unknown(kind, item_id)
        values = {column: value for column, value in row._asdict().items() if column in store.COLUMNS}
        with closing(open_database(paths[target], create=True)) as destination, Transaction(destination):
            new_id = store.insert(destination, values)
        with Transaction(origin):
            dropped = len(memories.edges_of(origin, item_id)) if memory else 0
            store.delete(origin, item_id)
    return Moved(kind, source, target, item_id, new_id, dropped)
