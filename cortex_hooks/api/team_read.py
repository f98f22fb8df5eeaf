"""Reading the team file into the project database (docs/guide/team.md), in one write transaction: bounded
(guard.team_rules's limits), only the lines not seen before validated (guard.shared_rules: no pydantic
on a hook), their rows written with the person's state kept.

What the file may not be, and how each is read: a FIFO, a device or a directory is not opened
(regular_file); a symlink that leads out of the project is not followed; past MAX_BYTES only the
first lines are read; a line that is not UTF-8 or does not validate is skipped and named; an id
given twice is taken once (its first line). None of these fails the hook.
"""

from __future__ import annotations

import os
import sqlite3

from cortex_hooks.location import TEAM_FOLDER, TEAM_NAME, team_path
from cortex_hooks.store import team as store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from cortex_hooks.stored.team_rows import TeamEntry


class Loaded:
    """The file's bytes as read within bounds (None: nothing to read) and what was wrong."""

    __slots__ = ("cut", "data", "problems")

    def __init__(self, data: bytes | None, problems: list[str], cut: bool = False) -> None:
        self.data = data
        self.problems = problems
        self.cut = cut


def load(project: str) -> Loaded:
    """The team file's content, at most MAX_BYTES of it, from a regular file inside the project."""
    from cortex_hooks.guard.team_rules import MAX_BYTES
    from cortex_hooks.regular_file import open_regular

    path = team_path(project)
    if not os.path.lexists(path):
        return Loaded(None, [])
    inside = os.path.realpath(project)
    real = os.path.realpath(path)
    if os.path.commonpath([inside, real]) != inside:
        return Loaded(None, [f"{TEAM_FOLDER}/{TEAM_NAME} leads out of the project (to {real}): not read"])
    try:
        with open_regular(path) as stream:
            data = stream.read(MAX_BYTES + 1)
    except (OSError, ValueError) as error:
        reason = getattr(error, "strerror", None) or str(error)
        return Loaded(None, [f"{TEAM_FOLDER}/{TEAM_NAME} cannot be read ({reason}): not read"])
    return Loaded(data[:MAX_BYTES], [], cut=len(data) > MAX_BYTES)


def read_in(
    connection: sqlite3.Connection, project: str, start: int, current: str, *, taken: bool = False
) -> list[str]:
    """Read the file (whose stat is `current`) into the database in one write transaction; the
    problems, named by line. Unchanged lines (by digest) are not validated again. A file that was
    trusted and changed since is held, unless the change is `taken`: its trusted rules stay in
    force, its new text waits for `team trust` (said as a problem)."""
    from cortex_hooks import clock
    from cortex_hooks.guard import team_rules as team
    from cortex_hooks.store.connection import Transaction

    loaded = load(project)
    lines, said = team.lines(loaded.data or b"", cut=loaded.cut)
    now = clock.iso(clock.now())
    problems = loaded.problems + said
    with Transaction(connection):
        if store.stat(connection) == current and not taken:  # another process read it meanwhile
            return []
        held = _held(connection, loaded.data, taken)
        if held is not None:  # said where the person looks (SessionStart, team list, doctor)
            store.record_read(connection, current, held, [HELD], now)
            return []
        entries = store.entries(connection)
        by_line = {row.line: entry_id for entry_id, row in entries.items() if row.line}
        seen: dict[str, int] = {}
        for line in lines:
            where = f"{TEAM_NAME} line {line.number}"
            known = by_line.get(line.digest)
            if known is not None and known not in seen:
                seen[known] = line.number  # the same line as before: nothing to validate
                continue
            record = _entry(line, where, problems)
            if record is None:
                continue
            if record["id"] in seen:
                first = seen[record["id"]]
                problems.append(f"{where}: the id {record['id']} appears again (first on line {first})")
                continue
            seen[record["id"]] = line.number
            _write(connection, record, line.digest, entries.get(record["id"]), start=start, now=now)
        for entry_id, row in entries.items():
            if row.line is not None and entry_id not in seen:
                store.archive(connection, row.kind, row.row_id, now)
                store.set_gone(connection, entry_id)
        digest = team.digest(loaded.data) if loaded.data is not None else None
        store.record_read(connection, current, digest, team.bounded(problems), now)
        store.put_in_force(connection, store.trusted(connection))
    return team.bounded(problems)


