"""Opening a database at the current schema version (its write transactions: store.transaction).

Connections run in autocommit mode with an
explicit `BEGIN IMMEDIATE` for every write, so concurrent hook processes queue on SQLite's busy
timeout instead of failing with "database is locked" when a read would upgrade to a write.
"""

from __future__ import annotations

import os
import sqlite3

from cortex_hooks import location
from cortex_hooks.errors import CortexError
from cortex_hooks.store.transaction import Transaction, locked
from cortex_hooks.store.version import SCHEMA_VERSION, user_version

__all__ = [
    "BUSY_TIMEOUT",
    "HOOK_WRITE_WAIT",
    "SCHEMA_VERSION",
    "Locked",
    "Missing",
    "Transaction",
    "keep_open",
    "locked",
    "open_database",
    "upgrade_notes",
    "user_version",
]

BUSY_TIMEOUT = 10.0  # seconds: what a person's command waits for another writer
# What a hook waits for the write lock: far beyond any write of ours (parallel hooks queue on it),
# far below what the agent would notice. Past it, the write is kept for later (store.pending).
HOOK_WRITE_WAIT = 0.6


# The databases this process brought from an older schema version to SCHEMA_VERSION, each with
# the version it had and what the upgrade mended: the CLI and SessionStart say so (upgrade_notes).
UPGRADED: list[tuple[str, int, list[str]]] = []
SAID_MENDED = 3  # of the values mended, how many the one line names


def upgrade_notes() -> list[str]:
    """What to tell the person of the upgrades made since the last call (each is said once)."""
    from cortex_hooks.sanitize import line

    notes = []
    for path, found, mended in UPGRADED:
        note = (
            f"upgraded the database {line(path)} from schema version {found} to {SCHEMA_VERSION} "
            "(automatic, on its first use by this version; everything in it kept)"
        )
        if mended:
            named = "; ".join(mended[:SAID_MENDED])
            more = f"; and {len(mended) - SAID_MENDED} more" if len(mended) > SAID_MENDED else ""
            note += f"; what a hand edit had made unreadable: {line(named + more)}"
        notes.append(note)
    UPGRADED.clear()
    return notes


class Missing(CortexError):
    """There is no database at the path (hooks then do nothing)."""


class Locked(CortexError):
    """Another process holds the database so that it cannot even be read (locking_mode=EXCLUSIVE)."""


def open_database(path: str, *, create: bool = False, busy: float = BUSY_TIMEOUT) -> sqlite3.Connection:
    """A connection to the project's database at the current schema version, with the writes
    other hooks kept for later (store.pending) applied when the write lock is free.

    Without `create` a missing file raises Missing: hooks never create a database. A file that
    is not a database, or whose schema is newer than this code, is reported and never written.
    `busy` is how long a write waits for another writer's lock.
    """
    if os.path.isdir(path):
        raise CortexError(f"{path} is a directory, not a cortex database")
    if not os.path.exists(path):
        if not create:
            raise Missing(f"no database at {path}")
        location.create_private(path)
    try:
        connection = _connect(path, busy)
    except sqlite3.Error as error:
        raise CortexError(f"cannot open the database {path}: {error}") from None
    connection.row_factory = sqlite3.Row
    try:
        # WAL with synchronous=NORMAL: every transaction stays atomic and the file consistent
        # through any crash; only a power loss may forget the last commits. An fsync less per hook.
        connection.execute("PRAGMA synchronous = NORMAL")
        version = user_version(connection)
        if version > SCHEMA_VERSION:
            raise CortexError(
                f"{path} has schema version {version}, newer than this cortex-hooks knows "
                f"({SCHEMA_VERSION}); upgrade cortex-hooks (pipx upgrade cortex-hooks, uv tool "
                "upgrade cortex-hooks, or pip install --upgrade from a newer clone). "
                "The database was left untouched"
            )
        if version < SCHEMA_VERSION:
            from cortex_hooks.store import schema

            if not create and schema.is_blank(connection):
                # An empty file is not a database (or the CLI is still making it): hooks
                # never create one, so they leave it alone.
                raise Missing(f"{path} is empty")
            found, mended = _bring_current(connection, path)
            if 0 < found < SCHEMA_VERSION:  # an existing database, upgraded by this process
                UPGRADED.append((path, found, mended))
        if pending_waiting(path):
            _replay(connection, path, busy)
    except sqlite3.OperationalError as error:  # the file may be fine: say what is wrong around it
        _discard(connection)
        kind = Locked if locked(error) else CortexError
        raise kind(f"cannot use the database {path}: {_circumstances(path, error)}") from None
    except sqlite3.DatabaseError as error:
        _discard(connection)
        raise CortexError(
            f"{path} is not a usable cortex database ({error}); it was left untouched"
        ) from None
    except BaseException:
        _discard(connection)
        raise
    return connection


