"""What the report shows, as plain values: gathered from a database (report.gather), rendered
without one (report.page, report.charts)."""

from __future__ import annotations

from dataclasses import dataclass, field

from cortex_hooks.confidence import Policy


@dataclass(frozen=True)
class Point:
    """A learning's confidence (hundredths) at the end of a UTC day."""

    day: str
    confidence: int


@dataclass(frozen=True)
class Learning:
    id: int
    anti_pattern: str
    correct_pattern: str
    tool: str
    severity: str
    auto_block: bool
    gated: str | None  # "block" or "ask": what it does once its confidence passes the gate
    pinned: bool
    archived: bool
    confidence: int | None  # hundredths; None when a hand edit made it unreadable
    action: str  # what a match would do now: "deny", "ask" or "warn"
    review: str  # "awaiting review", "pinned", "archived" or "trusted"
    counts: dict[
        str, int
    ]  # matches, denies, asks, warnings, rewrites; followed, retried, asked: the window's
    last_match: str | None  # an instant, or a day when only the history's day is known
    series: tuple[Point, ...] = ()
    retried: Retried | None = None  # the latest catch the agent retried (docs/guide/outcomes.md)


@dataclass(frozen=True)
class Retried:
    """A catch the agent retried, as the history keeps it (redacted): the caught call, and the
    call that tried it again."""

    at: str
    call: str
    again: str | None


@dataclass(frozen=True)
class Call:
    """A denied or warned tool call, as the history keeps it (already redacted)."""

    at: str
    verdict: str
    tool: str
    call: str
    learning_id: int
    anti_pattern: str | None  # None when the learning is gone


@dataclass(frozen=True)
class Evidence:
    session: str
    failed: str
    fixed: str | None


@dataclass(frozen=True)
class Proposal:
    id: int
    kind: str
    signal: str
    anti_pattern: str
    correct_pattern: str
    regex: str | None
    content: str | None
    occurrences: int
    evidence: tuple[Evidence, ...]


@dataclass(frozen=True)
class Day:
    """One day of the whole scope: the learnings' counts and the memories'."""

    day: str
    counts: dict[str, int]


@dataclass(frozen=True)
class Node:
    id: int
    type: str
    summary: str
    in_degree: int
    out_degree: int
    access_count: int
    pinned: bool


@dataclass(frozen=True)
class Link:
    source: int
    target: int
    type: str
    strength: float


@dataclass(frozen=True)
class Report:
    database: str
    scope: str  # "project" or "global"
    generated: str  # the instant it was gathered
    days: int  # the window of the history, ending today
    since: str  # its first day
    week_since: str  # the first instant of the calls' window (the week, or the window if shorter)
    policy: Policy  # the confidence model in force for this database
    command: str  # how to run the CLI (`cortex-hooks`, or its full path)
    options: str  # what each command needs to reach this database (` --global`, ` --db PATH`)
    learning_counts: dict[str, int]  # active, archived, auto_block, awaiting
    totals: dict[str, int]  # the scope's counts over the window (store.history COUNTS, MEMORY_COUNTS)
    daily: tuple[Day, ...]
    learnings: tuple[Learning, ...]  # the most matched in the window, then the rest up to the cap
    review: tuple[Learning, ...]  # awaiting review, the lowest confidence first
    calls: tuple[Call, ...]
    calls_total: int
    proposals: tuple[Proposal, ...] | None  # None: proposals live in the project's database
    memory_ages: tuple[tuple[str, int, int], ...]  # (type, age bucket, count) of active memories
    age_labels: tuple[str, ...]
    memory_statuses: dict[str, int]
    nodes: tuple[Node, ...]
    links: tuple[Link, ...]
    unproved: tuple[str, ...] = ()  # each rule whose examples the judge does not bear out
    put_back: tuple[tuple[str, str], ...] = ()  # the keeper's latest events: (when, what)
    notes: list[str] = field(default_factory=list)  # what was skipped, said on the page

    def run(self, verb: str, item: int | None = None) -> str:
        """The exact command that acts on an item of this report's database."""
        target = "" if item is None else f" {item}"
        return f"{self.command} {verb}{target}{self.options}"
