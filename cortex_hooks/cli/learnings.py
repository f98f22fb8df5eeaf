"""CLI commands for learnings: add, list, show, update, pin/unpin, keep, archive/restore."""

from __future__ import annotations

import argparse
import sqlite3
from contextlib import closing
from typing import Any

from cortex_hooks import clock, confidence
from cortex_hooks.cli import database, options, render
from cortex_hooks.errors import USAGE, CortexError, unknown
from cortex_hooks.guard import hand_edits, pruning
from cortex_hooks.guard.records import Learning, LearningFields
from cortex_hooks.store import learnings as store
from cortex_hooks.store.connection import Transaction
from cortex_hooks.validation import validated

_FIELD_OPTIONS = {  # option dest -> LearningFields field
    "anti_pattern": "anti_pattern",
    "correct": "correct_pattern",
    "regex": "regex",
    "tool": "tool",
    "target": "target",
    "severity": "severity",
    "auto_block": "auto_block",
    "pin": "pinned",
    "confidence": "confidence",
    "context": "context",
}


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    add = commands.add_parser("add", parents=[common], help="record a learning")
    _field_options(add, required=True)
    add.set_defaults(run=run_add)

    listing = commands.add_parser("list", parents=[common], help="list learnings (not an access)")
    options.shown(listing)
    listing.add_argument("--review", action="store_true", help="only those awaiting review")
    listing.set_defaults(run=run_list)

    show = commands.add_parser("show", parents=[common], help="show one learning (an access)")
    show.set_defaults(run=run_show)

    update = commands.add_parser("update", parents=[common], help="change a learning")
    _field_options(update, required=False)
    update.add_argument("--no-auto-block", dest="auto_block", action="store_false")
    update.set_defaults(run=run_update)

    for name, help_text in (
        ("pin", "exempt from decay and pruning"),
        ("unpin", "subject to decay again"),
        ("keep", "review answer keep: confidence back to the start value"),
        ("archive", "hide (never deletes)"),
        ("restore", "bring back from the archive"),
    ):
        command = commands.add_parser(name, parents=[common], help=help_text)
        command.set_defaults(run=run_change, change=name)

    for command in (
        show,
        update,
        *(commands.choices[name] for name in ("pin", "unpin", "keep", "archive", "restore")),
    ):
        command.add_argument("id", type=options.record_id, metavar="ID")
    for command in commands.choices.values():
        options.json_flag(command)


def _field_options(parser: argparse.ArgumentParser, *, required: bool) -> None:
    parser.add_argument("--anti-pattern", required=required, metavar="TEXT")
    parser.add_argument("--correct", required=required, metavar="TEXT")
    regex = parser.add_mutually_exclusive_group()
    regex.add_argument("--regex", metavar="PATTERN", help="detection regex")
    if not required:  # update: an empty --regex is refused, so removing one is said out loud
        regex.add_argument("--no-regex", action="store_true", help="remove the regex (never matches)")
    parser.add_argument("--tool", metavar="MATCHER", help="Claude Code tool matcher (default *)")
    parser.add_argument("--target", help="content (default), raw, path or input")
    parser.add_argument("--severity", help="low, medium (default), high or critical")
    parser.add_argument("--auto-block", action="store_true", default=None)
    parser.add_argument("--pin", action="store_true", default=None)
    parser.add_argument("--confidence", metavar="X", help="0.30 to 0.90 (default 0.70)")
    parser.add_argument("--context", metavar="TEXT")


def _given(args: argparse.Namespace) -> dict[str, Any]:
    return {
        field: getattr(args, option)
        for option, field in _FIELD_OPTIONS.items()
        if getattr(args, option, None) is not None
    }


def run_add(args: argparse.Namespace) -> int:
    given = _given(args)
    if "confidence" not in given:  # the start value, as configured (SPEC §3, §7)
        given["confidence"] = confidence.show(database.config(args).policy.start)
    fields: LearningFields = validated(LearningFields, given, "invalid learning")
    now = clock.iso(clock.now())
    with closing(database.for_writing(args)) as connection:
        with Transaction(connection):
            learning_id = store.insert(connection, row_values(fields, now))
        database.embed_written(args, connection, "learning", [learning_id])
        learning = _load(connection, learning_id)
    render.emit(args, learning, f"Added learning #{learning_id}.")
    return 0


def row_values(fields: LearningFields, now: str, **stored: Any) -> dict[str, Any]:
    """Every column of a new learning row: the fields given, then counters and times."""
    values: dict[str, Any] = fields.model_dump()
    values.update(access_count=0, last_accessed=None, created_at=now, updated_at=now, archived_at=None)
    values.update((name, value) for name, value in stored.items() if value is not None)
    if stored.get("created_at") and not stored.get("updated_at"):
        values["updated_at"] = values["created_at"]  # an imported old learning is not a recent one
    return values


