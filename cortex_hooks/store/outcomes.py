"""SQL of the outcomes (docs/guide/outcomes.md): each deny, ask and rewrite of a learning until what
the agent did next decides it, and the history's count of each outcome on the day of its catch.

An outcome is counted when its row gets one and moved when a provisional one changes, in the same
transaction, guarded by the row itself (`settled` once final): nothing is counted twice, whoever
decides it and however often a session end runs. Written only inside transactions that already
write (a match's boost, a session end): the PreToolUse path that matches nothing never reaches it.
"""

from __future__ import annotations

import json
import sqlite3

from cortex_hooks import stored
from cortex_hooks.store import history
from cortex_hooks.stored.outcome_rows import Caught, Outcome, Retried, Unclear

TYPE_CHECKING = False  # typing costs a deny more than this whole module (see hooks.pre_tool_use)
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

KEPT = 3  # settled rows kept per learning and outcome: the latest examples (the counts are history's)
OPEN_DAYS = 90  # an undecided catch is kept this long for a resumed session to decide
RESULTS = history.OUTCOMES


def record(connection: sqlite3.Connection, caught: Sequence[Mapping[str, Any]]) -> None:
    """Catches of a judged call, one per learning (keys: learning_id, session_id, call_id,
    answer, at, tool, call, jobs (a list), transcript, offset)."""
    connection.executemany(
        """INSERT INTO outcome (learning_id, session_id, call_id, answer, at, tool, call, jobs,
               transcript, offset)
           VALUES (:learning_id, :session_id, :call_id, :answer, :at, :tool, :call, :jobs,
               :transcript, :offset)""",
        [{**row, "jobs": json.dumps(sorted(row["jobs"]))} for row in caught],
    )


def retried_again(
    connection: sqlite3.Connection,
    session: str,
    ids: list[int],
    *,
    call: tuple[str, str],
    now: str,
) -> int:
    """The open denies of these learnings in this session, as retried by this call (`call`: its
    tool and redacted text; they matched it again; its own catches are recorded after this):
    provisional, until the session's transcript settles them (a call that matched nothing may have
    come first). Not an ask or a rewrite: the person may have answered it, the rewrite may have
    run. How many."""
    marked = connection.execute(
        """UPDATE outcome SET result = 'retried', decided_at = :now, next_tool = :tool, next_call = :call
           WHERE session_id = :session AND settled = 0 AND result IS NULL AND answer = 'deny'
               AND learning_id IN (SELECT value FROM json_each(:ids))
           RETURNING learning_id, at""",
        {
            "session": session,
            "ids": json.dumps(ids),
            "tool": call[0],
            "call": call[1],
            "now": now,
        },
    ).fetchall()
    for learning_id, at in marked:
        _count(connection, learning_id, at, "retried", 1)
    return len(marked)


_OPEN = f"""SELECT {stored.columns(Outcome, "o")}, {stored.columns(Caught, "l")}
           FROM outcome AS o JOIN learning AS l ON l.id = o.learning_id"""


def open_catches(connection: sqlite3.Connection, session: str) -> list[tuple[Outcome, Caught]]:
    """A session's catches not settled yet (undecided, or decided provisionally), oldest first,
    each with what its learning says now (an archived one's too; a learning deleted since takes
    its catches with it: store.history.forget_learning)."""
    rows = connection.execute(
        f"{_OPEN} WHERE o.session_id = :session AND o.settled = 0 ORDER BY o.offset, o.id",
        {"session": session},
    )
    rows.row_factory = None
    cut = len(Outcome._fields)
    return [(Outcome._make(row[:cut]), Caught._make(row[cut:])) for row in rows]


def waiting_sessions(connection: sqlite3.Connection, other_than: str) -> list[tuple[str, str]]:
    """Other sessions with catches not settled yet, and their transcripts, the oldest catch
    first: sessions whose end was never seen, or whose end ran out of time (read at a later
    session's end, when their transcript has grown since it was last read)."""
    rows = connection.execute(
        """SELECT session_id, transcript, min(id) FROM outcome
           WHERE settled = 0 AND session_id != :session AND transcript IS NOT NULL
           GROUP BY session_id, transcript ORDER BY 3""",
        {"session": other_than},
    ).fetchall()
    return [(row[0], row[1]) for row in rows]


