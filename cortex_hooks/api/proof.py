"""The proof of rules given as values (SPEC §20): a pack's or a team file's learnings written into
a database of their own (store.scratch) and each one's examples judged there by the one judge,
through the hook's own path (prefilter and tool matcher included). `packs check` and `team check`
call it; doctor proves the rules of a database in place."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import closing

from cortex_hooks.api.replay_learnings import learning_row
from cortex_hooks.config import DEFAULT
from cortex_hooks.guard import examples
from cortex_hooks.guard.shared import SharedLearning
from cortex_hooks.judging.in_force import InForce
from cortex_hooks.scopes import Scope
from cortex_hooks.store import scratch
from cortex_hooks.store.connection import open_database


def failures(records: Sequence[SharedLearning], source: str) -> list[examples.Failure]:
    """Each rule of these (named by its id) whose examples do not hold: it cannot fire on a deny
    example, or fires on an allow example."""
    rows = [learning_row(record, source, DEFAULT) for record in records]
    if not any(row["examples"] for row in rows):
        return []
    found: list[examples.Failure] = []
    with scratch.database(rows) as (path, ids), closing(open_database(path)) as connection:
        rules = InForce([Scope("project", connection, path)])
        for row, number, record in zip(rows, ids, records, strict=True):
            found += examples.proved(rules, {**row, "id": number}, "project", record.id)
    return found