def run_list(args: argparse.Namespace) -> int:
    rows: list[sqlite3.Row] = []
    connection = database.for_reading(args)
    if connection is not None:
        with closing(connection):
            rows = store.select(connection, args.shown, database.config(args).policy if args.review else None)
    learnings = readable(rows)
    if args.json:
        render.emit_json(learnings)
    else:
        render.say(render.learning_table(learnings))
    return 0


def run_show(args: argparse.Namespace) -> int:
    connection = database.for_reading(args)
    if connection is None:
        raise unknown("learning", args.id)
    with closing(connection):
        with Transaction(connection):
            if not store.record_access(connection, args.id, clock.iso(clock.now())):
                raise unknown("learning", args.id)
        learning = _load(connection, args.id)
    if args.json:
        render.emit_json(learning)
    else:
        render.say(render.learning_detail(learning))
    return 0


def run_update(args: argparse.Namespace) -> int:
    changes = _given(args)
    if args.no_regex:
        changes["regex"] = None
    if not changes:
        raise CortexError("nothing to update: give at least one option (see update --help)", USAGE)
    now = clock.iso(clock.now())
    with closing(database.for_changing(args, unknown("learning", args.id))) as connection:
        with Transaction(connection):
            current = _load(connection, args.id)
            kept = set(LearningFields.model_fields) - {"confidence"}
            merged = {**current.model_dump(include=kept), **changes}
            fields: LearningFields = validated(LearningFields, merged, "invalid learning")
            # Without --confidence the stored value stays, decayed or not.
            values = fields.model_dump(exclude=None if "confidence" in changes else {"confidence"})
            values["updated_at"] = now
            # values hold the regex and target, so the prefilter data is derived again: an
            # update also repairs stale data (see doctor).
            store.update(connection, args.id, values)
        # its vector went with a change of its text
        database.embed_written(args, connection, "learning", [args.id])
        learning = _load(connection, args.id)
    render.emit(args, learning, f"Updated learning #{args.id}.")
    return 0


_VERBS = {"pin": "Pinned", "unpin": "Unpinned", "keep": "Kept", "archive": "Archived", "restore": "Restored"}


def _change(change: str, current: Learning, policy: confidence.Policy, now: str) -> dict[str, Any]:
    """The columns one of pin, unpin, keep, archive, restore sets."""
    if change == "archive":
        return {"archived_at": current.archived_at or now}  # archiving twice keeps the first date
    values: dict[str, dict[str, Any]] = {
        "pin": {"pinned": 1},
        "unpin": {"pinned": 0},
        "keep": {"confidence": policy.start},  # the review answer: trusted again from the start
        "restore": {"archived_at": None},
    }
    return {**values[change], "updated_at": now}


def run_change(args: argparse.Namespace) -> int:
    instant = clock.now()
    now = clock.iso(instant)
    config = database.config(args)
    with closing(database.for_changing(args, unknown("learning", args.id))) as connection:
        with Transaction(connection):
            current = _load(connection, args.id)
            store.update(connection, args.id, _change(args.change, current, config.policy, now))
        learning = _load(connection, args.id)
    message = f"{_VERBS[args.change]} learning #{args.id}."
    if args.change == "keep":
        message = f"Kept learning #{args.id}: confidence back to {learning.confidence:.2f}."
    exempt = learning.pinned or learning.auto_block or not config.prune
    cutoffs = pruning.Cutoffs(instant, config)
    if args.change == "restore" and not exempt and cutoffs.prunes(learning.created_at, learning.access_count):
        message += (
            " It is old and little used, so the next session start would archive it again:"
            f" pin it (cortex-hooks pin {args.id}) to keep it."
        )
    render.emit(args, learning, message)
    return 0


def readable_rows(rows: list[sqlite3.Row]) -> list[sqlite3.Row]:
    """The rows the code can read; each one a hand edit made unreadable is named on stderr."""
    good, notes = hand_edits.split(rows)
    for note in notes:
        render.note(note)
    return good


def readable(rows: list[sqlite3.Row]) -> list[Learning]:
    """The learnings of these rows, skipping (and naming) those that cannot be read."""
    return [Learning.from_row(row) for row in readable_rows(rows)]


def _load(connection: sqlite3.Connection, learning_id: int) -> Learning:
    row = store.get(connection, learning_id)
    if row is None:
        raise unknown("learning", learning_id)
    wrong = hand_edits.problem(row)
    if wrong is not None:
        raise CortexError(f"learning #{learning_id} cannot be read: {wrong}; run `{hand_edits.REPAIR}`")
    return Learning.from_row(row)
