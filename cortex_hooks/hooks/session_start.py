"""SessionStart: record the session, then put the review prompt (and snapshot) before the agent."""

from __future__ import annotations

import sqlite3

from cortex_hooks import clock, context, hooks, protocol, settings
from cortex_hooks.store import Transaction
from cortex_hooks.store import learnings, sessions


def main() -> int:
    return hooks.run("SessionStart", parse, handle)


def parse(payload: dict[str, object]) -> protocol.SessionStartPayload:
    return protocol.parse(protocol.SessionStartPayload, payload)


def handle(
    payload: protocol.SessionStartPayload, connection: sqlite3.Connection, database: str
) -> hooks.Outcome:
    config = settings.for_database(database)
    now = clock.iso(clock.now())
    with Transaction(connection):
        sessions.record_start(connection, payload.session_id, payload.source, now)
    review = learnings.select(connection, "active", config.policy.review_threshold)
    text = context.review_prompt(review, config.context_budget)
    if not text:
        return hooks.Outcome()
    output = protocol.SessionStartOutput(
        system_message=context.system_message(len(review)) if review else None,
        hook_specific_output=protocol.SessionStartContext(additional_context=text),
    )
    return hooks.Outcome(output.wire())
