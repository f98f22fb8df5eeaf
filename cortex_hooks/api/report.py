"""The HTML report of one scope: its learnings, their history, proposals and the memory, in one file."""

from __future__ import annotations

from contextlib import closing

from cortex_hooks import clock, location
from cortex_hooks.api import databases as db
from cortex_hooks.api.databases import Databases
from cortex_hooks.errors import USAGE, CortexError
from cortex_hooks.frozen import Record
from cortex_hooks.install.claude_paths import loaded
from cortex_hooks.notes import Notes
from cortex_hooks.report import document


class Written(Record):
    path: str
    charted: bool  # False: tables only, the report extra is not installed


def write(
    databases: Databases, notes: Notes, *, days: int, out: str | None = None, options: str = ""
) -> Written:
    """Write the report of the scope acted on to `out`, by default `report.html` beside the
    database; `options` follow each command the report shows, so that it reaches the same database."""
    connection = db.for_reading(databases)
    if connection is None:
        raise CortexError(f"no database at {databases.path}: nothing to report yet")
    with closing(connection):
        text, charted = document.build(
            connection,
            database=databases.path,
            scope=databases.scope,
            now=clock.now(),
            days=days,
            policy=db.config(databases, notes).policy,
            command=location.cli_command(),
            options=options,
        )
    path = out or document.default_path(databases.path)

    what = loaded(path)
    if what is not None:  # the report holds commands and text the model must not be handed
        raise CortexError(
            f"report --out {path}: refused, it is {what}; name another file (the default is "
            f"{document.default_path(databases.path)})",
            USAGE,
        )
    document.write(path, text)
    return Written(path, charted)
