"""The records of what the report reads beside the learnings (docs/guide/report.md): the kept
calls, each learning's confidence by day, and the memories of the graph it draws. (Its sums by
day and by type are read as the columns they sum: one query each, beside its reader.)"""

from __future__ import annotations

from cortex_hooks.frozen import Record


class KeptCall(Record):
    """A denied or warned call as the history keeps it (redacted, cut), with its learning's
    anti-pattern (None: the learning was deleted since)."""

    id: int
    learning_id: int
    at: str
    verdict: str
    tool: str
    call: str
    anti_pattern: str | None


class Point(Record):
    """A learning's confidence at a day's end (a month's row stands for its 15th)."""

    learning_id: int
    day: str
    confidence: int


class Node(Record):
    """A memory of the graph the report draws."""

    id: int
    type: str
    summary: str
    in_degree: int
    access_count: int
    pinned: int
