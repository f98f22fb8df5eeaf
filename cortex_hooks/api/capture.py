"""Capture (docs/guide/capture.md): a transcript scanned for proposals now, the proposals awaiting an
answer, and the answers: accept (an active learning) or reject (never proposed again).

Proposals live in the project's database whatever scope a call acts on (the scope names where
an accepted learning goes)."""

from __future__ import annotations

import sqlite3
import time
from contextlib import closing
from typing import Any

from cortex_hooks import clock, confidence
from cortex_hooks.api import databases as db
from cortex_hooks.api.databases import Databases
from cortex_hooks.errors import USAGE, CortexError, unknown
from cortex_hooks.frozen import Record
from cortex_hooks.notes import Notes
from cortex_hooks.store import proposals
from cortex_hooks.store.connection import Missing, open_database
from cortex_hooks.store.transaction import Transaction
from cortex_hooks.stored import capture_rows

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cortex_hooks.capture.scanning import Outcome
    from cortex_hooks.guard.learning_records import Learning, LearningFields

SCAN_SECONDS = 3600  # a scan asked for by a person is not cut short like SessionEnd's


def _project(databases: Databases, *, create: bool) -> sqlite3.Connection | None:
    try:
        return open_database(databases.project, create=create)
    except Missing:
        return None


class Scanned(Record):
    outcome: Outcome
    proposed: list[dict[str, Any]]  # the new proposals as `proposals --json` prints them (none if dry)


def scan(
    databases: Databases, transcript: str, notes: Notes, *, session: str | None = None, dry_run: bool = False
) -> Scanned:
    from cortex_hooks.capture import scanning

    connection = _project(databases, create=True)
    assert connection is not None
    policy = db.config(databases.acting_on("project"), notes).policy
    with closing(connection):
        try:
            outcome = scanning.scan(
                connection,
                transcript,
                session,
                deadline=time.monotonic() + SCAN_SECONDS,
                now=clock.iso(clock.now()),
                policy=policy,
                dry_run=dry_run,
            )
        except (OSError, ValueError) as error:
            reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
            raise CortexError(f"cannot read transcript {transcript}: {reason}", USAGE) from None
        proposed = outcome.records  # on a dry run too: what the run would propose
    return Scanned(outcome, proposed)


def record(connection: sqlite3.Connection, proposal_id: int) -> dict[str, Any]:
    """A proposal as `proposals --json` prints it."""
    from cortex_hooks.capture import texts

    row = proposals.get(connection, proposal_id)
    if row is None:
        raise unknown("proposal", proposal_id)
    return texts.record(row, proposals.occurrences(connection, proposal_id))


def listing(databases: Databases, *, every: bool = False) -> list[dict[str, Any]]:
    """The proposals awaiting an answer (`every`: also accepted, rejected and expired ones)."""
    from cortex_hooks.capture import texts

    connection = _project(databases, create=False)
    if connection is None:
        return []
    with closing(connection):
        statuses = proposals.SHOWN if every else proposals.PENDING
        return [
            texts.record(row, proposals.occurrences(connection, row.id))
            for row in proposals.listed(connection, statuses)
        ]


def _pending(connection: sqlite3.Connection | None, proposal_id: int) -> capture_rows.Proposal:
    row = proposals.get(connection, proposal_id) if connection is not None else None
    if row is None:
        raise unknown("proposal", proposal_id)
    if row.status not in ("proposed", "expired"):
        raise CortexError(f"proposal #{proposal_id} is {row.status} already", USAGE)
    return row


class Answer(Record):
    """How a proposal is accepted: its action, a regex instead of the proposed one, a rewrite
    (`suggested`: the one capture proposed, failed-then-fixed's fix)."""

    action: str | None = None  # block, ask or warn (None: warn, or block with auto_block)
    auto_block: bool = False  # the older flag: action block
    regex: str | None = None
    rewrite: str | None = None
    suggested: bool = False


def preview(databases: Databases, proposal_id: int, notes: Notes, answer: Answer) -> LearningFields:
    """The learning accepting the proposal would make, validated, nothing written (accept
    --dry-run replays it)."""
    project = _project(databases, create=False)
    row = _pending(project, proposal_id)
    assert project is not None
    project.close()
    return _fields(databases, row, notes, answer)


