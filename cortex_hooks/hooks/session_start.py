"""SessionStart: record the session, prune, then inject the review prompt and the snapshot."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta

from cortex_hooks import clock, context, hooks, location, protocol, pruning, settings, snapshot
from cortex_hooks.store import Transaction, learnings, memory, recall, sessions


def main() -> int:
    return hooks.run("SessionStart", parse, handle)


def parse(payload: dict[str, object]) -> protocol.SessionStartPayload:
    return protocol.parse(protocol.SessionStartPayload, payload)


def handle(
    payload: protocol.SessionStartPayload, connection: sqlite3.Connection, database: str
) -> hooks.Outcome:
    config = settings.for_database(database)
    now = clock.now()
    notes: list[str] = []
    with Transaction(connection):
        # A resumed or compacted session is already recorded: its row stays as it is, so the
        # context is injected again without counting a new session.
        sessions.record_start(connection, payload.session_id, payload.source, clock.iso(now))
    if config.prune:
        try:
            with Transaction(connection):
                prune(connection, config, now, dry_run=False)
        except (sqlite3.Error, ValueError) as error:  # pruning never costs the agent its context
            notes.append(f"pruning skipped: {error}")
    text, review = injected_text(connection, config, now)
    if not text:
        return hooks.Outcome(notes=notes)
    output = protocol.SessionStartOutput(
        system_message=context.system_message(review) if review else None,
        hook_specific_output=protocol.SessionStartContext(additional_context=text),
    )
    return hooks.Outcome(output.wire(), notes=notes)


def prune(
    connection: sqlite3.Connection, config: settings.Settings, now: datetime, *, dry_run: bool
) -> dict[str, int]:
    """Ebbinghaus pruning of every kind; the count archived (or, dry, that would be) per kind."""
    cutoffs = pruning.Cutoffs(now, config)
    return {
        kind: memory.prune(connection, kind, cutoffs, clock.iso(now), dry_run=dry_run)
        for kind in memory.PRUNED_KINDS
    }


def injected_text(
    connection: sqlite3.Connection, config: settings.Settings, now: datetime
) -> tuple[str, int]:
    """The text SessionStart injects, and how many learnings await review."""
    # No review entry is shorter than 60 characters: more rows than this could never be shown.
    rows, awaiting = learnings.awaiting_review(
        connection, config.policy.review_threshold, limit=config.context_budget // 60 + 1
    )
    review = [dict(row) for row in rows]
    since = clock.iso(now - timedelta(days=snapshot.RECENT_DAYS))
    loaded = recall.memory(connection, since) if config.snapshot else None
    text = snapshot.session_context(
        review, awaiting, loaded, now, budget=config.context_budget, cli=location.cli_command()
    )
    return text, awaiting
