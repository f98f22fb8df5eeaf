"""What a session start does to the memory, shared by the hook and the CLI (`snapshot`, `prune`):
Ebbinghaus pruning of every kind, and the text injected into the session."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta

from cortex_hooks import clock, location
from cortex_hooks.config import Config
from cortex_hooks.guard import memory_snapshot as snapshot
from cortex_hooks.guard import pruning
from cortex_hooks.store import kinds, learnings
from cortex_hooks.store import snapshot as snapshot_store
from cortex_hooks.store.scopes import Scope, project_scope
from cortex_hooks.text_budget import Section

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def prune(connection: sqlite3.Connection, config: Config, now: datetime, *, dry_run: bool) -> dict[str, int]:
    """Ebbinghaus pruning of every kind; the count archived (or, dry, that would be) per kind."""
    cutoffs = pruning.Cutoffs(now, config)
    return {
        kind: kinds.prune(connection, kind, cutoffs, clock.iso(now), dry_run=dry_run)
        for kind in kinds.PRUNED_KINDS
    }


def pending_proposals(scopes: list[Scope]) -> tuple[list[dict[str, Any]], int]:
    """Capture's proposals to show at session start (the most recurrent first), and how many
    await an answer: the project's, when capture is on."""
    project = project_scope(scopes)
    if project is None:
        return [], 0
    from cortex_hooks.capture import recurrence, switch, texts
    from cortex_hooks.store import proposals

    if not switch.enabled(project.path):
        return [], 0
    rows = proposals.listed(project.connection)
    shown = [
        texts.record(row, proposals.occurrences(project.connection, row.id, limit=1))
        for row in rows[: recurrence.SHOWN_AT_START]
    ]
    return shown, len(rows)


CONTEXT_LIMIT = 9_500  # characters of a hook's text: Claude Code cuts longer ones
SMALLEST_DIGEST = 300  # room below which the memory's digest is left out rather than cut to nothing


def session_text(
    scopes: list[Scope],
    now: datetime,
    proposals: tuple[list[dict[str, Any]], int],
    folder: str | None = None,
) -> tuple[str, int]:
    """The text SessionStart injects, and how many learnings await review: the review prompt of
    both scopes (project first), then the project's snapshot and capture's `proposals` (as
    pending_proposals reads them), within the project's budget; then, when Claude Code will not
    read the push surface in `folder` (the one it runs in), the surface's digest itself."""
    project = project_scope(scopes)
    config = location.config_for((project or scopes[0]).path)
    waiting: list[dict[str, object]] = []
    awaiting = 0
    unclear = _unclear(scopes, config.context_budget // 60 + 1)
    for scope in scopes:
        # No review entry is shorter than 60 characters: more rows than this could never be shown.
        policy = location.config_for(scope.path).policy
        rows, count = learnings.awaiting_review(
            scope.connection, policy, limit=config.context_budget // 60 + 1
        )
        waiting += [{**row._asdict(), "scope": scope.name} for row in rows]
        awaiting += count
    since = clock.iso(now - timedelta(days=snapshot.RECENT_DAYS))
    loaded = snapshot_store.rows(project.connection, since) if project and config.snapshot else None
    proposed, total = proposals
    section = None
    if proposed:
        from cortex_hooks.capture import texts

        section = texts.section(proposed, total)
    tail = snapshot.where(location.cli_command())
    text = snapshot.session_context(
        waiting,
        awaiting,
        loaded,
        now,
        budget=config.context_budget - len(tail),
        proposals=section,
        unclear=unclear,
    )
    memory = None
    if folder is not None and config.surface:
        room = CONTEXT_LIMIT - len(text) - len("\n\n") - len(tail)
        memory = memory_digest(scopes, folder, now, min(config.surface_budget, room))
    body = "\n\n".join(part for part in (text, memory) if part)
    return (body + tail if body else ""), awaiting


def _unclear(scopes: list[Scope], limit: int) -> Section | None:
    """The learnings of both scopes the agent keeps retrying rather than following."""
    from cortex_hooks.guard import review
    from cortex_hooks.store import outcomes

    rows: list[dict[str, object]] = []
    total = 0
    for scope in scopes:
        found, count = outcomes.unclear(scope.connection, limit)
        rows += [{**row._asdict(), "scope": scope.name} for row in found]
        total += count
    return review.unclear(rows[:limit], total) if total else None


def unclear_count(scopes: list[Scope]) -> int:
    """How many learnings of both scopes the agent keeps retrying: the person's one line."""
    from cortex_hooks.store import outcomes

    return sum(outcomes.unclear(scope.connection, 0)[1] for scope in scopes)


def memory_digest(scopes: list[Scope], folder: str, now: datetime, budget: int) -> str | None:
    """The push surface's digest for the session's context. Where Claude Code
    reads no surface file in `folder` (its CLAUDE.local.md imports none: the plugin, a user-scope
    install), the digest itself; where it reads one, only what that file lacks now
    (memory.surface_delta), so that the model never reads an item twice. None when there is
    nothing to add, or no room."""
    from cortex_hooks.install import surface_import

    if budget < SMALLEST_DIGEST:
        return None
    from cortex_hooks.api import surface_update as surface
    from cortex_hooks.memory import push_digest as digest

    if surface_import.imported(folder):
        from cortex_hooks.api import surface_file
        from cortex_hooks.memory import surface_delta

        owner = project_scope(scopes) or scopes[0]
        size = location.config_for(owner.path).surface_budget  # as the file was written
        found, _, _, _ = surface.current(scopes, folder, budget=size, now=now)
        return surface_delta.delta(surface_file.read_block(folder), found.text, budget)
    found, _, _, _ = surface.current(scopes, folder, budget=budget, now=now, heading=digest.CONTEXT_HEADER)
    return found.text if any(found.sections.values()) else None
