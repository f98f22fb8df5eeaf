"""CLI commands for decisions, errors and todos: add, list, show, archive, restore (and done)."""

from __future__ import annotations

import argparse
from typing import Any

from cortex_hooks.api import kinds as api
from cortex_hooks.cli import database, options, render

_HELP = {
    "archive": "hide a {} (never deletes)",
    "restore": "bring a {} back from the archive",
    "done": "mark a {} done",
}


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    for kind in api.KINDS.values():
        group = commands.add_parser(kind.name, parents=[common], help=f"manage {kind.name}")
        actions = group.add_subparsers(dest="action", metavar="ACTION", parser_class=type(group))
        actions.required = True
        add = actions.add_parser("add", parents=[common], help=f"record a {kind.singular}")
        _add_options(kind.name, add)
        add.set_defaults(run=run_add)
        listing = actions.add_parser("list", parents=[common], help=f"list {kind.name} (not an access)")
        options.shown(listing)
        listing.set_defaults(run=run_list)
        show = actions.add_parser("show", parents=[common], help=f"show a {kind.singular}")
        show.set_defaults(run=run_show)
        for action in kind.changes:
            actions.add_parser(
                action, parents=[common], help=_HELP[action].format(kind.singular)
            ).set_defaults(run=run_change)
        for action in ("show", *kind.changes):
            actions.choices[action].add_argument(
                "id", type=options.record_id, metavar="ID", help=f"the {kind.singular}'s id"
            )
        for command in actions.choices.values():
            options.json_flag(command)
            command.set_defaults(kind=kind)


def _add_options(name: str, parser: argparse.ArgumentParser) -> None:
    if name == "decisions":
        parser.add_argument("--title", required=True, help="what was decided")
        parser.add_argument("--reasoning", required=True, help="why")
        parser.add_argument("--category", help="a word to group decisions by")
        parser.add_argument(
            "--supersedes", type=options.record_id, metavar="ID", help="the decision this replaces"
        )
    elif name == "errors":
        parser.add_argument("--message", required=True, help="the error as it was seen")
        parser.add_argument("--fix", help="the fix, or how to prevent it")
        parser.add_argument("--severity", help="low, medium (default), high or critical")
    else:
        parser.add_argument("--text", required=True, help="what to do")
        parser.add_argument("--priority", help="high, medium (default) or low")


def run_add(args: argparse.Namespace) -> int:
    kind: api.Kind = args.kind
    given = {
        field: getattr(args, field)
        for field in kind.fields.model_fields
        if getattr(args, field, None) is not None
    }
    where = database.of(args)
    result = api.add(where, kind, given, database.notes(), supersedes=getattr(args, "supersedes", None))
    render.emit(args, result.record, api.added(kind, result))
    return 0


def run_list(args: argparse.Namespace) -> int:
    kind: api.Kind = args.kind
    records = api.listing(database.of(args), kind, args.shown)
    if args.json:
        render.emit_json(records)
    else:
        render.say(api.table(kind.name, api.COLUMNS[kind.name], records))
    return 0


def run_show(args: argparse.Namespace) -> int:
    kind: api.Kind = args.kind
    record = api.show(database.of(args), kind, args.id)
    if args.json:
        render.emit_json(record)
    else:
        render.say(api.detail(f"{kind.singular.capitalize()} #{args.id}", record))
    return 0


def run_change(args: argparse.Namespace) -> int:
    kind: api.Kind = args.kind
    record = api.change(database.of(args), kind, args.id, args.action)
    render.emit(args, record, api.changed(kind, args.action, args.id))
    return 0
