"""The guard file, `cortex.db.guard`: what a deny needs, readable without SQLite's lock
(docs/guide/selfguard.md).

Another process can hold a database in `PRAGMA locking_mode=EXCLUSIVE`; under WAL no other
connection can then even read it, and PreToolUse, unable to read a learning, would let every
call through. So the active learnings with a regex that block, ask or rewrite (docs/guide/actions.md) — their
texts, matchers, actions, rewrites and confidences — are also kept as JSON beside the database.
A change that touches them marks `guard_state` (triggers on `learning`; the store's boosts
that raise a confidence, decays and confidence writes); the write transaction that made it
counts a new version as it commits, and then rewrites the file from what is committed, whole (a
temporary file and a rename) and private (0600), outside the write lock: no other writer waits
for it. Only PreToolUse reads the file, and only for a database it cannot read: no other path pays.

What it can miss, and it is said in docs/internals/guarantees.md: a confidence edited by hand in
the `sqlite3` shell is in the file only after the next change of ours (a boost that raises it, a
session end); writes still pending (store.pending) are counted as boosts only.
"""

from __future__ import annotations

import json
import sqlite3

from cortex_hooks import regular_file, stored
from cortex_hooks.location import guard_path
from cortex_hooks.stored import Learning

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

FIELDS = (
    "id",
    "anti_pattern",
    "correct_pattern",
    "regex",
    "tool",
    "target",
    "severity",
    "action",
    "rewrite",
    "confidence",
)
_TEXTS = FIELDS[1:8]  # anti_pattern to action: text; rewrite: text or null
# What the file holds: the learnings whose trusted match is more than a warning.
GUARDED = "(action != 'warn' OR rewrite IS NOT NULL)"
MAX_BYTES = 64 << 20  # a guard file of 100,000 blocking learnings is a fraction of this


def mark(connection: sqlite3.Connection, *, only_blocking: str | None = None) -> None:
    """Say the guard file must be rewritten at this transaction's commit, when a blocking learning
    is concerned: one of `only_blocking` (a JSON array of ids), or else any active one."""
    ids = (
        "AND id IN (SELECT value FROM json_each(:ids))"
        if only_blocking is not None
        else "AND archived_at IS NULL"
    )
    connection.execute(
        f"""UPDATE guard_state SET changed = 1
            WHERE changed = 0 AND EXISTS (SELECT 1 FROM learning WHERE {GUARDED} {ids})""",
        {"ids": only_blocking},
    )


def before_commit(connection: sqlite3.Connection) -> bool:
    """Whether this transaction changed what the guard file holds (called just before COMMIT: it
    then counts one more version). The file itself is written after the commit, outside SQLite's
    write lock, which no other writer waits on for it."""
    try:
        cursor = connection.execute(
            "UPDATE guard_state SET changed = 0, version = version + 1 WHERE changed = 1"
        )
    except sqlite3.OperationalError:  # a schema before the guard file (during a migration)
        return False
    return cursor.rowcount == 1


def after_commit(connection: sqlite3.Connection) -> None:
    """Write the guard file from what is committed now. Writers may finish out of order, so each
    one reads the version again after its rename and writes once more if another commit came in
    between: the last to finish leaves the newest. A file that cannot be written costs nothing but
    its freshness (until the next change)."""
    database = next((row[2] for row in connection.execute("PRAGMA database_list") if row[1] == "main"), "")
    if not database:
        return
    try:
        for _ in range(5):
            version, learnings = _snapshot(connection)
            _write(guard_path(database), json.dumps({"version": 2, "of": version, "learnings": learnings}))
            if _snapshot(connection, rows=False)[0] == version:
                return
    except (OSError, sqlite3.Error, ValueError):
        return


_BLOCKING = f"""SELECT {", ".join(f"l.{field}" for field in FIELDS[:-1])}, c.confidence
    FROM learning AS l JOIN learning_confidence AS c ON c.learning_id = l.id
    WHERE (l.action != 'warn' OR l.rewrite IS NOT NULL) AND l.archived_at IS NULL AND NOT l.muted
    ORDER BY l.id"""


def _snapshot(connection: sqlite3.Connection, *, rows: bool = True) -> tuple[int, list[dict[str, Any]]]:
    """The guard version and the blocking learnings, from one read transaction."""
    connection.execute("BEGIN")
    try:
        version = int(connection.execute("SELECT version FROM guard_state").fetchone()[0])
        found = connection.execute(_BLOCKING).fetchall() if rows else []
    finally:
        connection.execute("COMMIT")
    return version, [dict(zip(FIELDS, row, strict=True)) for row in found]


def read(database: str) -> list[Learning] | None:
    """The learnings the guard file holds (those that block, ask or rewrite), or None when there
    is no usable file. A file of version 1 (before ask and auto-correct) held only auto-block learnings."""
    try:  # never a FIFO or a device put in its place (it would hang the hook, or never end)
        data = json.loads(regular_file.read_small(guard_path(database), MAX_BYTES))
    except (OSError, ValueError):
        return None
    if (
        not isinstance(data, dict)
        or data.get("version") not in (1, 2)
        or not isinstance(data.get("learnings"), list)
    ):
        return None
    older = {"action": "block", "rewrite": None} if data["version"] == 1 else {}
    entries: list[dict[str, Any]] = [
        {"rewrite": None, **entry, **older} for entry in data["learnings"] if isinstance(entry, dict)
    ]
    return [
        stored.read_from_a_file(**{field: entry[field] for field in FIELDS})
        for entry in entries
        if all(isinstance(entry.get(field), str) for field in _TEXTS)
        and entry["action"] in ("block", "ask", "warn")
        and (entry.get("rewrite") is None or isinstance(entry.get("rewrite"), str))
        and all(type(entry.get(field)) is int for field in ("id", "confidence"))
    ]


def _write(path: str, text: str) -> None:
    """The file replaced whole (no reader sees half of it), private."""
    regular_file.write_whole(path, text.encode("utf-8"), mode=0o600)
