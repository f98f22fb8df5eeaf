"""SessionEnd: decay every unpinned, active learning once per session; store the session summary."""

from __future__ import annotations

import sqlite3

from cortex_hooks import clock, hooks, protocol, settings, transcript
from cortex_hooks.store import Transaction, learnings, sessions


def main() -> int:
    return hooks.run("SessionEnd", parse, handle)


def parse(payload: dict[str, object]) -> protocol.SessionEndPayload:
    return protocol.parse(protocol.SessionEndPayload, payload)


def handle(
    payload: protocol.SessionEndPayload, connection: sqlite3.Connection, database: str
) -> hooks.Outcome:
    config = settings.for_database(database)
    now = clock.iso(clock.now())
    summary, notes = _summary(payload.transcript_path)  # read before the write lock is taken
    with Transaction(connection):
        if sessions.has_ended(connection, payload.session_id):
            return hooks.Outcome()  # a repeated SessionEnd: the session has decayed already
        learnings.decay_all(connection, config.policy)
        sessions.record_end(
            connection,
            payload.session_id,
            reason=payload.reason,
            now=now,
            summary=summary.summary,
            key_changes=summary.key_changes,
        )
    return hooks.Outcome(notes=notes)


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
