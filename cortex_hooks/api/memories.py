"""Memories (docs/guide/memories.md): remember, list, show, update, pin, unpin, archive, restore, link.

What a person gives is checked without pydantic (memory.given): a memory's pydantic record is
built only when a caller asks for it (`record=True`, for `--json`), so `remember` never pays
pydantic's import.
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from typing import Any

from cortex_hooks import clock
from cortex_hooks.api import databases as db
from cortex_hooks.api.auto_link import Related, auto_link, vector_of
from cortex_hooks.api.databases import Databases
from cortex_hooks.api.wording import clean, fit, times
from cortex_hooks.errors import USAGE, CortexError, unknown
from cortex_hooks.memory import given
from cortex_hooks.memory.given import MemoryFields
from cortex_hooks.notes import Notes
from cortex_hooks.store import memories as store
from cortex_hooks.store.connection import Transaction
from cortex_hooks.stored import memory_rows

TYPE_CHECKING = False
if TYPE_CHECKING:  # pydantic records, built only when asked for
    from typing import TypedDict

    from cortex_hooks.memory.edges import Edge
    from cortex_hooks.memory.records import Memory


CHANGES = ("pin", "unpin", "archive", "restore")


if TYPE_CHECKING:  # a type for the checker alone: its class would cost `remember`'s start

    class Given(TypedDict, total=False):
        """A memory's fields as given (memory.given checks them; a missing one takes its default)."""

        content: str
        type: str
        summary: str
        priority: int
        tags: list[str]
        pinned: bool


class Remembered:
    """A memory just stored: its id, type and scope, those it relates to, its record if asked for."""

    __slots__ = ("id", "memory", "related", "scope", "type")

    def __init__(
        self, memory_id: int, kind: str, scope: str, related: list[Related], memory: Memory | None
    ) -> None:
        self.id = memory_id
        self.type = kind
        self.scope = scope
        self.related = related
        self.memory = memory


def new_row(fields: MemoryFields, now: str, **stored: Any) -> dict[str, Any]:
    """Every column of a new memory row: the fields given, then the defaults and the times."""
    values: dict[str, Any] = {
        "type": fields.type,
        "content": fields.content,
        "summary": fields.stored_summary(),
        "priority": fields.priority,
        "confidence": given.DEFAULT_CONFIDENCE,
        "pinned": int(fields.pinned),
        "tags": json.dumps(fields.tags, ensure_ascii=False),
        "source": "explicit",
        "source_session": None,
        "path": None,
        "status": "active",
        "access_count": 0,
        "last_accessed": None,
        "created_at": now,
        "updated_at": now,
        "confirmed_at": now,
        "archived_at": None,
    }
    values.update((name, value) for name, value in stored.items() if value is not None)
    return values


def remember(databases: Databases, memory: Given, notes: Notes, *, record: bool = False) -> Remembered:
    """Store a memory (docs/guide/memories.md): linked to the older ones like it, flagged with those nearly
    the same; remembering one text twice stores two memories."""
    fields = given.checked(dict(memory), "invalid memory")
    now = clock.iso(clock.now())
    vector = vector_of(db.embeddings(databases, notes), fields, notes)
    with closing(db.for_writing(databases, notes)) as connection:
        with Transaction(connection):
            memory_id = store.insert(connection, new_row(fields, now))
            if vector is not None:
                from cortex_hooks.store import vectors

                vectors.put(connection, vector[0], "memory", {memory_id: vector[1]})
            related = auto_link(connection, memory_id, fields.content, now, vector)
        shown = load(connection, databases, memory_id) if record else None
    return Remembered(memory_id, fields.type, databases.scope, related, shown)


def listing(databases: Databases, shown: str, memory_type: str | None = None) -> list[Memory]:
    """The memories shown (active, archived or all), of one type or every type; not an access."""
    from cortex_hooks.memory.records import Memory

    connection = db.for_reading(databases)
    if connection is None:
        return []
    with closing(connection):
        top = store.max_in_degree(connection)
        return [
            Memory.from_row(row, databases.scope, top) for row in store.select(connection, shown, memory_type)
        ]


