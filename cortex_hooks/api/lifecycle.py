"""The memory lifecycle of one scope now (SPEC §9.5): decay, archive, prune (what SessionEnd does
within its deadline, done at once)."""

from __future__ import annotations

import sqlite3
from contextlib import closing

from cortex_hooks import clock
from cortex_hooks.api import databases as db
from cortex_hooks.api.databases import Databases
from cortex_hooks.errors import CortexError
from cortex_hooks.notes import Notes
from cortex_hooks.store.connection import Transaction
from cortex_hooks.upkeep import lifecycle, pruned_file


def run(databases: Databases, notes: Notes, *, dry_run: bool = False) -> lifecycle.Report:
    """One whole pass over the memories due; a memory that cannot be read is skipped and named in
    the report (and in notes). Pruned memories are written out to `pruned.jsonl` first."""
    report = lifecycle.Report()
    path = databases.path
    connection = db.for_reading(databases)
    if connection is not None:
        with closing(connection):
            half_lives = db.config(databases, notes).half_lives
            try:
                with Transaction(connection, keep=not dry_run):
                    report = lifecycle.run(
                        connection, path, databases.scope, clock.now(), half_lives, dry_run=dry_run
                    )
            except sqlite3.OperationalError as error:
                raise CortexError(
                    f"lifecycle not run: cannot write {path} ({error}); nothing changed"
                ) from None
            except OSError as error:
                where = pruned_file.path(path)
                raise CortexError(
                    f"lifecycle not run: cannot write {where} ({error.strerror or error}); nothing changed"
                ) from None
    notes.extend(report.skipped)
    return report
