"""SQL the report and `stats` read: the history over a window, the learnings worth a look, the
memory by type and age, and the most connected memories with the edges between them."""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime, timedelta

from cortex_hooks import stored
from cortex_hooks.clock import iso
from cortex_hooks.store import learnings
from cortex_hooks.store.history import COUNTS, MEMORY_COUNTS, PROTECTIONS
from cortex_hooks.store.memories import EDGES
from cortex_hooks.stored import Learning
from cortex_hooks.stored.memory_rows import Edge
from cortex_hooks.stored.report_rows import KeptCall, Node, Point


def totals(connection: sqlite3.Connection, since: str) -> dict[str, int]:
    """The scope's counts summed from `since` (a day) on: matches and what they became, the
    memories' events, and the built-in protection's denials."""
    counted = (*COUNTS, *MEMORY_COUNTS, PROTECTIONS)
    row = connection.execute(
        f"SELECT {', '.join(f'coalesce(sum({c}), 0)' for c in counted)} FROM scope_day WHERE day >= :since",
        {"since": since},
    ).fetchone()
    return dict(zip(counted, row, strict=True))


def daily(connection: sqlite3.Connection, since: str) -> list[sqlite3.Row]:
    """The scope's days from `since` on (days without a count are absent)."""
    return connection.execute(
        f"SELECT day, {', '.join((*COUNTS, *MEMORY_COUNTS, PROTECTIONS))} FROM scope_day WHERE day >= :since "
        "ORDER BY day",
        {"since": since},
    ).fetchall()


def most_matched(connection: sqlite3.Connection, since: str, limit: int) -> list[sqlite3.Row]:
    """The learnings matched most since `since` (a day), with their counts and confidence now."""
    return connection.execute(
        f"""SELECT l.id, l.anti_pattern, l.correct_pattern, l.tool, l.severity, l.auto_block, l.action,
                l.pinned, l.archived_at, c.confidence, {", ".join(f"h.{c}" for c in COUNTS)}
            FROM (SELECT learning_id, {", ".join(f"sum({c}) AS {c}" for c in COUNTS)} FROM learning_day
                  WHERE day >= :since GROUP BY learning_id HAVING sum(matches) > 0) AS h
                JOIN learning AS l ON l.id = h.learning_id
                LEFT JOIN learning_confidence AS c ON c.learning_id = l.id
            ORDER BY h.matches DESC, h.denies DESC, l.id LIMIT :limit""",
        {"since": since, "limit": limit},
    ).fetchall()


def ranked(connection: sqlite3.Connection, since: str, limit: int) -> list[Learning]:
    """The active learnings most matched since `since` (a day), then the most denied, then the
    newest: the first `limit`."""
    rows = connection.execute(
        f"""SELECT {learnings.SELECTED}
            FROM learning AS l LEFT JOIN learning_confidence AS c ON c.learning_id = l.id
                LEFT JOIN (SELECT learning_id, {", ".join(f"sum({c}) AS {c}" for c in COUNTS)}
                           FROM learning_day WHERE day >= :since GROUP BY learning_id) AS h
                    ON h.learning_id = l.id
            WHERE l.archived_at IS NULL
            ORDER BY coalesce(h.matches, 0) DESC, coalesce(h.denies, 0) DESC, l.id DESC LIMIT :limit""",
        {"since": since, "limit": limit},
    )
    return stored.made(Learning, rows)


def learning_counts(connection: sqlite3.Connection) -> dict[str, int]:
    """How many learnings there are: active, archived, auto-block among the active."""
    row = connection.execute(
        """SELECT count(*) FILTER (WHERE archived_at IS NULL) AS active,
                  count(*) FILTER (WHERE archived_at IS NOT NULL) AS archived,
                  count(*) FILTER (WHERE archived_at IS NULL AND auto_block) AS auto_block
           FROM learning"""
    ).fetchone()
    return {"active": row[0], "archived": row[1], "auto_block": row[2]}


def series(connection: sqlite3.Connection, ids: list[int], since: str) -> list[Point]:
    """The confidence at each day's end of these learnings, from the last day before `since`
    that has one (where the line starts) on; month rows stand for days older than a year."""
    chosen = {"ids": json.dumps(ids), "since": since}
    rows = connection.execute(
        f"""WITH picked AS (SELECT value AS id FROM json_each(:ids)),
                rows AS (
                    SELECT learning_id, day, confidence FROM learning_day
                    WHERE learning_id IN picked AND confidence IS NOT NULL
                    UNION ALL
                    SELECT learning_id, month || '-15', confidence FROM learning_month
                    WHERE learning_id IN picked AND confidence IS NOT NULL),
                start AS (SELECT learning_id, max(day) AS day FROM rows WHERE day < :since
                          GROUP BY learning_id)
           SELECT {stored.columns(Point, "r")} FROM rows AS r
           WHERE r.day >= :since
               OR r.day = (SELECT s.day FROM start AS s WHERE s.learning_id = r.learning_id)
           ORDER BY r.learning_id, r.day""",
        chosen,
    )
    return stored.made(Point, rows)


