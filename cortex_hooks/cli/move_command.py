"""CLI move (docs/guide/scopes.md): a learning or a memory from one scope to the other, in one step."""

from __future__ import annotations

import argparse
from typing import Any

from cortex_hooks.api.move import move
from cortex_hooks.api.wording import count
from cortex_hooks.cli import database, options, render


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    command = commands.add_parser("move", parents=[common], help="move a learning or memory between scopes")
    command.add_argument(
        "id", type=options.record_id, metavar="ID", help="the learning's id (with --memory: the memory's)"
    )
    command.add_argument("--to", required=True, choices=("global", "project"), help="the target scope")
    command.add_argument("--memory", action="store_true", help="ID is a memory (default: a learning)")
    options.json_flag(command)
    command.set_defaults(run=run_move)


def run_move(args: argparse.Namespace) -> int:
    moved = move(database.of(args), args.id, args.to, memory=args.memory)
    if args.json:
        render.emit_json(
            {
                "kind": moved.kind,
                "from": moved.source,
                "to": moved.target,
                "old_id": moved.old_id,
                "new_id": moved.new_id,
            }
        )
        return 0
    message = (
        f"Moved {moved.kind} #{moved.old_id} from the {moved.source} to the {moved.target} scope: "
        f"now #{moved.new_id}."
    )
    if moved.edges_left:
        message += (
            f" Its {count(moved.edges_left, 'edges')} stayed behind (they link {moved.source} memories)."
        )
    render.say(message)
    return 0
