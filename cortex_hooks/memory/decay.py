"""How a memory ages (docs/guide/aging.md), pure: its confidence curve, when it is archived and pruned, and
when its stored state must next be looked at.

    confidence = c0 · 0.5^(days since the last confirmation / half-life)

c0 (`base_confidence`, hundredths) is the value the curve starts from: the memory's confidence when
it was stored, scaled by `reflect decay`. A confirmation (created; content, type or priority
changed; accessed) restarts the curve at c0. Everything here is a function of the stored values
and an instant, so running the lifecycle at t1 and then at t2 leaves what one run at t2 leaves:
the stored confidence may lag the curve by at most STALE hundredths between two looks.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta

from cortex_hooks.config import HALF_LIVES

LOW = 25  # hundredths: a memory "below 0.25" ...
ARCHIVE_AFTER = 7.0  # ... for this many days running is archived
PRUNE_AFTER = 90.0  # days an archived memory stays untouched before it is pruned
STALE = 1  # hundredths the stored confidence may lag the curve before it is written again
FREQUENT = 5  # accesses that double the half-life
CENTRAL = 0.5  # centrality that doubles it again
DAY = 86_400.0


def half_life(base_days: float | None, *, pinned: bool, access_count: int, centrality: float) -> float | None:
    """The half-life in force for one memory, in days; None when it never decays."""
    if pinned or base_days is None:
        return None
    days = base_days
    if access_count >= FREQUENT:
        days *= 2
    if centrality >= CENTRAL:
        days *= 2
    return days


def exact(c0: int, days: float, half: float | None) -> float:
    """The curve's value, in hundredths, `days` after the last confirmation (never before it)."""
    if half is None:
        return float(c0)
    value: float = c0 * 0.5 ** (max(days, 0.0) / half)
    return value


def hundredths(c0: int, days: float, half: float | None) -> int:
    """The curve's value as stored: whole hundredths in [0, 100]."""
    return min(100, max(0, round(exact(c0, days, half))))


def low_from(c0: int, half: float | None) -> float | None:
    """Days after the confirmation from which the curve lies below 0.25; None: never."""
    if half is None:
        return None  # a memory that does not decay is never archived by the lifecycle
    if c0 <= LOW:
        return 0.0
    return half * math.log2(c0 / LOW)


def reaches(c0: int, value: float, half: float) -> float:
    """Days after the confirmation at which the curve falls to `value` hundredths (0 < value <= c0)."""
    return half * math.log2(c0 / value)


class Aging:
    """What the lifecycle reads of one memory (checked first: cortex_hooks.api.lifecycle_pass.read)."""

    __slots__ = (
        "access_count",
        "archived_at",
        "c0",
        "centrality",
        "confidence",
        "confirmed_at",
        "pinned",
        "status",
        "touched_at",
        "type",
    )

    def __init__(
        self,
        *,
        c0: int,
        confidence: int,
        type: str,
        pinned: bool,
        access_count: int,
        centrality: float,
        status: str,
        confirmed_at: datetime,
        touched_at: datetime,
        archived_at: datetime | None,
    ) -> None:
        self.c0 = c0
        self.confidence = confidence
        self.type = type
        self.pinned = pinned
        self.access_count = access_count
        self.centrality = centrality
        self.status = status
        self.confirmed_at = confirmed_at
        self.touched_at = touched_at  # the last write a person or the agent made (updated_at)
        self.archived_at = archived_at


class Step:
    """The state the lifecycle leaves at `now`: confidence, status, archived_at, whether the memory
    is pruned, and when it must next be looked at (None: only after someone changes it)."""

    __slots__ = ("archived_at", "confidence", "due", "pruned", "status")

    def __init__(
        self,
        confidence: int,
        status: str,
        archived_at: datetime | None,
        *,
        pruned: bool = False,
        due: datetime | None = None,
    ) -> None:
        self.confidence = confidence
        self.status = status
        self.archived_at = archived_at
        self.pruned = pruned
        self.due = due


def step(memory: Aging, now: datetime, half_lives: dict[str, float | None] = HALF_LIVES) -> Step | None:
    """What the lifecycle does to one memory at `now`; None: nothing, and nothing to schedule (a
    superseded memory, or a clock behind the memory's own times: the past changes nothing)."""
    if memory.status not in ("active", "archived") or now < memory.confirmed_at:
        return None
    if memory.status == "archived":
        return _archived(memory, memory.confidence, memory.archived_at, now)
    half = half_life(
        half_lives.get(memory.type),
        pinned=memory.pinned,
        access_count=memory.access_count,
        centrality=memory.centrality,
    )
    days = (now - memory.confirmed_at).total_seconds() / DAY
    low = low_from(memory.c0, half)
    if low is not None and days >= low + ARCHIVE_AFTER:  # below 0.25 for 7 days running, by the curve
        at = low + ARCHIVE_AFTER
        archived = memory.confirmed_at + timedelta(days=at)
        return _archived(memory, hundredths(memory.c0, at, half), archived, now)
    value = hundredths(memory.c0, days, half)
    due: list[float] = []
    if low is not None:
        due.append(low + ARCHIVE_AFTER)
    if half is not None and value - STALE > 0:
        due.append(reaches(memory.c0, value - STALE, half))
    if not due:
        return Step(value, "active", None)
    next_look = memory.confirmed_at + timedelta(days=min(due))
    return Step(value, "active", None, due=max(next_look, now + timedelta(seconds=1)))


def _archived(memory: Aging, confidence: int, archived_at: datetime | None, now: datetime) -> Step:
    """An archived memory: pruned once untouched for 90 days, else looked at again then."""
    touched = max(memory.touched_at, memory.confirmed_at, archived_at or memory.touched_at)
    prune_at = touched + timedelta(days=PRUNE_AFTER)
    if now >= prune_at:
        return Step(confidence, "archived", archived_at, pruned=True)
    return Step(confidence, "archived", archived_at, due=prune_at)
