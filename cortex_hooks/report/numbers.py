"""The history in numbers, as `stats --json` prints it and `cortex_get_access_stats` says it."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta
from typing import Any

from cortex_hooks import confidence
from cortex_hooks.store import history
from cortex_hooks.store import report as store

MOST_MATCHED = 10


def since(now: datetime, days: int) -> str:
    """The first UTC day of a window of `days` ending today."""
    return (now.date() - timedelta(days=days - 1)).isoformat()


def window(connection: sqlite3.Connection, now: datetime, days: int) -> dict[str, Any]:
    """The last `days` days: every learning's matches and what they became, the memories'
    events, the built-in protection's denials (under its own name, docs/internals/judge.md), and the learnings
    matched most."""
    first = since(now, days)
    totals = store.totals(connection, first)
    return {
        "days": days,
        "since": first,
        "learnings": {key: totals[key] for key in history.COUNTS},
        "memories": {key: totals[key] for key in history.MEMORY_COUNTS},
        "built_in": {"denies": totals[history.PROTECTIONS]},
        "retried": _retried(connection, first),
        "most_matched": [
            {
                "id": row["id"],
                "anti_pattern": row["anti_pattern"],
                **{key: row[key] for key in history.COUNTS},
                "confidence": confidence.as_number(row["confidence"])
                if type(row["confidence"]) is int
                else None,
            }
            for row in store.most_matched(connection, first, MOST_MATCHED)
        ],
    }


def _retried(connection: sqlite3.Connection, since: str) -> list[dict[str, Any]]:
    """The learnings the agent retried in the window, the most retried first, each with
    its latest retried catch (redacted)."""
    from cortex_hooks.store import outcomes

    rows = outcomes.most_retried(connection, since, MOST_MATCHED)
    latest = outcomes.last(connection, [row.id for row in rows])
    found = []
    for row in rows:
        last = latest.get(row.id)
        example = (
            {"at": last.at, "tool": last.tool, "call": last.call, "retried_with": last.next_call}
            if last is not None
            else None
        )
        found.append(
            {
                "id": row.id,
                "anti_pattern": row.anti_pattern,
                "followed": row.followed,
                "retried": row.retried,
                "last_retried": example,
            }
        )
    return found


def empty(now: datetime, days: int) -> dict[str, Any]:
    """The window of a scope without a database."""
    return {
        "days": days,
        "since": since(now, days),
        "learnings": dict.fromkeys(history.COUNTS, 0),
        "memories": dict.fromkeys(history.MEMORY_COUNTS, 0),
        "built_in": {"denies": 0},
        "retried": [],
        "most_matched": [],
    }
