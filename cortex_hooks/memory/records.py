"""pydantic models of memories as given (remember, update, import) and as shown (SPEC §9.1)."""

from __future__ import annotations

import json
import sqlite3
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, field_validator

from cortex_hooks import confidence
from cortex_hooks.fields import Instant, Text
from cortex_hooks.memory import vocabulary
from cortex_hooks.validation import encodable

MemoryType = Literal[
    "architecture", "decision", "pattern", "gotcha", "progress", "context", "code_description", "code"
]

Source = Literal["explicit", "conversation", "code_index"]
Status = Literal["active", "superseded", "archived"]
EdgeType = Literal[
    "relates_to", "derived_from", "contradicts", "exemplifies", "refines", "supersedes", "source_of"
]
assert MemoryType.__args__ == vocabulary.TYPES  # type: ignore[attr-defined]
assert EdgeType.__args__ == vocabulary.EDGE_TYPES  # type: ignore[attr-defined]
SUMMARY_LENGTH = 200
DEFAULT_CONFIDENCE = 70  # hundredths (§9.1)


def summary_of(content: str) -> str:
    """The first line of the content, cut to 200 characters (`…` when cut)."""
    first = next((line.strip() for line in content.splitlines() if line.strip()), "")
    return first if len(first) <= SUMMARY_LENGTH else first[: SUMMARY_LENGTH - 1] + "…"


def _memory_confidence(value: object) -> int:
    hundredths = confidence.of_value(value)
    if not 0 <= hundredths <= 100:
        raise ValueError(f"must lie in [0.00, 1.00], got {value}")
    return hundredths


def _tags(value: object) -> object:
    if isinstance(value, str):
        return [value]
    return value


def _within(low: int, high: int) -> Any:
    """A bound on a number, or on a text's length, as an AfterValidator."""

    def check(value: Any) -> Any:
        if isinstance(value, int):
            if not low <= value <= high:
                raise ValueError(f"must lie in [{low}, {high}], got {value}")
        elif not low <= len(value) <= high:
            raise ValueError(f"must be {low} to {high:,} characters long, got {len(value):,}")
        return value

    return AfterValidator(check)


def _words(text: str) -> str:
    """Content is words: a text of only spaces has nothing to remember (nor to summarize)."""
    if not text.strip():
        raise ValueError("must hold more than white space")
    return text


MemoryConfidence = Annotated[int, BeforeValidator(_memory_confidence)]
Tag = Annotated[str, _within(1, 100)]


class _Given(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    _encodable = field_validator("*")(encodable)


class MemoryFields(_Given):
    """What a person or the agent gives for a memory (remember, update)."""

    content: Annotated[Text, AfterValidator(_words)]
    type: MemoryType = "context"
    summary: Annotated[str, _within(1, SUMMARY_LENGTH)] | None = None
    priority: Annotated[int, _within(1, 10)] = 5
    tags: Annotated[list[Tag], BeforeValidator(_tags)] = []
    pinned: bool = False

    @field_validator("tags")
    @classmethod
    def _unique(cls, tags: list[str]) -> list[str]:
        return list(dict.fromkeys(tag.strip() for tag in tags if tag.strip()))


class ImportedMemory(MemoryFields):
    """A memory in an import file: what export prints, ids, counters and times optional."""

    id: int | None = None
    scope: Literal["project", "global"] | None = None
    confidence: MemoryConfidence = DEFAULT_CONFIDENCE
    source: Source = "explicit"
    source_session: str | None = None
    status: Status = "active"
    path: str | None = None
    access_count: Annotated[int, _within(0, 2**62)] = 0
    last_accessed: Instant | None = None
    created_at: Instant | None = None
    updated_at: Instant | None = None
    archived_at: Instant | None = None
    centrality: float | None = None  # derived from the edges: ignored on import


class Memory(BaseModel):
    """A stored memory as `--json` and export print it."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    id: int
    scope: Literal["project", "global"]
    type: MemoryType
    content: str
    summary: str
    priority: int
    confidence: float
    pinned: bool
    tags: list[str]
    source: Source
    source_session: str | None
    status: Status
    path: str | None
    access_count: int
    last_accessed: str | None
    created_at: str
    updated_at: str
    archived_at: str | None
    centrality: float

    @classmethod
    def from_row(cls, row: sqlite3.Row, scope: str, max_in_degree: int) -> Memory:
        from cortex_hooks.memory.rank import centrality

        values = {key: row[key] for key in row.keys()}  # noqa: SIM118 (a sqlite3.Row)
        for derived in ("confirmed_at", "in_degree", "base_confidence", "lifecycle_due"):
            values.pop(derived, None)
        values["scope"] = scope
        values["confidence"] = confidence.as_number(values["confidence"])
        values["tags"] = json.loads(values["tags"] or "[]")
        values["centrality"] = round(centrality(row["in_degree"], max_in_degree), 2)
        return cls.model_validate(values)
