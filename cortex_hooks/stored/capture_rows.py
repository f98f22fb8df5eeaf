"""The records of capture and of outcomes: proposals, their sightings, the scans of transcripts,
the catches whose outcome is open."""

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


class Catch(Record):
    """A deny, ask or rewrite whose outcome is not settled yet (docs/guide/outcomes.md), with what
    its learning says now: its regex, tool matcher (`rule_tool`), target, texts and rewrite."""

    id: int
    learning_id: int
    session_id: str
    call_id: str
    answer: str
    at: str
    tool: str
    call: str
    jobs: str
    transcript: str | None
    offset: int
    read: int
    result: str | None
    settled: int
    regex: str | None
    rule_tool: str
    target: str
    correct_pattern: str
    anti_pattern: str
    rule_rewrite: str | None


class Outcome(Record):
    """A catch (a deny, ask or rewrite) and what the agent did after it (docs/guide/outcomes.md):
    its call and the next one, redacted; `settled` once the transcript decided it."""

    id: int
    learning_id: int
    session_id: str
    call_id: str
    answer: str
    at: str
    tool: str
    call: str
    jobs: str
    transcript: str | None
    offset: int
    read: int
    result: str | None
    settled: int
    decided_at: str | None
    next_tool: str | None
    next_call: str | None


class Retried(Record):
    """A learning the agent retried in a window: how often it followed and retried it there."""

    id: int
    anti_pattern: str
    followed: int
    retried: int


class Unclear(Record):
    """A learning retried more often than followed since it was last changed, with its latest
    retried call and the call it was retried with."""

    id: int
    anti_pattern: str
    correct_pattern: str
    followed: int
    retried: int
    retried_call: str | None
    retried_with: str | None
