"""The one upgrade: a database any earlier version wrote (schema 1 and on) brought to the current
schema in one step, inside the caller's write transaction — a kill anywhere leaves it as it was.

The old tables are set aside, the current ones made, and every row copied over, column by column:
a column takes the old column of its name, or what `_sources` says an older version kept in its
place (the confidence in the learning row before it had a table of its own, `auto_block` before
the action, …), or its default. What the code derives — the prefilter's keys and literals, the
full-text indexes, the memories' in-degrees — is derived anew. What an older version kept verbatim
before the one redactor is redacted.

A row an older version let through its CHECKs (a hand edit: a confidence of 0.9, text in a
counter, an unknown action) does not fit a STRICT table: SQLite names the column, and `Mender`
reads the value the way the person meant it where that can be known, or archives the row (never
deletes it) with the strictest reading. What was mended is said in the upgrade's one line.
"""

from __future__ import annotations

import json
import math
import re
import sqlite3
from typing import Any

from cortex_hooks import clock, location
from cortex_hooks.errors import CortexError
from cortex_hooks.store import learnings, schema
from cortex_hooks.store.version import SCHEMA_VERSION

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cortex_hooks.confidence import Policy

_MASKED = re.escape("[REDACTED]")  # what a regex built from redacted text held before version 17
_ANY_VALUE = ".+?"  # what stands for a secret in a regex (capture.regex_synthesis.SECRET)
_DERIVED = {"learning_key"}  # made anew from the learnings, never copied
_SEQUENCED = ("vector", "claude_chunk")  # AUTOINCREMENT: their ids are never used again
_ARCHIVED = ("learning", "decision", "error", "todo", "memory")  # the kinds a row is archived of
# What stands for a value nothing can be made of, in a column with no default that must hold one
# (any other: its default, or NULL); the row is archived where its kind can be.
_STAND_INS: dict[tuple[str, str], object] = {
    ("learning", "action"): "block",  # the strictest, should the person restore it
    ("memory", "type"): "context",
    ("memory", "priority"): 5,  # a new memory's (memory.given.DEFAULT_PRIORITY)
    ("memory", "source"): "explicit",
}


def _redacted(text: str | None) -> str | None:
    if text is None:
        return None
    from cortex_hooks.redact import redact

    return redact(text)


def run(connection: sqlite3.Connection, found: int, path: str) -> list[str]:
    """Bring a database of schema `found` to the current one, inside the caller's transaction;
    what was mended or archived, each in a few words."""
    connection.create_function("cortex_redacted", 1, _redacted, deterministic=True)
    old = _set_aside(connection)
    schema.make_tables(connection)
    mender = Mender(connection, location.config_for(path).policy, clock.iso(clock.now()))
    for table in _tables(connection):
        moved = table == "learning_confidence" and "learning" in old  # a column of learning before 5
        if (table in old or moved) and table not in _DERIVED:
            _copy(connection, table, _select(table, old, found), mender)
    _backfill(connection, old, found, mender)
    sequences = dict(connection.execute("SELECT name, seq FROM sqlite_sequence").fetchall())
    for table in old:
        connection.execute(f"DROP TABLE _old_{table}")
    schema.finish(connection)
    for table in _SEQUENCED:  # never below what the old table had handed out
        if f"_old_{table}" in sequences:
            connection.execute(
                "UPDATE sqlite_sequence SET seq = max(seq, :seq) WHERE name = :name",
                {"seq": sequences[f"_old_{table}"], "name": table},
            )
    _derive(connection)
    return mender.said


