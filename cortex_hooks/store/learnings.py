"""SQL for learnings: CRUD, the PreToolUse candidate lookup, boosts and decay."""

from __future__ import annotations

import json
import sqlite3

from cortex_hooks import stored
from cortex_hooks.guard import matching, prefilter
from cortex_hooks.stored import Candidate, Learning

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from cortex_hooks.confidence import Policy


COLUMNS = tuple(field for field in Learning._fields if field not in ("id", "auto_block"))  # written
_OPTIONAL = {
    "slug": None,
    "pack": None,
    "muted": 0,
    "rewrite": None,
    "examples": None,
}  # what a learning given without them has


# Confidence lives in a narrow table of its own: every session end rewrites it for every learning,
# and rewriting the wide learning rows (texts, times, literals) cost SessionEnd most of its budget.
# Every learning has one (the schema's triggers see to it, whoever writes).
SELECTED = stored.columns(Learning, "l", confidence="c.confidence")  # FROM l, c as in _ROWS
_ROWS = f"""SELECT {SELECTED}
           FROM learning AS l LEFT JOIN learning_confidence AS c ON c.learning_id = l.id"""


def _boosts(connection: sqlite3.Connection, policy: Policy) -> None:
    """confidence.boosted as an SQL function: applied to the few matched rows only."""
    from cortex_hooks import confidence

    def boosted(value: int) -> int:
        return confidence.boosted(value, policy)

    connection.create_function("boosted", 1, boosted, deterministic=True)


def _awaits_review() -> str:
    """confidence.AWAITS_REVIEW_SQL over the joined narrow and wide rows."""
    from cortex_hooks import confidence

    return confidence.AWAITS_REVIEW_SQL.format(
        confidence="c.confidence", pinned="l.pinned", archived="(l.archived_at IS NOT NULL)"
    )


_TEXT_COLUMNS = tuple(column for column in COLUMNS if column != "confidence")


def insert(connection: sqlite3.Connection, values: Mapping[str, object]) -> int:
    """Insert a learning (every column of COLUMNS given) with its derived prefilter data; its id."""
    placeholders = ", ".join(f":{column}" for column in _TEXT_COLUMNS)
    cursor = connection.execute(
        f"INSERT INTO learning ({', '.join(_TEXT_COLUMNS)}) VALUES ({placeholders})",
        {
            column: _stored(column, values[column] if column in values else _OPTIONAL[column])
            for column in _TEXT_COLUMNS
        },
    )
    learning_id = cursor.lastrowid
    assert learning_id is not None
    _set_confidence(connection, learning_id, values["confidence"])
    derive(connection, learning_id)
    return learning_id


def update(connection: sqlite3.Connection, learning_id: int, changes: Mapping[str, object]) -> None:
    """Change some columns of one learning; its prefilter data follows its regex and target."""
    unknown = set(changes) - set(COLUMNS)
    assert not unknown, unknown
    text = {column: _stored(column, value) for column, value in changes.items() if column != "confidence"}
    if text:
        assignments = ", ".join(f"{column} = :{column}" for column in text)
        connection.execute(f"UPDATE learning SET {assignments} WHERE id = :id", {**text, "id": learning_id})
    if "confidence" in changes:
        _set_confidence(connection, learning_id, changes["confidence"])
        if isinstance(changes.get("updated_at"), str):  # keep, update --confidence: the history's day
            from cortex_hooks.store import history

            history.record_confidences(
                connection,
                "SELECT learning_id, confidence FROM learning_confidence WHERE learning_id = :id",
                {"id": learning_id},
                history.day_of(str(changes["updated_at"])),
            )
    if "regex" in changes or "target" in changes:
        derive(connection, learning_id)


def _stored(column: str, value: object) -> object:
    """A value as its column keeps it: examples as JSON text (NULL for none)."""
    if column != "examples":
        return value
    from cortex_hooks.guard import examples  # a write only: never on PreToolUse's no-match path

    return examples.stored(value)


def _set_confidence(connection: sqlite3.Connection, learning_id: int, value: object) -> None:
    connection.execute(
        """INSERT INTO learning_confidence (learning_id, confidence) VALUES (:id, :confidence)
           ON CONFLICT (learning_id) DO UPDATE SET confidence = excluded.confidence""",
        {"id": learning_id, "confidence": value},
    )
    from cortex_hooks.store import guard_file

    guard_file.mark(connection, only_blocking=json.dumps([learning_id]))


