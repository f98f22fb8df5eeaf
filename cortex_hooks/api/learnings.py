"""Learnings: add, list, show, update, and pin, unpin, keep, archive, restore one."""

from __future__ import annotations

import shlex
import sqlite3
from contextlib import closing
from typing import Any, TypedDict

from cortex_hooks import clock, confidence, stored
from cortex_hooks.api import databases as db
from cortex_hooks.api.databases import Databases
from cortex_hooks.api.wording import clean, fit, times
from cortex_hooks.errors import USAGE, CortexError, unknown
from cortex_hooks.frozen import Record
from cortex_hooks.guard import actions, pruning
from cortex_hooks.guard.learning_records import Learning, LearningFields, Outcomes, RetriedCall
from cortex_hooks.guard.weakening import Protection, Weakens, lowered
from cortex_hooks.judging import protection as built_in
from cortex_hooks.notes import Notes
from cortex_hooks.store import kinds, outcomes
from cortex_hooks.store import learnings as store
from cortex_hooks.store.connection import Transaction
from cortex_hooks.validation import validated

CHANGES = ("pin", "unpin", "keep", "archive", "restore")


class Given(TypedDict, total=False):
    """The fields of a learning as a person or the agent gives them (LearningFields checks them)."""

    anti_pattern: str
    correct_pattern: str
    regex: str | None  # None: no regex (update: removes it)
    tool: str
    target: str
    severity: str
    action: str  # block, ask or warn (docs/guide/actions.md)
    auto_block: bool  # the older flag, an alias: true is action block, false warn
    rewrite: str | None  # a Bash learning's correction of its match; None (update): removes it
    pinned: bool
    confidence: float | str  # 0.75 or "0.75"
    context: str
    examples: dict[str, list[str]]  # deny and allow lists (update: each kind given replaces its list)


class Changed(Record):
    """A learning after pin, unpin, keep, archive or restore."""

    learning: Learning
    change: str
    prunes_again: bool  # restored, but old and little used: the next session start archives it again


NO_REGEX = (
    "a learning without a regex never matches: give --regex PATTERN, or --no-regex to keep it as "
    "a reminder (it shows in lists and the snapshot)"
)


def add(databases: Databases, given: Given, notes: Notes) -> Learning:
    """A new learning; without a confidence it starts at the configured start value.
    One without a regex never matches: it must say so (`regex: None`), else it is refused."""
    values: dict[str, Any] = dict(given)
    if "confidence" not in values:
        values["confidence"] = confidence.show(db.config(databases, notes).policy.start)
    try:
        fields: LearningFields = validated(LearningFields, values, "invalid learning")
    except CortexError as error:
        if "regex" in given:
            raise
        raise CortexError(
            f"invalid learning: regex: {NO_REGEX}; {error.message.removeprefix('invalid learning: ')}", USAGE
        ) from None
    if "regex" not in given:
        raise CortexError(f"invalid learning: regex: {NO_REGEX}", USAGE)
    _laundering(fields)
    now = clock.iso(clock.now())
    with closing(db.for_writing(databases, notes)) as connection:
        with Transaction(connection):
            learning_id = store.insert(connection, row_values(fields, now))
        db.embed_written(databases, connection, "learning", [learning_id], notes)
        return load(connection, learning_id)


def row_values(fields: LearningFields, now: str, **stored: Any) -> dict[str, Any]:
    """Every column of a new learning row: the fields given, then counters and times."""
    values: dict[str, Any] = fields.model_dump()
    values.update(access_count=0, last_accessed=None, created_at=now, updated_at=now, archived_at=None)
    values.update((name, value) for name, value in stored.items() if value is not None)
    if stored.get("created_at") and not stored.get("updated_at"):
        values["updated_at"] = values["created_at"]  # an imported old learning is not a recent one
    return values


def listing(databases: Databases, shown: str, notes: Notes, *, review: bool = False) -> list[Learning]:
    """The learnings shown (active, archived or all; with `review`, only those awaiting review).
    Not an access."""
    connection = db.for_reading(databases)
    if connection is None:
        return []
    with closing(connection):
        policy = db.config(databases, notes).policy if review else None
        return with_outcomes(connection, records(store.select(connection, shown, policy)))


