"""The records of the team file as a database keeps it (docs/guide/team.md): the file as last
read, each id it has held, and the entries with their rows' state."""

from __future__ import annotations

from cortex_hooks.frozen import Record


class TeamFile(Record):
    """The team file as last read: its stat, digest, the digest `team trust` accepted, its problems."""

    stat: str
    digest: str | None
    trusted: str | None
    problems: str
    read_at: str


class TeamEntry(Record):
    """An id the file has held: its kind and row, its line's digest (None: gone), action, rewrite."""

    id: str
    kind: str
    row_id: int
    line: str | None
    action: str | None
    rewrite: str | None


class TeamListing(Record):
    """An entry in the file now, with its row's state: for a learning its action and rewrite in
    force, muted, regex, hits and confidence; for a memory its hits."""

    id: str
    kind: str
    row_id: int
    action: str | None
    rewrite: str | None
    in_force: str | None
    rewrite_in_force: str | None
    muted: int | None
    regex: str | None
    learning_hits: int | None
    confidence: int | None
    memory_hits: int | None