class _Kept(sqlite3.Connection):
    """A connection a long-running process keeps from one command to the next (keep_open): a
    command's close() hands it back, open, with its parsed schema and its page cache."""

    identity: tuple[int, int] = (0, 0)  # the file's (device, inode) when it was opened
    lent = False

    def close(self) -> None:
        if self.in_transaction:  # never the case after a Transaction; never carried over
            self.rollback()
        self.lent = False

    def release(self) -> None:
        super().close()


class keep_open:
    """While in force, the connection of each database path stays open between commands, lent
    to one command at a time (the MCP server: no open, schema read and close per tool call). A
    file replaced in between (a restore) is opened anew; all are closed at the end."""

    kept: dict[str, _Kept] | None = None  # path -> its connection, while in force

    def __enter__(self) -> None:
        keep_open.kept = {}

    def __exit__(self, *exc: object) -> None:
        kept, keep_open.kept = keep_open.kept or {}, None
        for connection in kept.values():
            connection.release()


def _connect(path: str, busy: float) -> sqlite3.Connection:
    """A new connection, or under keep_open the kept one of this file when no command holds it."""
    if keep_open.kept is None:
        return sqlite3.connect(path, isolation_level=None, timeout=busy)
    stats = os.stat(path)
    identity = (stats.st_dev, stats.st_ino)
    kept = keep_open.kept.get(path)
    if kept is not None and kept.lent:  # a command opening the same file twice: a plain second one
        return sqlite3.connect(path, isolation_level=None, timeout=busy)
    if kept is not None and kept.identity != identity:
        kept.release()
        kept = None
    if kept is None:
        kept = sqlite3.connect(path, isolation_level=None, timeout=busy, factory=_Kept)
        kept.identity = identity
        keep_open.kept[path] = kept
    else:
        kept.execute(f"PRAGMA busy_timeout = {int(busy * 1000)}")
    kept.lent = True
    return kept


def _discard(connection: sqlite3.Connection) -> None:
    """Close a connection that failed its checks, kept or not: it is never lent again."""
    if isinstance(connection, _Kept):
        kept = keep_open.kept or {}
        for path in [path for path, other in kept.items() if other is connection]:
            del kept[path]
        connection.release()
    else:
        connection.close()


def pending_waiting(path: str) -> bool:
    """Whether writes were kept for later beside this database (one stat)."""
    try:
        return os.stat(location.pending_path(path)).st_size > 0
    except OSError:
        return False


def _replay(connection: sqlite3.Connection, path: str, busy: float) -> None:
    """Apply the pending writes now if the lock is free; never wait for it (a reader goes on with
    what it can read, and the next writer applies them)."""
    from cortex_hooks.store import pending

    connection.execute("PRAGMA busy_timeout = 0")
    try:
        pending.replay(connection, path, location.config_for(path).policy)
    except sqlite3.OperationalError as error:
        if not locked(error):
            raise
    finally:
        connection.execute(f"PRAGMA busy_timeout = {int(busy * 1000)}")


def _circumstances(path: str, error: sqlite3.Error) -> str:
    """What keeps SQLite from working with an intact file: a read-only or full file system."""
    try:
        stats = os.statvfs(os.path.dirname(os.path.abspath(path)))
    except OSError:
        return str(error)
    if stats.f_flag & os.ST_RDONLY:
        return f"it is on a read-only file system ({error})"
    if stats.f_bavail == 0:
        return f"the disk is full ({error})"
    return str(error)


def _check_ours(connection: sqlite3.Connection, path: str) -> None:
    version = user_version(connection)
    if version > SCHEMA_VERSION:
        raise CortexError(f"{path} has schema version {version}, newer than this cortex-hooks")
    if version == 0 and connection.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
        raise CortexError(f"{path} is an SQLite database of something else; it was left untouched")


def _bring_current(connection: sqlite3.Connection, path: str) -> tuple[int, list[str]]:
    """Make a new database, or bring one an earlier version wrote to SCHEMA_VERSION, in one write
    transaction; a no-op if another process got there first. The version this process found
    (SCHEMA_VERSION when there was nothing to do), and what the upgrade mended or archived."""
    from cortex_hooks.store import schema

    _check_ours(connection, path)  # before anything, even the journal mode, is written
    if connection.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
        connection.execute("PRAGMA journal_mode = WAL")  # persistent; not allowed in a transaction
    said: list[str] = []
    with Transaction(connection):
        _check_ours(connection, path)  # again: another process may have done it meanwhile
        version = user_version(connection)
        if version == 0:
            schema.create(connection)
        elif version < SCHEMA_VERSION:
            from cortex_hooks.store import upgrade

            said = upgrade.run(connection, version, path)
        connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    return version, said
