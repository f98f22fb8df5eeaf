"""Stored learning rows the code cannot read, pure: what is wrong with one, and how to mend it.

SQLite's CHECKs let a hand edit through (`UPDATE learning_confidence SET confidence = 0.9`
passes `BETWEEN 0 AND 100`; a column's type is only an affinity). A row like that is skipped
and named wherever it would be read — every other learning keeps working — and
`cortex-hooks doctor --repair` mends what it can and archives what it cannot.
"""

from __future__ import annotations

import math

from cortex_hooks.guard.actions import ACTIONS

TYPE_CHECKING = False
if TYPE_CHECKING:  # `typing` costs a matched tool call 4 ms at run time
    from typing import Any, Protocol, TypeVar

    from cortex_hooks.confidence import Policy

    class Stored(Protocol):
        """A stored row: a sqlite3.Row, or a dict of one."""

        def keys(self) -> Any: ...
        def __getitem__(self, key: str, /) -> Any: ...

    Row = TypeVar("Row", bound=Stored)

REPAIR = "cortex-hooks doctor --repair"
_TEXTS = ("anti_pattern", "correct_pattern", "tool", "target", "severity", "created_at", "updated_at")
_OPTIONAL_TEXTS = ("regex", "context", "literals", "last_accessed", "archived_at", "rewrite")
_FLAGS = ("auto_block", "pinned")


def problem(row: Stored | dict[str, object]) -> str | None:
    """What cannot be read in a stored learning (of the columns the row holds), or None."""
    keys = set(row.keys())
    if "confidence" in keys:
        value = row["confidence"]
        if value is None:
            return "it has no confidence"
        if type(value) is not int or not 0 <= value <= 100:
            return f"its confidence {value!r} is not a number of hundredths (0 to 100)"
    count = row["access_count"] if "access_count" in keys else 0
    if type(count) is not int or count < 0:
        return f"its access count {row['access_count']!r} is not a whole number ≥ 0"
    for column in _TEXTS:
        if column in keys and not isinstance(row[column], str):
            return f"its {column} {_short(row[column])} is not text"
    for column in _OPTIONAL_TEXTS:
        if column in keys and row[column] is not None and not isinstance(row[column], str):
            return f"its {column} {_short(row[column])} is not text"
    for column in _FLAGS:
        if column in keys and row[column] not in (0, 1):
            return f"its {column} {_short(row[column])} is not 0 or 1"
    if "action" in keys and row["action"] not in ACTIONS:
        return f"its action {_short(row['action'])} is not block, ask or warn"
    return None


def named(learning_id: object, row: Stored) -> str | None:
    """The one-line note for a row that cannot be read, or None."""
    wrong = problem(row)
    return None if wrong is None else f"learning #{learning_id} skipped: {wrong} (run `{REPAIR}`)"


def mended(row: Stored, policy: Policy, now: str) -> dict[str, object] | None:
    """The column values that make a row readable again, or None when it cannot be mended (the
    row is then archived, never deleted)."""
    changes: dict[str, object] = {}
    if "action" in set(row.keys()) and row["action"] not in ACTIONS:
        return None  # which action was meant cannot be known: archived, for the person to decide
    if problem({"confidence": row["confidence"]}):
        changes["confidence"] = _hundredths(row["confidence"], policy)
    if problem({"access_count": row["access_count"]}):
        count = _number(row["access_count"])
        changes["access_count"] = int(count) if count is not None and count >= 0 else 0
    present = set(row.keys())
    for column in (*_TEXTS, *_OPTIONAL_TEXTS):
        if column not in present:
            continue
        value = row[column]
        if column == "literals":
            continue  # derived from the regex: computed anew after any repair
        if value is None or isinstance(value, str):
            continue
        if column in ("created_at", "updated_at"):
            changes[column] = now
        elif isinstance(value, bytes):
            try:
                changes[column] = value.decode("utf-8")
            except UnicodeDecodeError:
                return None
        elif isinstance(value, (int, float)) and column not in ("regex", "tool", "target", "severity"):
            changes[column] = str(value)
        else:
            return None
    return changes


def _hundredths(value: object, policy: Policy) -> int:
    """A hand-written confidence as hundredths: 0.9 and 90 both mean 0.90, kept within the floor
    and the ceiling; anything that is no number starts again at the start value."""
    number = _number(value)
    if number is None or not 0 < number <= 100:
        return policy.start
    hundredths = round(number * 100) if number <= 1 else round(number)
    return min(policy.ceiling, max(policy.floor, hundredths))


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float, str, bytes)):
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def notes(rows: list[Row]) -> list[str]:
    """A note naming each row that cannot be read."""
    return split(rows)[1]


def split(rows: list[Row]) -> tuple[list[Row], list[str]]:
    """The rows the code can read, and a note naming each one it cannot."""
    good: list[Row] = []
    notes: list[str] = []
    for row in rows:
        note = named(row["id"], row)
        if note is None:
            good.append(row)
        else:
            notes.append(note)
    return good, notes
