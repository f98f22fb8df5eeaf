"""Capture's pass over Claude Code's own memory: the indexed chunks not read for rules
yet (api.claude_files keeps the index in step with the files) become `remembered` proposals,
at first sight, in one write transaction that also marks them read.

A rule is proposed once: a fingerprint met before (proposed, accepted, rejected, expired or an
invisible candidate) is never proposed again, so a file read again after a change brings only
its new rules. A rule an active learning already covers is no proposal (and no boost: nothing
ran). When the caps of docs/guide/capture.md leave no room, the pass stops and the chunks left wait, unread,
for the next session's room.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time

from cortex_hooks.capture import recurrence, remembered
from cortex_hooks.capture import regex_synthesis as synth
from cortex_hooks.capture.detect import Candidate
from cortex_hooks.capture.scanning import Outcome
from cortex_hooks.guard import matching, prefilter
from cortex_hooks.store import claude_index, learnings, proposals
from cortex_hooks.store.transaction import Transaction

BATCH = 500  # chunks read per pass: the rest is read by the next one


Read = list[tuple[int, list[Candidate]]]  # chunks read: each one's id and its rules' candidates


def scan(
    connection: sqlite3.Connection, session: str, *, deadline: float, now: str, dry_run: bool = False
) -> Outcome:
    """Read the unread chunks for rules until `deadline` (monotonic), then propose what passes
    in one write transaction (none written for a dry run)."""
    chunks = read(connection, deadline)
    if not chunks:
        return Outcome(session)
    with Transaction(connection, keep=not dry_run):
        return record(connection, chunks, session, now)


def read(connection: sqlite3.Connection, deadline: float) -> Read:
    """The unread chunks' candidates, at least one chunk's whatever the deadline (monotonic)."""
    chunks = claude_index.uncaptured(connection, BATCH)
    commands = proposals.project_commands(connection) if chunks else set()
    found: Read = []
    for chunk in chunks:
        if found and time.monotonic() > deadline:
            break
        name, first = os.path.basename(chunk.path), chunk.line
        lines = [(chunk.summary, f"{name}:{first}")]  # a heading, or a topic's description
        lines += [(line, f"{name}:{first + index}") for index, line in enumerate(chunk.content.split("\n"))]
        found.append((chunk.id, remembered.candidates(lines, commands.__contains__)))
    return found


def record(connection: sqlite3.Connection, chunks: Read, session: str, now: str) -> Outcome:
    """Propose the candidates of chunks read and mark those chunks read, inside the caller's
    write transaction; at the caps, the chunk that found no room and those after it stay unread."""
    outcome = Outcome(session)
    every = [candidate for _id, found in chunks for candidate in found]
    pending = _pending(connection) if every else []
    narrower = _narrower(every)
    done: list[int] = []
    for chunk_id, found in chunks:
        kept = [candidate for candidate in found if candidate not in narrower]
        if not all(
            _record(
                connection,
                candidate,
                session=session,
                now=now,
                pending=pending,
                outcome=outcome,
            )
            for candidate in kept
        ):
            break
        done.append(chunk_id)
    claude_index.captured(connection, done)
    return outcome


def _record(
    connection: sqlite3.Connection,
    candidate: Candidate,
    *,
    session: str,
    now: str,
    pending: list[tuple[int, str]],
    outcome: Outcome,
) -> bool:
    """Propose one rule unless met before or known already (an active learning PreToolUse would
    match on its command, or one of the `pending` proposals' regexes); False when the caps leave
    no room."""
    outcome.candidates += 1
    if proposals.known(connection, candidate.fingerprint):
        return True
    known = learning_matching(connection, candidate.failed)
    if known is not None:
        outcome.skipped.append(f"already learning #{known}: {candidate.anti_pattern}")
        return True
    covering = synth.duplicate([candidate.failed], pending)
    if covering is not None:
        outcome.skipped.append(f"covered by proposal #{covering}: {candidate.anti_pattern}")
        return True
    if not recurrence.room(*proposals.counts(connection, session)):
        outcome.skipped.append(f"cap reached: {candidate.anti_pattern} waits for a later session")
        return False
    values = {
        "fingerprint": candidate.fingerprint,
        "signal": candidate.signal,
        "anti_pattern": candidate.anti_pattern,
        "correct_pattern": candidate.correct_pattern,
        "regex": candidate.regex,
        "tool": "Bash",
        "failed": candidate.failed,
        "fixed": candidate.fixed,
    }
    proposal_id = proposals.sighting(connection, values, session, now)
    proposals.propose(connection, proposal_id, session, now)
    outcome.proposed.append(proposal_id)
    pending.append((proposal_id, candidate.regex))
    return True


def learning_matching(connection: sqlite3.Connection, command: str) -> int | None:
    """The id of an active learning PreToolUse would match on a Bash command, found as the hook
    finds it — the prefilter's keys of the (short) command, its literals, then the regex — so
    that 10,000 learnings cost an index lookup, not 10,000 regexes."""
    texts = {target: matching.fragments(target, "Bash", {"command": command}) for target in matching.TARGETS}
    keys: set[str] = set()
    for target, fragments in texts.items():
        keys.update(prefilter.text_keys(*prefilter.lookup(target, "Bash", fragments)))
    for row in learnings.candidates(connection, json.dumps(sorted(keys)), "Bash"):
        target = row.target
        if target not in texts:
            continue
        letter, looked = prefilter.lookup(target, "Bash", texts[target])
        if not prefilter.satisfied(row.literals, looked, loose=letter == prefilter.LOOSE):
            continue
        try:
            if matching.evaluate(
                row.regex, matching.subject(target, "Bash", texts[target]), synth.TIMEOUT, 0
            ):
                return row.id
        except matching.Unusable:
            continue
    return None


def _pending(connection: sqlite3.Connection) -> list[tuple[int, str]]:
    """Proposals awaiting an answer that guard Bash: their ids and regexes."""
    return [
        (row.id, str(row.regex)) for row in proposals.listed(connection) if row.regex and row.tool == "Bash"
    ]


def _narrower(candidates: list[Candidate]) -> list[Candidate]:
    """The candidates another one covers (its regex matches their command, not the other way
    round: "never npm" covers "never npm install"); compared only when the commands share a word."""
    covered: list[Candidate] = []
    for candidate in candidates:
        word = candidate.failed.split()[:1]
        for other in candidates:
            if other is candidate or other.regex == candidate.regex or other.failed.split()[:1] != word:
                continue
            if _matches(other.regex, candidate.failed) and not _matches(candidate.regex, other.failed):
                covered.append(candidate)
                break
    return covered


def _matches(pattern: str, command: str) -> bool:
    return bool(synth.matches(synth.compiled(pattern), command))  # compiled: it passed the checks