def _set_aside(connection: sqlite3.Connection) -> dict[str, list[str]]:
    """The old schema's triggers, indexes and full-text indexes dropped (all made anew, or derived)
    and each of its tables the current schema knows renamed `_old_<name>`; their columns."""
    known = set(_tables_declared())
    master = connection.execute("SELECT type, name, sql FROM sqlite_master ORDER BY type DESC").fetchall()
    for kind, name, sql in master:
        if kind == "trigger":
            connection.execute(f'DROP TRIGGER "{name}"')
        elif kind == "index" and sql is not None:
            connection.execute(f'DROP INDEX "{name}"')
    for name in ("search_vocabulary", "search", "claude_search"):
        connection.execute(f"DROP TABLE IF EXISTS {name}")
    old: dict[str, list[str]] = {}
    for kind, name, _sql in master:
        if kind == "table" and name in known:
            old[name] = [row[1] for row in connection.execute(f'PRAGMA table_info("{name}")')]
            connection.execute(f'ALTER TABLE "{name}" RENAME TO _old_{name}')
    return old


def _tables_declared() -> list[str]:
    statements = (*schema.TABLES, *schema.CLAUDE_INDEX)
    return [match[1] for s in statements if (match := re.match(r"CREATE TABLE (\w+)", s))]


def _tables(connection: sqlite3.Connection) -> list[str]:
    return [
        table
        for table in _tables_declared()
        if connection.execute("SELECT 1 FROM sqlite_master WHERE name = :t", {"t": table}).fetchone()
    ]


class Select:
    """How one current table is filled from the old database: the expression of each column, the
    rows' source and the old rowid each row came from (None: the table's key says which)."""

    def __init__(self, columns: dict[str, str], source: str, rowid: str | None) -> None:
        self.columns = columns
        self.source = source
        self.rowid = rowid


def _select(table: str, old: dict[str, list[str]], found: int) -> Select:
    """The current table's columns as the old database holds them (`_sources`), each one it
    lacks left to its default."""
    had = old.get(table, [])
    columns = {column: column for column in had}
    columns.update(_sources(table, had, found))
    source, rowid = f"_old_{table}", "rowid"
    if table == "learning_confidence" and "learning_confidence" not in old:  # before version 5
        source = "(SELECT id AS learning_id, confidence, id AS rowid FROM _old_learning)"
        columns = {"learning_id": "learning_id", "confidence": "confidence"}
    if table == "learning_confidence":  # a confidence whose learning is gone means nothing
        source = f"(SELECT * FROM {source} WHERE learning_id IN (SELECT id FROM _old_learning))"
    if table == "capture_success" and found < 17:  # redacted, a call that becomes a duplicate kept once
        columns = {"command": "command", "session_id": "session_id", "seen_at": "seen_at"}
        source = """(SELECT cortex_redacted(command) AS command, session_id, min(seen_at) AS seen_at,
                     min(rowid) AS rowid FROM _old_capture_success GROUP BY 1, 2)"""
    return Select(columns, source, rowid)


def _sources(table: str, had: list[str], found: int) -> dict[str, str]:
    """What an older version kept in place of a current column (an expression over its old
    table), where it is not the old column of the same name."""
    redacted = found < 17  # the one redactor came with version 17: what was kept before, verbatim
    if table == "learning":
        sources = {"literals": "NULL"}  # derived anew
        if "action" not in had:  # before version 19: the flag (a hand-edited one: block, the stricter)
            sources["action"] = "CASE WHEN auto_block IS 0 THEN 'warn' ELSE 'block' END"
        if redacted:  # a regex built from redacted text never matched: the mask stands for any value
            sources["regex"] = f"replace(regex, '{_MASKED}', '{_ANY_VALUE}')"
        return sources
    if table == "memory":
        sources = {}
        if "base_confidence" not in had:  # before version 9: the curve starts where it stands, due now
            sources = {"base_confidence": "confidence", "lifecycle_due": "''"}
        return sources
    if table == "guard_state":
        return {"changed": "1"}  # the file is written again from the current schema's rows
    if not redacted:
        return {}
    verbatim = {
        "session": ("summary",),
        "proposal": ("anti_pattern", "correct_pattern", "content"),
        "proposal_occurrence": ("failed", "fixed"),
        "verdict_call": ("call",),
    }
    sources = {column: f"cortex_redacted({column})" for column in verbatim.get(table, ())}
    if table == "proposal":
        sources["regex"] = f"replace(regex, '{_MASKED}', '{_ANY_VALUE}')"
    if table == "capture_scan":  # a scan's tail that held a secret is dropped: the context of one scan
        sources["tail"] = "CASE WHEN cortex_redacted(tail) IS NOT tail THEN '[]' ELSE tail END"
    return sources


