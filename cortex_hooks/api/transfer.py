"""Export and import of the whole memory as one validated JSON document."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from cortex_hooks import clock
from cortex_hooks.api import databases as db
from cortex_hooks.api.databases import Databases
from cortex_hooks.api.learnings import records, refuse_laundering, row_values, with_outcomes
from cortex_hooks.api.memories import new_row
from cortex_hooks.errors import USAGE, CortexError
from cortex_hooks.guard import kind_records
from cortex_hooks.guard.learning_records import ImportedLearning
from cortex_hooks.memory.edges import Edge, ImportedEdge
from cortex_hooks.memory.records import ImportedMemory, Memory
from cortex_hooks.notes import Notes
from cortex_hooks.store import kinds, memories, team
from cortex_hooks.store import learnings as learning_store
from cortex_hooks.store import packs as packs_store
from cortex_hooks.store.connection import Transaction
from cortex_hooks.validation import validated

FORMAT_VERSION = 2  # 2 adds memories and edges (docs/guide/memories.md); a file of version 1 still imports
SHOWN: dict[str, type[BaseModel]] = {
    "decisions": kind_records.Decision,
    "errors": kind_records.Error,
    "todos": kind_records.Todo,
}
COUNTED = ("learnings", *SHOWN, "memories")  # what an import counts


class ExportFile(BaseModel):
    """The export format; on import every record is validated before anything is written."""

    model_config = ConfigDict(extra="forbid")

    version: Literal[1, 2] = 2
    learnings: list[ImportedLearning] = []
    decisions: list[kind_records.ImportedDecision] = []
    errors: list[kind_records.ImportedError] = []
    todos: list[kind_records.ImportedTodo] = []
    memories: list[ImportedMemory] = []
    edges: list[ImportedEdge] = []


def export(databases: Databases, notes: Notes) -> dict[str, Any]:
    """Every record of every kind, archived ones included, as `--json` prints them."""
    document: dict[str, Any] = {"version": FORMAT_VERSION, "learnings": []}
    document.update({kind: [] for kind in (*SHOWN, "memories", "edges")})
    connection = db.for_reading(databases)
    if connection is None:
        return document
    with closing(connection):
        from_file = {kind: team.rows_of(connection, kind) for kind in ("learning", "memory")}
        exported = [
            learning
            for learning in records(learning_store.select(connection, "all"))
            if learning.id not in from_file["learning"]
        ]
        # as `list --json` prints them, outcomes included (history: an import does not bring it)
        document["learnings"] = [
            learning.model_dump(mode="json") for learning in with_outcomes(connection, exported)
        ]
        top = memories.max_in_degree(connection)
        rows = [row for row in memories.select(connection, "all") if row.id not in from_file["memory"]]
        document["memories"] = [
            Memory.from_row(row, databases.scope, top).model_dump(mode="json") for row in rows
        ]
        document["edges"] = [
            Edge(type=edge.type, from_=edge.from_id, to=edge.to_id, strength=edge.strength).model_dump(
                by_alias=True
            )
            for edge in memories.edges_among(connection, [row.id for row in rows])
        ]
        for kind, model in SHOWN.items():
            document[kind] = [
                model.model_validate(row._asdict()).model_dump(mode="json")
                for row in kinds.select(connection, kind, "all")
            ]
    return document


def parse(raw: bytes, source: str) -> ExportFile:
    """An export file's bytes (or a bare array of learnings), validated whole; `source` names it."""
    try:
        document = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        raise CortexError(f"{source} rejected, nothing imported: not a JSON file ({error})", USAGE) from None
    if isinstance(document, list):
        document = {"learnings": document}
    rejected = f"{source} rejected, nothing imported"
    parsed: ExportFile = validated(ExportFile, document, rejected)
    ids = {memory.id for memory in parsed.memories if memory.id is not None}
    for index, edge in enumerate(parsed.edges):
        for end, memory_id in (("from", edge.from_), ("to", edge.to)):
            if memory_id not in ids:
                raise CortexError(
                    f"{rejected}: edges.{index}.{end}: {memory_id} is the id of no memory in the file",
                    USAGE,
                )
    return parsed


