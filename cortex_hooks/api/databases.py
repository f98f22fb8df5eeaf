"""Which databases a call works on (the project's and the user's, and the scope it acts on),
opened for reading, for writing or for a change to one row, and the configuration in force."""

from __future__ import annotations

import os
import sqlite3

from cortex_hooks import location
from cortex_hooks.errors import CortexError
from cortex_hooks.store.connection import Missing, open_database
from cortex_hooks.store.scopes import Scope, open_scopes

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cortex_hooks.config import Config
    from cortex_hooks.notes import Notes

BOTH = ("project", "global")


class Databases:
    """The project's database, the user-global one, and the scope a call acts on. (A plain class:
    a NamedTuple's creation would cost every command's start a millisecond.)"""

    __slots__ = ("named", "project", "scope", "user")

    def __init__(
        self, project: str, user: str, scope: str = "project", named: tuple[bool, bool] = (False, False)
    ) -> None:
        self.project = project
        self.user = user
        self.scope = scope  # "project" or "global"
        self.named = named  # each path named (--db, CORTEX_DB …) rather than found

    @property
    def path(self) -> str:
        """The database of the scope acted on."""
        return self.user if self.scope == "global" else self.project

    def acting_on(self, scope: str) -> Databases:
        return Databases(self.project, self.user, scope, self.named)


def find(db: str | None = None, global_db: str | None = None, *, global_scope: bool = False) -> Databases:
    """The databases as --db, --global-db and the environment name them (SPEC §2, §8): the one
    rule of which database a command or a tool uses."""
    return Databases(
        location.cli_database(db),
        location.global_database(global_db),
        "global" if global_scope else "project",
        (bool(db or os.environ.get("CORTEX_DB")), bool(global_db or os.environ.get("CORTEX_GLOBAL_DB"))),
    )


def for_writing(databases: Databases, notes: Notes) -> sqlite3.Connection:
    """The database acted on, created (private to the user) when it does not exist yet: one the
    caller did not name (found from the project, or the user's default) is said where, in
    notes, so that a write never silently picks a place."""
    path = databases.path
    existed = os.path.exists(path)
    connection = open_database(path, create=True)
    named = databases.named[1] if databases.scope == "global" else databases.named[0]
    if not existed and not named:
        notes.add(f"created the {databases.scope} database {path}")
    return connection


def for_reading(databases: Databases) -> sqlite3.Connection | None:
    """The database acted on, or None when there is none yet: reading never creates one."""
    try:
        return open_database(databases.path)
    except Missing:
        return None


def for_changing(databases: Databases, unknown: CortexError) -> sqlite3.Connection:
    """The database acted on, for a change to one existing row: with no database there is no
    such row, and `unknown` is raised before anything is created."""
    connection = for_reading(databases)
    if connection is None:
        raise unknown
    return connection


def both(databases: Databases, names: tuple[str, ...] = BOTH) -> tuple[list[Scope], list[str]]:
    """The scopes asked for whose databases exist, project first, and a note for each one that
    could not be used (reading never creates one)."""
    return open_scopes(databases.project, databases.user, names=names)


def config(databases: Databases, notes: Notes) -> Config:
    """The configuration in force for the database acted on (an invalid file: said in notes)."""
    return location.config_for(databases.path, notes)


def embeddings(databases: Databases, notes: Notes) -> str:
    """The embeddings backend setting in force (SPEC §12): CORTEX_EMBEDDINGS, else config.toml's."""
    from cortex_hooks.embeddings.backend import in_force

    return in_force(config(databases, notes).embeddings)


def embed_written(
    databases: Databases, connection: sqlite3.Connection, kind: str, ids: list[int], notes: Notes
) -> None:
    """Embed items just written when semantic recall is on (SPEC §12: with the item; an update
    whose text changed dropped their vectors); a failure leaves them queued for `embed`."""
    from cortex_hooks.embeddings.queue import embed_written as fill

    fill(embeddings(databases, notes), connection, kind, ids, notes)


def scoped(databases: Databases, command: str) -> str:
    """A command as the user would type it for this scope (`cortex-hooks keep 3 --global`)."""
    return f"{command} --global" if databases.scope == "global" else command
