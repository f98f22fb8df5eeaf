"""A new package version's packs, brought into each scope that enabled them (SPEC §14): pack
learnings updated by slug, the user's state (hits, confidence, muted) kept. Run by SessionStart;
cheap when nothing changed (one small query, and a hash of each enabled pack's file)."""

from __future__ import annotations

import sqlite3

from cortex_hooks import clock
from cortex_hooks.store.connection import Transaction

TYPE_CHECKING = False
if TYPE_CHECKING:
    from datetime import datetime

    from cortex_hooks.store.scopes import Scope


def stale(connection: sqlite3.Connection) -> list[str]:
    """The enabled packs whose shipped file changed since they were written into this scope."""
    from cortex_hooks.store import packs as store

    enabled = store.enabled(connection)
    if not enabled:
        return []
    # only where packs are enabled: it reads package data
    from cortex_hooks.guard.packs import shipped as packs

    shipped = set(packs.names())
    return [
        name
        for name, digest in enabled.items()
        if name in shipped and packs.digest(packs.text(name)) != digest
    ]


def refresh(scope: Scope, now: datetime, start: int) -> list[str]:
    """Bring this scope's stale packs up to date; the names of those refreshed."""
    from cortex_hooks.guard.packs import shipped as packs
    from cortex_hooks.store import packs as store

    names = stale(scope.connection)
    if not names:
        return []
    with Transaction(scope.connection):
        for name in stale(scope.connection):  # again, inside the transaction: another process may have
            plan = packs.plan(packs.load(name), store.learnings_of(scope.connection, name))
            digest = packs.digest(packs.text(name))
            store.apply(scope.connection, name, plan, digest=digest, now=clock.iso(now), start=start)
    return names
