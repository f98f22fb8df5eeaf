"""Checkpoints of a database (docs/guide/aging.md): whole copies made with SQLite's online backup API into
`checkpoints/` beside it, the last 5 kept, and putting one back.

A checkpoint is written to a hidden `.partial` file, synced, then renamed: a process killed while
writing one leaves a partial file that nothing lists (the next checkpoint removes it), never a
checkpoint that is incomplete. It is a self-contained file (rollback journal, not WAL).

A restore copies the checkpoint into the live database with the backup API too: one write
transaction of the live database, so every other connection (a hook running meanwhile) sees the old
state or the restored one, and a crash leaves one of the two (SQLite's WAL or journal undoes a
restore cut short). Copying the file over the database instead would race with the WAL.
"""

from __future__ import annotations

import contextlib
import os
import re
import sqlite3
from datetime import datetime

from cortex_hooks.errors import USAGE, CortexError
from cortex_hooks.store.version import SCHEMA_VERSION

KEPT = 5
FOLDER = "checkpoints"
_REQUIRED = {"learning", "memory", "edge"}  # the tables a cortex database has had since version 7


def folder(database: str) -> str:
    return os.path.join(os.path.dirname(os.path.abspath(database)), FOLDER)


def _stem(database: str) -> str:
    return os.path.splitext(os.path.basename(database))[0]


def _pattern(database: str) -> re.Pattern[str]:
    return re.compile(rf"{re.escape(_stem(database))}-(\d{{8}}T\d{{6}}Z)(?:-(\d+))?\.db")


def existing(database: str) -> list[str]:
    """This database's checkpoints, oldest first."""
    return [path for _, path in _numbered(database)]


def _numbered(database: str) -> list[tuple[tuple[str, int], str]]:
    """Each checkpoint with its (time stamp, number within that second), oldest first."""
    try:
        names = os.listdir(folder(database))
    except FileNotFoundError:
        return []
    pattern = _pattern(database)
    found = []
    for name in names:
        matched = pattern.fullmatch(name)
        if matched:
            found.append(((matched[1], int(matched[2] or 1)), os.path.join(folder(database), name)))
    return sorted(found)


def _new_name(database: str, now: datetime) -> str:
    """`cortex-20261123T120000Z.db`; a second one within that second `…-2.db`, and so on (one
    more than the highest still there, so names sort as they were made)."""
    stamp = now.strftime("%Y%m%dT%H%M%SZ")
    number = 1 + max((number for (taken, number), _ in _numbered(database) if taken == stamp), default=0)
    return f"{_stem(database)}-{stamp}{'' if number == 1 else f'-{number}'}.db"


def create(database: str, now: datetime) -> str:
    """A checkpoint of the database's committed state (its path). The caller holds the write lock,
    so the copy is exactly the state its own transaction then changes."""
    try:
        return _create(database, now)
    except OSError as error:
        raise CortexError(
            f"cannot write a checkpoint in {folder(database)}: {error.strerror or error}; nothing was changed"
        ) from None


def _create(database: str, now: datetime) -> str:
    where = folder(database)
    os.makedirs(where, mode=0o700, exist_ok=True)
    for name in os.listdir(where):  # what a process killed mid-checkpoint left behind
        if name.startswith(f".{_stem(database)}-") and name.endswith(".partial"):
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(where, name))
    final = os.path.join(where, _new_name(database, now))
    partial = os.path.join(where, f".{os.path.basename(final)}.partial")
    os.close(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600))
    try:
        with (
            contextlib.closing(sqlite3.connect(database, isolation_level=None, timeout=10)) as source,
            contextlib.closing(sqlite3.connect(partial, isolation_level=None)) as target,
        ):
            # No journal and no sync while the copy is made: a partial file is thrown away whole,
            # and the finished one is synced once, before it is renamed into place.
            target.execute("PRAGMA journal_mode = OFF")
            target.execute("PRAGMA synchronous = OFF")
            source.backup(target)
            target.execute("PRAGMA journal_mode = DELETE")  # one file, whatever the source's mode
        _sync(partial)
        os.replace(partial, final)
        _sync(where)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(partial)
        raise
    return final


def rotate(database: str, keep: int = KEPT) -> list[str]:
    """Delete all but the newest `keep` checkpoints; the paths deleted."""
    old = existing(database)[:-keep] if keep else existing(database)
    for path in old:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
    return old


def _sync(path: str) -> None:
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def check(path: str, database: str) -> int:
    """Refuse what is not a cortex checkpoint this code can restore (CortexError, nothing
    written anywhere); its schema version."""
    if not os.path.isfile(path):
        raise CortexError(f"{path} is not a file: nothing restored", USAGE)
    if os.path.exists(database) and os.path.samefile(path, database):
        raise CortexError(f"{path} is the live database itself: nothing restored", USAGE)
    try:
        with contextlib.closing(_read_only(path)) as connection:
            version: int = connection.execute("PRAGMA user_version").fetchone()[0]
            tables = {
                row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            }
            if version > SCHEMA_VERSION:
                raise CortexError(
                    f"{path} has schema version {version}, newer than this cortex-hooks knows "
                    f"({SCHEMA_VERSION}): nothing restored",
                    USAGE,
                )
            if version < 7 or not tables >= _REQUIRED:
                raise CortexError(
                    f"{path} is not a cortex checkpoint (no cortex schema): nothing restored", USAGE
                )
            if connection.execute("PRAGMA quick_check").fetchone()[0] != "ok":
                raise CortexError(
                    f"{path} is damaged (it fails SQLite's quick_check): nothing restored", USAGE
                )
    except sqlite3.DatabaseError as error:
        raise CortexError(f"{path} is not a cortex checkpoint ({error}): nothing restored", USAGE) from None
    return version


def _read_only(path: str) -> sqlite3.Connection:
    """The file, read only. Without a WAL file beside it, as immutable: a copy of a WAL-mode
    database would otherwise get `-wal` and `-shm` files made beside it just to be read."""
    immutable = "" if os.path.exists(path + "-wal") else "&immutable=1"
    return sqlite3.connect(
        f"file:{_uri(os.path.abspath(path))}?mode=ro{immutable}", uri=True, isolation_level=None
    )


def _uri(path: str) -> str:
    return path.replace("%", "%25").replace("?", "%3f").replace("#", "%23")


def restore(path: str, connection: sqlite3.Connection) -> None:
    """Copy the checkpoint into the live database through `connection`: one write transaction."""
    with contextlib.closing(_read_only(path)) as source:
        source.backup(connection)
