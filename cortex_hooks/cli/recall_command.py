"""CLI recall (docs/guide/memories.md): what both scopes know about some words, best first; each result
returned counts one access (`--peek`: none, and recall writes nothing)."""

from __future__ import annotations

import argparse

from cortex_hooks.api.recall import LIMIT, archived, recall, results
from cortex_hooks.cli import database, options, render
from cortex_hooks.memory import vocabulary
from cortex_hooks.memory.query import KINDS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    command = commands.add_parser("recall", parents=[common], help="what the memory knows about some words")
    command.add_argument("query", metavar="QUERY", help="the words to look for")
    command.add_argument(
        "--limit", type=int, default=LIMIT, metavar="N", help=f"at most N results (default {LIMIT})"
    )
    command.add_argument("--type", choices=vocabulary.TYPES, help="memories of this type only")
    command.add_argument("--kind", choices=KINDS, help="one kind only")
    only = command.add_mutually_exclusive_group()
    only.add_argument(
        "--project-only", action="store_const", dest="scopes", const=("project",), help="the project's memory"
    )
    only.add_argument(
        "--global-only", action="store_const", dest="scopes", const=("global",), help="the user's memory"
    )
    command.add_argument(
        "--peek", action="store_true", help="read only: the results count no access (benchmarks, replays)"
    )
    options.json_flag(command)
    command.set_defaults(run=run_recall, scopes=("project", "global"))


def run_recall(args: argparse.Namespace) -> int:
    from cortex_hooks.api import resident

    asked: dict[str, Any] = {
        "limit": args.limit,
        "memory_type": args.type,
        "kind": args.kind,
        "scopes": args.scopes,
        "peek": args.peek,
    }
    databases, notes = database.of(args), database.notes()
    # The session's resident process answers warm (api.resident); else the recall runs here.
    found = resident.recall(databases, args.query, notes, **asked)
    if found is None:
        found = recall(databases, args.query, notes, **asked)
    if args.json:
        render.emit_json(found)
    elif found:
        render.say(results(found))
    else:  # nothing active: whether an archived memory holds the words
        held = archived(
            database.of(args), args.query, memory_type=args.type, kind=args.kind, scopes=args.scopes
        )
        render.say(results(found, held))
    return 0
