"""CLI reflect (SPEC §9.8): `reflect decay` scales the confidence of memories left unused;
`reflect similar` names the pairs of items that say nearly the same (it writes nothing)."""

from __future__ import annotations

import argparse
import sqlite3
from collections.abc import Callable
from contextlib import closing
from datetime import timedelta
from typing import Any

from cortex_hooks import clock, confidence
from cortex_hooks.cli import database, options, render
from cortex_hooks.errors import USAGE, CortexError
from cortex_hooks.memory import pairs, similarity
from cortex_hooks.scopes import Scope, close
from cortex_hooks.store import lifecycle as store
from cortex_hooks.store.connection import Transaction

FLOOR = 10  # hundredths: reflect decay never takes a memory below 0.10
FACTOR = 0.9
KINDS = {"memory": store.active_texts, "learning": store.active_learning_texts}


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
        "--days", type=int, default=30, metavar="N", help="not accessed for N days (default 30)"
    )
    decay.add_argument("--dry-run", action="store_true", help="list what would change, change nothing")
    decay.set_defaults(run=run_decay)
    similar = actions.add_parser("similar", parents=[common], help="pairs of items that say nearly the same")
    similar.add_argument("--threshold", type=float, default=similarity.CONSOLIDATE, metavar="X")
    similar.add_argument("--limit", type=int, default=20, metavar="N", help="at most N pairs (default 20)")
    similar.set_defaults(run=run_similar)
    for command in (decay, similar):
        options.json_flag(command)


def run_decay(args: argparse.Namespace) -> int:
    if not 0 <= args.days <= 36_500:
        raise CortexError(f"--days must lie in [0, 36500], got {args.days}", USAGE)
    now = clock.now()
    entities: list[dict[str, Any]] = []
    connection = database.for_reading(args)
    if connection is not None:
        with closing(connection), Transaction(connection, keep=not args.dry_run):
            rows = store.unaccessed(connection, clock.iso(now - timedelta(days=args.days)), FLOOR)
            changes = [
                {
                    "id": row["id"],
                    "confidence": max(FLOOR, round(row["confidence"] * FACTOR)),
                    "base": max(FLOOR, round(row["base_confidence"] * FACTOR)),
                }
                for row in rows
            ]
            store.scale(connection, changes)
            entities = [
                {
                    "id": row["id"],
                    "name": row["summary"],
                    "old_confidence": confidence.as_number(row["confidence"]),
                    "new_confidence": confidence.as_number(change["confidence"]),
                }
                for row, change in zip(rows, changes, strict=True)
            ]
    if args.json:
        render.emit_json({"affected": len(entities), "dry_run": args.dry_run, "entities": entities})
        return 0
    for entity in entities:
        render.say(
            f"#{entity['id']} {entity['old_confidence']:.2f} -> {entity['new_confidence']:.2f}  "
            f"{render.clean(entity['name'], one_line=True)[:80]}"
        )
    verb = "Would decay" if args.dry_run else "Decayed"
    render.say(
        f"{verb} {len(entities)} {'memory' if len(entities) == 1 else 'memories'} "
        f"not accessed for {args.days} days "
        f"({database.scope(args)})."
    )
    return 0


def _similar(
    kind: str, read: Callable[[sqlite3.Connection], sqlite3.Cursor], scopes: list[Scope], threshold: float
) -> list[dict[str, Any]]:
    """The pairs of one kind at or above the threshold, across the scopes given (project first)."""
    canonical: dict[str, str] = {}  # one copy of each word, however many texts hold it
    items: list[tuple[tuple[int, int], frozenset[str]]] = []
    for rank, scope in enumerate(scopes):
        for memory_id, text in read(scope.connection):
            words = similarity.words(text)
            items.append(((rank, memory_id), frozenset(canonical.setdefault(word, word) for word in words)))
    canonical.clear()
    similar = pairs.similar(items, threshold)
    del items
    shown: dict[tuple[int, int], str] = {}
    for rank, scope in enumerate(scopes):
        ids = sorted({key[1] for pair in similar for key in pair[:2] if key[0] == rank})
        shown.update(((rank, item), name) for item, name in store.names(scope.connection, kind, ids).items())
    return [
        {
            "kind": kind,
            "entity1_id": first[1],
            "entity1_name": shown[first],
            "entity2_id": second[1],
            "entity2_name": shown[second],
            "similarity": round(value, 4),
            "scope1": scopes[first[0]].name,
            "scope2": scopes[second[0]].name,
        }
        for first, second, value in similar
    ]


def run_similar(args: argparse.Namespace) -> int:
    if not 0 < args.threshold <= 1:
        raise CortexError(f"--threshold must lie in (0, 1], got {args.threshold}", USAGE)
    if args.limit < 1:
        raise CortexError(f"--limit must be at least 1, got {args.limit}", USAGE)
    # --global compares across both scopes; else the project's items among themselves.
    names = ("project", "global") if getattr(args, "global_scope", False) else ("project",)
    scopes, skipped = database.both(args, names)
    found: list[dict[str, Any]] = []
    try:
        for kind, read in KINDS.items():
            found += _similar(kind, read, scopes, args.threshold)
    finally:
        close(scopes)
    found.sort(key=lambda pair: -float(pair["similarity"]))  # stable: each kind's order kept on ties
    found = found[: args.limit]
    for note in skipped:
        render.note(note)
    if args.json:
        render.emit_json({"pairs": found, "count": len(found), "dry_run": True})
        return 0
    if not found:
        render.say(f"No pairs at or above {args.threshold:g}.")
    for pair in found:
        render.say(
            f"{pair['similarity']:.2f}  {pair['kind']} #{pair['entity1_id']} ({pair['scope1']}) ~ "
            f"#{pair['entity2_id']} ({pair['scope2']})\n"
            f"      {render.clean(pair['entity1_name'], one_line=True)[:80]}\n"
            f"      {render.clean(pair['entity2_name'], one_line=True)[:80]}"
        )
    return 0
