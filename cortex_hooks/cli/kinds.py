"""CLI commands for decisions, errors and todos: add, list, show, archive, restore (and done)."""

from __future__ import annotations

import argparse
import sqlite3
from contextlib import closing
from typing import Any

from cortex_hooks import clock
from cortex_hooks.cli import database, options, render
from cortex_hooks.errors import unknown
from cortex_hooks.guard import kind_records
from cortex_hooks.store import kinds as store
from cortex_hooks.store.connection import Transaction
from cortex_hooks.validation import validated


class Kind:
    """How one kind is given, stored and shown."""

    def __init__(
        self,
        name: str,
        singular: str,
        fields: type[kind_records._Given],
        shown: type[kind_records._Shown],
        columns: tuple[str, ...],
        *,
        counts_access: bool,
    ) -> None:
        self.name = name
        self.singular = singular
        self.fields = fields
        self.shown = shown
        self.columns = columns  # the columns of the human list, after the id
        self.counts_access = counts_access


KINDS = {
    kind.name: kind
    for kind in (
        Kind("decisions", "decision", kind_records.DecisionFields, kind_records.Decision,
             ("title", "category", "superseded_by"), counts_access=True),
        Kind("errors", "error", kind_records.ErrorFields, kind_records.Error,
             ("message", "severity", "occurrences"), counts_access=True),
        Kind("todos", "todo", kind_records.TodoFields, kind_records.Todo,
             ("text", "priority", "done"), counts_access=False),
    )
}  # fmt: skip


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    for kind in KINDS.values():
        group = commands.add_parser(kind.name, parents=[common], help=f"manage {kind.name}")
        actions = group.add_subparsers(dest="action", metavar="ACTION", parser_class=type(group))
        actions.required = True
        add = actions.add_parser("add", parents=[common], help=f"record a {kind.singular}")
        _add_options(kind.name, add)
        add.set_defaults(run=run_add)
        listing = actions.add_parser("list", parents=[common], help=f"list {kind.name}")
        options.shown(listing)
        listing.set_defaults(run=run_list)
        single = {"show": run_show, "archive": run_change, "restore": run_change}
        if kind.name == "todos":
            single["done"] = run_change
        for action, run in single.items():
            command = actions.add_parser(action, parents=[common], help=f"{action} a {kind.singular}")
            command.add_argument("id", type=options.record_id, metavar="ID")
            command.set_defaults(run=run)
        for command in actions.choices.values():
            options.json_flag(command)
            command.set_defaults(kind=kind)


def _add_options(name: str, parser: argparse.ArgumentParser) -> None:
    if name == "decisions":
        parser.add_argument("--title", required=True)
        parser.add_argument("--reasoning", required=True)
        parser.add_argument("--category")
        parser.add_argument("--supersedes", type=int, metavar="ID", help="the decision this replaces")
    elif name == "errors":
        parser.add_argument("--message", required=True)
        parser.add_argument("--fix", help="the fix, or how to prevent it")
        parser.add_argument("--severity", help="low, medium (default), high or critical")
    else:
        parser.add_argument("--text", required=True)
        parser.add_argument("--priority", help="high, medium (default) or low")


def run_add(args: argparse.Namespace) -> int:
    kind: Kind = args.kind
    given = {
        field: getattr(args, field)
        for field in kind.fields.model_fields
        if getattr(args, field, None) is not None
    }
    fields = validated(kind.fields, given, f"invalid {kind.singular}")
    now = clock.iso(clock.now())
    with closing(database.for_writing(args)) as connection:
        with Transaction(connection):
            row_id, message = _insert(connection, kind, fields, now, args)
        database.embed_written(args, connection, kind.singular, [row_id])
        record = _load(connection, kind, row_id)
    render.emit(args, record, message)
    return 0


def _insert(
    connection: sqlite3.Connection, kind: Kind, fields: kind_records._Given, now: str, args: Any
) -> tuple[int, str]:
    values = fields.model_dump()
    if kind.name == "errors":
        known = store.find_active_error(connection, values["message"])
        if known is not None:  # the same error again: one record that counts its occurrences
            store.seen_again(connection, known["id"], now)
            given = fields.model_fields_set - {"message"}  # a fix or severity given now is kept
            store.update(connection, "errors", known["id"], {name: values[name] for name in given})
            return known["id"], f"Error #{known['id']} seen again."
        row_id = store.insert(connection, "errors", {**values, "first_seen": now, "last_seen": now})
        return row_id, f"Recorded error #{row_id}."
    row_id = store.insert(connection, kind.name, {**values, "created_at": now, "updated_at": now})
    supersedes = getattr(args, "supersedes", None)
    if supersedes is not None:
        _load(connection, kind, supersedes)  # an unknown id is refused, and nothing is written
        store.update(connection, kind.name, supersedes, {"superseded_by": row_id, "updated_at": now})
    return row_id, f"Recorded {kind.singular} #{row_id}."


def run_list(args: argparse.Namespace) -> int:
    kind: Kind = args.kind
    rows: list[sqlite3.Row] = []
    connection = database.for_reading(args)
    if connection is not None:
        with closing(connection):
            rows = store.select(connection, kind.name, args.shown)
    records = [kind.shown.from_row(row) for row in rows]
    if args.json:
        render.emit_json(records)
    else:
        render.say(render.table(kind.name, kind.columns, records))
    return 0


def run_show(args: argparse.Namespace) -> int:
    kind: Kind = args.kind
    connection = database.for_reading(args)
    if connection is None:
        raise unknown(kind.singular, args.id)
    with closing(connection):
        if kind.counts_access:
            with Transaction(connection):
                if not store.record_access(connection, kind.name, args.id, clock.iso(clock.now())):
                    raise unknown(kind.singular, args.id)
        record = _load(connection, kind, args.id)
    if args.json:
        render.emit_json(record)
    else:
        render.say(render.detail(f"{kind.singular.capitalize()} #{args.id}", record))
    return 0


def run_change(args: argparse.Namespace) -> int:
    kind: Kind = args.kind
    now = clock.iso(clock.now())
    with closing(database.for_changing(args, unknown(kind.singular, args.id))) as connection:
        with Transaction(connection):
            current = _load(connection, kind, args.id).model_dump()
            options: dict[str, dict[str, Any]] = {
                "archive": {"archived_at": current["archived_at"] or now},
                "restore": {"archived_at": None},
                "done": {"done": 1, "done_at": current.get("done_at") or now},
            }
            changes = options[args.action]
            if "updated_at" in current:
                changes["updated_at"] = now
            store.update(connection, kind.name, args.id, changes)
        record = _load(connection, kind, args.id)
    verb = {"archive": "Archived", "restore": "Restored", "done": "Done:"}[args.action]
    render.emit(args, record, f"{verb} {kind.singular} #{args.id}.")
    return 0


def _load(connection: sqlite3.Connection, kind: Kind, row_id: int) -> kind_records._Shown:
    row = store.get(connection, kind.name, row_id)
    if row is None:
        raise unknown(kind.singular, row_id)
    return kind.shown.from_row(row)