def _declared(connection: sqlite3.Connection, table: str) -> dict[str, tuple[str, bool, str | None, bool]]:
    """Each stored column of a current table: its type, NOT NULL, default (SQL), primary key."""
    return {
        row[1]: (row[2].upper(), bool(row[3]), row[4], bool(row[5]))
        for row in connection.execute(f"PRAGMA table_xinfo({table})")
        if row[6] == 0
    }


def _copy(connection: sqlite3.Connection, table: str, select: Select, mender: Mender) -> None:
    """Every row of the old table into the current one: those that fit in one statement, each
    other one mended (Mender) and written alone."""
    declared = _declared(connection, table)
    columns = [c for c in declared if select.columns.get(c)]
    keys = [c for c in declared if declared[c][3]]
    # a rowid table keeps each row's rowid: its INTEGER PRIMARY KEY, or the rowid itself
    rowid = "WITHOUT ROWID" not in _sql(connection, table).upper() and not (
        len(keys) == 1 and declared[keys[0]][0] == "INTEGER"
    )
    if rowid:
        keys = ["rowid"]
    listed = ", ".join(f"{select.columns[c]} AS {c}" for c in columns)
    mapped = f"SELECT {listed}, {select.rowid if rowid else 'NULL'} AS _r FROM {select.source}"
    fits = " AND ".join(f"typeof({c}) IN {_TYPES[declared[c][0]]}" for c in columns)
    target, chosen = ", ".join(columns), ", ".join(columns)
    if rowid:
        target, chosen = f"rowid, {target}", f"_r, {chosen}"
    connection.execute(
        f"INSERT OR IGNORE INTO {table} ({target}) SELECT {chosen} FROM ({mapped}) WHERE {fits}"
    )
    missing = " AND ".join(f"t.{k} IS m.{'_r' if k == 'rowid' else k}" for k in keys)
    for row in connection.execute(
        f"SELECT * FROM ({mapped}) AS m WHERE NOT EXISTS (SELECT 1 FROM {table} AS t WHERE {missing})"
    ).fetchall():
        values = dict(zip([*columns, "_r"], row, strict=True))
        kept = values.pop("_r")
        key = kept if rowid else ", ".join(str(values.get(k)) for k in keys)
        mender.write(table, values, declared, key, rowid=kept if rowid else None)


_TYPES = {
    "INTEGER": "('integer', 'null')",
    "REAL": "('real', 'integer', 'null')",
    "TEXT": "('text', 'null')",
    "BLOB": "('blob', 'null')",
}


def _sql(connection: sqlite3.Connection, table: str) -> str:
    row = connection.execute("SELECT sql FROM sqlite_master WHERE name = :t", {"t": table}).fetchone()
    return str(row[0])


