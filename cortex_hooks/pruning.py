"""Ebbinghaus pruning, pure: which never-used old memories fade into the archive (SPEC §5)."""

from __future__ import annotations

from datetime import datetime, timedelta

from cortex_hooks import clock
from cortex_hooks.settings import Settings


class PruneRule:
    """(age > 90 days and never accessed) or (age > 365 days and accessed fewer than 3 times)."""

    def __init__(self, now: datetime, settings: Settings) -> None:
        self.unused_before = now - timedelta(days=settings.prune_unused_days)
        self.rarely_used_before = now - timedelta(days=settings.prune_rarely_used_days)
        self.rare = settings.prune_rarely_used_accesses

    def __call__(self, age_from: str | None, access_count: int) -> bool:
        if not age_from:
            return False
        try:
            born = clock.parse(age_from)
        except ValueError:  # an unreadable date is never a reason to hide a memory
            return False
        return (born < self.unused_before and access_count == 0) or (
            born < self.rarely_used_before and access_count < self.rare
        )