def load(databases: Databases, parsed: ExportFile, notes: Notes) -> dict[str, int]:
    """All records or none, in one write transaction; new ids (superseded_by and edges follow
    them within the file). How many of each kind were imported."""
    for index, learning in enumerate(parsed.learnings):  # a rewrite must not launder a call
        try:
            refuse_laundering(learning)
        except CortexError as error:
            raise CortexError(
                f"rejected, nothing imported: learnings.{index}.{error.message}", USAGE
            ) from None
    now = clock.iso(clock.now())
    start = db.config(databases, notes).policy.start
    with closing(db.for_writing(databases, notes)) as connection, Transaction(connection):
        _import(connection, parsed, now, start)
    reminders = sum(1 for learning in parsed.learnings if learning.regex is None)
    if reminders:  # kept as they were (a file's learnings are existing ones), but said
        notes.add(
            f"{reminders} of the learnings imported {'has' if reminders == 1 else 'have'} no regex and never "
            "match (reminders): give one with `cortex-hooks update ID --regex PATTERN`"
        )
    return {kind: len(getattr(parsed, kind)) for kind in COUNTED}


def _import(connection: sqlite3.Connection, parsed: ExportFile, now: str, start: int) -> None:
    for learning in parsed.learnings:
        if learning.slug and packs_store.slug_owner(connection, learning.slug) is not None:
            continue  # a pack learning this scope holds already: one rule per slug (docs/guide/packs.md)
        values = row_values(learning, now, **learning.model_dump(include=_KEPT_LEARNING_FIELDS))
        values.pop("id")  # import assigns new ids
        if "confidence" not in learning.model_fields_set:
            values["confidence"] = start  # a learning given without one starts as a new one does
        learning_store.insert(connection, values)
    new_ids: dict[int, int] = {}  # id in the file -> id assigned
    links: list[tuple[int, int]] = []  # (new id, superseded_by as the file names it)
    for decision in parsed.decisions:
        values = decision.model_dump(exclude={"id", "superseded_by"})
        values["created_at"] = values["created_at"] or now
        values["updated_at"] = values["updated_at"] or values["created_at"]
        new_id = kinds.insert(connection, "decisions", values)
        if decision.id is not None:
            new_ids[decision.id] = new_id
        if decision.superseded_by is not None:
            links.append((new_id, decision.superseded_by))
    for new_id, successor in links:  # a link to a decision outside the file is dropped
        if successor in new_ids:
            kinds.update(connection, "decisions", new_id, {"superseded_by": new_ids[successor]})
    for error in parsed.errors:
        values = error.model_dump(exclude={"id"})
        values["first_seen"] = values["first_seen"] or now
        values["last_seen"] = values["last_seen"] or values["first_seen"]
        kinds.insert(connection, "errors", values)
    for todo in parsed.todos:
        values = todo.model_dump(exclude={"id"})
        values["created_at"] = values["created_at"] or now
        values["updated_at"] = values["updated_at"] or values["created_at"]
        kinds.insert(connection, "todos", values)
    _import_memories(connection, parsed, now)


def _import_memories(connection: sqlite3.Connection, parsed: ExportFile, now: str) -> None:
    """Memories with new ids, and the edges among them remapped to those ids."""
    memory_ids: dict[int, int] = {}
    for memory in parsed.memories:
        fields = memory.fields()
        created = memory.created_at or now
        stored = memory.model_dump(
            include={
                "confidence",
                "source",
                "source_session",
                "status",
                "path",
                "access_count",
                "last_accessed",
            }
        )
        values = new_row(fields, now, **stored, created_at=created, updated_at=memory.updated_at or created)
        values["confirmed_at"] = max(created, memory.updated_at or created, memory.last_accessed or created)
        values["archived_at"] = (memory.archived_at or now) if memory.status == "archived" else None
        new_id = memories.insert(connection, values)
        if memory.id is not None:
            memory_ids[memory.id] = new_id
    for edge in parsed.edges:  # both ends are memories of the file (parse checked it)
        if edge.from_ in memory_ids and edge.to in memory_ids:
            memories.link(
                connection,
                memory_ids[edge.from_],
                memory_ids[edge.to],
                edge.type,
                strength=edge.strength,
                now=now,
            )


_KEPT_LEARNING_FIELDS = {"access_count", "last_accessed", "created_at", "updated_at", "archived_at"}
