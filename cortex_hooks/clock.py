"""The clock: real time, or the instant CORTEX_NOW names; ISO-8601 UTC text."""

from __future__ import annotations

import os
from datetime import UTC, datetime

from cortex_hooks.errors import USAGE, CortexError


def now() -> datetime:
    """The current instant in UTC; CORTEX_NOW replaces it everywhere (tests, what-if previews)."""
    fixed = os.environ.get("CORTEX_NOW")
    if not fixed:
        return datetime.now(UTC).replace(microsecond=0)
    try:
        return parse(fixed)
    except ValueError:
        raise CortexError(f"CORTEX_NOW is not an ISO-8601 instant: {fixed!r}", USAGE) from None


def parse(text: str) -> datetime:
    """An ISO-8601 instant in UTC; a time without an offset is taken as UTC."""
    instant = datetime.fromisoformat(text.strip())
    if instant.tzinfo is None:
        return instant.replace(tzinfo=UTC)
    return instant.astimezone(UTC)


def iso(instant: datetime) -> str:
    """The storage and display form: `2026-11-22T09:30:00Z`."""
    return instant.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
