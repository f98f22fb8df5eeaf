"""Ebbinghaus pruning, pure: the cut-off instants of the rule of docs/guide/confidence.md for one moment.

A memory fades into the archive when (age > 90 days and it was never accessed) or
(age > 365 days and it was accessed fewer than 3 times). Ages are counted from `created_at`
(errors: `first_seen`); the store applies the rule in SQL, comparing the stored ISO-8601 times
with these cut-offs as text, so a SessionStart never parses ten thousand dates.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from cortex_hooks import clock
from cortex_hooks.config import Config


class Cutoffs:
    """Born before `unused_before` and never accessed, or before `rarely_used_before` and
    accessed fewer than `rarely_used_accesses` times: pruned."""

    __slots__ = ("rarely_used_accesses", "rarely_used_before", "unused_before")

    def __init__(self, now: datetime, config: Config) -> None:
        self.unused_before = clock.iso(now - timedelta(days=config.prune_unused_days))
        self.rarely_used_before = clock.iso(now - timedelta(days=config.prune_rarely_used_days))
        self.rarely_used_accesses = config.prune_rarely_used_accesses

    def prunes(self, born: str, access_count: int) -> bool:
        """The rule for one memory (the store's SQL states the same for many at once)."""
        return (born < self.unused_before and access_count == 0) or (
            born < self.rarely_used_before and access_count < self.rarely_used_accesses
        )
