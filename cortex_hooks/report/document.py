"""Writing the report: gathered from one database, drawn, rendered, and put in place atomically."""

from __future__ import annotations

import os
import sqlite3
from datetime import datetime

from cortex_hooks import confidence, regular_file
from cortex_hooks.errors import CortexError
from cortex_hooks.report import drawing, gather, page

FILENAME = "report.html"


def default_path(database: str) -> str:
    """Beside the database: `.cortex/report.html` for a project (git-ignored with the rest)."""
    return os.path.join(os.path.dirname(os.path.abspath(database)), FILENAME)


def build(
    connection: sqlite3.Connection,
    *,
    database: str,
    scope: str,
    now: datetime,
    days: int,
    policy: confidence.Policy,
    command: str,
    options: str,
) -> tuple[str, bool]:
    """The report's HTML, and whether its charts are drawn (the `report` extra is installed).
    Everything is read in one read transaction: one consistent moment, whatever hooks write."""
    connection.execute("BEGIN")
    try:
        report = gather.gather(
            connection,
            database=database,
            scope=scope,
            now=now,
            days=days,
            policy=policy,
            command=command,
            options=options,
        )
    finally:
        connection.execute("ROLLBACK")
    drawn = drawing.draw(report)
    return page.render(report, drawn), drawn is not None


def write(path: str, text: str) -> None:
    """The file, whole or not at all, private to the user: it shows the guard's history,
    redacted but still the project's own."""
    try:
        regular_file.write_whole(os.path.abspath(path), text.encode("utf-8"), mode=0o600)
    except OSError as error:
        raise CortexError(f"cannot write {path}: {error.strerror or error}") from None