def show(databases: Databases, learning_id: int) -> Learning:
    """One learning; showing it counts as an access (docs/guide/confidence.md)."""
    connection = db.for_reading(databases)
    if connection is None:
        raise unknown("learning", learning_id)
    with closing(connection):
        with Transaction(connection):
            if not kinds.record_access(connection, "learnings", learning_id, clock.iso(clock.now())):
                raise unknown("learning", learning_id)
        return load(connection, learning_id)


def with_outcomes(connection: sqlite3.Connection, learnings: list[Learning]) -> list[Learning]:
    """These learnings with what the agent did after their catches: counted over their
    whole history, and the latest call each was retried with."""
    ids = [learning.id for learning in learnings]
    counted = outcomes.totals(connection, ids) if ids else {}
    retried = outcomes.last(connection, ids) if ids else {}
    shown = []
    for learning in learnings:
        counts = counted.get(learning.id, {})
        caught = counts.get("caught", 0)
        decided = {name: counts.get(name, 0) for name in ("followed", "retried", "asked")}
        last = retried.get(learning.id)
        example = None
        if last is not None:
            example = RetriedCall(at=last.at, tool=last.tool, call=last.call, retried_with=last.next_call)
        found = Outcomes(
            caught=caught, **decided, unknown=max(caught - sum(decided.values()), 0), last_retried=example
        )
        shown.append(learning.model_copy(update={"outcomes": found}))
    return shown


def update(
    databases: Databases, learning_id: int, changes: Given, notes: Notes, *, may_weaken: bool = True
) -> Learning:
    """The learning with the fields given changed and the others as they were; `regex: None`
    removes its regex. Without a confidence the stored one stays, decayed or not. Unless it
    `may_weaken` (the person's own command), a change that would lower the learning's protection
    is refused (guard.weakening.Weakens) and nothing is written."""
    if not changes:
        raise CortexError("nothing to update: give at least one option (see update --help)", USAGE)
    now = clock.iso(clock.now())
    changes = _aliased(changes)
    with closing(db.for_changing(databases, unknown("learning", learning_id))) as connection:
        with Transaction(connection):
            current = load(connection, learning_id)
            kept = set(LearningFields.model_fields) - {"confidence", "auto_block"}
            merged = {**current.model_dump(include=kept), **changes}
            if "examples" in changes:  # the kinds given replace theirs, the other kind stays
                merged["examples"] = {**(current.examples or {}), **changes["examples"]}
            context = {"kept": set(merged) - set(changes)}  # stored as they are: not judged again
            fields: LearningFields = validated(LearningFields, merged, "invalid learning", context=context)
            if "rewrite" in changes or "regex" in changes:
                _laundering(fields)
            if not may_weaken:
                after = fields.confidence if "confidence" in changes else _hundredths(current)
                reasons = lowered(protection(current), protection(current, fields, after))
                if reasons:
                    raise Weakens(f"this change to learning #{learning_id}", reasons)
            values = fields.model_dump(exclude=None if "confidence" in changes else {"confidence"})
            values["updated_at"] = now
            # values hold the regex and target, so the prefilter data is derived again: an
            # update also repairs stale data (see doctor).
            store.update(connection, learning_id, values)
        # its vector went with a change of its text
        db.embed_written(databases, connection, "learning", [learning_id], notes)
        return load(connection, learning_id)


def refuse_laundering(fields: LearningFields) -> None:
    """A rewrite whose text the built-in protection would refuse is refused: a learning
    must not turn the agent's next call into one that weakens the guard. (The judge refuses such a
    corrected command anyway; this says so when the learning is written.)"""
    if fields.rewrite is None or fields.regex is None:
        return
    refused = built_in.of_rewrite(fields.regex, fields.rewrite)
    if refused is not None:
        raise CortexError(f"rewrite: {refused}", USAGE)


def _laundering(fields: LearningFields) -> None:
    try:
        refuse_laundering(fields)
    except CortexError as error:
        raise CortexError(f"invalid learning: {error.message}", USAGE) from None