def _backfill(connection: sqlite3.Connection, old: dict[str, list[str]], found: int, mender: Mender) -> None:
    """What an older version did not keep and the current schema has: a confidence for each
    learning that lost its own (the start value), and the history's memory events (version 14)."""
    for (learning_id,) in connection.execute(
        "SELECT id FROM learning WHERE id NOT IN (SELECT learning_id FROM learning_confidence) ORDER BY id"
    ).fetchall():
        connection.execute(
            "INSERT INTO learning_confidence (learning_id, confidence) VALUES (:id, :start)",
            {"id": learning_id, "start": mender.start},
        )
        mender.said.append(f"learning #{learning_id} had no confidence: it starts at the start value")
    if found < 14 and "memory" in old:  # what the memories themselves tell of the past
        connection.execute(
            """INSERT INTO scope_day (day, added) SELECT substr(created_at, 1, 10), count(*)
               FROM memory WHERE true GROUP BY 1 ON CONFLICT (day) DO UPDATE SET added = excluded.added"""
        )
        connection.execute(
            """INSERT INTO scope_day (day, archived) SELECT substr(archived_at, 1, 10), count(*) FROM memory
               WHERE status = 'archived' AND archived_at IS NOT NULL GROUP BY 1
               ON CONFLICT (day) DO UPDATE SET archived = excluded.archived"""
        )


def _derive(connection: sqlite3.Connection) -> None:
    """What the code derives, anew from the rows: the full-text indexes, the memories'
    in-degrees, the prefilter's keys and literals; and the keeper's count moves on (the
    protective tables were made anew: a kept database's copy follows them, store.transaction)."""
    for statement in schema.SEARCH_FILLS:
        connection.execute(statement)
    connection.execute(
        "INSERT INTO claude_search (rowid, body) SELECT id, summary || char(10) || content FROM claude_chunk"
    )
    connection.execute(
        """UPDATE memory SET in_degree = (SELECT count(*) FROM edge
               WHERE edge.to_id = memory.id AND edge.type != 'supersedes')
           WHERE in_degree IS NOT (SELECT count(*) FROM edge
               WHERE edge.to_id = memory.id AND edge.type != 'supersedes')"""
    )
    learnings.derive_all(connection)
    connection.execute("UPDATE keeper_state SET changes = changes + 1")


class Mender:
    """A row an older version let through its CHECKs, written so that the current schema holds
    it: each value SQLite refuses read as the person meant it where that can be known (a
    confidence of 0.9 is 0.90; bytes of UTF-8 are text), else the column's default, or the
    strictest reading of it with the row archived, never deleted. `said`: what was done."""

    def __init__(self, connection: sqlite3.Connection, policy: Policy, now: str) -> None:
        self.connection = connection
        self.policy = policy
        self.start = policy.start
        self.now = now
        self.said: list[str] = []

    def write(
        self,
        table: str,
        values: dict[str, Any],
        declared: dict[str, tuple[str, bool, str | None, bool]],
        key: object,
        *,
        rowid: int | None = None,
    ) -> None:
        """Write one row that did not fit, mending each value SQLite refuses (twice at most)."""
        name = self._name(table, key)
        tried: dict[str, int] = {}
        while True:
            columns = list(values)
            target = ", ".join(columns if rowid is None else ["rowid", *columns])
            marks = ", ".join(f":{c}" for c in (columns if rowid is None else ["_rowid", *columns]))
            try:
                self.connection.execute(
                    f"INSERT INTO {table} ({target}) VALUES ({marks})", {**values, "_rowid": rowid}
                )
                return
            except sqlite3.IntegrityError as error:
                refused = _refused(str(error), table, columns)
                if not refused or any(tried.get(column, 0) >= 2 for column in refused):
                    raise CortexError(
                        f"cannot bring {name} to schema {SCHEMA_VERSION} ({error}); "
                        "the database was left untouched"
                    ) from None
                for column in refused:
                    tried[column] = tried.get(column, 0) + 1
                    self._mend(table, column, values, declared[column], name, last=tried[column] > 1)

    def _mend(
        self, table: str, column: str, values: dict[str, Any], declared: tuple[str, bool, str | None, bool],
        name: str, *, last: bool,
    ) -> None:  # fmt: skip
        value = values[column]
        kind = declared[0]
        meant = None if last else _meant(table, column, value, kind, self.policy)
        if meant is not None:
            values[column] = meant
            self.said.append(f"{name}: its {column} {_short(value)} read as {_short(meant)}")
            return
        stand_in = self._stand_in(table, column, declared, value)
        values[column] = stand_in
        what = "archived" if self._archive(table, values) else "mended"
        self.said.append(
            f"{name} {what}: its {column} {_short(value)} cannot be read (now {_short(stand_in)})"
        )

    def _stand_in(
        self, table: str, column: str, declared: tuple[str, bool, str | None, bool], value: object
    ) -> object:
        """What a column holds for a value nothing can be made of: its text as far as it goes, the
        column's stand-in or default, NULL, or the type's zero."""
        kind, not_null, default, _key = declared
        if kind == "TEXT" and isinstance(value, bytes):
            return value.decode("utf-8", "backslashreplace")  # every byte kept, readable
        if (table, column) in _STAND_INS:
            return _STAND_INS[table, column]
        if default is not None:
            return self.connection.execute(f"SELECT {default}").fetchone()[0]
        if not not_null:
            return None
        return {"INTEGER": 0, "REAL": 0.0, "TEXT": "", "BLOB": b""}[kind]

    def _archive(self, table: str, values: dict[str, Any]) -> bool:
        """Archive the row, if its kind can be (never deleted); whether it was."""
        if table not in _ARCHIVED:
            return False
        if table == "memory":
            values["status"] = "archived"
        values["archived_at"] = values.get("archived_at") or self.now
        return True

    def _name(self, table: str, key: object) -> str:
        if table in _ARCHIVED:
            return f"{table} #{key}"
        if table == "learning_confidence":
            return f"learning #{key}"
        return f"{table} row ({key})"


