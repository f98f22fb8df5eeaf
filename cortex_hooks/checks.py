"""The rules on a given value, as plain functions: each returns the value or raises ValueError
worded for a person. The standard-library checks (memory.given) call them, and the pydantic field
types (fields.Text, validation.encodable, the records' bounds) wrap the very same functions."""

from __future__ import annotations

from cortex_hooks import json_values

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TypeVar

    Value = TypeVar("Value")
    Bounded = TypeVar("Bounded", int, str)

MAX_ID = 2**63 - 1  # SQLite's largest rowid: a larger id names no row (and no SQLite integer)


def text(value: str) -> str:
    """A text that is not empty (pydantic's own wording, as Field(min_length=1) would say it)."""
    if not value:
        raise ValueError("String should have at least 1 character")
    return value


def encodable(value: Value) -> Value:
    """Every string in the value can be stored (see json_values.storable)."""
    if not json_values.storable(value):
        raise ValueError("holds characters that are not valid Unicode (a lone surrogate)")
    return value


def within(low: int, high: int, value: Bounded) -> Bounded:
    """A number between the bounds, or a text whose length is."""
    if isinstance(value, int):
        if not low <= value <= high:
            raise ValueError(f"must lie in [{low}, {high}], got {value}")
    elif not low <= len(value) <= high:
        raise ValueError(f"must be {low} to {high:,} characters long, got {len(value):,}")
    return value
