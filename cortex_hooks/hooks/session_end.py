"""SessionEnd: decay every unpinned, active learning once per session; store the session summary."""

from __future__ import annotations

import sqlite3
import sys

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
    summary = _summary(payload.transcript_path)  # read before the write lock is taken
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
    return hooks.Outcome()


def _summary(path: str | None) -> transcript.Summary:
    """The transcript's summary; an unreadable transcript only costs the summary, not the decay."""
    if not path:
        return transcript.Summary(None, [])
    try:
        return transcript.summarize(path)
    except OSError as error:
        print(
            f"cortex-hooks: SessionEnd: transcript not read ({error.strerror or error})",
            file=sys.stderr,
        )
        return transcript.Summary(None, [])
