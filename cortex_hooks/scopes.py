"""The two scopes (SPEC §8): the project's database and the user-global one, opened side by side.

Each is independent of the other: one that is missing is left out, one that cannot be used is
skipped and named, and neither stops the other from working.
"""

from __future__ import annotations

import os
import sqlite3

from cortex_hooks import location
from cortex_hooks.errors import CortexError
from cortex_hooks.store.connection import BUSY_TIMEOUT, Missing, open_database


class Scope:
    """One open database: the project's or the user-global one."""

    __slots__ = ("connection", "name", "path")

    def __init__(self, name: str, connection: sqlite3.Connection, path: str) -> None:
        self.name = name
        self.connection = connection
        self.path = path

    @property
    def is_global(self) -> bool:
        return self.name == "global"


def open_scopes(
    project: str,
    user: str | None = None,
    *,
    busy: float = BUSY_TIMEOUT,
    names: tuple[str, ...] = ("project", "global"),
) -> tuple[list[Scope], list[str]]:
    """The databases of the scopes asked for that exist, project first, and a note for each one
    that could not be used. The same file named twice is opened once, as the project's."""
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
            skipped.append(f"{name} database skipped: {error.message}")
    return scopes, skipped


def project_scope(scopes: list[Scope]) -> Scope | None:
    """The project's scope among these, when its database is open."""
    return next((scope for scope in scopes if not scope.is_global), None)


def close(scopes: list[Scope]) -> None:
    for scope in scopes:
        scope.connection.close()


def _same_file(first: str, second: str) -> bool:
    try:
        return os.path.samefile(first, second)
    except OSError:  # one of them does not exist
        return os.path.abspath(first) == os.path.abspath(second)
