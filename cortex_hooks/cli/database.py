"""Which database a CLI command works on, opened for reading or for writing, and its config."""

from __future__ import annotations

import argparse
import sqlite3

from cortex_hooks import location
from cortex_hooks.config import Config
from cortex_hooks.errors import CortexError
from cortex_hooks.scopes import Scope, open_scopes
from cortex_hooks.store.connection import Missing, open_database


def path(args: argparse.Namespace) -> str:
    """The database of the scope this command acts on: the project's, or with --global the user's."""
    if getattr(args, "global_scope", False):
        return location.global_database(getattr(args, "global_db", None))
    return location.cli_database(getattr(args, "db", None))


def paths(args: argparse.Namespace) -> dict[str, str]:
    """Both scopes' database paths, as --db, --global-db and the environment name them."""
    return {
        "project": location.cli_database(getattr(args, "db", None)),
        "global": location.global_database(getattr(args, "global_db", None)),
    }


def both(
    args: argparse.Namespace, names: tuple[str, ...] = ("project", "global")
) -> tuple[list[Scope], list[str]]:
    """The project's and the global database, those that exist (reading never creates one)."""
    found = paths(args)
    return open_scopes(found["project"], found["global"], names=names)


def scope(args: argparse.Namespace) -> str:
    return "global" if getattr(args, "global_scope", False) else "project"


def scoped(args: argparse.Namespace, command: str) -> str:
    """A command as the user would type it for this scope (`cortex-hooks keep 3 --global`)."""
    return f"{command} --global" if scope(args) == "global" else command


def config(args: argparse.Namespace) -> Config:
    """The configuration in force for this command's database."""
    return location.config_for(path(args))


def embeddings(args: argparse.Namespace) -> str:
    """The embeddings backend setting in force (SPEC §12): CORTEX_EMBEDDINGS, else config.toml's."""
    from cortex_hooks.embeddings.backend import in_force

    return in_force(config(args).embeddings)


def embed_written(
    args: argparse.Namespace, connection: sqlite3.Connection, kind: str, ids: list[int]
) -> None:
    """Embed items just written, when semantic recall is on (SPEC §12: with the item; an update
    whose text changed dropped their vectors); a failure leaves them queued for `embed`."""
    from cortex_hooks.embeddings.queue import embed_written as fill

    fill(embeddings(args), connection, kind, ids)


def for_writing(args: argparse.Namespace) -> sqlite3.Connection:
    """The database, created (private to the user) when it does not exist yet."""
    return open_database(path(args), create=True)


def for_reading(args: argparse.Namespace) -> sqlite3.Connection | None:
    """The database, or None when there is none yet: reading never creates one."""
    try:
        return open_database(path(args))
    except Missing:
        return None


def for_changing(args: argparse.Namespace, unknown: CortexError) -> sqlite3.Connection:
    """The database, for a change to one existing row: with no database there is no such row,
    and `unknown` is raised before anything is created."""
    connection = for_reading(args)
    if connection is None:
        raise unknown
    return connection
