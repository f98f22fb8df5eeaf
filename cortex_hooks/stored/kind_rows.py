"""The records of the kinds kept beside learnings and memories — decisions, errors, todos — and
of sessions."""

from __future__ import annotations

from cortex_hooks.frozen import Record


class Decision(Record):
    """A decision and its reasoning (docs/guide/memories.md); `superseded_by` the one that replaced it."""

    id: int
    title: str
    reasoning: str
    category: str | None
    superseded_by: int | None
    access_count: int
    last_accessed: str | None
    created_at: str
    updated_at: str
    archived_at: str | None


class Error(Record):
    """An error met and its fix, counted each time it is met again."""

    id: int
    message: str
    fix: str | None
    severity: str
    occurrences: int
    first_seen: str
    last_seen: str
    access_count: int
    last_accessed: str | None
    archived_at: str | None


class Todo(Record):
    """A thing to do, done or not."""

    id: int
    text: str
    priority: str
    done: int
    done_at: str | None
    created_at: str
    updated_at: str
    archived_at: str | None


Kept = Decision | Error | Todo  # a row of the kinds kept beside learnings


class Session(Record):
    """A session as the hooks saw it start and end; `key_changes` the JSON list."""

    id: str
    source: str | None
    started_at: str | None
    ended_at: str | None
    reason: str | None
    summary: str | None
    key_changes: str
