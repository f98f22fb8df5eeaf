"""pydantic models of memories as imported and as shown (docs/guide/memories.md). What a person gives to
remember or update is checked without pydantic (memory.given); an imported memory meets the same
rules, each given's function wrapped as a validator here."""

from __future__ import annotations

import json
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, field_validator

from cortex_hooks import checks, confidence
from cortex_hooks.checks import encodable
from cortex_hooks.fields import Instant
from cortex_hooks.memory import given
from cortex_hooks.memory.rank import centrality
from cortex_hooks.memory.vocabulary import MemoryType
from cortex_hooks.stored import memory_rows

Source = Literal["explicit", "conversation", "code_index"]
Status = Literal["active", "superseded", "archived"]


def _memory_confidence(value: object) -> int:
    hundredths = confidence.of_value(value)
    if not 0 <= hundredths <= 100:
        raise ValueError(f"must lie in [0.00, 1.00], got {value}")
    return hundredths


def _count(value: int) -> int:
    return checks.within(0, 2**62, value)


MemoryConfidence = Annotated[int, BeforeValidator(_memory_confidence)]


class _Given(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    _encodable = field_validator("*")(encodable)


class ImportedMemory(_Given):
    """A memory in an import file: what export prints, ids, counters and times optional; the
    fields a person gives meet memory.given's rules."""

    content: Annotated[str, AfterValidator(given.content)]
    type: MemoryType = given.DEFAULT_TYPE
    summary: Annotated[str, AfterValidator(given.summary)] | None = None
    priority: Annotated[int, AfterValidator(given.priority)] = given.DEFAULT_PRIORITY
    tags: Annotated[
        list[Annotated[str, AfterValidator(given.tag)]],
        BeforeValidator(given.listed),
        AfterValidator(given.tags),
    ] = []
    pinned: bool = False
    id: int | None = None
    scope: Literal["project", "global"] | None = None
    confidence: MemoryConfidence = given.DEFAULT_CONFIDENCE
    source: Source = "explicit"
    source_session: str | None = None
    status: Status = "active"
    path: str | None = None
    access_count: Annotated[int, AfterValidator(_count)] = 0
    last_accessed: Instant | None = None
    created_at: Instant | None = None
    updated_at: Instant | None = None
    archived_at: Instant | None = None
    centrality: float | None = None  # derived from the edges: ignored on import

    def fields(self) -> given.MemoryFields:
        """The fields a person gives (already checked, by the same rules)."""
        return given.MemoryFields(
            self.content, self.type, self.summary, self.priority, list(self.tags), self.pinned
        )


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
    def from_row(cls, row: memory_rows.Memory, scope: str, max_in_degree: int) -> Memory:
        values = row._asdict()
        for derived in ("confirmed_at", "in_degree", "base_confidence", "lifecycle_due"):
            del values[derived]
        values["scope"] = scope
        values["confidence"] = confidence.as_number(row.confidence)
        values["tags"] = json.loads(row.tags or "[]")
        values["centrality"] = round(centrality(row.in_degree, max_in_degree), 2)
        return cls.model_validate(values)