HELD = (
    f"{TEAM_FOLDER}/{TEAM_NAME} changed since it was trusted: its trusted rules stay in force as they were; "
    "the new text is read once the person runs `cortex-hooks team trust` (after reading the change)"
)


def _held(connection: sqlite3.Connection, data: bytes | None, taken: bool) -> str | None:
    """The trusted digest, when a trusted file's new content must wait (None: read it in)."""
    from cortex_hooks.guard import team_rules as team

    state = store.state(connection)
    if taken or state is None or state.trusted is None or state.digest != state.trusted:
        return None
    digest = team.digest(data) if data is not None else None
    return None if digest == state.trusted else str(state.trusted)


def _entry(line: object, where: str, problems: list[str]) -> dict[str, Any] | None:
    """A line's values by the shared format's rules (guard.shared_rules: no pydantic on a hook)."""
    from cortex_hooks.guard import shared_rules

    text = getattr(line, "text", None)
    if text is None:
        problems.append(f"{where}: not UTF-8 text")
        return None
    try:
        values = shared_rules.entry_values(text, memories=True)
    except ValueError as error:
        problems.append(f"{where}: {error}")
        return None
    if values.get("rewrite") is not None:  # a rewrite must not launder a call (docs/internals/judge.md)
        from cortex_hooks.judging import protection

        refused = protection.of_rewrite(values["regex"], values["rewrite"])
        if refused is not None:
            problems.append(f"{where}: rewrite: {refused}")
            return None
    return values


def _write(
    connection: sqlite3.Connection,
    record: dict[str, Any],
    line: str,
    known: TeamEntry | None,
    *,
    start: int,
    now: str,
) -> None:
    """One new or changed line into its row (the person's state kept), and its entry."""
    kind = record["kind"]
    if known is not None and known.kind != kind:  # the id changed kind: its old row goes
        store.archive(connection, known.kind, known.row_id, now)
        known = None
    if kind == "learning":
        row_id = _learning(connection, record, known, start, now)
        action, rewrite = record["action"], record["rewrite"]
    else:
        row_id = _memory(connection, record, known, now)
        action, rewrite = None, None
    store.put_entry(
        connection,
        {
            "id": record["id"],
            "kind": kind,
            "row_id": row_id,
            "line": line,
            "action": action,
            "rewrite": rewrite,
        },
    )


def _learning(
    connection: sqlite3.Connection, record: dict[str, Any], known: TeamEntry | None, start: int, now: str
) -> int:
    from cortex_hooks.guard import team_rules as team

    declared = {**team.declared(record), "updated_at": now, "archived_at": None, "pinned": 1}
    if known is not None:
        store.change_learning(connection, int(known.row_id), declared)
        return int(known.row_id)
    return store.add_learning(
        connection,
        {
            **declared,
            "action": "warn",  # what it does is put in force after the read (trust)
            "rewrite": None,
            "confidence": start,
            "access_count": 0,
            "last_accessed": None,
            "created_at": now,
            "slug": None,
            "pack": team.PACK,
            "muted": 0,
        },
    )


def _memory(connection: sqlite3.Connection, record: dict[str, Any], known: TeamEntry | None, now: str) -> int:
    from cortex_hooks.guard import team_rules as team
    from cortex_hooks.memory import given

    declared = {**team.memory_declared(record), "updated_at": now, "status": "active", "archived_at": None}
    if known is not None:
        store.change_memory(connection, int(known.row_id), declared)
        return int(known.row_id)
    return store.add_memory(
        connection,
        {
            **declared,
            "priority": given.DEFAULT_PRIORITY,
            "confidence": given.DEFAULT_CONFIDENCE,
            "pinned": 1,  # the team's word: never pruned for lack of use
            "source": "explicit",
            "source_session": None,
            "path": None,
            "access_count": 0,
            "last_accessed": None,
            "created_at": now,
            "confirmed_at": now,
        },
    )
