"""SessionEnd: decay every unpinned, active learning once per session; store the session summary."""

from __future__ import annotations

import sqlite3

from cortex_hooks import clock, hand_edits, location, payloads, transcript
from cortex_hooks.hooks import pipeline
from cortex_hooks.store import learnings, pending, sessions
from cortex_hooks.store.connection import Transaction, locked


def main() -> int:
    return pipeline.run("SessionEnd", parse, handle)


def parse(payload: dict[str, object]) -> payloads.SessionEndPayload:
    return payloads.parse(payloads.SessionEndPayload, payload)


def handle(
    payload: payloads.SessionEndPayload, connection: sqlite3.Connection, database: str
) -> pipeline.Outcome:
    config = location.config_for(database)
    now = clock.iso(clock.now())
    notes: list[str] = []
    # The decay first, in its own transaction: it must never wait for, or depend on, the
    # transcript (a FIFO, /dev/zero, a huge file). The summary is a second, small write.
    try:
        with Transaction(connection):
            if sessions.has_ended(connection, payload.session_id):
                return pipeline.Outcome()  # a repeated SessionEnd: the session has decayed already
            learnings.decay_all(connection, config.policy)
            sessions.record_end(connection, payload.session_id, reason=payload.reason, now=now)
    except sqlite3.OperationalError as error:
        if not locked(error):
            raise
        # Another process holds the write lock: the decay is kept, never lost, and applied once
        # (store.pending checks the session has not ended when it applies it).
        pending.append(database, "end", session=payload.session_id, reason=payload.reason, now=now)
        notes.append("another process holds the database's write lock: the session end is kept for later")
    summary, problems = _summary(payload.transcript_path)
    notes += problems
    if summary.summary is not None or summary.key_changes:
        try:
            with Transaction(connection):
                sessions.record_summary(
                    connection, payload.session_id, summary=summary.summary, key_changes=summary.key_changes
                )
        except sqlite3.OperationalError as error:
            if not locked(error):
                raise
            kept = {"summary": summary.summary, "key_changes": summary.key_changes}
            pending.append(database, "summary", session=payload.session_id, now=now, **kept)
    notes += hand_edits.notes(learnings.odd_confidences(connection))  # not decayed: named
    return pipeline.Outcome(notes=notes)


def _summary(path: str | None) -> tuple[transcript.Summary, list[str]]:
    """The transcript's summary; an unreadable transcript only costs the summary (and a note),
    never the decay."""
    if not path:
        return transcript.Summary(None, []), []
    try:
        return transcript.summarize(path), []
    except (OSError, ValueError) as error:  # ValueError: a path open() refuses (a NUL byte)
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        return transcript.Summary(None, []), [f"transcript not read ({reason})"]
