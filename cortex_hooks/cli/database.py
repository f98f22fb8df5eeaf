"""Which databases a command works on, as its options name them (--db, --global, --global-db),
and where its notes go: stderr, as they come."""

from __future__ import annotations

import argparse

from cortex_hooks.api import databases
from cortex_hooks.api.databases import Databases
from cortex_hooks.notes import Notes


def of(args: argparse.Namespace) -> Databases:
    return databases.find(
        getattr(args, "db", None),
        getattr(args, "global_db", None),
        global_scope=getattr(args, "global_scope", False),
    )


def path(args: argparse.Namespace) -> str:
    """The database of the scope this command acts on: the project's, or with --global the user's."""
    return of(args).path


def notes() -> Notes:
    """A command's notes: each printed on stderr (`cortex-hooks: …`) as it comes."""
    return Notes(printed=True)
