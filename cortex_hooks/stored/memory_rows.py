"""The records of memories: whole, and as the lifecycle reads them."""

from __future__ import annotations

from cortex_hooks.frozen import Record


class Memory(Record):
    """A memory as stored (docs/guide/memories.md): `confidence` as last written, `base_confidence`
    where its decay curve starts, `tags` the JSON list, `lifecycle_due` when the lifecycle looks
    again ('' now, None never)."""

    id: int
    type: str
    content: str
    summary: str
    priority: int
    confidence: int
    pinned: int
    tags: str
    source: str
    source_session: str | None
    path: str | None
    status: str
    access_count: int
    last_accessed: str | None
    created_at: str
    updated_at: str
    confirmed_at: str
    archived_at: str | None
    in_degree: int
    base_confidence: int | None
    lifecycle_due: str | None


class Aging(Record):
    """What the lifecycle reads of a memory due for a look (docs/guide/aging.md)."""

    id: int
    type: str
    base_confidence: int | None
    confidence: int
    pinned: int
    access_count: int
    in_degree: int
    status: str
    confirmed_at: str
    updated_at: str
    archived_at: str | None
    lifecycle_due: str | None


class SurfaceItem(Record):
    """A memory as the push surface lists it (docs/guide/surface.md): `team` the team file's id of
    one that came from it; `rank` its rank among the top-ranked (None in the other sections)."""

    id: int
    type: str
    summary: str
    tags: str
    pinned: int
    path: str | None
    team: str | None
    rank: float | None


class Edge(Record):
    """A typed link from one memory to another (docs/guide/graph.md), of a strength in [0, 1]."""

    type: str
    from_id: int
    to_id: int
    strength: float


class Flag(Record):
    """Two active memories flagged as nearly the same (docs/guide/aging.md), smaller id first."""

    first_id: int
    second_id: int
    similarity: float


class Source(Record):
    """What a memory's `source_of` edge leads to: a code description's code memory."""

    from_id: int
    id: int
    path: str | None
    type: str
    status: str


class Chunk(Record):
    """A chunk of Claude Code's own memory files (docs/guide/claude-memory.md) capture has not
    read yet, with its file's origin (auto-memory or claude-md)."""

    id: int
    path: str
    line: int
    summary: str
    content: str
    origin: str


class Content(Record):
    """A memory's content, by id (what auto-link compares)."""

    id: int
    content: str


class Archived(Record):
    """An archived memory recall names when it finds nothing active."""

    id: int
    type: str
    summary: str
