"""SQL of the history: per learning and UTC day its matches, what they became, what the
agent did after its catches (docs/guide/outcomes.md) and its confidence at the day's end; per
scope and day the same counts summed, and the memories added, recalled, archived and pruned; the
last denied or warned calls of each learning. Day rows past a year are folded into month rows.

Written only inside transactions that already write (a match's boost, a session end's decay, a
change of confidence, the lifecycle's prune; the memory counts by triggers, schema 14): the
PreToolUse path that matches nothing never reaches this module.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from datetime import date, timedelta

KEPT_CALLS = 5  # per learning: its latest denied or warned calls (see keep_calls)
VERDICTS = ("matches", "denies", "asks", "warnings", "rewrites")
# what the agent did after a deny, ask or rewrite (docs/guide/outcomes.md; `asked`: the person answered),
# counted on the day of the catch (store.outcomes)
OUTCOMES = ("followed", "retried", "asked")
COUNTS = (*VERDICTS, *OUTCOMES)
ANSWERS = ("deny", "ask", "rewrite", "warn")  # what a match answered (guard.judge.answer)
MEMORY_COUNTS = ("added", "recalled", "archived", "pruned")
PROTECTIONS = "protections"  # the built-in protection's denials, per scope and day (docs/internals/judge.md)
BUILT_IN = 0  # the learning id its latest denied calls are kept under (no learning has it)
YEAR = 365  # days kept as days; older ones are folded into their months


def day_of(instant: str) -> str:
    """The UTC day of a stored instant (`2026-11-22T09:30:00Z` -> `2026-11-22`)."""
    return instant[:10]


def record_matches(
    connection: sqlite3.Connection, ids: list[int], answers: Mapping[int, str] | None, day: str
) -> None:
    """One match of each learning of `ids` on `day`, with the confidence as it stands after the
    boost; when the matches were a verdict (`answers` given: PreToolUse, not capture's boost),
    what each answered by itself (deny, ask, rewrite or warn; a learning missing from `answers`
    warned). The scope's day sums them."""
    matched = list(dict.fromkeys(ids))
    said = [[i, (answers.get(i) or "warn") if answers is not None else None] for i in matched]
    connection.execute(
        """INSERT INTO learning_day (learning_id, day, matches, denies, asks, warnings, rewrites, confidence)
           SELECT c.learning_id, :day, 1, d.answer IS 'deny', d.answer IS 'ask', d.answer IS 'warn',
               d.answer IS 'rewrite', c.confidence
           FROM (SELECT value ->> 0 AS id, value ->> 1 AS answer FROM json_each(:said)) AS d
               JOIN learning_confidence AS c ON c.learning_id = d.id
           ON CONFLICT (learning_id, day) DO UPDATE SET matches = matches + 1,
               denies = denies + excluded.denies, asks = asks + excluded.asks,
               warnings = warnings + excluded.warnings, rewrites = rewrites + excluded.rewrites,
               confidence = excluded.confidence""",
        {"said": json.dumps(said), "day": day},
    )
    counted = {answer: sum(1 for _, given in said if given == answer) for answer in ANSWERS}
    connection.execute(
        """INSERT INTO scope_day (day, matches, denies, asks, warnings, rewrites)
           VALUES (:day, :matches, :deny, :ask, :warn, :rewrite)
           ON CONFLICT (day) DO UPDATE SET matches = matches + excluded.matches,
               denies = denies + excluded.denies, asks = asks + excluded.asks,
               warnings = warnings + excluded.warnings, rewrites = rewrites + excluded.rewrites""",
        {"day": day, "matches": len(matched), **counted},
    )


def record_confidences(
    connection: sqlite3.Connection, select: str, parameters: Mapping[str, object], day: str
) -> None:
    """The confidence at `day`'s end of the learnings `select` yields (`learning_id`,
    `confidence`): a session end's decay, a `keep`, an update."""
    connection.execute(
        f"""INSERT INTO learning_day (learning_id, day, confidence)
            SELECT learning_id, :day, confidence FROM ({select}) WHERE true
            ON CONFLICT (learning_id, day) DO UPDATE SET confidence = excluded.confidence""",
        {**parameters, "day": day},
    )


def keep_calls(
    connection: sqlite3.Connection, verdicts: list[tuple[int, str]], tool: str, call: str, at: str
) -> None:
    """A denied, asked, rewritten or warned call (its text already redacted and cut), once per
    learning it tripped,
    and only each learning's latest KEPT_CALLS: a learning tripped a thousand times a day keeps
    five rows, and never crowds out the one deny of a rarer learning."""
    connection.executemany(
        """INSERT INTO verdict_call (learning_id, at, verdict, tool, call)
           VALUES (:id, :at, :verdict, :tool, :call)""",
        [{"id": i, "at": at, "verdict": verdict, "tool": tool, "call": call} for i, verdict in verdicts],
    )
    connection.executemany(
        """DELETE FROM verdict_call WHERE learning_id = :id AND id <= (
               SELECT id FROM verdict_call WHERE learning_id = :id ORDER BY id DESC
               LIMIT 1 OFFSET :keep)""",
        [{"id": i, "keep": KEPT_CALLS} for i, _ in verdicts],
    )


def record_protection(connection: sqlite3.Connection, tool: str, call: str, at: str) -> None:
    """One deny of the built-in protection at `at`, and the call (already redacted and cut) among
    its latest."""
    connection.execute(
        f"""INSERT INTO scope_day (day, {PROTECTIONS}) VALUES (:day, 1)
            ON CONFLICT (day) DO UPDATE SET {PROTECTIONS} = {PROTECTIONS} + 1""",
        {"day": day_of(at)},
    )
    keep_calls(connection, [(BUILT_IN, "deny")], tool, call, at)


def count_memories(connection: sqlite3.Connection, day: str, column: str, count: int) -> None:
    """Memory events the triggers cannot see (a prune deletes the row)."""
    assert column in MEMORY_COUNTS, column
    if count:
        connection.execute(
            f"""INSERT INTO scope_day (day, {column}) VALUES (:day, :count)
                ON CONFLICT (day) DO UPDATE SET {column} = {column} + excluded.{column}""",
            {"day": day, "count": count},
        )


def forget_learning(connection: sqlite3.Connection, learning_id: int) -> None:
    """A deleted learning's history (a move's source)."""
    for table in ("learning_day", "learning_month", "verdict_call", "outcome"):
        connection.execute(f"DELETE FROM {table} WHERE learning_id = :id", {"id": learning_id})


def fold_boundary(day: str) -> str:
    """The first day kept as a day: the first of the month a year before `day`."""
    return (date.fromisoformat(day) - timedelta(days=YEAR)).replace(day=1).isoformat()


def fold(connection: sqlite3.Connection, day: str) -> int:
    """Fold the day rows of months that ended more than a year before `day` into month rows
    (counts summed, the confidence of the month's last day); how many day rows went. Cheap when
    there is nothing to fold: one look at each table's oldest day through its index."""
    boundary = fold_boundary(day)
    folded = 0
    oldest = connection.execute("SELECT min(day) FROM learning_day").fetchone()[0]
    if oldest is not None and oldest < boundary:
        sums = ", ".join(f"sum({column})" for column in COUNTS)
        connection.execute(
            f"""INSERT INTO learning_month (learning_id, month, {", ".join(COUNTS)}, confidence)
                SELECT learning_id, month, {sums}, (SELECT d.confidence FROM learning_day AS d
                    WHERE d.learning_id = g.learning_id AND substr(d.day, 1, 7) = g.month
                        AND d.confidence IS NOT NULL ORDER BY d.day DESC LIMIT 1)
                FROM (SELECT *, substr(day, 1, 7) AS month FROM learning_day WHERE day < :boundary) AS g
                GROUP BY learning_id, month
                ON CONFLICT (learning_id, month) DO UPDATE SET
                    {", ".join(f"{c} = {c} + excluded.{c}" for c in COUNTS)},
                    confidence = coalesce(excluded.confidence, confidence)""",
            {"boundary": boundary},
        )
        folded += connection.execute(
            "DELETE FROM learning_day WHERE day < :boundary", {"boundary": boundary}
        ).rowcount
    oldest = connection.execute("SELECT min(day) FROM scope_day").fetchone()[0]
    if oldest is not None and oldest < boundary:
        counted = (*COUNTS, *MEMORY_COUNTS, PROTECTIONS)
        connection.execute(
            f"""INSERT INTO scope_month (month, {", ".join(counted)})
                SELECT substr(day, 1, 7), {", ".join(f"sum({c})" for c in counted)}
                FROM scope_day WHERE day < :boundary GROUP BY 1
                ON CONFLICT (month) DO UPDATE SET
                    {", ".join(f"{c} = {c} + excluded.{c}" for c in counted)}""",
            {"boundary": boundary},
        )
        folded += connection.execute(
            "DELETE FROM scope_day WHERE day < :boundary", {"boundary": boundary}
        ).rowcount
    return folded
