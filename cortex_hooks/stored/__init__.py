"""What the store returns: frozen records whose fields are named once, in this package.

A record (cortex_hooks.frozen.Record) is one table's row as the store reads it; the store builds
its SELECT from the record's fields (`columns`), so a column is named in the schema and in its
record, nowhere else, and mypy checks every read (`learning.regex`, not `row["regex"]`). Flags
are SQLite's 0/1 and times ISO texts, as stored: the records are the rows, the pydantic models
what is shown. The learnings' are here, where PreToolUse reads them; the other families' beside
(memory_rows, capture_rows, outcome_rows, kind_rows, team_rows, report_rows).
"""

from __future__ import annotations

import sqlite3
from functools import partial

from cortex_hooks.frozen import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import TypeVar

    R = TypeVar("R", bound=tuple[object, ...])


def columns(record: type[tuple[object, ...]], table: str = "", **computed: str) -> str:
    """The SELECT list of a record's fields: each a column of `table` (an alias: `l`), or the
    expression given for it by name."""
    prefix = f"{table}." if table else ""
    fields: tuple[str, ...] = record._fields  # type: ignore[attr-defined]
    return ", ".join(
        f"{computed[field]} AS {field}" if field in computed else prefix + field for field in fields
    )


def made(record: type[R], rows: Iterable[Iterable[object]]) -> list[R]:
    """Rows read in the order of the record's fields, as records; a cursor's as plain tuples (no
    sqlite3.Row made for each first: a third of the time of 400 candidates)."""
    if isinstance(rows, sqlite3.Cursor):
        rows.row_factory = None
    return list(map(partial(tuple.__new__, record), rows))


class Learning(Record):
    """A learning as stored (docs/guide/actions.md); `confidence` in hundredths, from its own
    table; `examples` the JSON text; `auto_block` the older flag, computed from `action`."""

    id: int
    anti_pattern: str
    correct_pattern: str
    regex: str | None
    tool: str
    target: str
    severity: str
    action: str
    auto_block: int
    rewrite: str | None
    pinned: int
    confidence: int
    access_count: int
    last_accessed: str | None
    created_at: str
    updated_at: str
    archived_at: str | None
    context: str | None
    slug: str | None
    pack: str | None
    muted: int
    examples: str | None


class Candidate(Record):
    """What PreToolUse reads of a learning that may match before it reads the wide row: its
    pattern and where it looks, its prefilter's required literals (JSON), its rewrite."""

    id: int
    regex: str
    tool: str
    target: str
    literals: str | None
    rewrite: str | None


def read_from_a_file(**said: object) -> Learning:
    """A learning a file holds (a guard file's line, a pack's) with what the file says of it:
    what it does not say is what an active, unpinned, never used learning has."""
    unsaid: dict[str, object] = {
        "rewrite": None,
        "pinned": 0,
        "access_count": 0,
        "last_accessed": None,
        "created_at": "",
        "updated_at": "",
        "archived_at": None,
        "context": None,
        "slug": None,
        "pack": None,
        "muted": 0,
        "examples": None,
    }
    values = unsaid | said
    return Learning(**values, auto_block=int(values["action"] == "block"))  # type: ignore[arg-type]


def candidate(learning: Learning) -> Candidate | None:
    """What the prefilter would read of a learning read whole (a guard file's, a pack's); None
    for one without a regex: it never matches."""
    if learning.regex is None:
        return None
    return Candidate(learning.id, learning.regex, learning.tool, learning.target, None, learning.rewrite)
