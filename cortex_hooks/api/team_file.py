"""The team file read into the project database (docs/guide/team.md) when its stat changes, never parsed on
each tool call: PreToolUse pays one `stat` and one small query, and only the call that finds the
file changed reads it (api.team_read). SessionStart and the `team` commands do the same."""

from __future__ import annotations

import os
import sqlite3

from cortex_hooks.location import ABSENT, TEAM_FOLDER, TEAM_NAME, config_for, team_path
from cortex_hooks.store import team_stat


def stat_of(path: str) -> str:
    """What says the file changed: its size, mtime, inode and device (`absent`: no file)."""
    try:
        found = os.stat(path)
    except (OSError, ValueError):
        return ABSENT
    return f"{found.st_size}:{found.st_mtime_ns}:{found.st_ino}:{found.st_dev}"


def refresh(connection: sqlite3.Connection, project: str, database: str, *, taken: bool = False) -> list[str]:
    """Read the team file into this project database (at path `database`) if it changed since it
    was last read; the problems of that read (none when nothing changed). A database another
    process holds for writing is read at the next call: said, never waited for. A trusted file
    changed is read in only when the change is `taken` (the person's `team trust`, `team add`):
    until then its trusted rules stay in force as they were (an edit cannot weaken:
    docs/internals/integrity.md)."""
    current = stat_of(team_path(project))
    if current == team_stat.stat(connection) and not taken:
        return []
    from cortex_hooks.api.team_read import read_in
    from cortex_hooks.store.connection import locked

    try:
        return read_in(connection, project, config_for(database).policy.start, current, taken=taken)
    except sqlite3.Error as error:  # the other learnings still decide: never a reason to fail
        if locked(error):
            return [f"{TEAM_FOLDER}/{TEAM_NAME} changed; not read yet: the database is busy"]
        return [f"{TEAM_FOLDER}/{TEAM_NAME} changed; not read: {error}"]
