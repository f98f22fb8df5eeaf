"""Claude Code's own memory through the library: what recall finds in its files, and
capture's pass over their rules, now. Cortex reads these files and never writes them.

Where the index lives: tables of the project's database (schema 18), brought in step by the
recall itself — one write transaction, only when a file changed. A recall that may not write
(`--peek`, with a file changed since) or that has no project database (reading never creates
one) searches an index built in memory from the files instead, and writes nothing.
"""

from __future__ import annotations

import os
import sqlite3
import time
from contextlib import closing

from cortex_hooks import clock
from cortex_hooks.api import claude_files as claude_memory
from cortex_hooks.api.databases import Databases
from cortex_hooks.memory.query import Found
from cortex_hooks.notes import Notes
from cortex_hooks.store import claude_index
from cortex_hooks.store.scopes import Scope, project_scope
from cortex_hooks.store.transaction import Transaction

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cortex_hooks.api.capture import Scanned

SCAN_SECONDS = 3600  # a pass asked for by a person is not cut short like SessionEnd's


def start_folder() -> str:
    """The folder Claude Code starts in for this project: CLAUDE_PROJECT_DIR, else here."""
    return os.environ.get("CLAUDE_PROJECT_DIR") or os.getcwd()


def found(opened: list[Scope], words: list[str], best: int, notes: Notes, *, peek: bool) -> list[Found]:
    """The `best` chunks of Claude Code's memory files for recall's words, as found rows of the
    project scope (`"source": "claude-code"`); none when there are no such files."""
    sources = claude_memory.sources(start_folder())
    notes.extend(sources.problems)
    project = project_scope(opened)
    now = clock.iso(clock.now())
    connection = _index(project, sources, now, notes, peek=peek)
    if connection is None:
        return []
    try:
        rows = claude_index.search(connection, words, best)
    finally:
        if project is None or connection is not project.connection:
            connection.close()
    return [Found("project", row, 0) for row in rows]


def _index(
    project: Scope | None, sources: claude_memory.Sources, now: str, notes: Notes, *, peek: bool
) -> sqlite3.Connection | None:
    """The index to search: the project database's, in step with the files; else one in memory."""
    if project is not None:
        try:
            if not peek:
                claude_memory.refresh(project.connection, sources, now)
                return project.connection
            if not claude_memory.changed(claude_index.files(project.connection), sources):
                return project.connection
        except sqlite3.Error as error:
            notes.add(f"Claude Code's memory read without its index: {error}")
    if not sources.files:
        return None
    return claude_memory.transient(sources, now)


def capture(databases: Databases, notes: Notes, *, dry_run: bool = False) -> Scanned:
    """Capture's pass over the rules of Claude Code's memory now (`capture --claude-memory`):
    the index brought in step and the new rules proposed, in one write transaction of the
    project's database (created, as `capture` does); a dry run writes nothing."""
    from cortex_hooks.api.capture import Scanned, record
    from cortex_hooks.capture import remembering
    from cortex_hooks.store.connection import open_database

    sources = claude_memory.sources(start_folder())
    notes.extend(sources.problems)
    now = clock.iso(clock.now())
    session = f"claude-memory {now}"  # the caps of docs/guide/capture.md count this pass as one session
    with closing(open_database(databases.project, create=True)) as connection:
        work = claude_memory.plan(connection, sources)
        with Transaction(connection, keep=not dry_run):
            claude_memory.apply(connection, work, sources, now)
            chunks = remembering.read(connection, time.monotonic() + SCAN_SECONDS)
            outcome = remembering.record(connection, chunks, session, now)
        return Scanned(outcome, [] if dry_run else [record(connection, pid) for pid in outcome.proposed])
