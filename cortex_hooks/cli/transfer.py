"""CLI export and import of the whole memory as one validated JSON file (SPEC §2.2)."""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys
from contextlib import closing
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from cortex_hooks import clock
from cortex_hooks.cli import database, render
from cortex_hooks.cli.learnings import readable, row_values
from cortex_hooks.cli.memories import new_row
from cortex_hooks.errors import USAGE, CortexError
from cortex_hooks.guard import kind_records
from cortex_hooks.guard.records import ImportedLearning
from cortex_hooks.memory.edges import Edge, ImportedEdge
from cortex_hooks.memory.records import ImportedMemory, Memory
from cortex_hooks.store import kinds, memories
from cortex_hooks.store import learnings as learning_store
from cortex_hooks.store import packs as packs_store
from cortex_hooks.store.connection import Transaction
from cortex_hooks.validation import validated

FORMAT_VERSION = 2  # 2 adds memories and edges (SPEC §9.2); a file of version 1 still imports
_SHOWN: dict[str, type[BaseModel]] = {
    "decisions": kind_records.Decision,
    "errors": kind_records.Error,
    "todos": kind_records.Todo,
}


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


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    export = commands.add_parser("export", parents=[common], help="print the whole memory as JSON")
    export.add_argument("--output", metavar="FILE", help="write to FILE instead of stdout")
    export.add_argument("--json", action="store_true", help="accepted: the export is JSON already")
    export.set_defaults(run=run_export)
    load = commands.add_parser("import", parents=[common], help="add the records of an export file")
    load.add_argument("file", metavar="FILE", help="an export file or a JSON array of learnings; - for stdin")
    load.add_argument("--json", action="store_true", help="print the counts as JSON")
    load.set_defaults(run=run_import)


def run_export(args: argparse.Namespace) -> int:
    """Every record of every kind, archived ones included, as `--json` prints them."""
    document: dict[str, Any] = {"version": FORMAT_VERSION, "learnings": []}
    document.update({kind: [] for kind in (*_SHOWN, "memories", "edges")})
    connection = database.for_reading(args)
    if connection is not None:
        with closing(connection):
            document["learnings"] = [
                learning.model_dump(mode="json")
                for learning in readable(learning_store.select(connection, "all"))
            ]
            top = memories.max_in_degree(connection)
            rows = memories.select(connection, "all")
            document["memories"] = [
                Memory.from_row(row, database.scope(args), top).model_dump(mode="json") for row in rows
            ]
            document["edges"] = [
                Edge(
                    type=edge["type"], from_=edge["from_id"], to=edge["to_id"], strength=edge["strength"]
                ).model_dump(by_alias=True)
                for edge in memories.edges_among(connection, [row["id"] for row in rows])
            ]
            for kind, model in _SHOWN.items():
                document[kind] = [
                    model.model_validate(dict(row)).model_dump(mode="json")
                    for row in kinds.select(connection, kind, "all")
                ]
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    if args.output:
        _write_private(args.output, text)
        counts = ", ".join(render.count(len(document[kind]), kind) for kind in ("learnings", *_SHOWN))
        print(f"Exported {counts} to {render.clean(args.output)}.", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


def _write_private(path: str, text: str) -> None:
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as output:
            output.write(text)
    except OSError as error:
        raise CortexError(f"cannot write {path}: {error.strerror or error}") from None


def run_import(args: argparse.Namespace) -> int:
    """All records or none: the whole file is validated before the one write transaction."""
    document = _read(args.file)
    if isinstance(document, list):
        document = {"learnings": document}
    parsed: ExportFile = validated(ExportFile, document, f"{args.file} rejected, nothing imported")
    now = clock.iso(clock.now())
    with closing(database.for_writing(args)) as connection, Transaction(connection):
        _import(connection, parsed, now, database.config(args).policy.start)
    counts = {kind: len(getattr(parsed, kind)) for kind in ("learnings", *_SHOWN, "memories")}
    if args.json:
        render.emit_json(counts)
    else:
        render.say("Imported " + ", ".join(render.count(n, kind) for kind, n in counts.items()) + ".")
    return 0


def _import(connection: sqlite3.Connection, parsed: ExportFile, now: str, start: int) -> None:
    for learning in parsed.learnings:
        if learning.slug and packs_store.slug_owner(connection, learning.slug) is not None:
            continue  # a pack learning this scope holds already: one rule per slug (SPEC §14)
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
    for edge in parsed.edges:  # an edge to a memory outside the file is dropped
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


def _read(file: str) -> Any:
    try:
        if file == "-":
            raw = sys.stdin.buffer.read()
        else:
            with open(file, "rb") as handle:
                raw = handle.read()
    except OSError as error:
        raise CortexError(f"cannot read {file}: {error.strerror or error}", USAGE) from None
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        raise CortexError(f"{file} rejected, nothing imported: not a JSON file ({error})", USAGE) from None
