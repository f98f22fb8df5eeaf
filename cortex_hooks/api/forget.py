"""Forgetting a memory (docs/guide/memories.md): archived, never deleted; by id, or the single best match of
some words (several matching about equally: none, unless asked for the best)."""

from __future__ import annotations

from contextlib import closing
from typing import TYPE_CHECKING

from cortex_hooks import clock
from cortex_hooks.api import databases as db
from cortex_hooks.api.databases import Databases
from cortex_hooks.api.memories import _current, load
from cortex_hooks.api.wording import clean
from cortex_hooks.errors import USAGE, CortexError, unknown
from cortex_hooks.frozen import Record
from cortex_hooks.memory.query import query_words
from cortex_hooks.store import memories as store
from cortex_hooks.store import recall as recall_store
from cortex_hooks.store.connection import Transaction

if TYPE_CHECKING:
    from cortex_hooks.memory.records import Memory

CLOSE = 0.9  # a match within 90% of the best one's relevance matches "about equally"


class Candidate(Record):
    id: int
    summary: str


class Forgotten(Record):
    """What forget did: archived one memory (its id, summary and the command that undoes it), or
    found several matching about equally and archived none."""

    archived: int | None
    summary: str
    undo: str
    candidates: list[Candidate]
    memory: Memory | None  # with record=True


def by_id(databases: Databases, memory_id: int, *, record: bool = False) -> Forgotten:
    now = clock.iso(clock.now())
    with closing(db.for_changing(databases, unknown("memory", memory_id))) as connection:
        with Transaction(connection):
            current = _current(connection, memory_id)
            store.update(
                connection,
                memory_id,
                {"status": "archived", "archived_at": current.archived_at or now, "updated_at": now},
            )
        memory = load(connection, databases, memory_id) if record else None
    undo = db.scoped(databases, f"cortex-hooks memories restore {memory_id}")
    return Forgotten(memory_id, current.summary, undo, [], memory)


def by_match(databases: Databases, words: str, *, best: bool = False, record: bool = False) -> Forgotten:
    """The single best match of a keyword recall archived; several about equally good: none
    (`best`: the best of them)."""
    query = query_words(words)
    if not query:
        raise CortexError("nothing to match: the query has no words", USAGE)
    connection = db.for_reading(databases)
    if connection is None:
        raise CortexError(f"no memory matches {words!r}", USAGE)
    with closing(connection):
        found = recall_store.found(connection, recall_store.query(connection, query), {"memory"})
    if not found:
        raise CortexError(f"no memory matches {words!r}", USAGE)
    top = float(str(found[0]["relevance"]))
    close = [row for row in found if float(str(row["relevance"])) >= top * CLOSE]
    if len(close) > 1 and not best:
        candidates = [Candidate(int(str(row["id"])), str(row["summary"])) for row in close]
        return Forgotten(None, "", "", candidates, None)
    return by_id(databases, int(str(found[0]["id"])), record=record)


# What people read of it, from the CLI and the MCP server alike.


def forgotten(result: Forgotten) -> str:
    if result.archived is None:
        listing = [f"#{item.id} {clean(item.summary, one_line=True)[:80]}" for item in result.candidates[:10]]
        return (
            f"{len(result.candidates)} memories match about equally; nothing archived. "
            "Forget one by id (cortex-hooks forget ID), or the best with --yes:\n  " + "\n  ".join(listing)
        )
    return (
        f"Forgot memory #{result.archived} (archived, never deleted): "
        f"{clean(result.summary, one_line=True)[:100]}\nUndo: {result.undo}"
    )
