"""The two scopes (docs/guide/scopes.md): the project's database and the user-global one, opened side by side.

Each is independent of the other: one that is missing is left out, one that cannot be used is
skipped and named, and neither stops the other from working.
"""

from __future__ import annotations

import os
import sqlite3

from cortex_hooks import location
from cortex_hooks.errors import CortexError
from cortex_hooks.store.connection import BUSY_TIMEOUT, Missing, open_database

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cortex_hooks.stored import Learning


class Scope:
    """One open database: the project's or the user-global one. A database another process holds
    so that it cannot be read comes, when asked for, without a connection and with the blocking
    learnings of its guard file (store.guard_file) instead."""

    __slots__ = ("connection", "guard", "name", "path", "why")

    def __init__(
        self,
        name: str,
        connection: sqlite3.Connection,
        path: str,
        guard: list[Learning] | None = None,
        why: str | None = None,
    ) -> None:
        self.name = name
        self.connection = connection
        self.path = path
        self.guard = guard
        self.why = why  # why its guard file decides: the database could not be used

    @property
    def is_global(self) -> bool:
        return self.name == "global"


def open_scopes(
    project: str,
    user: str | None = None,
    *,
    busy: float = BUSY_TIMEOUT,
    names: tuple[str, ...] = ("project", "global"),
    guard_files: bool = False,
) -> tuple[list[Scope], list[str]]:
    """The databases of the scopes asked for that exist, project first, and a note for each one
    that could not be used. The same file named twice is opened once, as the project's. With
    `guard_files`, a database that cannot be read for another process's lock comes with its guard
    file's learnings and no connection (PreToolUse: a deny never depends on that lock), and so
    does one that cannot be used otherwise (unreadable, corrupt, newer, on a full disk)."""
    user = user or location.global_database()
    paths = {"project": project, "global": user}
    if "project" in names and _same_file(user, project):
        del paths["global"]
    scopes: list[Scope] = []
    skipped: list[str] = []
    for name in names:
        if name not in paths:
            continue
        try:
            scopes.append(Scope(name, open_database(paths[name], busy=busy), paths[name]))
        except Missing:
            continue
        except CortexError as error:
            # Locked, unreadable, corrupt, of a newer schema, on a full disk: PreToolUse decides
            # from the guard file, as for a lock (docs/internals/integrity.md: fail closed where it
            # can answer).
            guard = _guard(paths[name]) if guard_files else None
            if guard is None:
                skipped.append(f"{name} database skipped: {error.message}")
            else:
                scopes.append(Scope(name, None, paths[name], guard, error.message))  # type: ignore[arg-type]
    return scopes, skipped


def project_scope(scopes: list[Scope]) -> Scope | None:
    """The project's scope among these, when its database is open."""
    return next((scope for scope in scopes if not scope.is_global), None)


def close(scopes: list[Scope]) -> None:
    for scope in scopes:
        if scope.connection is not None:
            scope.connection.close()


def _guard(path: str) -> list[Learning] | None:
    from cortex_hooks.store import guard_file

    return guard_file.read(path)


def _same_file(first: str, second: str) -> bool:
    try:
        return os.path.samefile(first, second)
    except OSError:  # one of them does not exist
        return os.path.abspath(first) == os.path.abspath(second)