def derive(connection: sqlite3.Connection, learning_id: int) -> None:
    """(Re)compute what the PreToolUse prefilter reads: the index keys with the learning's tool
    matcher, and the required literals (cortex_hooks.guard.prefilter), from the learning as stored."""
    row = connection.execute(
        "SELECT regex, target, tool FROM learning WHERE id = :id", {"id": learning_id}
    ).fetchone()
    connection.execute(
        "UPDATE learning SET literals = :literals WHERE id = :id",
        {"literals": prefilter.literals(row["regex"]), "id": learning_id},
    )
    connection.execute("DELETE FROM learning_key WHERE learning_id = :id", {"id": learning_id})
    connection.executemany(
        "INSERT INTO learning_key (key, learning_id, tool) VALUES (:key, :id, :tool)",
        # a learning without a regex never matches: it needs no key
        [
            {"key": key, "id": learning_id, "tool": row["tool"]}
            for key in prefilter.keys(row["regex"], row["target"])
            if row["regex"]
        ],
    )


def derive_all(connection: sqlite3.Connection) -> None:
    """Every learning's prefilter data anew (after a migration, or a change to how it is derived)."""
    for (learning_id,) in connection.execute("SELECT id FROM learning").fetchall():
        derive(connection, learning_id)


def with_match(connection: sqlite3.Connection, regex: str | None, tool: str, target: str) -> int | None:
    """An active learning that matches exactly as one with this regex, tool and target would."""
    row = connection.execute(
        """SELECT id FROM learning WHERE regex = :regex AND tool = :tool AND target = :target
           AND archived_at IS NULL ORDER BY id LIMIT 1""",
        {"regex": regex, "tool": tool, "target": target},
    ).fetchone()
    return int(row[0]) if row is not None else None


def get(connection: sqlite3.Connection, learning_id: int) -> Learning | None:
    found = stored.made(Learning, connection.execute(f"{_ROWS} WHERE l.id = :id", {"id": learning_id}))
    return found[0] if found else None


def select(
    connection: sqlite3.Connection, shown: str = "active", review: Policy | None = None
) -> list[Learning]:
    """Learnings shown (active, archived, all); with a policy, only those awaiting review."""
    from cortex_hooks.store import visibility  # listing, never the PreToolUse path

    where = visibility.WHERE[shown]
    parameters = {}
    if review is not None:
        from cortex_hooks.confidence import sql_parameters

        where += f" AND {_awaits_review()}"
        parameters = sql_parameters(review)
    return stored.made(Learning, connection.execute(f"{_ROWS} WHERE {where} ORDER BY l.id", parameters))


def awaiting_review(connection: sqlite3.Connection, policy: Policy, limit: int) -> tuple[list[Learning], int]:
    """The first `limit` learnings awaiting review, lowest confidence first, and how many there are.

    The due ones are found and counted on narrow rows; only the `limit` shown are read whole.
    """
    from cortex_hooks.confidence import sql_parameters

    rows = connection.execute(
        f"""WITH due AS MATERIALIZED (
               SELECT c.learning_id AS id, c.confidence
               FROM learning_confidence AS c CROSS JOIN learning AS l ON l.id = c.learning_id
               WHERE {_awaits_review()})
           SELECT {stored.columns(Learning, "l", confidence="first.confidence")},
               (SELECT count(*) FROM due) AS awaiting
           FROM (SELECT * FROM due ORDER BY confidence, id LIMIT :limit) AS first
               CROSS JOIN learning AS l ON l.id = first.id
           ORDER BY first.confidence, l.id""",
        {"limit": limit, **sql_parameters(policy)},
    ).fetchall()
    return stored.made(Learning, (row[:-1] for row in rows)), rows[0]["awaiting"] if rows else 0


def candidates(connection: sqlite3.Connection, keys: str, tool_name: str) -> list[Candidate]:
    """Active learnings with a regex whose prefilter key is among `keys` (a JSON array; an index
    lookup) and whose tool matcher, as the key carries it, may accept `tool_name`.

    The matcher is judged on the key's row, before the wide `learning` row is read: most keys a
    call shares belong to learnings of other tools.
    """
    judged: dict[str, bool] = {}  # one judgement per distinct matcher, within this call

    def accepts(matcher: str) -> bool:
        accepted = judged.get(matcher)
        if accepted is None:
            accepted = judged[matcher] = matching.tool_accepts(matcher, tool_name)
        return accepted

    connection.create_function("accepts", 1, accepts, deterministic=True)
    return stored.made(
        Candidate,
        connection.execute(
            # The keys in the order given (sorted per target: neighbouring pages), each looked up once
            # (CROSS JOIN keeps SQLite from first copying all of them into a temporary index).
            f"""SELECT DISTINCT {stored.columns(Candidate, "l")}
           FROM json_each(:keys) AS j CROSS JOIN learning_key AS k ON k.key = j.value
               JOIN learning AS l ON l.id = k.learning_id
           WHERE accepts(k.tool) AND l.archived_at IS NULL AND l.regex IS NOT NULL AND NOT l.muted
           ORDER BY l.id""",
            {"keys": keys},
        ),
    )


