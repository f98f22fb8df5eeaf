"""The report's values, read from one database: the top of each list, the rest counted."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta

from cortex_hooks import clock, confidence, location, stored
from cortex_hooks.guard import actions
from cortex_hooks.judging import proof
from cortex_hooks.report import values
from cortex_hooks.store import history, keeper, learnings, outcomes, proposals
from cortex_hooks.store import report as store
from cortex_hooks.stored.report_rows import KeptCall, Node

# What the page shows at most; the rest is counted and named by the command that lists it. These
# keep a report of 10,000 learnings and 100,000 memories small (<= 5 MB, <= 3 s).
TOP_LEARNINGS = 100
TOP_REVIEW = 50
TOP_CALLS = 200
TOP_PROPOSALS = 50
TOP_NODES = 120
WEEK = 7


def gather(
    connection: sqlite3.Connection,
    *,
    database: str,
    scope: str,
    now: datetime,
    days: int,
    policy: confidence.Policy,
    command: str,
    options: str,
) -> values.Report:
    """Everything the report shows of one scope's database, over the `days` ending today (UTC)."""
    today = now.date()
    since = (today - timedelta(days=days - 1)).isoformat()
    week_since = clock.iso(now - timedelta(days=min(days, WEEK)))
    ranked = store.ranked(connection, since, TOP_LEARNINGS)
    due, awaiting = learnings.awaiting_review(connection, policy, TOP_REVIEW)
    ids = list(dict.fromkeys([row.id for row in ranked] + [row.id for row in due]))
    lines = _lines(connection, ids, since, today.isoformat())
    calls, calls_total = store.calls(connection, week_since, TOP_CALLS)
    nodes, edges = store.connected(connection, TOP_NODES)
    out = store.out_degrees(connection, [node.id for node in nodes])
    counted = (*history.COUNTS, *history.MEMORY_COUNTS, history.PROTECTIONS)
    return values.Report(
        database=database,
        scope=scope,
        generated=clock.iso(now),
        days=days,
        since=since,
        week_since=week_since,
        policy=policy,
        command=command,
        options=options,
        learning_counts={**store.learning_counts(connection), "awaiting": awaiting},
        totals=store.totals(connection, since),
        daily=tuple(
            values.Day(row["day"], {key: row[key] for key in counted})
            for row in store.daily(connection, since)
        ),
        learnings=tuple(_learning(row, lines, policy) for row in ranked),
        review=tuple(_learning(row, lines, policy) for row in due),
        calls=tuple(_call(row) for row in calls),
        calls_total=calls_total,
        proposals=_proposals(connection) if scope == "project" else None,
        memory_ages=tuple(
            (row["type"], row["age"], row["n"]) for row in store.memories_by_type_and_age(connection, now)
        ),
        age_labels=tuple(label for label, _ in store.AGES),
        memory_statuses=store.memory_statuses(connection),
        nodes=tuple(_node(node, out.get(node.id, 0)) for node in nodes),
        links=tuple(values.Link(edge.from_id, edge.to_id, edge.type, edge.strength) for edge in edges),
        unproved=tuple(str(failure) for _row, failure in proof.stored(connection, database)),
        put_back=tuple(
            (str(event.get("at", "")), str(event.get("what", "")))
            for event in keeper.events(location.keeper_folder(database), last=10)
        ),
    )


def _call(row: KeptCall) -> values.Call:
    return values.Call(row.at, row.verdict, row.tool, row.call, row.learning_id, row.anti_pattern)


def _node(row: Node, out_degree: int) -> values.Node:
    return values.Node(
        id=row.id,
        type=row.type,
        summary=row.summary,
        in_degree=row.in_degree,
        out_degree=out_degree,
        access_count=row.access_count,
        pinned=bool(row.pinned),
    )


