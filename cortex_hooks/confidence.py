"""The confidence model: exact arithmetic in hundredths, the block gate and the review threshold.

Confidence is an integer number of hundredths everywhere inside cortex-hooks (0.70 is 70), so
thirty decays take 70 to exactly 40 and no comparison at a threshold depends on float drift.
"""

from __future__ import annotations


class Policy:
    """The constants of docs/guide/confidence.md in hundredths; `.cortex/config.toml` may change them."""

    __slots__ = ("block_gate", "boost", "ceiling", "decay", "floor", "review_threshold", "start")

    def __init__(
        self,
        *,
        start: int = 70,
        floor: int = 30,
        ceiling: int = 90,
        boost: int = 10,
        decay: int = 1,
        block_gate: int = 40,
        review_threshold: int = 40,
    ) -> None:
        self.start = start
        self.floor = floor
        self.ceiling = ceiling
        self.boost = boost
        self.decay = decay
        self.block_gate = block_gate
        self.review_threshold = review_threshold


DEFAULT = Policy()


def boosted(confidence: int, policy: Policy = DEFAULT) -> int:
    """After a matching tool call: up by the boost, capped at the ceiling (never lowered)."""
    return max(confidence, min(policy.ceiling, confidence + policy.boost))


def decayed(confidence: int, policy: Policy = DEFAULT) -> int:
    """After a session end: down by the decay, not below the floor (never raised)."""
    return min(confidence, max(policy.floor, confidence - policy.decay))


# The two rules SQL applies to every learning at once, written here beside their Python form
# (tests/test_confidence.py holds each pair equal over every value): a Python function called
# for each of 10,000 rows costs a session end or start more than all its other work.
DECAYS_SQL = "{confidence} > :floor"  # decayed(confidence) != confidence, for an integer
DECAYED_SQL = "max(:floor, {confidence} - :decay)"  # decayed(confidence) where it decays
AWAITS_REVIEW_SQL = "{confidence} <= :review_threshold AND NOT {pinned} AND NOT {archived}"
# Which learnings a session end leaves as they are (docs/index.md: pinned or archived), over the
# learning table's columns: the condition of its `learning_exempt` index, word for word (SQLite
# uses a partial index only for a query that states its condition).
EXEMPT_SQL = "pinned OR archived_at IS NOT NULL"


def sql_parameters(policy: Policy = DEFAULT) -> dict[str, int]:
    """The named parameters of the SQL forms above."""
    return {"floor": policy.floor, "decay": policy.decay, "review_threshold": policy.review_threshold}


def exempt(*, pinned: bool, archived: bool) -> bool:
    """Whether session ends leave this learning's confidence as it is (EXEMPT_SQL in Python)."""
    return pinned or archived


def blocks(confidence_before_boost: int, policy: Policy = DEFAULT) -> bool:
    """Whether an auto-block learning denies: judged on its confidence before this match's boost."""
    return confidence_before_boost > policy.block_gate


def awaits_review(confidence: int, *, pinned: bool, archived: bool, policy: Policy = DEFAULT) -> bool:
    """Whether the learning is put to the user: keep it or archive it?"""
    return confidence <= policy.review_threshold and not pinned and not archived


def parse(text: str) -> int:
    """Hundredths from a decimal such as `0.7` or `0.75`; ValueError for more than two decimals."""
    from decimal import Decimal, InvalidOperation

    try:
        value = Decimal(text.strip())
    except InvalidOperation:
        raise ValueError(f"{text!r} is not a number") from None
    if not value.is_finite():
        raise ValueError(f"{text!r} is not a number")
    if value.adjusted() > 12:  # 1e999999999 would overflow the decimal context, not just a range
        raise ValueError(f"{text!r} is out of range")
    if value != value.quantize(Decimal("0.01")):  # exact, also for 1e-999999999 (no underflow to 0)
        raise ValueError(f"{text!r} has more than two decimals")
    return int(value.scaleb(2))


def of_value(value: object) -> int:
    """Hundredths from a number or a decimal string as a user or a file gives it (0.7, "0.75");
    ValueError for anything else, or more than two decimals. Range checks are the caller's."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValueError("must be a decimal number such as 0.70")
    return parse(repr(value) if isinstance(value, float) else str(value))


def show(hundredths: int) -> str:
    """`0.70` for 70: the form every text and table shows."""
    sign = "-" if hundredths < 0 else ""
    whole, part = divmod(abs(hundredths), 100)
    return f"{sign}{whole}.{part:02d}"


def as_number(hundredths: int) -> float:
    """The JSON number for a confidence: 0.7 for 70 (the nearest float, printed shortest)."""
    return hundredths / 100
