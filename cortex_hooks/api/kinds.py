"""Part I's decisions, errors and todos: add, list, show, archive, restore, done."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from contextlib import closing
from typing import TYPE_CHECKING, Any

from cortex_hooks import clock
from cortex_hooks.api import databases as db
from cortex_hooks.api.databases import Databases
from cortex_hooks.api.wording import clean, value
from cortex_hooks.errors import unknown
from cortex_hooks.frozen import Record
from cortex_hooks.guard import kind_records
from cortex_hooks.notes import Notes
from cortex_hooks.store import kinds as store
from cortex_hooks.store.connection import Transaction
from cortex_hooks.validation import validated

if TYPE_CHECKING:
    from pydantic import BaseModel


Shown = kind_records._Shown


class Kind(Record):
    """How one kind is given, stored and shown."""

    name: str  # its table, plural: decisions
    singular: str
    fields: type[kind_records._Given]
    shown: type[kind_records._Shown]
    counts_access: bool  # showing one counts as an access
    changes: tuple[str, ...]  # the one-row changes it has


KINDS = {
    kind.name: kind
    for kind in (
        Kind("decisions", "decision", kind_records.DecisionFields, kind_records.Decision, True,
             ("archive", "restore")),
        Kind("errors", "error", kind_records.ErrorFields, kind_records.Error, True,
             ("archive", "restore")),
        Kind("todos", "todo", kind_records.TodoFields, kind_records.Todo, False,
             ("archive", "restore", "done")),
    )
}  # fmt: skip


class Added(Record):
    record: Shown
    again: bool  # an error seen again: one record that counts its occurrences


def add(
    databases: Databases, kind: Kind, given: dict[str, Any], notes: Notes, *, supersedes: int | None = None
) -> Added:
    """A new decision, error or todo (`supersedes`: the decision this one replaces); an active
    error with the same message is the same error seen again."""
    fields = validated(kind.fields, given, f"invalid {kind.singular}")
    now = clock.iso(clock.now())
    with closing(db.for_writing(databases, notes)) as connection:
        with Transaction(connection):
            row_id, again = _insert(connection, kind, fields, now, supersedes)
        db.embed_written(databases, connection, kind.singular, [row_id], notes)
        return Added(load(connection, kind, row_id), again)


def _insert(
    connection: sqlite3.Connection,
    kind: Kind,
    fields: kind_records._Given,
    now: str,
    supersedes: int | None,
) -> tuple[int, bool]:
    values = fields.model_dump()
    if kind.name == "errors":
        known = store.find_active_error(connection, values["message"])
        if known is not None:
            store.seen_again(connection, known.id, now)
            given = fields.model_fields_set - {"message"}  # a fix or severity given now is kept
            store.update(connection, "errors", known.id, {name: values[name] for name in given})
            return known.id, True
        return store.insert(connection, "errors", {**values, "first_seen": now, "last_seen": now}), False
    row_id = store.insert(connection, kind.name, {**values, "created_at": now, "updated_at": now})
    if supersedes is not None:
        load(connection, kind, supersedes)  # an unknown id is refused, and nothing is written
        store.update(connection, kind.name, supersedes, {"superseded_by": row_id, "updated_at": now})
    return row_id, False


def listing(databases: Databases, kind: Kind, shown: str) -> list[Shown]:
    """The rows of a kind shown (active, archived or all); not an access."""
    connection = db.for_reading(databases)
    if connection is None:
        return []
    with closing(connection):
        return [kind.shown.from_row(row) for row in store.select(connection, kind.name, shown)]


def show(databases: Databases, kind: Kind, row_id: int) -> Shown:
    """One row of a kind; showing a decision or an error counts as an access."""
    connection = db.for_reading(databases)
    if connection is None:
        raise unknown(kind.singular, row_id)
    with closing(connection):
        if kind.counts_access:
            with Transaction(connection):
                if not store.record_access(connection, kind.name, row_id, clock.iso(clock.now())):
                    raise unknown(kind.singular, row_id)
        return load(connection, kind, row_id)


def change(databases: Databases, kind: Kind, row_id: int, what: str) -> Shown:
    """Archive (never deletes), restore, or (todos) mark done one row."""
    now = clock.iso(clock.now())
    with closing(db.for_changing(databases, unknown(kind.singular, row_id))) as connection:
        with Transaction(connection):
            current = load(connection, kind, row_id).model_dump()
            columns: dict[str, dict[str, Any]] = {
                "archive": {"archived_at": current["archived_at"] or now},
                "restore": {"archived_at": None},
                "done": {"done": 1, "done_at": current.get("done_at") or now},
            }
            values = columns[what]
            if "updated_at" in current:
                values["updated_at"] = now
            store.update(connection, kind.name, row_id, values)
        return load(connection, kind, row_id)


def load(connection: sqlite3.Connection, kind: Kind, row_id: int) -> Shown:
    row = store.get(connection, kind.name, row_id)
    if row is None:
        raise unknown(kind.singular, row_id)
    return kind.shown.from_row(row)


# What people read of it, from the CLI and the MCP server alike. The texts of decisions, errors and
# todos: a plain table, one record in full, what was done.

COLUMNS = {  # the columns of each kind's list, after the id
    "decisions": ("title", "category", "superseded_by"),
    "errors": ("message", "severity", "occurrences"),
    "todos": ("text", "priority", "done"),
}
_VERBS = {"archive": "Archived", "restore": "Restored", "done": "Done:"}


def table(what: str, columns: tuple[str, ...], records: Sequence[BaseModel]) -> str:
    """A plain table: the id, then the given columns, each cut to a readable width."""
    if not records:
        return f"No {what}."
    rows = [
        [
            str(record.model_dump()["id"]),
            *(clean(value(getattr(record, c)), one_line=True)[:60] for c in columns),
        ]
        for record in records
    ]
    header = ["ID", *(column.upper().replace("_", " ") for column in columns)]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in [header, *rows]
    )


def detail(title: str, record: BaseModel) -> str:
    """Every field but the id, one per line, control characters stripped."""
    fields = record.model_dump(exclude={"id"})
    body = "\n".join(
        f"  {name.replace('_', ' '):<14} {clean(value(shown))}"
        for name, shown in fields.items()
        if shown not in (None, [], "")
    )
    return f"{title}\n{body}"


def added(kind: Kind, result: Added) -> str:
    row_id = result.record.model_dump()["id"]
    if result.again:
        return f"Error #{row_id} seen again."
    return f"Recorded {kind.singular} #{row_id}."


def changed(kind: Kind, what: str, row_id: int) -> str:
    return f"{_VERBS[what]} {kind.singular} #{row_id}."