def window_counts(connection: sqlite3.Connection, ids: list[int], since: str) -> dict[int, sqlite3.Row]:
    """These learnings' counts summed from `since` on, and the last day each was matched."""
    rows = connection.execute(
        f"""SELECT learning_id, {", ".join(f"sum({c}) FILTER (WHERE day >= :since) AS {c}" for c in COUNTS)},
                max(day) FILTER (WHERE matches > 0) AS last_day
            FROM learning_day WHERE learning_id IN (SELECT value FROM json_each(:ids))
            GROUP BY learning_id""",
        {"ids": json.dumps(ids), "since": since},
    ).fetchall()
    return {row["learning_id"]: row for row in rows}


def last_calls(connection: sqlite3.Connection, ids: list[int]) -> dict[int, str]:
    """The time of each learning's latest kept call (its last deny or warning)."""
    rows = connection.execute(
        """SELECT learning_id, max(at) FROM verdict_call
           WHERE learning_id IN (SELECT value FROM json_each(:ids)) GROUP BY learning_id""",
        {"ids": json.dumps(ids)},
    ).fetchall()
    return {row[0]: row[1] for row in rows}


def calls(connection: sqlite3.Connection, since: str, limit: int) -> tuple[list[KeptCall], int]:
    """The kept denied and warned calls at or after `since` (an instant), the latest first, with
    their learning's anti-pattern; and how many there are in all."""
    rows = connection.execute(
        f"""SELECT {stored.columns(KeptCall, "v", anti_pattern="l.anti_pattern")}, count(*) OVER () AS total
           FROM verdict_call AS v LEFT JOIN learning AS l ON l.id = v.learning_id
           WHERE v.at >= :since ORDER BY v.at DESC, v.id DESC LIMIT :limit""",
        {"since": since, "limit": limit},
    ).fetchall()
    return stored.made(KeptCall, (row[:-1] for row in rows)), rows[0]["total"] if rows else 0


AGES = (  # (label, at most this many days old)
    ("under a week", 7),
    ("1\u20134 weeks", 30),
    ("1\u20133 months", 91),
    ("3\u201312 months", 365),
    ("over a year", None),
)


def memories_by_type_and_age(connection: sqlite3.Connection, now: datetime) -> list[sqlite3.Row]:
    """Active memories counted by type and age bucket (AGES, by index), from `created_at`
    (instants compare as text: no date function over every row)."""
    cutoffs = {f"c{index}": iso(now - timedelta(days=days)) for index, (_, days) in enumerate(AGES) if days}
    cases = " ".join(f"WHEN created_at >= :{name} THEN {name[1:]}" for name in cutoffs)
    return connection.execute(
        f"""SELECT type, CASE {cases} ELSE {len(AGES) - 1} END AS age, count(*) AS n
            FROM memory WHERE status = 'active' GROUP BY type, 2 ORDER BY type, 2""",
        cutoffs,
    ).fetchall()


def memory_statuses(connection: sqlite3.Connection) -> dict[str, int]:
    return dict(connection.execute("SELECT status, count(*) FROM memory GROUP BY status").fetchall())


_NODE = stored.columns(Node, "m")


def connected(connection: sqlite3.Connection, limit: int) -> tuple[list[Node], list[Edge]]:
    """The most connected part of the graph: the active memories most pointed to (half the
    `limit`, through the in-degree's index), then memories that point to them; and the edges
    among all of these (supersedes left out), with each memory's out-degree."""
    hubs = stored.made(
        Node,
        connection.execute(
            f"""SELECT {_NODE} FROM memory AS m WHERE m.status = 'active' AND m.in_degree > 0
                ORDER BY m.in_degree DESC, m.access_count DESC, m.id LIMIT :limit""",
            {"limit": limit // 2},
        ),
    )
    leaves = connection.execute(
        f"""SELECT {_NODE} FROM memory AS m WHERE m.status = 'active' AND m.id IN (
                SELECT from_id FROM edge WHERE to_id IN (SELECT value FROM json_each(:hubs))
                    AND type != 'supersedes')
                AND m.id NOT IN (SELECT value FROM json_each(:hubs))
            ORDER BY m.access_count DESC, m.id LIMIT :limit""",
        {"hubs": json.dumps([hub.id for hub in hubs]), "limit": limit - len(hubs)},
    )
    nodes = [*hubs, *stored.made(Node, leaves)]
    edges = connection.execute(
        f"""{EDGES} WHERE from_id IN (SELECT value FROM json_each(:ids))
               AND to_id IN (SELECT value FROM json_each(:ids)) AND type != 'supersedes'
           ORDER BY from_id, to_id, type""",
        {"ids": json.dumps([node.id for node in nodes])},
    )
    return nodes, stored.made(Edge, edges)


def out_degrees(connection: sqlite3.Connection, ids: list[int]) -> dict[int, int]:
    rows = connection.execute(
        """SELECT from_id, count(*) FROM edge WHERE from_id IN (SELECT value FROM json_each(:ids))
               AND type != 'supersedes' GROUP BY from_id""",
        {"ids": json.dumps(ids)},
    ).fetchall()
    return {row[0]: row[1] for row in rows}
