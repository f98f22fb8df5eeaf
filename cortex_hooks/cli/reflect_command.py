"""CLI reflect (docs/guide/graph.md): `reflect decay` scales the confidence of memories left unused;
`reflect similar` names the pairs of items that say nearly the same (it writes nothing)."""

from __future__ import annotations

import argparse
from typing import Any

from cortex_hooks.api import reflect as api
from cortex_hooks.cli import database, options, render
from cortex_hooks.memory import similarity


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    group = commands.add_parser(
        "reflect", parents=[common], help="decay unused memories, find near-duplicates"
    )
    actions = group.add_subparsers(dest="action", metavar="ACTION", parser_class=type(group))
    actions.required = True
    decay = actions.add_parser(
        "decay", parents=[common], help="confidence x 0.9 (floor 0.10) for memories not accessed lately"
    )
    decay.add_argument(
        "--days",
        type=int,
        default=api.DAYS,
        metavar="N",
        help=f"not accessed for N days (default {api.DAYS})",
    )
    decay.add_argument("--dry-run", action="store_true", help="list what would change, change nothing")
    decay.set_defaults(run=run_decay)
    similar = actions.add_parser(
        "similar", parents=[common], help="pairs of items that say nearly the same (writes nothing)"
    )
    similar.add_argument(
        "--threshold",
        type=float,
        default=similarity.CONSOLIDATE,
        metavar="X",
        help=f"the least similarity (default {similarity.CONSOLIDATE})",
    )
    similar.add_argument(
        "--limit", type=int, default=api.LIMIT, metavar="N", help=f"at most N pairs (default {api.LIMIT})"
    )
    similar.set_defaults(run=run_similar)
    for command in (decay, similar):
        options.json_flag(command)


def run_decay(args: argparse.Namespace) -> int:
    where = database.of(args)
    entities = api.decay(where, days=args.days, dry_run=args.dry_run)
    if args.json:
        render.emit_json({"affected": len(entities), "dry_run": args.dry_run, "entities": entities})
    else:
        render.say(api.decayed(entities, days=args.days, scope=where.scope, dry_run=args.dry_run))
    return 0


def run_similar(args: argparse.Namespace) -> int:
    found = api.similar(database.of(args), database.notes(), threshold=args.threshold, limit=args.limit)
    if args.json:
        render.emit_json({"pairs": found, "count": len(found), "dry_run": True})
    else:
        render.say(api.near_pairs(found, args.threshold))
    return 0
