"""The one query PreToolUse makes of the team file on every call (docs/guide/team.md): its stat as
last read."""

from __future__ import annotations

import sqlite3

from cortex_hooks.location import ABSENT


def stat(connection: sqlite3.Connection) -> str:
    """The stat of the team file as last read into this database (`absent`: never read)."""
    row = connection.execute("SELECT stat FROM team_file WHERE id = 1").fetchone()
    return str(row[0]) if row is not None else ABSENT
