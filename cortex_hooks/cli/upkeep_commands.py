"""CLI commands for upkeep and overview: prune, stats, snapshot and sessions."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from cortex_hooks.api import upkeep as api
from cortex_hooks.cli import database, options, render


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    prune = commands.add_parser(
        "prune",
        parents=[common],
        help="archive never-used old learnings, decisions and errors (Ebbinghaus pruning; never deletes)",
    )
    prune.add_argument("--dry-run", action="store_true", help="report, change nothing")
    prune.set_defaults(run=run_prune)
    stats = commands.add_parser(
        "stats", parents=[common], help="the most accessed learnings, decisions and errors, and the history"
    )
    stats.add_argument(
        "--days", type=options.days, default=7, metavar="N", help="the history's window (default 7)"
    )
    stats.set_defaults(run=run_stats)
    snapshot = commands.add_parser("snapshot", parents=[common], help="the text SessionStart injects")
    snapshot.set_defaults(run=run_snapshot)
    group = commands.add_parser(
        "sessions", parents=[common], help="sessions seen by the hooks (no ACTION: list them)"
    )
    group.set_defaults(run=run_sessions)  # `sessions` alone lists, as `sessions list` does
    actions = group.add_subparsers(dest="action", metavar="ACTION", parser_class=type(group))
    listing = actions.add_parser("list", parents=[common], help="every session, the latest first")
    listing.set_defaults(run=run_sessions)
    for command in (prune, stats, snapshot, group, listing):
        options.json_flag(command)


def run_prune(args: argparse.Namespace) -> int:
    counts = api.prune(database.of(args), database.notes(), dry_run=args.dry_run)
    if args.json:
        render.emit_json(counts)
    else:
        render.say(api.pruned(counts, dry_run=args.dry_run))
    return 0


def run_stats(args: argparse.Namespace) -> int:
    top = api.most_accessed(database.of(args), args.days)
    if args.json:
        render.emit_json(top)
    else:
        render.say(api.accessed(top))
    return 0


def run_snapshot(args: argparse.Namespace) -> int:
    """Exactly the text SessionStart would inject now: pruning included, then rolled back."""
    text, awaiting = api.snapshot(database.of(args), database.notes())
    if args.json:
        render.emit_json({"text": text, "awaiting_review": awaiting})
    elif text:
        # exactly the injected text; a newline after it only for a person at a terminal
        sys.stdout.write(text + ("\n" if sys.stdout.isatty() else ""))
    return 0


def run_sessions(args: argparse.Namespace) -> int:
    listed = api.session_list(database.of(args))
    if args.json:
        render.emit_json(listed)
    else:
        render.say(api.session_lines(listed))
    return 0