def _aliased(changes: Given) -> Given:
    """A change given as `auto_block` alone is a change of the action (the stored learning's own
    action must not be read as contradicting it); given with `action`, the two are checked
    together by LearningFields."""
    if "auto_block" not in changes or "action" in changes:
        return changes
    values: dict[str, Any] = dict(changes)
    values["action"] = actions.of_auto_block(bool(values.pop("auto_block")))
    return values  # type: ignore[return-value]


def change(databases: Databases, learning_id: int, what: str, notes: Notes) -> Changed:
    """Pin, unpin, keep (the review answer: trusted again from the start value), archive (never
    deletes) or restore one learning."""
    instant = clock.now()
    now = clock.iso(instant)
    config = db.config(databases, notes)
    with closing(db.for_changing(databases, unknown("learning", learning_id))) as connection:
        with Transaction(connection):
            current = load(connection, learning_id)
            store.update(connection, learning_id, _columns(what, current, config.policy, now))
        learning = load(connection, learning_id)
    exempt = learning.pinned or learning.action != "warn" or not config.prune
    prunes = pruning.Cutoffs(instant, config).prunes(learning.created_at, learning.access_count)
    return Changed(learning, what, what == "restore" and not exempt and prunes)


def _columns(what: str, current: Learning, policy: confidence.Policy, now: str) -> dict[str, Any]:
    """The columns one of pin, unpin, keep, archive, restore sets."""
    if what == "archive":
        return {"archived_at": current.archived_at or now}  # archiving twice keeps the first date
    values: dict[str, dict[str, Any]] = {
        "pin": {"pinned": 1},
        "unpin": {"pinned": 0},
        "keep": {"confidence": policy.start},
        "restore": {"archived_at": None},
    }
    return {**values[what], "updated_at": now}


def protection(
    learning: Learning, fields: LearningFields | None = None, hundredths: int | None = None
) -> Protection:
    """What of a stored learning protects, or of it with these fields and confidence instead."""
    given = fields or learning
    return Protection(
        given.regex,
        given.tool,
        given.target,
        given.action,
        _hundredths(learning) if hundredths is None else hundredths,
        given.pinned,
        learning.archived_at is not None,
        given.rewrite,
        correct=given.correct_pattern,
        anti=given.anti_pattern,
        severity=given.severity,
    )


def _hundredths(learning: Learning) -> int:
    return round(learning.confidence * 100)


def records(rows: list[stored.Learning]) -> list[Learning]:
    """The learnings of these rows (the schema refuses a value the code could not read)."""
    return [Learning.from_row(row) for row in rows]


def load(connection: sqlite3.Connection, learning_id: int) -> Learning:
    """One stored learning as a record, with its outcomes."""
    row = store.get(connection, learning_id)
    if row is None:
        raise unknown("learning", learning_id)
    return with_outcomes(connection, [Learning.from_row(row)])[0]


# What people read of it, from the CLI and the MCP server alike. The texts of learnings: the table
# `list` prints, one learning in full, what a change did.

_VERBS = {"pin": "Pinned", "unpin": "Unpinned", "keep": "Kept", "archive": "Archived", "restore": "Restored"}


def flags(learning: Learning) -> str:
    marks = []
    if learning.action == "block":
        marks.append("auto-block")
    elif learning.action == "ask":
        marks.append("ask")
    if learning.rewrite is not None:
        marks.append("rewrite")
    if learning.pinned:
        marks.append("pinned")
    if learning.archived_at:
        marks.append("archived")
    return ",".join(marks) or "-"


def table(learnings: list[Learning], width: int | None = None) -> str:
    """One line per learning: id, confidence, how often it caught a call and what the agent did
    next (followed / retried), flags, tool and target, anti-pattern -> correct; each line cut to
    `width` characters (None: whole, for a pipe or a file)."""
    if not learnings:
        return "No learnings."
    lines = [
        f"{'ID':>4}  {'CONF':<4}  {'CAUGHT':>6} {'FOL/RET':>7}  {'FLAGS':<20} {'TOOL/TARGET':<18} "
        "ANTI-PATTERN -> CORRECT"
    ]
    for learning in learnings:
        where = f"{clean(learning.tool, one_line=True)}/{learning.target}"
        text = (
            f"{clean(learning.anti_pattern, one_line=True)} -> "
            f"{clean(learning.correct_pattern, one_line=True)}"
        )
        caught, outcome = _caught(learning)
        lines.append(
            f"{learning.id:>4}  {learning.confidence:.2f}  {caught:>6} {outcome:>7}  {flags(learning):<20} "
            f"{where:<18} {text}"
        )
    return "\n".join(fit(line, width) for line in lines)