def read_to(connection: sqlite3.Connection, ids: list[int], size: int) -> None:
    """These undecided catches were read to the transcript's end, at this size."""
    connection.execute(
        "UPDATE outcome SET read = :size WHERE id IN (SELECT value FROM json_each(:ids)) AND settled = 0",
        {"ids": json.dumps(ids), "size": size},
    )


def settle(
    connection: sqlite3.Connection,
    outcome_id: int,
    result: str,
    *,
    now: str,
    next_call: tuple[str, str] | None,
) -> bool:
    """A catch's final outcome (a provisional one moved if it differs); whether this call settled
    it (False: settled already, by another process)."""
    assert result in RESULTS, result
    row = connection.execute(
        "SELECT learning_id, at, result FROM outcome WHERE id = :id AND settled = 0", {"id": outcome_id}
    ).fetchone()
    if row is None:
        return False
    learning_id, at, before = row
    if before != result:
        if before is not None:
            _count(connection, learning_id, at, before, -1)
        _count(connection, learning_id, at, result, 1)
    tool, call = next_call if next_call is not None else (None, None)
    connection.execute(
        """UPDATE outcome SET result = :result, settled = 1, decided_at = :now,
               next_tool = coalesce(:tool, CASE WHEN result IS :result THEN next_tool END),
               next_call = coalesce(:call, CASE WHEN result IS :result THEN next_call END)
           WHERE id = :id""",
        {"id": outcome_id, "result": result, "now": now, "tool": tool, "call": call},
    )
    _trim(connection, learning_id, result)
    return True


def unsettle(connection: sqlite3.Connection, outcome_id: int) -> bool:
    """A provisional retry the transcript does not bear out (read whole, nothing after the deny
    decided it: two calls at once, say, the second not made after the first's answer): undone,
    its count too. Whether there was one."""
    row = connection.execute(
        "SELECT learning_id, at, result FROM outcome WHERE id = :id AND settled = 0 AND result IS NOT NULL",
        {"id": outcome_id},
    ).fetchone()
    if row is None:
        return False
    _count(connection, row[0], row[1], row[2], -1)
    connection.execute(
        """UPDATE outcome SET result = NULL, decided_at = NULL, next_tool = NULL, next_call = NULL
           WHERE id = :id""",
        {"id": outcome_id},
    )
    return True


def _count(connection: sqlite3.Connection, learning_id: int, at: str, column: str, delta: int) -> None:
    """One outcome more (or, moved, one less) on its catch's day, for the learning and its scope;
    and, of a catch made since the learning was last changed, in its count since then (one made
    before a change counts for the old wording only). (A catch is decided within OPEN_DAYS: its
    day is never one folded into a month yet, and a day row made again for one would be folded
    with it.)"""
    assert column in RESULTS, column
    if column != "asked":
        since = {"id": learning_id, "at": at, "delta": delta}
        connection.execute(  # the count starts again when the learning was changed since
            """INSERT INTO outcome_since (learning_id, since)
               SELECT id, updated_at FROM learning WHERE id = :id
               ON CONFLICT (learning_id) DO UPDATE SET followed = 0, retried = 0, since = excluded.since
                   WHERE since IS NOT excluded.since""",
            since,
        )
        connection.execute(
            f"""UPDATE outcome_since SET {column} = max({column} + :delta, 0)
                WHERE learning_id = :id AND since <= :at""",
            since,
        )
    values = {"id": learning_id, "day": history.day_of(at), "delta": delta}
    connection.execute(
        f"""INSERT INTO learning_day (learning_id, day, {column}) VALUES (:id, :day, max(:delta, 0))
            ON CONFLICT (learning_id, day) DO UPDATE SET {column} = max({column} + :delta, 0)""",
        values,
    )
    connection.execute(
        f"""INSERT INTO scope_day (day, {column}) VALUES (:day, max(:delta, 0))
            ON CONFLICT (day) DO UPDATE SET {column} = max({column} + :delta, 0)""",
        values,
    )


def _trim(connection: sqlite3.Connection, learning_id: int, result: str) -> None:
    """Only the latest KEPT settled rows of a learning's outcome: the examples shown."""
    connection.execute(
        """DELETE FROM outcome WHERE learning_id = :id AND result = :result AND settled = 1 AND id <= (
               SELECT id FROM outcome WHERE learning_id = :id AND result = :result AND settled = 1
               ORDER BY id DESC LIMIT 1 OFFSET :keep)""",
        {"id": learning_id, "result": result, "keep": KEPT},
    )


