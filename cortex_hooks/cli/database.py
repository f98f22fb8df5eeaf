"""Which database a CLI command works on, opened for reading or for writing."""

from __future__ import annotations

import argparse
import sqlite3

from cortex_hooks import location, store
from cortex_hooks.errors import CortexError


def path(args: argparse.Namespace) -> str:
    return location.cli_database(getattr(args, "db", None))


def for_writing(args: argparse.Namespace) -> sqlite3.Connection:
    """The database, created (private to the user) when it does not exist yet."""
    return store.open_database(path(args), create=True)


def for_reading(args: argparse.Namespace) -> sqlite3.Connection | None:
    """The database, or None when there is none yet: reading never creates one."""
    try:
        return store.open_database(path(args))
    except store.Missing:
        return None


def for_changing(args: argparse.Namespace, unknown: CortexError) -> sqlite3.Connection:
    """The database, for a change to one existing row: with no database there is no such row,
    and `unknown` is raised before anything is created."""
    connection = for_reading(args)
    if connection is None:
        raise unknown
    return connection
