"""The memory lifecycle of one scope now (SPEC §9.5): decay, archive, prune (what SessionEnd does
within its deadline, done at once)."""

from __future__ import annotations

import sqlite3
from contextlib import closing

from cortex_hooks import clock
from cortex_hooks.api import databases as db
from cortex_hooks.api import lifecycle_pass as lifecycle
from cortex_hooks.api import pruned_file
from cortex_hooks.api.databases import Databases
from cortex_hooks.api.wording import clean
from cortex_hooks.errors import CortexError
from cortex_hooks.notes import Notes
from cortex_hooks.store.connection import Transaction

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cortex_hooks.api.databases import Databases
    from cortex_hooks.api.lifecycle_pass import Report


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


# What people read of it, from the CLI and the MCP server alike. The text of a lifecycle pass: each
# change, then the counts (and where pruned memories went).


def report(done: Report, databases: Databases, *, dry_run: bool) -> str:
    lines = [
        f"#{change['id']} {change['field']}: {_shown(change['before'])} -> {_shown(change['after'])}"
        for change in done.changes
    ]
    counts = done.counts()
    verb = "Would change" if dry_run else "Changed"
    kept = f" (pruned memories kept in {clean(pruned_file.path(databases.path))})" if counts["pruned"] else ""
    lines.append(
        f"{verb} {databases.scope} memories: {counts['decayed']} decayed, {counts['archived']} archived, "
        f"{counts['pruned']} pruned{kept}."
    )
    return "\n".join(lines)


def _shown(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.2f}"
    return "-" if value is None else str(value)
