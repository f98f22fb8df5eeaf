"""CLI commands for upkeep and overview: prune, stats, snapshot and sessions."""

from __future__ import annotations

import argparse
import sys
from contextlib import ExitStack, closing
from typing import Any

from cortex_hooks import clock, location
from cortex_hooks.cli import database, options, render
from cortex_hooks.errors import CortexError
from cortex_hooks.guard import hand_edits, kind_records
from cortex_hooks.scopes import close
from cortex_hooks.store import kinds, learnings, sessions
from cortex_hooks.store.connection import Transaction
from cortex_hooks.upkeep import startup

_LABELS = {"learnings": "anti_pattern", "decisions": "title", "errors": "message"}


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    prune = commands.add_parser("prune", parents=[common], help="archive never-used old memories")
    prune.add_argument("--dry-run", action="store_true", help="report, change nothing")
    prune.set_defaults(run=run_prune)
    stats = commands.add_parser("stats", parents=[common], help="the most accessed memories, and the history")
    stats.add_argument(
        "--days", type=options.days, default=7, metavar="N", help="the history's window (default 7)"
    )
    stats.set_defaults(run=run_stats)
    snapshot = commands.add_parser("snapshot", parents=[common], help="the text SessionStart injects")
    snapshot.set_defaults(run=run_snapshot)
    group = commands.add_parser("sessions", parents=[common], help="sessions seen by the hooks")
    actions = group.add_subparsers(dest="action", metavar="ACTION", parser_class=type(group))
    actions.required = True
    listing = actions.add_parser("list", parents=[common], help="every session, the latest first")
    listing.set_defaults(run=run_sessions)
    for command in (prune, stats, snapshot, listing):
        options.json_flag(command)


def run_prune(args: argparse.Namespace) -> int:
    counts = dict.fromkeys(kinds.PRUNED_KINDS, 0)
    connection = database.for_reading(args)
    if connection is not None:
        with closing(connection), Transaction(connection, keep=not args.dry_run):
            counts = startup.prune(connection, database.config(args), clock.now(), dry_run=args.dry_run)
    if args.json:
        render.emit_json(counts)
    else:
        verb = "Would archive" if args.dry_run else "Archived"
        render.say(f"{verb} " + ", ".join(render.count(n, kind) for kind, n in counts.items()) + ".")
    return 0


def run_stats(args: argparse.Namespace) -> int:
    from cortex_hooks.report import summary

    top: dict[str, Any] = {kind: [] for kind in _LABELS}
    now = clock.now()
    window = summary.empty(now, args.days)
    connection = database.for_reading(args)
    if connection is not None:
        with closing(connection):
            window = summary.window(connection, now, args.days)
            for kind, label in _LABELS.items():
                top[kind] = [
                    {
                        "id": row["id"],
                        label: row[label],
                        "access_count": row["access_count"],
                        "last_accessed": row["last_accessed"],
                    }
                    for row in kinds.most_accessed(connection, kind)
                ]
    if args.json:
        render.emit_json({**top, "history": window})
        return 0
    blocks = []
    for kind, rows in top.items():
        lines = [f"Most accessed {kind}:"] + [
            f"  #{row['id']:<5} {row['access_count']:>5} x  "
            f"{render.clean(row[_LABELS[kind]], one_line=True)[:80]}"
            for row in rows
        ]
        blocks.append("\n".join(lines if rows else [*lines, "  (none yet)"]))
    blocks.append(_history(window))
    render.say("\n\n".join(blocks))
    return 0


def _history(window: dict[str, Any]) -> str:
    """The window of the history in a few lines (what `cortex_get_access_stats` says too)."""
    guard, memory = window["learnings"], window["memories"]
    lines = [
        f"Last {window['days']} days (since {window['since']}): {guard['matches']} matches, "
        f"{guard['denies']} denied, {guard['warnings']} warned; memories {memory['added']} added, "
        f"{memory['recalled']} recalled, {memory['archived']} archived, {memory['pruned']} pruned."
    ]
    if window["most_matched"]:
        lines.append("Most matched learnings:")
    for row in window["most_matched"]:
        lines.append(
            f"  #{row['id']:<5} {row['matches']:>5} x  ({row['denies']} denied, {row['warnings']} warned)  "
            f"{render.clean(row['anti_pattern'], one_line=True)[:60]}"
        )
    return "\n".join(lines)


def run_snapshot(args: argparse.Namespace) -> int:
    """Exactly the text SessionStart would inject now: pruning included, then rolled back."""
    text, awaiting = "", 0
    scopes, skipped = database.both(args)
    with ExitStack() as previews:
        previews.callback(close, scopes)
        now = clock.now()
        for scope in scopes:
            previews.enter_context(Transaction(scope.connection, keep=False))  # rolled back: a preview
            config = location.config_for(scope.path)
            if config.prune:
                startup.prune(scope.connection, config, now, dry_run=False)
        if scopes:
            text, awaiting = startup.session_text(scopes, now, startup.pending_proposals(scopes))
        if skipped and not text:  # as the hook: a skipped scope beside nothing to say is a failure
            raise CortexError("; ".join(skipped))
        for note in skipped + [
            n for s in scopes for n in hand_edits.notes(learnings.odd_confidences(s.connection))
        ]:
            render.note(note)  # as SessionStart names them
    if args.json:
        render.emit_json({"text": text, "awaiting_review": awaiting})
    elif text:
        # exactly the injected text; a newline after it only for a person at a terminal
        sys.stdout.write(text + ("\n" if sys.stdout.isatty() else ""))
    return 0


def run_sessions(args: argparse.Namespace) -> int:
    rows = []
    connection = database.for_reading(args)
    if connection is not None:
        with closing(connection):
            rows = sessions.select(connection)
    listed = [kind_records.Session.from_row(row) for row in rows]
    if args.json:
        render.emit_json(listed)
        return 0
    if not listed:
        render.say("No sessions.")
    for session in listed:
        changes = ", ".join(f"{change.file} ({change.action})" for change in session.key_changes)
        render.say(
            render.clean(
                f"{session.id}  {session.source or '-'}  {session.started_at or '?'} → "
                f"{session.ended_at or 'open'}  {session.reason or ''}\n"
                f"    {session.summary or '(no summary)'}" + (f"\n    changed: {changes}" if changes else "")
            )
        )
    return 0
