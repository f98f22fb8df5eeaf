"""SessionEnd: decay every unpinned, active learning once per session; store the session summary."""

from __future__ import annotations

import sqlite3

from cortex_hooks import clock, hand_edits, location, payloads, transcript
from cortex_hooks.hooks import pipeline
from cortex_hooks.scopes import Scope
from cortex_hooks.store import learnings, pending, sessions
from cortex_hooks.store.connection import Transaction, locked


def main() -> int:
    return pipeline.run("SessionEnd", parse, handle)


def parse(payload: dict[str, object]) -> payloads.SessionEndPayload:
    return payloads.parse(payloads.SessionEndPayload, payload)


def handle(payload: payloads.SessionEndPayload, scopes: list[Scope]) -> pipeline.Outcome:
    """Each scope decays once per session (the global one therefore once per session in any
    project); then the transcript's summary, read once, is stored beside each end."""
    notes: list[str] = []
    now = clock.iso(clock.now())
    # The decay first, in its own transaction: it must never wait for, or depend on, the
    # transcript (a FIFO, /dev/zero, a huge file). The summary is a second, small write.
    ended = [scope for scope in scopes if _decay(scope, payload, now, notes)]
    if not ended:
        return pipeline.Outcome(notes=notes)  # a repeated SessionEnd: every scope has decayed already
    summary, problems = _summary(payload.transcript_path)
    notes += problems
    if summary.summary is not None or summary.key_changes:
        kept = {"summary": summary.summary, "key_changes": summary.key_changes}
        for scope in ended:
            try:
                with Transaction(scope.connection):
                    sessions.record_summary(
                        scope.connection,
                        payload.session_id,
                        summary=summary.summary,
                        key_changes=summary.key_changes,
                    )
            except sqlite3.OperationalError as error:
                if not locked(error):
                    raise
                pending.append(scope.path, "summary", session=payload.session_id, now=now, **kept)
    for scope in scopes:
        notes += hand_edits.notes(learnings.odd_confidences(scope.connection))  # not decayed: named
    return pipeline.Outcome(notes=notes)


def _decay(scope: Scope, payload: payloads.SessionEndPayload, now: str, notes: list[str]) -> bool:
    """One scope's decay and end record, at most once per session; whether this call made them."""
    policy = location.config_for(scope.path).policy
    try:
        with Transaction(scope.connection):
            if sessions.has_ended(scope.connection, payload.session_id):
                return False
            learnings.decay_all(scope.connection, policy)
            sessions.record_end(scope.connection, payload.session_id, reason=payload.reason, now=now)
    except sqlite3.OperationalError as error:
        if not locked(error):
            raise
        # Another process holds the write lock: the decay is kept, never lost, and applied once
        # (store.pending checks the session has not ended when it applies it).
        pending.append(scope.path, "end", session=payload.session_id, reason=payload.reason, now=now)
        notes.append(
            f"another process holds the {scope.name} database's write lock: session end kept for later"
        )
    return True


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
