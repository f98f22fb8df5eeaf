"""CLI commands of capture (docs/guide/capture.md): capture, proposals, accept, reject."""

from __future__ import annotations

import argparse
from typing import Any

from cortex_hooks.api import capture as api
from cortex_hooks.api.wording import clean
from cortex_hooks.cli import database, options, render

SUGGESTED = "\0suggested"  # `accept ID --rewrite` without TEXT: the proposal's suggested rewrite


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    capture = commands.add_parser("capture", parents=[common], help="scan a transcript for proposals now")
    what = capture.add_mutually_exclusive_group(required=True)
    what.add_argument("--transcript", metavar="PATH", help="a Claude Code transcript (.jsonl)")
    what.add_argument(
        "--claude-memory",
        action="store_true",
        help="the rules of Claude Code's own memory (its auto memory and the project's CLAUDE.md files)",
    )
    capture.add_argument("--session", metavar="ID", help="its session id (default: the transcript's own)")
    capture.add_argument("--dry-run", action="store_true", help="report what it finds, write nothing")
    capture.set_defaults(run=run_capture)

    listing = commands.add_parser("proposals", parents=[common], help="list proposals awaiting an answer")
    listing.add_argument("--all", action="store_true", help="also accepted, rejected and expired ones")
    listing.set_defaults(run=run_proposals)

    accept = commands.add_parser("accept", parents=[common], help="make a proposal an active learning")
    accept.add_argument("id", type=options.record_id, metavar="ID", help="the proposal's id")
    accept.add_argument(
        "--action", metavar="ACTION", help="block (deny), ask (the user decides) or warn (the default)"
    )
    accept.add_argument("--auto-block", action="store_true", help="deny matching calls (--action block)")
    accept.add_argument("--regex", metavar="PATTERN", help="use this regex instead of the proposed one")
    accept.add_argument(
        "--rewrite",
        nargs="?",
        const=SUGGESTED,
        metavar="TEXT",
        help="correct the match in the command that runs: the suggested rewrite, or TEXT",
    )
    accept.add_argument(
        "--dry-run", action="store_true", help="replay the learning it would make; accept nothing"
    )
    accept.set_defaults(run=run_accept)

    reject = commands.add_parser("reject", parents=[common], help="refuse a proposal: never proposed again")
    reject.add_argument("id", type=options.record_id, metavar="ID", help="the proposal's id")
    reject.set_defaults(run=run_reject)
    for name in ("capture", "proposals", "accept", "reject"):
        options.json_flag(commands.choices[name])


def run_capture(args: argparse.Namespace) -> int:
    from cortex_hooks.capture import texts

    if args.claude_memory:
        from cortex_hooks.api import claude_memory

        scanned = claude_memory.capture(database.of(args), database.notes(), dry_run=args.dry_run)
    else:
        scanned = api.scan(
            database.of(args), args.transcript, database.notes(), session=args.session, dry_run=args.dry_run
        )
    outcome = scanned.outcome
    if args.json:
        render.emit_json(
            {
                "proposed": scanned.proposed,
                "candidates": outcome.candidates,
                "skipped": [{"reason": reason} for reason in outcome.skipped],
            }
        )
        return 0
    dry = " (dry run: nothing written)" if args.dry_run else ""
    scanned_what = (
        "Claude Code's memory"
        if args.claude_memory
        else f"session {clean(outcome.session_id, one_line=True)}"
    )
    render.say(
        f"Scanned {scanned_what}: {outcome.candidates} candidate"
        f"{'' if outcome.candidates == 1 else 's'}, {len(outcome.proposed)} new proposal"
        f"{'' if len(outcome.proposed) == 1 else 's'}{dry}."
    )
    for proposal in scanned.proposed:
        render.say(texts.detail(proposal))
    for reason in outcome.skipped:
        render.note(f"skipped: {reason}")
    return 0


def run_proposals(args: argparse.Namespace) -> int:
    from cortex_hooks.capture import texts

    found = api.listing(database.of(args), every=args.all)
    if args.json:
        render.emit_json(found)
    elif not found:
        render.say("No proposals await an answer.")
    else:
        render.say("\n".join(texts.detail(proposal) for proposal in found))
    return 0


def run_accept(args: argparse.Namespace) -> int:
    where = database.of(args)
    suggested = args.rewrite is SUGGESTED
    answer = api.Answer(
        args.action, args.auto_block, args.regex, None if suggested else args.rewrite, suggested
    )
    if args.dry_run:
        return _preview(args, where, answer)
    learning = api.accept(where, args.id, database.notes(), answer)
    mode = {"block": "auto-block", "ask": "ask", "warn": "warn-only"}[learning.action]
    if learning.rewrite is not None:
        mode += f", rewrite to {clean(learning.rewrite, one_line=True)!r}"
    scope = " (global)" if where.scope == "global" else ""
    render.emit(args, learning, f"Accepted proposal #{args.id} as learning #{learning.id}{scope}, {mode}.")
    return 0


def _preview(args: argparse.Namespace, where: Any, answer: api.Answer) -> int:
    """accept --dry-run: the learning it would make, replayed over this project's transcripts."""
    from cortex_hooks.api import replay
    from cortex_hooks.api.replay import replayed
    from cortex_hooks.cli.replay_command import Progress

    with Progress(shown=not args.json) as progress:
        fields, result = replay.of_accepting(where, args.id, answer, database.notes(), progress)
    if args.json:
        render.emit_json({"learning": fields.model_dump(mode="json"), "dry_run": True, "replay": result})
    else:
        title = f"Would accept proposal #{args.id} as a {fields.action} learning (dry run: nothing accepted)."
        render.say(replayed(result, title=title))
    return 0


def run_reject(args: argparse.Namespace) -> int:
    record = api.reject(database.of(args), args.id)
    if args.json:
        render.emit_json(record)
    else:
        render.say(f"Rejected proposal #{args.id}: it will not be proposed again.")
    return 0