class _Lines:
    """The history of the learnings shown over the window: their points, counts, last matches."""

    def __init__(self, since: str, today: str) -> None:
        self.since = since
        self.today = today
        self.points: dict[int, list[values.Point]] = {}
        self.counts: dict[int, sqlite3.Row] = {}
        self.last: dict[int, str] = {}
        self.retried: dict[int, values.Retried] = {}  # each one's latest retried catch


def _lines(connection: sqlite3.Connection, ids: list[int], since: str, today: str) -> _Lines:
    lines = _Lines(since, today)
    for point in store.series(connection, ids, since):
        lines.points.setdefault(point.learning_id, []).append(values.Point(point.day, point.confidence))
    lines.counts = store.window_counts(connection, ids, since)
    lines.last = store.last_calls(connection, ids)
    lines.retried = {
        learning_id: values.Retried(row.at, row.call, row.next_call)
        for learning_id, row in outcomes.last(connection, ids).items()
    }
    for learning_id, counts in lines.counts.items():
        if learning_id not in lines.last and counts["last_day"]:
            lines.last[learning_id] = counts["last_day"]
    return lines


def series(
    points: list[values.Point], since: str, today: str, start: str, now: int | None
) -> tuple[values.Point, ...]:
    """A learning's line over the window: the value carried in from before it (drawn from its
    first day, or the learning's own first day), each day's end, and today's value now."""
    first = max(since, start[:10])
    line = [values.Point(max(point.day, first), point.confidence) for point in points]
    if not line or line[0].day > first:
        opening = line[0].confidence if line else now
        if opening is not None:
            line.insert(0, values.Point(first, opening))
    if now is not None:
        line = [point for point in line if point.day < today] + [values.Point(today, now)]
    # Held values need no points of their own (the line is drawn step after step): a year of
    # days is a handful of points where the confidence changed, and today's.
    kept = [
        point
        for number, point in enumerate(line)
        if number == 0 or point.confidence != line[number - 1].confidence
    ]
    if line and kept[-1] is not line[-1]:
        kept.append(line[-1])
    return tuple(kept)


def _learning(row: stored.Learning, lines: _Lines, policy: confidence.Policy) -> values.Learning:
    value = row.confidence if 0 <= row.confidence <= 100 else None
    archived = row.archived_at is not None
    pinned, auto_block = bool(row.pinned), bool(row.auto_block)
    if archived:
        review = "archived"
    elif value is not None and confidence.awaits_review(value, pinned=pinned, archived=False, policy=policy):
        review = "awaiting review"
    else:
        review = "pinned" if pinned else "trusted"
    stored = row.action
    gated = stored in actions.GATED  # block and ask act once their confidence passes the gate
    trusted = gated and value is not None and confidence.blocks(value, policy)
    counted = lines.counts.get(row.id)
    return values.Learning(
        id=row.id,
        anti_pattern=row.anti_pattern,
        correct_pattern=row.correct_pattern,
        tool=row.tool,
        severity=row.severity,
        auto_block=auto_block,
        gated=stored if gated else None,
        pinned=pinned,
        archived=archived,
        confidence=value,
        action=actions.ANSWERS[stored] if trusted else "warn",
        review=review,
        counts={key: (counted[key] or 0) if counted else 0 for key in history.COUNTS},
        last_match=lines.last.get(row.id),
        retried=lines.retried.get(row.id),
        series=series(lines.points.get(row.id, []), lines.since, lines.today, row.created_at, value),
    )


def _proposals(connection: sqlite3.Connection) -> tuple[values.Proposal, ...]:
    return tuple(
        values.Proposal(
            id=row.id,
            kind=row.kind,
            signal=row.signal,
            anti_pattern=row.anti_pattern,
            correct_pattern=row.correct_pattern,
            regex=row.regex,
            content=row.content,
            occurrences=row.occurrences,
            evidence=tuple(
                values.Evidence(item.session_id, item.failed, item.fixed or None)
                for item in proposals.occurrences(connection, row.id, 3)
            ),
        )
        for row in proposals.listed(connection)[:TOP_PROPOSALS]
    )
