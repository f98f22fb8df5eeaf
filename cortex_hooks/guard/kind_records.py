"""pydantic models of decisions, errors, todos and sessions, as given and as shown."""

from __future__ import annotations

import json
from typing import Annotated, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, field_validator

from cortex_hooks.checks import encodable
from cortex_hooks.fields import Instant, Text
from cortex_hooks.guard.learning_records import GivenSeverity, Severity, one_of
from cortex_hooks.stored import kind_rows

Priority = Literal["high", "medium", "low"]
GivenPriority = Annotated[Priority, one_of("priority", get_args(Priority))]


class _Given(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    _encodable = field_validator("*")(encodable)


class _Shown(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    @classmethod
    def from_row(cls, row: kind_rows.Kept) -> _Shown:
        return cls.model_validate(row._asdict())


class DecisionFields(_Given):
    title: Text
    reasoning: Text
    category: str | None = None


class Decision(_Shown):
    id: int
    title: str
    reasoning: str
    category: str | None
    superseded_by: int | None
    access_count: int
    last_accessed: str | None
    created_at: str
    updated_at: str
    archived_at: str | None


class ImportedDecision(DecisionFields):
    id: int | None = None
    superseded_by: int | None = None
    access_count: int = Field(default=0, ge=0)
    last_accessed: Instant | None = None
    created_at: Instant | None = None
    updated_at: Instant | None = None
    archived_at: Instant | None = None


class ErrorFields(_Given):
    message: Text
    fix: str | None = None
    severity: GivenSeverity = "medium"


class Error(_Shown):
    id: int
    message: str
    fix: str | None
    severity: Severity
    occurrences: int
    first_seen: str
    last_seen: str
    access_count: int
    last_accessed: str | None
    archived_at: str | None


class ImportedError(ErrorFields):
    id: int | None = None
    occurrences: int = Field(default=1, ge=1)
    first_seen: Instant | None = None
    last_seen: Instant | None = None
    access_count: int = Field(default=0, ge=0)
    last_accessed: Instant | None = None
    archived_at: Instant | None = None


class TodoFields(_Given):
    text: Text
    priority: GivenPriority = "medium"


class Todo(_Shown):
    id: int
    text: str
    priority: Priority
    done: bool
    done_at: str | None
    created_at: str
    updated_at: str
    archived_at: str | None


class ImportedTodo(TodoFields):
    id: int | None = None
    done: bool = False
    done_at: Instant | None = None
    created_at: Instant | None = None
    updated_at: Instant | None = None
    archived_at: Instant | None = None


class KeyChange(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    file: str
    action: str


class Session(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    id: str
    source: str | None
    started_at: str | None
    ended_at: str | None
    reason: str | None
    summary: str | None
    key_changes: list[KeyChange]

    @classmethod
    def from_row(cls, row: kind_rows.Session) -> Session:
        values: dict[str, object] = row._asdict()
        try:
            values["key_changes"] = json.loads(row.key_changes or "[]")
        except ValueError:
            values["key_changes"] = []
        return cls.model_validate(values)