def expire(connection: sqlite3.Connection, before: str) -> int:
    """Catches still undecided that were made before `before` (an instant): no session will decide
    them now; they stay counted as caught, their outcome unknown. How many went."""
    return connection.execute(
        "DELETE FROM outcome WHERE settled = 0 AND at < :before", {"before": before}
    ).rowcount


# ---------------------------------------------------------------------------------------------
# What list, show, stats, the report and the review read


def totals(connection: sqlite3.Connection, ids: list[int] | None = None) -> dict[int, dict[str, int]]:
    """Per learning (these, or every one with a count): caught (its denies, asks and rewrites),
    followed, retried, asked, over its whole history."""
    chosen = "" if ids is None else "WHERE learning_id IN (SELECT value FROM json_each(:ids))"
    rows = connection.execute(
        f"""SELECT learning_id, sum(denies + asks + rewrites), sum(followed), sum(retried), sum(asked)
            FROM (SELECT learning_id, denies, asks, rewrites, followed, retried, asked FROM learning_day
                  UNION ALL
                  SELECT learning_id, denies, asks, rewrites, followed, retried, asked FROM learning_month)
            {chosen} GROUP BY learning_id""",
        {"ids": json.dumps(ids or [])},
    ).fetchall()
    return {
        row[0]: {"caught": row[1] or 0, "followed": row[2] or 0, "retried": row[3] or 0, "asked": row[4] or 0}
        for row in rows
    }


UNCLEAR_AFTER = 2  # retries since the last change, at least, before a learning is called unclear
_LAST_RETRIED = {
    "followed": "s.followed",
    "retried": "s.retried",
    **{
        name: f"""(SELECT o.{column} FROM outcome AS o WHERE o.learning_id = l.id AND o.result = 'retried'
                   ORDER BY o.id DESC LIMIT 1)"""
        for name, column in (("retried_call", "call"), ("retried_with", "next_call"))
    },
}


def unclear(connection: sqlite3.Connection, limit: int) -> tuple[list[Unclear], int]:
    """The active learnings the agent retried more often than it followed since they were last
    changed (at least UNCLEAR_AFTER times), the most retried first, with their latest retried
    catch (its call and the call it was retried with, redacted); at most `limit` of them, and
    how many there are."""
    unclear = """FROM outcome_since AS s JOIN learning AS l ON l.id = s.learning_id
                 WHERE s.since = l.updated_at AND l.archived_at IS NULL AND NOT l.muted
                     AND s.retried > s.followed AND s.retried >= :least"""
    parameters = {"least": UNCLEAR_AFTER, "limit": limit}
    total: int = connection.execute(f"SELECT count(*) {unclear}", parameters).fetchone()[0]
    rows = connection.execute(
        f"""SELECT {stored.columns(Unclear, "l", **_LAST_RETRIED)}
            {unclear} ORDER BY s.retried - s.followed DESC, s.retried DESC, l.id LIMIT :limit""",
        parameters,
    )
    return stored.made(Unclear, rows), total


def most_retried(connection: sqlite3.Connection, since: str, limit: int) -> list[Retried]:
    """The learnings retried most since `since` (a day), with their followed and retried counts in
    that window and their anti-pattern."""
    rows = connection.execute(
        f"""SELECT {stored.columns(Retried, "l", followed="h.followed", retried="h.retried")}
           FROM (SELECT learning_id, sum(followed) AS followed, sum(retried) AS retried FROM learning_day
                 WHERE day >= :since GROUP BY learning_id HAVING sum(retried) > 0) AS h
               JOIN learning AS l ON l.id = h.learning_id
           ORDER BY h.retried - h.followed DESC, h.retried DESC, l.id LIMIT :limit""",
        {"since": since, "limit": limit},
    )
    return stored.made(Retried, rows)


def last(connection: sqlite3.Connection, ids: list[int], result: str = "retried") -> dict[int, Outcome]:
    """Each learning's latest catch of this outcome with the call that decided it (redacted)."""
    assert result in RESULTS, result
    rows = connection.execute(
        f"""SELECT {stored.columns(Outcome, "o")} FROM outcome AS o
           WHERE o.id IN (SELECT max(id) FROM outcome WHERE result = :result
                          AND learning_id IN (SELECT value FROM json_each(:ids)) GROUP BY learning_id)""",
        {"ids": json.dumps(ids), "result": result},
    )
    return {outcome.learning_id: outcome for outcome in stored.made(Outcome, rows)}