def show(databases: Databases, memory_id: int) -> tuple[Memory, list[Edge]]:
    """One memory and the edges touching it; showing it counts as an access (a confirmation)."""
    from cortex_hooks.memory.edges import Edge

    connection = db.for_reading(databases)
    if connection is None:
        raise unknown("memory", memory_id)
    with closing(connection):
        with Transaction(connection):
            if store.get(connection, memory_id) is None:
                raise unknown("memory", memory_id)
            store.record_access(connection, [memory_id], clock.iso(clock.now()))
        memory = load(connection, databases, memory_id)
        edges = [
            Edge(type=row.type, from_=row.from_id, to=row.to_id, strength=row.strength)
            for row in store.edges_of(connection, memory_id)
        ]
    return memory, edges


def update(
    databases: Databases, memory_id: int, changes: Given, notes: Notes, *, record: bool = False
) -> Memory | None:
    """The memory with the fields given changed (a new content derives its summary again, unless
    one is given); the record with `record=True`."""
    if not changes:
        raise CortexError("nothing to update: give at least one option (see memories update --help)", USAGE)
    now = clock.iso(clock.now())
    with closing(db.for_changing(databases, unknown("memory", memory_id))) as connection:
        with Transaction(connection):
            current = _current(connection, memory_id)
            merged: dict[str, Any] = {
                "content": current.content,
                "type": current.type,
                "priority": current.priority,
                "tags": json.loads(current.tags or "[]"),
                "pinned": bool(current.pinned),
                **changes,
            }
            if "summary" not in changes and "content" not in changes:
                merged["summary"] = current.summary  # else derived again from the new content
            fields = given.checked(merged, "invalid memory")
            values: dict[str, Any] = {
                "content": fields.content,
                "summary": fields.stored_summary(),
                "type": fields.type,
                "priority": fields.priority,
                "tags": json.dumps(fields.tags, ensure_ascii=False),
                "updated_at": now,
            }
            if {"content", "type", "priority"} & set(changes):
                values["confirmed_at"] = now  # a confirmation (docs/guide/aging.md)
            store.update(connection, memory_id, values)
            if fields.content != current.content and current.status == "active":
                auto_link(connection, memory_id, fields.content, now, link=False)  # flags only
        db.embed_written(databases, connection, "memory", [memory_id], notes)
        return load(connection, databases, memory_id) if record else None


_CHANGES: dict[str, dict[str, Any]] = {
    "pin": {"pinned": 1},
    "unpin": {"pinned": 0},
    "restore": {"status": "active", "archived_at": None},
}


def change(databases: Databases, memory_id: int, what: str, *, record: bool = False) -> Memory | None:
    """Pin, unpin, archive (never deletes) or restore one memory; the record with `record=True`."""
    now = clock.iso(clock.now())
    with closing(db.for_changing(databases, unknown("memory", memory_id))) as connection:
        with Transaction(connection):
            current = _current(connection, memory_id)
            if what == "archive":
                values: dict[str, Any] = {"status": "archived", "archived_at": current.archived_at or now}
            else:
                values = dict(_CHANGES[what])
            store.update(connection, memory_id, {**values, "updated_at": now})
        return load(connection, databases, memory_id) if record else None


class Link:
    """An edge between two memories."""

    __slots__ = ("from_", "strength", "to", "type")

    def __init__(self, kind: str, from_id: int, to_id: int, strength: float) -> None:
        self.type = kind
        self.from_ = from_id
        self.to = to_id
        self.strength = strength


def link(databases: Databases, from_id: int, to_id: int, edge_type: str, strength: float = 1.0) -> Link:
    """An edge between two memories of one scope (docs/guide/aging.md)."""
    if not 0 <= strength <= 1:
        raise CortexError(f"--strength must lie in [0, 1], got {strength}", USAGE)
    if from_id == to_id:
        raise CortexError("a memory cannot be linked to itself", USAGE)
    now = clock.iso(clock.now())
    with (
        closing(db.for_changing(databases, unknown("memory", from_id))) as connection,
        Transaction(connection),
    ):
        for memory_id in (from_id, to_id):
            if store.get(connection, memory_id) is None:
                raise unknown("memory", memory_id)
        store.link(connection, from_id, to_id, edge_type, strength=strength, now=now)
    return Link(edge_type, from_id, to_id, strength)


