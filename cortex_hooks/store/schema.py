"""Schema migrations, keyed by `PRAGMA user_version`; each runs inside one write transaction."""

from __future__ import annotations

import sqlite3

from cortex_hooks.errors import CortexError
from cortex_hooks.store import learnings
from cortex_hooks.store.transaction import Transaction
from cortex_hooks.store.version import SCHEMA_VERSION, user_version

# One entry per schema version: the statements that take version N-1 to N. Statements run one
# by one inside the migration's transaction (executescript() would commit first).
MIGRATIONS: list[tuple[str, ...]] = [
    (
        """CREATE TABLE learning (
            id INTEGER PRIMARY KEY,
            anti_pattern TEXT NOT NULL,
            correct_pattern TEXT NOT NULL,
            regex TEXT,
            tool TEXT NOT NULL DEFAULT '*',
            target TEXT NOT NULL DEFAULT 'content' CHECK (target IN ('content', 'path', 'input')),
            severity TEXT NOT NULL DEFAULT 'medium'
                CHECK (severity IN ('low', 'medium', 'high', 'critical')),
            auto_block INTEGER NOT NULL DEFAULT 0 CHECK (auto_block IN (0, 1)),
            pinned INTEGER NOT NULL DEFAULT 0 CHECK (pinned IN (0, 1)),
            confidence INTEGER NOT NULL DEFAULT 70 CHECK (confidence BETWEEN 0 AND 100),
            access_count INTEGER NOT NULL DEFAULT 0,
            last_accessed TEXT,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            archived_at TEXT,
            context TEXT
        )""",
        # The PreToolUse prefilter (see cortex_hooks.prefilter): looked up by key, never scanned.
        """CREATE TABLE learning_key (
            key TEXT NOT NULL,
            learning_id INTEGER NOT NULL REFERENCES learning (id),
            PRIMARY KEY (key, learning_id)
        ) WITHOUT ROWID""",
        "CREATE INDEX learning_key_by_learning ON learning_key (learning_id)",
        """CREATE TABLE session (
            id TEXT PRIMARY KEY,
            source TEXT,
            started_at TEXT,
            ended_at TEXT,
            reason TEXT,
            summary TEXT,
            key_changes TEXT NOT NULL DEFAULT '[]'
        )""",
    ),
    # 2: decisions, errors and todos as memory kinds beside learnings (SPEC §5, §6).
    (
        """CREATE TABLE decision (
            id INTEGER PRIMARY KEY,
            title TEXT NOT NULL,
            reasoning TEXT NOT NULL,
            category TEXT,
            superseded_by INTEGER REFERENCES decision (id),
            access_count INTEGER NOT NULL DEFAULT 0,
            last_accessed TEXT,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            archived_at TEXT
        )""",
        """CREATE TABLE error (
            id INTEGER PRIMARY KEY,
            message TEXT NOT NULL,
            fix TEXT,
            severity TEXT NOT NULL DEFAULT 'medium'
                CHECK (severity IN ('low', 'medium', 'high', 'critical')),
            occurrences INTEGER NOT NULL DEFAULT 1,
            first_seen TEXT NOT NULL,
            last_seen TEXT NOT NULL,
            access_count INTEGER NOT NULL DEFAULT 0,
            last_accessed TEXT,
            archived_at TEXT
        )""",
        """CREATE TABLE todo (
            id INTEGER PRIMARY KEY,
            text TEXT NOT NULL,
            priority TEXT NOT NULL DEFAULT 'medium' CHECK (priority IN ('high', 'medium', 'low')),
            done INTEGER NOT NULL DEFAULT 0 CHECK (done IN (0, 1)),
            done_at TEXT,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            archived_at TEXT
        )""",
        "CREATE INDEX session_by_end ON session (ended_at)",
    ),
    # 3: every required literal of a learning's regex, checked before it is compiled.
    ("ALTER TABLE learning ADD COLUMN literals TEXT",),
    # 4: what SessionStart reads at every start, found through small partial indexes rather
    # than by reading every learning. None holds `confidence`: SessionEnd changes it in every row,
    # and would then have to rewrite the index too.
    (
        "CREATE INDEX learning_auto_block ON learning (id) WHERE archived_at IS NULL AND auto_block = 1",
        """CREATE INDEX learning_by_update ON learning (updated_at)
           WHERE archived_at IS NULL AND auto_block = 0""",
        """CREATE INDEX learning_prunable ON learning (created_at)
           WHERE archived_at IS NULL AND auto_block = 0 AND pinned = 0""",
    ),
    # 5: confidence in a narrow table (see store.learnings): a session end rewrites it for every
    # learning, and the wide learning rows made that the most of SessionEnd's cost.
    (
        """CREATE TABLE learning_confidence (
            learning_id INTEGER PRIMARY KEY REFERENCES learning (id),
            confidence INTEGER NOT NULL CHECK (confidence BETWEEN 0 AND 100)
        )""",
        "INSERT INTO learning_confidence (learning_id, confidence) SELECT id, confidence FROM learning",
        "ALTER TABLE learning DROP COLUMN confidence",
        "CREATE INDEX learning_exempt ON learning (id) WHERE pinned = 1 OR archived_at IS NOT NULL",
    ),
]
assert len(MIGRATIONS) == SCHEMA_VERSION


def _check_ours(connection: sqlite3.Connection, path: str) -> None:
    version = user_version(connection)
    if version > SCHEMA_VERSION:
        raise CortexError(f"{path} has schema version {version}, newer than this cortex-hooks")
    if version == 0 and connection.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
        raise CortexError(f"{path} is an SQLite database of something else; it was left untouched")


def is_blank(connection: sqlite3.Connection) -> bool:
    """An empty file (or one the CLI has just created and not yet migrated): not a database yet."""
    return (
        user_version(connection) == 0
        and not connection.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
    )


def migrate(connection: sqlite3.Connection, path: str) -> None:
    """Bring the database to SCHEMA_VERSION; a no-op if another process got there first."""
    _check_ours(connection, path)  # before anything, even the journal mode, is written
    if connection.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
        connection.execute("PRAGMA journal_mode = WAL")  # persistent; not allowed in a transaction
    with Transaction(connection):
        _check_ours(connection, path)  # again: another process may have migrated meanwhile
        version = user_version(connection)
        for statements in MIGRATIONS[version:]:
            for statement in statements:
                connection.execute(statement)
        if version < SCHEMA_VERSION:
            learnings.derive_all(connection)  # the prefilter data of this version, for every row
        connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
