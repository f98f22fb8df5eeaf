"""The original Cortex's database (a Node tool's `.claude/cortex.db`, schema 1 or 2, kept in its
`schema_version` table), read only: the rows `import --from cortex` brings over. The file is
never written: opened `immutable` when no write-ahead log lies beside it (nothing is created
beside it either), else read-only through its log."""

from __future__ import annotations

import os
import sqlite3
from contextlib import closing
from typing import Any
from urllib.parse import quote

from cortex_hooks.errors import USAGE, CortexError

TABLES = ("learnings", "decisions", "errors", "unfinished")  # what is imported
LEFT = (
    "sessions",
    "conventions",
    "project_modules",
    "project_files",
    "dependencies",
    "diffs",
    "health_snapshots",
)
VERSIONS = (1, 2)


def read(path: str) -> tuple[int, dict[str, list[dict[str, Any]]], dict[str, int]]:
    """The database's schema version, the rows of each table imported (oldest first), and how
    many rows each table not imported holds."""
    if not os.path.exists(path):
        raise CortexError(f"{path}: no such database (the original Cortex keeps .claude/cortex.db)", USAGE)
    if not os.path.isfile(path):
        raise CortexError(f"cannot read {path}: not a regular file (a FIFO or a device is never read)", USAGE)
    mode = "ro" if os.path.exists(path + "-wal") else "ro&immutable=1"
    try:
        connection = sqlite3.connect(f"file:{quote(os.path.abspath(path))}?mode={mode}", uri=True)
    except sqlite3.Error as error:
        raise CortexError(f"cannot open {path}: {error}", USAGE) from None
    with closing(connection):
        connection.row_factory = sqlite3.Row
        try:
            return _read(connection, path)
        except sqlite3.DatabaseError as error:
            raise CortexError(f"{path} is not a database of the original Cortex ({error})", USAGE) from None


def _read(
    connection: sqlite3.Connection, path: str
) -> tuple[int, dict[str, list[dict[str, Any]]], dict[str, int]]:
    names = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    missing = [table for table in ("schema_version", *TABLES) if table not in names]
    if missing:
        raise CortexError(
            f"{path} is not a database of the original Cortex (no table {', '.join(missing)})", USAGE
        )
    found = connection.execute("SELECT max(version) FROM schema_version").fetchone()[0]
    if found not in VERSIONS:
        raise CortexError(
            f"{path} is of the original Cortex's schema {found!r}; this import knows schemas 1 and 2", USAGE
        )
    rows = {
        table: [dict(row) for row in connection.execute(f"SELECT * FROM {table} ORDER BY id")]
        for table in TABLES
    }
    left = {
        table: connection.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
        for table in LEFT
        if table in names
    }
    return int(found), rows, {table: n for table, n in left.items() if n}
