"""The records of outcomes (docs/guide/outcomes.md): the catches whose outcome is open, a catch and
what followed it, the learnings retried in a window and those the agent keeps retrying."""

from __future__ import annotations

from cortex_hooks.frozen import Record


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