def _caught(learning: Learning) -> tuple[str, str]:
    """A learning's catches and, of them, how many the agent followed and retried (`-`: none)."""
    outcomes = learning.outcomes
    if outcomes is None or not outcomes.caught:
        return "-", "-"
    return str(outcomes.caught), f"{outcomes.followed}/{outcomes.retried}"


def outcome_lines(learning: Learning) -> list[tuple[str, str]]:
    """What the agent did after a learning's catches, in words (show), with its last retried call."""
    outcomes = learning.outcomes
    if outcomes is None:
        return []
    counted = (
        f"{times(outcomes.caught)}: followed {outcomes.followed}, retried {outcomes.retried}, "
        f"the person answered {outcomes.asked}, unknown {outcomes.unknown}"
        if outcomes.caught
        else "never (it has denied, asked about or corrected no call)"
    )
    rows = [("caught", counted)]
    last = outcomes.last_retried
    if last is not None:
        retried = f"{last.at} {last.tool}: {last.call}"
        if last.retried_with:
            retried += f" -> then: {last.retried_with}"
        rows.append(("last retried", retried))
    return rows


def detail(learning: Learning) -> str:
    rows = [
        ("anti-pattern", learning.anti_pattern),
        ("correct", learning.correct_pattern),
        ("regex", learning.regex or "(none: never matches)"),
        ("tool", learning.tool),
        ("target", learning.target),
        ("severity", learning.severity),
        ("action", learning.action),
        ("rewrite", learning.rewrite if learning.rewrite != "" else "(empty: the match is removed)"),
        ("confidence", confidence.show(round(learning.confidence * 100))),
        ("flags", flags(learning)),
        ("accessed", times(learning.access_count) + f", last {learning.last_accessed or 'never'}"),
        *outcome_lines(learning),
        ("created", learning.created_at),
        ("updated", learning.updated_at),
        ("archived", learning.archived_at or "no"),
        ("context", learning.context or ""),
    ]
    body = "\n".join(f"  {name:<13} {clean(value)}" for name, value in rows if value)
    return f"Learning #{learning.id}\n{body}"


def added(learning: Learning) -> str:
    return f"Added learning #{learning.id}."


def updated(learning: Learning) -> str:
    return f"Updated learning #{learning.id}."


def changed(result: Changed) -> str:
    learning = result.learning
    if result.change == "keep":
        return f"Kept learning #{learning.id}: confidence back to {learning.confidence:.2f}."
    message = f"{_VERBS[result.change]} learning #{learning.id}."
    if result.prunes_again:
        message += (
            " It is old and little used, so the next session start would archive it again:"
            f" pin it (cortex-hooks pin {learning.id}) to keep it."
        )
    return message


_OPTIONS = {  # a learning's field -> its option of `cortex-hooks update`
    "anti_pattern": "--anti-pattern",
    "correct_pattern": "--correct",
    "regex": "--regex",
    "tool": "--tool",
    "target": "--target",
    "severity": "--severity",
    "action": "--action",
    "confidence": "--confidence",
    "context": "--context",
}


def update_command(learning_id: int, given: dict[str, Any], scope: str) -> str:
    """The `cortex-hooks update` a person types for these changes (`--regex=…` form: a value
    may begin with a dash), quoted for a POSIX shell."""
    words = ["cortex-hooks", "update", str(learning_id)]
    for field, option in _OPTIONS.items():
        if field in given:
            value = given[field]
            words.append("--no-regex" if value is None else f"{option}={value}")
    if "auto_block" in given:
        words.append("--auto-block" if given["auto_block"] else "--no-auto-block")
    if given.get("pinned"):
        words.append("--pin")
    if scope == "global":
        words.append("--global")
    return " ".join(shlex.quote(word) for word in words)