def keys_of_target(connection: sqlite3.Connection, letter: str) -> list[str]:
    """Every distinct prefilter key of one target: for texts too long to cut into grams."""
    rows = connection.execute(
        "SELECT DISTINCT key FROM learning_key WHERE key >= :low AND key < :high",
        {"low": letter, "high": chr(ord(letter) + 1)},
    ).fetchall()
    return [row[0] for row in rows]


def literals_by_learning(connection: sqlite3.Connection) -> dict[int, str | None]:
    """Each learning's prefilter literals as stored (doctor compares them with the regex's)."""
    return dict(connection.execute("SELECT id, literals FROM learning").fetchall())


def keys_by_learning(connection: sqlite3.Connection) -> dict[int, set[str]]:
    """Every learning's stored prefilter keys (for explain and doctor, never the hot path); a key
    whose copy of the tool matcher is not the learning's (a hand edit) counts as missing."""
    keys: dict[int, set[str]] = {}
    for key, learning_id in connection.execute(
        """SELECT k.key, k.learning_id FROM learning_key AS k JOIN learning AS l ON l.id = k.learning_id
           WHERE k.tool IS l.tool"""
    ):
        keys.setdefault(learning_id, set()).add(key)
    return keys


def matched(connection: sqlite3.Connection, ids: list[int]) -> list[Learning]:
    """The matched learnings as they are now, inside the write transaction, before their boost."""
    return stored.made(
        Learning,
        connection.execute(
            f"""{_ROWS} WHERE l.id IN (SELECT value FROM json_each(:ids)) AND l.archived_at IS NULL
               AND NOT l.muted ORDER BY l.id""",
            {"ids": json.dumps(ids)},
        ),
    )


def record_matches(
    connection: sqlite3.Connection,
    ids: list[int],
    now: str,
    policy: Policy,
    *,
    answers: Mapping[int, str] | None = None,
    call: tuple[str, str] | None = None,
) -> None:
    """Boost each matched learning and count the access, by the pure rule of the confidence model;
    and in the same transaction its history: the match, with what it answered by itself when the
    match was a verdict (`answers`, guard.judge.answer: PreToolUse, not capture's boost), and the
    call (tool, redacted text) among the learning's latest (store.history)."""
    from cortex_hooks.store import history  # a match only: the no-match path never imports it

    _boosts(connection, policy)
    parameters = {"now": now, "ids": json.dumps(ids)}
    connection.execute(
        """UPDATE learning SET access_count = access_count + 1, last_accessed = :now
           WHERE id IN (SELECT value FROM json_each(:ids)) AND archived_at IS NULL""",
        parameters,
    )
    raised = connection.execute(
        """UPDATE learning_confidence SET confidence = boosted(confidence)
           WHERE learning_id IN (SELECT value FROM json_each(:ids)) AND boosted(confidence) != confidence
           RETURNING learning_id""",
        parameters,
    ).fetchall()
    history.record_matches(connection, ids, answers, history.day_of(now))
    if call is not None:
        said = answers or {}
        verdicts = [(i, said.get(i, "warn")) for i in dict.fromkeys(ids)]
        history.keep_calls(connection, verdicts, call[0], call[1], now)
    if raised:  # a confidence at its ceiling stays: the guard file holds it already
        from cortex_hooks.store import guard_file  # a match: past the hot path's no-match end

        guard_file.mark(connection, only_blocking=json.dumps([row[0] for row in raised]))


def decay_all(connection: sqlite3.Connection, policy: Policy, now: str) -> int:
    """One session end's decay of every unpinned, active learning (confidence.decayed); how many
    changed. The history gets each changed learning's new confidence for the day, and its
    year-old days are folded."""
    from cortex_hooks.confidence import DECAYED_SQL, DECAYS_SQL, EXEMPT_SQL, sql_parameters
    from cortex_hooks.store import history

    decayed = DECAYED_SQL.format(confidence="confidence")
    where = f"""{DECAYS_SQL.format(confidence="confidence")}
               AND learning_id NOT IN (SELECT id FROM learning WHERE {EXEMPT_SQL})"""
    parameters = sql_parameters(policy)
    day = history.day_of(now)
    history.record_confidences(
        connection,
        f"SELECT learning_id, {decayed} AS confidence FROM learning_confidence WHERE {where}",
        parameters,
        day,
    )
    cursor = connection.execute(
        f"UPDATE learning_confidence SET confidence = {decayed} WHERE {where}", parameters
    )
    history.fold(connection, day)
    if cursor.rowcount:
        from cortex_hooks.store import guard_file

        guard_file.mark(connection)
    return cursor.rowcount


def delete(connection: sqlite3.Connection, learning_id: int) -> None:
    """Remove a learning with its derived rows and its history (a move's source, once the copy
    is committed)."""
    from cortex_hooks.store import history

    history.forget_learning(connection, learning_id)
    for table, column in (("learning", "id"), ("learning_key", "learning_id")):  # its confidence with it
        connection.execute(f"DELETE FROM {table} WHERE {column} = :id", {"id": learning_id})