def _fields(databases: Databases, row: capture_rows.Proposal, notes: Notes, answer: Answer) -> LearningFields:
    from cortex_hooks.guard.learning_records import LearningFields
    from cortex_hooks.validation import validated

    rewrite = answer.rewrite
    if row.signal == "followed":  # a rewrite of a learning: the rewrite is what is proposed
        rewrite = row.rewrite
    if answer.suggested:
        rewrite = row.rewrite
        if rewrite is None:
            raise CortexError(
                f"proposal #{row.id} carries no suggested rewrite: give one (--rewrite TEXT)", USAGE
            )
    given: dict[str, Any] = {
        "anti_pattern": row.anti_pattern,
        "correct_pattern": row.correct_pattern,
        "regex": answer.regex if answer.regex is not None else row.regex,
        "tool": row.tool,
        "confidence": confidence.show(db.config(databases, notes).policy.start),
        "context": f"Captured by cortex-hooks ({row.signal}, proposal #{row.id}).",
    }
    if answer.action is not None:
        given["action"] = answer.action
    if answer.auto_block:
        given["auto_block"] = True
    if rewrite is not None:
        given["rewrite"] = rewrite
    fields: LearningFields = validated(LearningFields, given, "invalid learning")
    return fields


WARN_ONLY = Answer()  # accept as proposed: warn only


def accept(databases: Databases, proposal_id: int, notes: Notes, answer: Answer = WARN_ONLY) -> Learning:
    """The proposal as an active learning in the scope acted on, at the start confidence; warn
    only unless the answer gives an action (or auto_block); its regex and rewrite if given."""
    from cortex_hooks.api.learnings import load, row_values
    from cortex_hooks.store import learnings

    project = _project(databases, create=False)
    row = _pending(project, proposal_id)
    assert project is not None
    if row.signal == "followed":
        project.close()
        return _rewrite(databases, row, notes, answer)
    fields = _fields(databases, row, notes, answer)
    now = clock.iso(clock.now())
    with closing(project):
        if databases.scope == "project":
            with Transaction(project):  # one database: the learning and the answer together
                learning_id = learnings.insert(project, row_values(fields, now))
                proposals.accepted(project, proposal_id, learning_id, databases.scope, now)
            return load(project, learning_id)
        with closing(db.for_writing(databases, notes)) as target:
            with Transaction(target):
                learning_id = learnings.insert(target, row_values(fields, now))
            learning = load(target, learning_id)
        with Transaction(project):
            proposals.accepted(project, proposal_id, learning_id, databases.scope, now)
        return learning


def _rewrite(databases: Databases, row: capture_rows.Proposal, notes: Notes, answer: Answer) -> Learning:
    """A rewrite the agent's own retry showed, given to the learning it is for, in the
    scope it lives in; its other fields stay as they are."""
    from cortex_hooks.api import learnings

    learning_id, scope = row.learning_id, row.learning_scope
    if answer != WARN_ONLY:
        raise CortexError(
            f"proposal #{row.id} is a rewrite of learning #{learning_id}: accept it as it is "
            f"(its action and regex are the learning's own: cortex-hooks update {learning_id})",
            USAGE,
        )
    if learning_id is None or scope not in ("project", "global"):
        raise CortexError(f"proposal #{row.id} names no learning to rewrite", USAGE)
    learning = learnings.update(databases.acting_on(scope), learning_id, {"rewrite": row.rewrite}, notes)
    project = _project(databases, create=False)
    assert project is not None
    with closing(project), Transaction(project):
        proposals.accepted(project, row.id, learning_id, scope, clock.iso(clock.now()))
    return learning


def reject(databases: Databases, proposal_id: int) -> dict[str, Any]:
    """The proposal refused: its fingerprint is never proposed again."""
    project = _project(databases, create=False)
    row = _pending(project, proposal_id)
    assert project is not None
    with closing(project):
        with Transaction(project):
            proposals.reject(project, proposal_id, row.fingerprint, clock.iso(clock.now()))
        return record(project, proposal_id)
