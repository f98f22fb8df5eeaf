"""The schema version this code writes, and the version a database holds."""

from __future__ import annotations

import sqlite3

SCHEMA_VERSION = 24


def user_version(connection: sqlite3.Connection) -> int:
    version: int = connection.execute("PRAGMA user_version").fetchone()[0]
    return version
