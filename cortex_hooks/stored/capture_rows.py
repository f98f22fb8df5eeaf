"""The records of capture (docs/guide/capture.md): proposals, their sightings, the scans of
transcripts."""

from __future__ import annotations

from cortex_hooks.frozen import Record


class Proposal(Record):
    """A learning (or memory) capture proposes (docs/guide/capture.md), with how often it was seen."""

    id: int
    fingerprint: str
    kind: str
    signal: str
    anti_pattern: str
    correct_pattern: str
    regex: str | None
    tool: str
    content: str | None
    status: str
    proposed_in: str | None
    shown: int
    learning_id: int | None
    learning_scope: str | None
    drafted: str | None
    created_at: str
    updated_at: str
    rewrite: str | None
    occurrences: int


class Occurrence(Record):
    """One sighting of a proposal: the call that failed and what fixed it."""

    session_id: str
    failed: str
    fixed: str
    seen_at: str


class Scan(Record):
    """How far capture has read one session's transcript, and the calls it carries over (JSON)."""

    session_id: str
    transcript: str
    offset: int
    size: int
    tail: str
    updated_at: str
