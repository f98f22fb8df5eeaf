"""CLI move (SPEC §8): a learning or a memory from one scope to the other, in one step.

The copy is committed in the target before the original is removed from the source, so a crash
between the two leaves the item in both scopes, never in neither. Edges stay behind: they link
memories of the source scope.
"""

from __future__ import annotations

import argparse
from contextlib import closing
from typing import Any

from cortex_hooks.cli import database, options, render
from cortex_hooks.errors import USAGE, CortexError, unknown
from cortex_hooks.store import learnings, memories
from cortex_hooks.store.connection import Missing, Transaction, open_database


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    move = commands.add_parser("move", parents=[common], help="move a learning or memory between scopes")
    move.add_argument("id", type=options.record_id, metavar="ID")
    move.add_argument("--to", required=True, choices=("global", "project"), help="the target scope")
    move.add_argument("--memory", action="store_true", help="ID is a memory (default: a learning)")
    options.json_flag(move)
    move.set_defaults(run=run_move)


def run_move(args: argparse.Namespace) -> int:
    paths = database.paths(args)
    source, target = ("project", "global") if args.to == "global" else ("global", "project")
    if paths[source] == paths[target]:
        raise CortexError("the project and the global database are the same file: nothing to move", USAGE)
    kind = "memory" if args.memory else "learning"
    store: Any = memories if args.memory else learnings
    try:
        origin = open_database(paths[source])
    except Missing:
        raise unknown(kind, args.id) from None
    with closing(origin):
        row = store.get(origin, args.id)
        if row is None:
            raise unknown(kind, args.id)
        values = {column: row[column] for column in store.COLUMNS}
        with closing(open_database(paths[target], create=True)) as destination, Transaction(destination):
            new_id = store.insert(destination, values)
        with Transaction(origin):
            dropped = len(memories.edges_of(origin, args.id)) if args.memory else 0
            store.delete(origin, args.id)
    message = f"Moved {kind} #{args.id} from the {source} to the {target} scope: now #{new_id}."
    if dropped:
        message += f" Its {render.count(dropped, 'edges')} stayed behind (they link {source} memories)."
    if args.json:
        render.emit_json({"kind": kind, "from": source, "to": target, "old_id": args.id, "new_id": new_id})
    else:
        render.say(message)
    return 0
