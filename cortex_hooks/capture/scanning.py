"""One scan of a session's transcript, from its stored offset, written in one transaction
(docs/guide/capture.md): a scan killed midway has written nothing, one committed has moved the offset past
everything it recorded, so nothing is lost and nothing is counted twice."""

from __future__ import annotations

import functools
import json
import os
import sqlite3
from typing import Any

from cortex_hooks.capture import detect, reading, recurrence
from cortex_hooks.capture import regex_synthesis as synth
from cortex_hooks.confidence import Policy
from cortex_hooks.guard import matching
from cortex_hooks.store import learnings, proposals
from cortex_hooks.store.transaction import Transaction

TAIL_CALLS = 12  # calls kept for the next scan: a fix's window, a correction's last 3 calls
SUCCESS_LENGTH = 500


class Outcome:
    __slots__ = ("behind", "candidates", "proposed", "records", "session_id", "skipped")

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        self.proposed: list[int] = []
        # the new proposals as `--json` prints them, read inside the scan's transaction: a dry
        # run, rolled back, reports what the run would propose (docs/guide/capture.md)
        self.records: list[dict[str, Any]] = []
        self.candidates = 0
        self.skipped: list[str] = []
        self.behind = 0  # bytes of the transcript left for a later scan


def scan(
    connection: sqlite3.Connection,
    transcript: str,
    session_id: str | None,
    *,
    deadline: float,
    now: str,
    policy: Policy,
    dry_run: bool = False,
) -> Outcome:
    """Scan what the transcript gained since the last scan of its session, until `deadline`
    (monotonic). OSError/ValueError when it is not a readable regular file."""
    _steady_heap()
    session = session_id or reading.session_of(transcript) or os.path.basename(transcript)
    outcome = Outcome(session)
    size = os.stat(transcript).st_size
    state = proposals.scan_state(connection, session)
    offset, tail = 0, list[reading.Call]()
    if state is not None and state.transcript == transcript and state.offset <= size:
        offset, tail = state.offset, _tail(state.tail)
    known = {call.id: call for call in tail if call.status == "pending"}
    chunk = reading.read(transcript, offset, deadline, known)
    events: list[reading.Event] = [*tail, *chunk.events]
    outcome.behind = max(0, size - chunk.end)
    # Deciding happens before the write transaction: the lock is held for the writes alone.
    found = detect.scan(events, len(tail), chunk.finished, proposals.successes(connection, session))
    with Transaction(connection, keep=not dry_run):
        now_state = proposals.scan_state(connection, session)
        if (now_state.offset if now_state is not None else 0) != offset:
            # Another scanner (the worker, a second SessionEnd) recorded this part meanwhile.
            outcome.skipped.append("scanned meanwhile by another process")
            outcome.behind = 0
            return outcome
        outcome.candidates = len(found.candidates)
        outcome.skipped += found.skipped
        active = _active(connection) if found.candidates else []  # reads every learning: only when needed
        for candidate in found.candidates:
            _record(connection, candidate, session, now=now, policy=policy, active=active, outcome=outcome)
        done = [
            event.text[:SUCCESS_LENGTH]  # redacted as read
            for event in chunk.events
            if isinstance(event, reading.Call) and event.tool == "Bash" and event.status == "ok"
        ]
        proposals.remember_successes(connection, done, session, now)
        proposals.save_scan(
            connection,
            session,
            transcript=transcript,
            offset=chunk.end,
            size=size,
            tail=json.dumps([call.to_json() for call in _kept(events)]),
            now=now,
        )
        outcome.records = [_shown(connection, proposal_id) for proposal_id in outcome.proposed]
    return outcome


@functools.cache  # once a process
def _steady_heap() -> None:
    """A scan reads the transcript a 1 MiB block at a time while what it found stays, between
    them. Once glibc frees its first such mapping it raises its mmap threshold above it and
    carves every later block from the heap, where what the scan keeps pins the fragments: a
    SessionEnd with capture over a 100 MB transcript peaked at 45-52 MiB from run to run. With
    the threshold pinned at its default (128 KiB), each block is a mapping given back whole:
    45.7 MiB every run. Its price, the blocks' page faults, is paid here, where a deadline bounds
    the time (the outcomes' read of the same 100 MB, pinned too, took 17 % longer for no gain).
    Where the C library has no `mallopt` (musl, macOS), nothing to do."""
    try:
        import ctypes

        ctypes.CDLL(None).mallopt(-3, 128 << 10)  # M_MMAP_THRESHOLD: the dynamic threshold off
    except (ImportError, OSError, AttributeError):
        pass


def _shown(connection: sqlite3.Connection, proposal_id: int) -> dict[str, Any]:
    from cortex_hooks.capture import texts

    proposal = proposals.get(connection, proposal_id)
    assert proposal is not None  # proposed within this transaction
    return texts.record(proposal, proposals.occurrences(connection, proposal_id))


def _record(
    connection: sqlite3.Connection,
    candidate: detect.Candidate,
    session: str,
    *,
    now: str,
    policy: Policy,
    active: list[tuple[int, str]],
    outcome: Outcome,
) -> None:
    if proposals.rejected(connection, candidate.fingerprint):
        outcome.skipped.append(f"rejected before: {candidate.anti_pattern}")
        return
    known = synth.duplicate([candidate.failed], active)
    if known is not None:  # the guard already knows it: that is a boost, not a proposal
        learnings.record_matches(connection, [known], now, policy)
        outcome.skipped.append(f"already learning #{known} (boosted)")
        return
    values = {
        "fingerprint": candidate.fingerprint,
        "signal": candidate.signal,
        "anti_pattern": candidate.anti_pattern,
        "correct_pattern": candidate.correct_pattern,
        "regex": candidate.regex,
        "rewrite": candidate.rewrite,
        "tool": "Bash",
        "failed": candidate.failed,
        "fixed": candidate.fixed,
    }
    proposal_id = proposals.sighting(connection, values, session, now)
    status, sessions, most = proposals.recurrence(connection, proposal_id)
    if status != "candidate" or not recurrence.opens(candidate.signal, sessions, most):
        return
    if not recurrence.room(*proposals.counts(connection, session)):
        outcome.skipped.append(f"cap reached: {candidate.anti_pattern} stays a candidate")
        return
    proposals.propose(connection, proposal_id, session, now)
    outcome.proposed.append(proposal_id)


def _active(connection: sqlite3.Connection) -> list[tuple[int, str]]:
    """Active learnings that can match a Bash command: their ids and regexes."""
    return [
        (row.id, row.regex)
        for row in learnings.select(connection)
        if row.regex and row.target == "content" and matching.tool_accepts(row.tool, "Bash")
    ]


def _tail(text: str) -> list[reading.Call]:
    try:
        return [reading.Call.from_json(value) for value in json.loads(text)]
    except (ValueError, KeyError, TypeError):
        return []  # an unreadable tail costs the context of one scan, never the scan


def _kept(events: list[reading.Event]) -> list[reading.Call]:
    """The calls the next scan needs: the last few, and every one still waiting for its result."""
    calls = [event for event in events if isinstance(event, reading.Call)]
    last = calls[-TAIL_CALLS:]
    return [call for call in calls[:-TAIL_CALLS] if call.status == "pending"][-50:] + last
