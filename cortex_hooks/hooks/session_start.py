"""SessionStart: record the session, prune, then inject the review prompt and the snapshot."""

from __future__ import annotations

import sqlite3

from cortex_hooks import clock, hand_edits, location, payloads, protocol, review, startup
from cortex_hooks.hooks import pipeline
from cortex_hooks.store import learnings, pending, sessions
from cortex_hooks.store.connection import Transaction, locked


def main() -> int:
    return pipeline.run("SessionStart", parse, handle)


def parse(payload: dict[str, object]) -> payloads.SessionStartPayload:
    return payloads.parse(payloads.SessionStartPayload, payload)


def handle(
    payload: payloads.SessionStartPayload, connection: sqlite3.Connection, database: str
) -> pipeline.Outcome:
    config = location.config_for(database)
    now = clock.now()
    notes: list[str] = []
    try:
        with Transaction(connection):
            # A resumed or compacted session is already recorded: its row stays as it is, so the
            # context is injected again without counting a new session.
            sessions.record_start(connection, payload.session_id, payload.source, clock.iso(now))
    except sqlite3.OperationalError as error:
        if not locked(error):
            raise
        # another process holds the write lock: the context is read all the same
        pending.append(
            database, "start", session=payload.session_id, source=payload.source, now=clock.iso(now)
        )
        notes.append("another process holds the database's write lock: the session start is kept for later")
    if config.prune:
        try:
            with Transaction(connection):
                startup.prune(connection, config, now, dry_run=False)
        except (sqlite3.Error, ValueError) as error:  # pruning never costs the agent its context
            notes.append(f"pruning skipped: {error}")
    text, awaiting = startup.session_text(connection, config, now)
    notes += hand_edits.notes(learnings.odd_confidences(connection))  # never put to review: named
    if not text:
        return pipeline.Outcome(notes=notes)
    message = review.system_message(awaiting) if awaiting else None
    return pipeline.Outcome(protocol.session_start(text, message), notes=notes)
