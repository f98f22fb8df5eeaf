"""The team file read into the project database (SPEC §17) when its stat changes, never parsed on
each tool call: PreToolUse pays one `stat` and one small query, and only the call that finds the
file changed reads it (upkeep.team_read). SessionStart and the `team` commands do the same."""

from __future__ import annotations

import os
import sqlite3

from cortex_hooks.guard.team_path import ABSENT, FOLDER, NAME, path_in
from cortex_hooks.store import team as store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from cortex_hooks.scopes import Scope


__all__ = ["path_in"]  # and the functions below


def stat_of(path: str) -> str:
    """What says the file changed: its size, mtime, inode and device (`absent`: no file)."""
    try:
        found = os.stat(path)
    except (OSError, ValueError):
        return ABSENT
    return f"{found.st_size}:{found.st_mtime_ns}:{found.st_ino}:{found.st_dev}"


def refresh(connection: sqlite3.Connection, project: str, database: str) -> list[str]:
    """Read the team file into this project database (at path `database`) if it changed since it
    was last read; the problems of that read (none when nothing changed). A database another
    process holds for writing is read at the next call: said, never waited for."""
    current = stat_of(path_in(project))
    if current == store.stat(connection):
        return []
    from cortex_hooks import location
    from cortex_hooks.store.connection import locked
    from cortex_hooks.upkeep.team_read import read_in

    try:
        return read_in(connection, project, location.config_for(database).policy.start, current)
    except sqlite3.Error as error:  # the other learnings still decide: never a reason to fail
        if locked(error):
            return [f"{FOLDER}/{NAME} changed; not read yet: the database is busy"]
        return [f"{FOLDER}/{NAME} changed; not read: {error}"]


def one_per_id(hits: list[Any], scopes: list[Scope]) -> list[Any]:
    """The matches after guard.precedence: of an id held in several places the highest place's
    entry, at the strictest action among them (SPEC §17)."""
    from cortex_hooks.guard import precedence

    places: dict[tuple[str, int], tuple[str, str | None]] = {}
    readable = [scope for scope in scopes if scope.connection is not None]
    for scope in readable:
        ids = [hit.id for hit in hits if hit.scope == scope.name]
        if ids:
            places.update(
                ((scope.name, i), key) for i, key in store.keys_of(scope.connection, ids, scope.name).items()
            )
    keys = sorted({key for _place, key in places.values() if key is not None})
    if not keys:
        return hits
    entries: dict[str, list[precedence.Entry]] = {}
    for scope in readable:
        for row in store.holding(scope.connection, keys, scope.name):
            entries.setdefault(row["key"], []).append(
                precedence.Entry(row["place"], row["action"], row["regex"], row["tool"], row["target"])
            )
    matches = [precedence.Match(*places.get((hit.scope, hit.id), (hit.scope, None))) for hit in hits]
    for hit, match in zip(hits, matches, strict=True):
        if match.place == "team":
            hit.team = match.key
    kept = []
    for hit, (stands, action) in zip(hits, precedence.resolve(matches, entries), strict=True):
        if stands:
            if action is not None:
                hit.action = action
            kept.append(hit)
    return kept
