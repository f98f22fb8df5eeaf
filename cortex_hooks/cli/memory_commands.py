"""CLI commands for memories (docs/guide/memories.md): remember, memories list|show|update|pin|unpin|archive|
restore, forget, index-code, link."""

from __future__ import annotations

import argparse
from typing import Any

from cortex_hooks.api import memories as api
from cortex_hooks.cli import database, options, render
from cortex_hooks.memory import given, vocabulary


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    remember = commands.add_parser("remember", parents=[common], help="store a memory")
    remember.add_argument("content", metavar="TEXT", help="the knowledge to keep")
    _memory_options(remember)
    remember.set_defaults(run=run_remember)

    group = commands.add_parser("memories", parents=[common], help="list and manage memories")
    actions = group.add_subparsers(dest="action", metavar="ACTION", parser_class=type(group))
    actions.required = True
    listing = actions.add_parser("list", parents=[common], help="list memories (not an access)")
    listing.add_argument("--type", choices=vocabulary.TYPES, help="memories of this type only")
    options.shown(listing)
    listing.set_defaults(run=run_list)
    show = actions.add_parser("show", parents=[common], help="show one memory and its edges (an access)")
    show.set_defaults(run=run_show)
    update = actions.add_parser("update", parents=[common], help="change a memory")
    update.add_argument("--content", metavar="TEXT", help="the new content (its summary follows it)")
    _memory_options(update, pin=False)
    update.set_defaults(run=run_update)
    for name, help_text in (
        ("pin", "keep a memory at the top, never decayed"),
        ("unpin", "a memory decays again"),
        ("archive", "hide a memory (never deletes)"),
        ("restore", "bring a memory back from the archive"),
    ):
        actions.add_parser(name, parents=[common], help=help_text).set_defaults(run=run_change, change=name)
    for name in ("show", "update", *api.CHANGES):
        actions.choices[name].add_argument("id", type=options.record_id, metavar="ID", help="the memory's id")
    for command in actions.choices.values():
        options.json_flag(command)

    forget = commands.add_parser("forget", parents=[common], help="archive a memory (never deletes)")
    which = forget.add_mutually_exclusive_group(required=True)
    which.add_argument("id", nargs="?", type=options.record_id, metavar="ID", help="the memory's id")
    which.add_argument("--match", metavar="QUERY", help="the memory that best matches these words")
    forget.add_argument("--yes", action="store_true", help="with --match: archive the best of several")
    forget.set_defaults(run=run_forget)

    index = commands.add_parser("index-code", parents=[common], help="remember a file and what it does")
    index.add_argument("path", metavar="PATH", help="a file of the project")
    index.add_argument("--prose", required=True, metavar="TEXT", help="what the file does, in words")
    index.set_defaults(run=run_index_code)

    link = commands.add_parser("link", parents=[common], help="an edge between two memories")
    link.add_argument("from_id", type=options.record_id, metavar="ID", help="the memory the edge leaves")
    link.add_argument("to_id", type=options.record_id, metavar="ID", help="the memory it points to")
    link.add_argument("--type", required=True, choices=vocabulary.LINKABLE, help="the edge's type")
    link.add_argument("--strength", type=float, default=1.0, metavar="X", help="0 to 1 (default 1)")
    link.set_defaults(run=run_link)
    for command in (remember, forget, index, link):
        options.json_flag(command)


def _memory_options(parser: argparse.ArgumentParser, *, pin: bool = True) -> None:
    parser.add_argument("--type", choices=vocabulary.TYPES, help=f"default: {given.DEFAULT_TYPE}")
    parser.add_argument("--summary", metavar="S", help="default: the first line of the content")
    low, high = given.PRIORITIES
    parser.add_argument(
        "--priority", type=int, metavar="N", help=f"{low} to {high} (default {given.DEFAULT_PRIORITY})"
    )
    parser.add_argument("--tag", action="append", dest="tags", metavar="X", help="a tag (repeatable)")
    if pin:
        parser.add_argument(
            "--pin",
            action="store_true",
            default=None,
            dest="pinned",
            help="keep it at the top, never decayed",
        )


def _given(args: argparse.Namespace) -> api.Given:
    names = ("content", "type", "summary", "priority", "tags", "pinned")
    return {name: getattr(args, name) for name in names if getattr(args, name, None) is not None}  # type: ignore[return-value]


def run_remember(args: argparse.Namespace) -> int:
    result = api.remember(database.of(args), _given(args), database.notes(), record=args.json)
    _emit(result.memory, api.remembered(result))
    return 0


def run_list(args: argparse.Namespace) -> int:
    shown = api.listing(database.of(args), args.shown, args.type)
    if args.json:
        render.emit_json(shown)
    else:
        render.say(api.table(shown, render.width()))
    return 0


def run_show(args: argparse.Namespace) -> int:
    memory, edges = api.show(database.of(args), args.id)
    if args.json:
        shown = [edge.model_dump(by_alias=True) for edge in edges]
        render.emit_json({**memory.model_dump(mode="json"), "edges": shown})  # edges: show only
    else:
        render.say(api.detail(memory, edges))
    return 0


def run_update(args: argparse.Namespace) -> int:
    memory = api.update(database.of(args), args.id, _given(args), database.notes(), record=args.json)
    _emit(memory, api.updated(args.id))
    return 0


def run_change(args: argparse.Namespace) -> int:
    memory = api.change(database.of(args), args.id, args.change, record=args.json)
    _emit(memory, api.changed(args.change, args.id))
    return 0


def run_forget(args: argparse.Namespace) -> int:
    from cortex_hooks.api import forget

    where = database.of(args)
    if args.id is not None:
        result = forget.by_id(where, args.id, record=args.json)
    else:
        result = forget.by_match(where, args.match, best=args.yes, record=args.json)
    if result.archived is None and args.json:
        candidates = [{"id": item.id, "summary": item.summary} for item in result.candidates]
        render.emit_json({"archived": None, "candidates": candidates})
    else:
        _emit(result.memory, forget.forgotten(result))
    return 0


def run_index_code(args: argparse.Namespace) -> int:
    from cortex_hooks.api.index_code import index_code, indexed

    result = index_code(database.of(args), args.path, args.prose, database.notes(), record=args.json)
    _emit(result.memory, indexed(result))
    return 0


def run_link(args: argparse.Namespace) -> int:
    edge = api.link(database.of(args), args.from_id, args.to_id, args.type, args.strength)
    if args.json:
        render.emit_json({"type": edge.type, "from": edge.from_, "to": edge.to, "strength": edge.strength})
    else:
        render.say(api.linked(edge))
    return 0


def _emit(memory: Any, message: str) -> None:
    """The record as JSON when there is one (`--json`), else the message for a person."""
    if memory is not None:
        render.emit_json(memory)
    else:
        render.say(message)
