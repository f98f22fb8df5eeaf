"""What a session start does to the memory, shared by the hook and the CLI (`snapshot`, `prune`):
Ebbinghaus pruning of every kind, and the text injected into the session."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta

from cortex_hooks import clock, location, pruning, snapshot
from cortex_hooks.config import Config
from cortex_hooks.store import kinds, learnings
from cortex_hooks.store import snapshot as snapshot_store


def prune(connection: sqlite3.Connection, config: Config, now: datetime, *, dry_run: bool) -> dict[str, int]:
    """Ebbinghaus pruning of every kind; the count archived (or, dry, that would be) per kind."""
    cutoffs = pruning.Cutoffs(now, config)
    return {
        kind: kinds.prune(connection, kind, cutoffs, clock.iso(now), dry_run=dry_run)
        for kind in kinds.PRUNED_KINDS
    }


def session_text(connection: sqlite3.Connection, config: Config, now: datetime) -> tuple[str, int]:
    """The text SessionStart injects, and how many learnings await review."""
    # No review entry is shorter than 60 characters: more rows than this could never be shown.
    rows, awaiting = learnings.awaiting_review(
        connection, config.policy, limit=config.context_budget // 60 + 1
    )
    since = clock.iso(now - timedelta(days=snapshot.RECENT_DAYS))
    loaded = snapshot_store.rows(connection, since) if config.snapshot else None
    text = snapshot.session_context(
        [dict(row) for row in rows],
        awaiting,
        loaded,
        now,
        budget=config.context_budget,
        cli=location.cli_command(),
    )
    return text, awaiting