def _current(connection: sqlite3.Connection, memory_id: int) -> memory_rows.Memory:
    row = store.get(connection, memory_id)
    if row is None:
        raise unknown("memory", memory_id)
    return row


def load(connection: sqlite3.Connection, databases: Databases, memory_id: int) -> Memory:
    """One stored memory as its record (pydantic: imported here, when asked for)."""
    from cortex_hooks.memory.records import Memory

    row = _current(connection, memory_id)
    return Memory.from_row(row, databases.scope, store.max_in_degree(connection))


# What people read of it, from the CLI and the MCP server alike. The texts of memories: the table
# `memories list` prints, one memory in full, and what remember, update, a change, forget,
# index-code and link did.

VERBS = {"pin": "Pinned", "unpin": "Unpinned", "archive": "Archived", "restore": "Restored"}


def table(memories: list[Memory], width: int | None = None) -> str:
    """One line per memory: id, type, priority, confidence, flags, summary; each line cut to
    `width` characters (None: whole, for a pipe or a file)."""
    if not memories:
        return "No memories."
    lines = [f"{'ID':>4}  {'TYPE':<16} {'PRI':>3}  {'CONF':<4}  {'FLAGS':<16} SUMMARY"]
    for memory in memories:
        marks = ",".join(
            mark for mark, on in (("pinned", memory.pinned), (memory.status, memory.status != "active")) if on
        )
        lines.append(
            f"{memory.id:>4}  {memory.type:<16} {memory.priority:>3}  {memory.confidence:.2f}  "
            f"{marks or '-':<16} {clean(memory.summary, one_line=True)}"
        )
    return "\n".join(fit(line, width) for line in lines)


def detail(memory: Memory, edges: list[Edge]) -> str:
    tags = ", ".join(memory.tags)
    rows = [
        ("type", memory.type),
        ("summary", memory.summary),
        ("priority", str(memory.priority)),
        ("confidence", f"{memory.confidence:.2f}"),
        ("flags", ",".join(m for m, on in (("pinned", memory.pinned), (memory.status, True)) if on)),
        ("tags", tags),
        ("path", memory.path or ""),
        ("source", memory.source + (f" (session {memory.source_session})" if memory.source_session else "")),
        ("centrality", f"{memory.centrality:.2f}"),
        ("accessed", times(memory.access_count) + f", last {memory.last_accessed or 'never'}"),
        ("created", memory.created_at),
        ("updated", memory.updated_at),
        ("archived", memory.archived_at or ""),
    ]
    body = "\n".join(f"  {name:<11} {clean(value)}" for name, value in rows if value)
    lines = [
        f"  {'edge':<11} #{edge.from_} -{edge.type}-> #{edge.to} ({edge.strength:.2f})" for edge in edges
    ]
    content = "\n".join("    " + line for line in clean(memory.content).splitlines())
    return "\n".join([f"Memory #{memory.id} ({memory.scope})", body, *lines, "  content:", content])


def remembered(result: Remembered) -> str:
    message = f"Remembered memory #{result.id} ({result.type}, {result.scope})."
    if result.related:
        message += (
            " Related to " + ", ".join(f"#{item.id} ({item.similarity:.2f})" for item in result.related) + "."
        )
        flagged = [item.id for item in result.related if item.flagged]
        if flagged:
            message += (
                " Nearly the same as "
                + ", ".join(f"#{other}" for other in flagged)
                + ": flagged for consolidation (see cortex-hooks consolidate --dry-run)."
            )
    return message


def updated(memory_id: int) -> str:
    return f"Updated memory #{memory_id}."


def changed(what: str, memory_id: int) -> str:
    return f"{VERBS[what]} memory #{memory_id}."


def linked(edge: Link) -> str:
    return f"Linked memory #{edge.from_} -{edge.type}-> #{edge.to} (strength {edge.strength:.2f})."
