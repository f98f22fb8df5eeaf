"""Upkeep and overview of Part I's kinds: Ebbinghaus pruning of learnings, decisions and errors,
the most accessed of each, the text SessionStart injects, and the sessions seen."""

from __future__ import annotations

from contextlib import ExitStack, closing
from typing import Any, NamedTuple

from cortex_hooks import clock, location
from cortex_hooks.api import databases as db
from cortex_hooks.api.databases import Databases
from cortex_hooks.errors import CortexError
from cortex_hooks.guard.weakening import Weakens
from cortex_hooks.notes import Notes
from cortex_hooks.scopes import close
from cortex_hooks.store import kinds, sessions
from cortex_hooks.store.connection import Transaction
from cortex_hooks.upkeep import startup

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cortex_hooks.guard.kind_records import Session

LABELS = {"learnings": "anti_pattern", "decisions": "title", "errors": "message"}  # what names a row


def prune(
    databases: Databases, notes: Notes, *, dry_run: bool = False, may_weaken: bool = True
) -> dict[str, int]:
    """Ebbinghaus pruning (SPEC §5) of learnings, decisions and errors: those never used and old
    are archived (never deleted); how many of each kind were (dry: would be). Unless it
    `may_weaken` (the person's command; SessionStart's own pruning), a pruning that would archive
    a learning is refused (guard.weakening.Weakens) and nothing is archived."""
    connection = db.for_reading(databases)
    if connection is None:
        return dict.fromkeys(kinds.PRUNED_KINDS, 0)
    with closing(connection), Transaction(connection, keep=not dry_run):
        config, now = db.config(databases, notes), clock.now()
        if not may_weaken and not dry_run:
            learnings = startup.prune(connection, config, now, dry_run=True)["learnings"]
            if learnings:
                raise Weakens(
                    "this pruning", [f"it would archive {learnings} learning{'' if learnings == 1 else 's'}"]
                )
        return startup.prune(connection, config, now, dry_run=dry_run)


def most_accessed(databases: Databases, days: int = 7) -> dict[str, Any]:
    """The ten most accessed learnings, decisions and errors, with their access counts, and the
    history of the last `days` days (key `history`: matches, denies, warnings, memory events)."""
    from cortex_hooks.report import summary

    top: dict[str, Any] = {kind: [] for kind in LABELS}
    now = clock.now()
    top["history"] = summary.empty(now, days)
    connection = db.for_reading(databases)
    if connection is None:
        return top
    with closing(connection):
        top["history"] = summary.window(connection, now, days)
        for kind, label in LABELS.items():
            top[kind] = [
                {
                    "id": row["id"],
                    label: row[label],
                    "access_count": row["access_count"],
                    "last_accessed": row["last_accessed"],
                }
                for row in kinds.most_accessed(connection, kind)
            ]
    return top


class Snapshot(NamedTuple):
    text: str
    awaiting_review: int


def snapshot(databases: Databases, notes: Notes) -> Snapshot:
    """Exactly the text SessionStart would inject now: pruning included, then rolled back."""
    text, awaiting = "", 0
    scopes, skipped = db.both(databases)
    with ExitStack() as previews:
        previews.callback(close, scopes)
        now = clock.now()
        for scope in scopes:
            previews.enter_context(Transaction(scope.connection, keep=False))  # rolled back: a preview
            config = location.config_for(scope.path, notes)
            if config.prune:
                startup.prune(scope.connection, config, now, dry_run=False)
        if scopes:
            proposals = startup.pending_proposals(scopes)
            text, awaiting = startup.session_text(scopes, now, proposals, location.project_root())
        if skipped and not text:  # as the hook: a skipped scope beside nothing to say is a failure
            raise CortexError("; ".join(skipped))
        notes.extend(skipped)  # as SessionStart names them
    return Snapshot(text, awaiting)


def session_list(databases: Databases) -> list[Session]:
    """Every session the hooks saw, the latest first."""
    from cortex_hooks.guard.kind_records import Session

    connection = db.for_reading(databases)
    if connection is None:
        return []
    with closing(connection):
        return [Session.from_row(row) for row in sessions.select(connection)]
