"""CLI commands of capture (SPEC §10.1): capture, proposals, accept, reject."""

from __future__ import annotations

import argparse
import sqlite3
import time
from contextlib import closing
from typing import Any

from cortex_hooks import clock, confidence, location
from cortex_hooks.cli import database, options, render
from cortex_hooks.errors import USAGE, CortexError, unknown
from cortex_hooks.store import proposals
from cortex_hooks.store.connection import Missing, open_database
from cortex_hooks.store.transaction import Transaction


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    capture = commands.add_parser("capture", parents=[common], help="scan a transcript for proposals now")
    capture.add_argument(
        "--transcript", required=True, metavar="PATH", help="a Claude Code transcript (.jsonl)"
    )
    capture.add_argument("--session", metavar="ID", help="its session id (default: the transcript's own)")
    capture.add_argument("--dry-run", action="store_true", help="report what it finds, write nothing")
    capture.set_defaults(run=run_capture)

    listing = commands.add_parser("proposals", parents=[common], help="list proposals awaiting an answer")
    listing.add_argument("--all", action="store_true", help="also accepted, rejected and expired ones")
    listing.set_defaults(run=run_proposals)

    accept = commands.add_parser("accept", parents=[common], help="make a proposal an active learning")
    accept.add_argument("id", type=options.record_id, metavar="ID")
    accept.add_argument("--auto-block", action="store_true", help="deny matching calls (default: warn only)")
    accept.add_argument("--regex", metavar="PATTERN", help="use this regex instead of the proposed one")
    accept.set_defaults(run=run_accept)

    reject = commands.add_parser("reject", parents=[common], help="refuse a proposal: never proposed again")
    reject.add_argument("id", type=options.record_id, metavar="ID")
    reject.set_defaults(run=run_reject)
    for name in ("capture", "proposals", "accept", "reject"):
        options.json_flag(commands.choices[name])


def _project(args: argparse.Namespace, *, create: bool) -> sqlite3.Connection | None:
    """The project database: proposals live there whatever --global says (it names where an
    accepted learning goes)."""
    try:
        return open_database(database.paths(args)["project"], create=create)
    except Missing:
        return None


def run_capture(args: argparse.Namespace) -> int:
    from cortex_hooks.capture import scanning

    connection = _project(args, create=True)
    assert connection is not None
    path = location.cli_database(getattr(args, "db", None))
    with closing(connection):
        try:
            outcome = scanning.scan(
                connection,
                args.transcript,
                args.session,
                deadline=time.monotonic() + 3600,
                now=clock.iso(clock.now()),
                policy=location.config_for(path).policy,
                dry_run=args.dry_run,
            )
        except (OSError, ValueError) as error:
            reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
            raise CortexError(f"cannot read transcript {args.transcript}: {reason}", USAGE) from None
        proposed = outcome.records  # on a dry run too: what the run would propose
    if args.json:
        render.emit_json(
            {
                "proposed": proposed,
                "candidates": outcome.candidates,
                "skipped": [{"reason": reason} for reason in outcome.skipped],
            }
        )
        return 0
    dry = " (dry run: nothing written)" if args.dry_run else ""
    render.say(
        f"Scanned session {render.clean(outcome.session_id, one_line=True)}: {outcome.candidates} candidate"
        f"{'' if outcome.candidates == 1 else 's'}, {len(outcome.proposed)} new proposal"
        f"{'' if len(outcome.proposed) == 1 else 's'}{dry}."
    )
    from cortex_hooks.capture import texts

    for proposal in proposed:
        render.say(texts.detail(proposal))
    for reason in outcome.skipped:
        render.note(f"skipped: {reason}")
    return 0


def _record(connection: sqlite3.Connection, proposal_id: int) -> dict[str, Any]:
    from cortex_hooks.capture import texts

    row = proposals.get(connection, proposal_id)
    if row is None:
        raise unknown("proposal", proposal_id)
    return texts.record(row, proposals.occurrences(connection, proposal_id))


def run_proposals(args: argparse.Namespace) -> int:
    from cortex_hooks.capture import texts

    connection = _project(args, create=False)
    found: list[dict[str, Any]] = []
    if connection is not None:
        with closing(connection):
            statuses = proposals.SHOWN if args.all else proposals.PENDING
            found = [
                texts.record(row, proposals.occurrences(connection, int(row["id"])))
                for row in proposals.listed(connection, statuses)
            ]
    if args.json:
        render.emit_json(found)
    elif not found:
        render.say("No proposals await an answer.")
    else:
        render.say("\n".join(texts.detail(proposal) for proposal in found))
    return 0


def _pending(connection: sqlite3.Connection | None, proposal_id: int) -> sqlite3.Row:
    row = proposals.get(connection, proposal_id) if connection is not None else None
    if row is None:
        raise unknown("proposal", proposal_id)
    if row["status"] not in ("proposed", "expired"):
        raise CortexError(f"proposal #{proposal_id} is {row['status']} already", USAGE)
    return row


def run_accept(args: argparse.Namespace) -> int:
    from cortex_hooks.cli.learnings import _load, row_values
    from cortex_hooks.guard.records import LearningFields
    from cortex_hooks.store import learnings
    from cortex_hooks.validation import validated

    project = _project(args, create=False)
    row = _pending(project, args.id)
    assert project is not None
    given = {
        "anti_pattern": row["anti_pattern"],
        "correct_pattern": row["correct_pattern"],
        "regex": args.regex if args.regex is not None else row["regex"],
        "tool": row["tool"],
        "auto_block": args.auto_block,
        "confidence": confidence.show(database.config(args).policy.start),
        "context": f"Captured by cortex-hooks ({row['signal']}, proposal #{row['id']}).",
    }
    fields: LearningFields = validated(LearningFields, given, "invalid learning")
    now = clock.iso(clock.now())
    scope = database.scope(args)
    with closing(project):
        if scope == "project":
            with Transaction(project):  # one database: the learning and the answer together
                learning_id = learnings.insert(project, row_values(fields, now))
                proposals.accepted(project, args.id, learning_id, scope, now)
            learning = _load(project, learning_id)
        else:
            with closing(database.for_writing(args)) as target:
                with Transaction(target):
                    learning_id = learnings.insert(target, row_values(fields, now))
                learning = _load(target, learning_id)
            with Transaction(project):
                proposals.accepted(project, args.id, learning_id, scope, now)
    mode = "auto-block" if args.auto_block else "warn-only"
    where = " (global)" if scope == "global" else ""
    render.emit(args, learning, f"Accepted proposal #{args.id} as learning #{learning_id}{where}, {mode}.")
    return 0


def run_reject(args: argparse.Namespace) -> int:
    project = _project(args, create=False)
    row = _pending(project, args.id)
    assert project is not None
    with closing(project):
        with Transaction(project):
            proposals.reject(project, args.id, str(row["fingerprint"]), clock.iso(clock.now()))
        record = _record(project, args.id)
    if args.json:
        render.emit_json(record)
    else:
        render.say(f"Rejected proposal #{args.id}: it will not be proposed again.")
    return 0
