"""The records of outcomes (docs/guide/outcomes.md): a catch and what followed it, what its
learning says now, the learnings retried in a window and those the agent keeps retrying."""

from __future__ import annotations

from cortex_hooks.frozen import Record


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


class Caught(Record):
    """What the learning of a catch says now (an archived one's too): its pattern, tool matcher,
    target, texts and rewrite, as the learning table names them."""

    regex: str | None
    tool: str
    target: str
    correct_pattern: str
    anti_pattern: str
    rewrite: str | None


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