def _refused(message: str, table: str, columns: list[str]) -> list[str]:
    """The columns an IntegrityError names: a STRICT type, a NOT NULL, or a CHECK's expression."""
    found = re.search(rf"column {table}\.(\w+)$", message) or re.search(rf"failed: {table}\.(\w+)$", message)
    if found:
        return [found[1]] if found[1] in columns else []
    if "CHECK constraint failed" in message:
        words = set(re.findall(r"\w+", message.split("failed:", 1)[1]))
        return [column for column in columns if column in words]
    return []


_CONFIDENCES = {"confidence", "base_confidence"}
_COUNTS = {"access_count", "occurrences", "matches", "denies", "asks", "warnings", "rewrites", "shown"}


def _meant(table: str, column: str, value: object, kind: str, policy: Policy) -> object:
    """What a value an older version let through meant, where that can be known (None: it cannot)."""
    if column in _COUNTS and _number(value) is None:
        return 0  # no number: it counted nothing
    if column in _CONFIDENCES:
        hundredths = _hundredths(value, policy.start)
        if table == "learning_confidence":  # within the model's floor and ceiling, as doctor kept it
            return min(policy.ceiling, max(policy.floor, hundredths))
        return hundredths
    if table == "memory" and column == "tags" and isinstance(value, str):
        return json.dumps([value], ensure_ascii=False)  # a tag written as plain text
    if table == "learning" and column == "pinned":
        return 1  # a pin keeps a learning from decaying: the stricter reading
    if table == "learning" and column == "muted":
        return 0  # a muted learning never matches: the stricter reading is not muted
    if kind == "TEXT" and isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            return None
    if kind in ("INTEGER", "REAL"):
        number = _number(value)
        if number is None:
            return None
        if column in _COUNTS:
            number = max(number, 0)  # a count below zero counted nothing
        meant = int(number) if kind == "INTEGER" else number
        return None if meant == value and type(meant) is type(value) else meant
    return None


def _hundredths(value: object, start: int) -> int:
    """A hand-written confidence as hundredths: 0.9 and 90 both mean 0.90; anything that is no
    number of hundredths starts again at the start value."""
    number = _number(value)
    if number is None or not 0 < number <= 100:
        return start
    return round(number * 100) if number <= 1 else round(number)


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float, str, bytes)):
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"
