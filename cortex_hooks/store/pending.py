"""Writes a hook could not make because another process holds the database's write lock.

A `sqlite3` shell or a DB browser can hold a write transaction for minutes. Under WAL the hooks
still *read* — a deny is decided from what they can read, never by waiting on the writer — and
the boost, the session start or the session end they could not write within a short bound is
appended to `<database>.pending` (one JSON line, under an exclusive flock). The next process that
can write applies the pending lines in order, in one transaction that also records each line's id
in `pending_applied`, and only then empties the file: a process killed between the commit and the
truncation leaves lines whose ids are recorded, so they are never applied twice.
"""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3

from cortex_hooks.location import pending_path as path_of
from cortex_hooks.store import learnings, sessions

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any, TypeVar

    from cortex_hooks.confidence import Policy
    from cortex_hooks.stored import Learning

    Done = TypeVar("Done")


def write_or_keep(
    connection: sqlite3.Connection, database: str, work: Callable[[], Done], op: str, **fields: Any
) -> Done | None:
    """`work` in one write transaction; None when another process holds the write lock past the
    hook's wait: the write is then kept for later, as one pending line of `op` and `fields`."""
    from cortex_hooks.store.transaction import Transaction, locked

    try:
        with Transaction(connection):
            return work()
    except sqlite3.OperationalError as error:
        if not locked(error):
            raise
        append(database, op, **fields)
        return None


def kept_note(scope: str, what: str) -> str:
    """What a hook says when it kept a write for later."""
    return f"another process holds the {scope} database's write lock: {what} kept for later"


def append(database: str, op: str, **fields: Any) -> None:
    """Keep one write for later: a line appended under the file's lock."""
    import uuid

    line = json.dumps({"id": uuid.uuid4().hex, "op": op, **fields}, ensure_ascii=False) + "\n"
    descriptor = os.open(path_of(database), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        os.write(descriptor, line.encode("utf-8"))
    finally:
        os.close(descriptor)  # closing releases the lock


def entries(database: str) -> list[dict[str, Any]]:
    """The pending writes in the order they were kept (unreadable lines skipped)."""
    try:
        with open(path_of(database), "rb") as stream:
            return list(_parsed(stream.read()))
    except OSError:
        return []


def _parsed(raw: bytes) -> Iterator[dict[str, Any]]:
    for line in raw.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and isinstance(entry.get("id"), str):
            yield entry


def replay(connection: sqlite3.Connection, database: str, policy: Policy) -> int:
    """Apply every pending write not applied yet, in order, in one transaction (whose
    `BEGIN IMMEDIATE` raises sqlite3.OperationalError when the lock is still held); then empty
    the file. How many were applied."""
    descriptor = os.open(path_of(database), os.O_RDWR)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)  # no line is appended between reading and emptying
        with os.fdopen(os.dup(descriptor), "rb") as stream:
            kept = list(_parsed(stream.read()))
        from cortex_hooks.store.transaction import Transaction

        with Transaction(connection):  # the guard file and the keeper follow it, as every write
            applied = {row[0] for row in connection.execute("SELECT id FROM pending_applied")}
            fresh = [entry for entry in kept if entry["id"] not in applied]
            for entry in fresh:
                _apply(connection, entry, policy)
            connection.executemany("INSERT INTO pending_applied (id) VALUES (?)", [(e["id"],) for e in fresh])
        os.ftruncate(descriptor, 0)
        # Only now are the recorded ids no longer needed (a kill before this line is harmless).
        connection.execute("DELETE FROM pending_applied")
        return len(fresh)
    finally:
        os.close(descriptor)


def _answers(entry: dict[str, Any]) -> dict[int, str] | None:
    """What each match of a kept entry answered: `answers` (id -> deny, ask, rewrite or warn), or
    as an older version kept it, `denied` (the ids that denied; the others warned)."""
    answers, denied = entry.get("answers"), entry.get("denied")
    if isinstance(answers, dict):
        return {int(i): str(said) for i, said in answers.items()}
    if isinstance(denied, list):
        return {int(i): "deny" for i in denied}
    return None


def _apply(connection: sqlite3.Connection, entry: dict[str, Any], policy: Policy) -> None:
    op, now, session = entry.get("op"), str(entry.get("now")), entry.get("session")
    if op == "match" and isinstance(entry.get("ids"), list):
        tool, call = entry.get("tool"), entry.get("call")
        learnings.record_matches(
            connection,
            [int(i) for i in entry["ids"]],
            now,
            policy,
            answers=_answers(entry),
            call=(tool, call) if isinstance(tool, str) and isinstance(call, str) else None,
        )
        caught = entry.get("caught")
        if isinstance(caught, list) and all(isinstance(row, dict) for row in caught):
            from cortex_hooks.store import outcomes

            outcomes.record(connection, caught)
    elif op == "start" and isinstance(session, str):
        sessions.record_start(connection, session, str(entry.get("source")), now)
    elif op == "end" and isinstance(session, str) and not sessions.has_ended(connection, session):
        learnings.decay_all(connection, policy, now)
        sessions.record_end(connection, session, reason=str(entry.get("reason")), now=now)
    elif op == "summary" and isinstance(session, str):
        changes = entry.get("key_changes")
        sessions.record_summary(
            connection,
            session,
            summary=entry.get("summary"),
            key_changes=changes if isinstance(changes, list) else [],
        )


def unapplied(connection: sqlite3.Connection, database: str) -> list[dict[str, Any]]:
    """The pending writes not applied yet, in order (read once for all a hook's matches)."""
    applied = {row[0] for row in connection.execute("SELECT id FROM pending_applied")}
    return [entry for entry in entries(database) if entry["id"] not in applied]


def pending_confidence(
    connection: sqlite3.Connection, waiting: list[dict[str, Any]], row: Learning, policy: Policy
) -> int:
    """A learning's confidence as it will be once the `waiting` writes are applied: what a hook
    decides on while another process holds the lock."""
    from cortex_hooks import confidence

    value: int = row.confidence
    ended: set[str] = set()
    for entry in waiting:
        if entry.get("op") == "match" and row.id in entry.get("ids", []):
            value = confidence.boosted(value, policy)
        elif entry.get("op") == "end" and entry.get("session") not in ended:
            session = str(entry.get("session"))
            ended.add(session)
            exempt = confidence.exempt(pinned=bool(row.pinned), archived=row.archived_at is not None)
            if not exempt and not sessions.has_ended(connection, session):
                value = confidence.decayed(value, policy)
    return value
