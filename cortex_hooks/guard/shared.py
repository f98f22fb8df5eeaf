"""The shared learnings format (SPEC §17): shipped packs now, the team file later, one model.

A file of JSON lines, one learning per line, keys sorted, lines sorted by `id`, a final newline;
declarative fields only (no counters, no times): `id` (a slug, `core.git:reset-hard`), `tool`,
`target`, `regex`, `anti_pattern`, `correct_pattern`, `action`, `severity`, `rewrite`, `context`.
`read` validates a whole file with `SharedLearning` and names the line of any problem; `dump`
writes records in the one canonical form, so a file written by hand and checked stays stable.
"""

from __future__ import annotations

import json
import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError, ValidationInfo, field_validator

from cortex_hooks.checks import encodable
from cortex_hooks.errors import USAGE, CortexError
from cortex_hooks.fields import Text
from cortex_hooks.guard import matching
from cortex_hooks.guard.records import Action, checked_rewrite

SLUG = re.compile(r"[a-z0-9][a-z0-9._-]*:[a-z0-9][a-z0-9-]*")


class SharedLearning(BaseModel):
    """One learning of a pack or a team file, as declared (validated; a regex compiled)."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    id: str
    tool: str = "*"
    target: Literal["content", "path", "input", "raw"] = "content"
    regex: str
    anti_pattern: Text
    correct_pattern: Text
    action: Action = "warn"
    severity: Literal["low", "medium", "high", "critical"] = "medium"
    rewrite: str | None = None  # a replacement for the match (SPEC §16, guard.rewrite)
    context: str | None = None

    _encodable = field_validator("*")(encodable)

    @field_validator("rewrite")
    @classmethod
    def _rewrite(cls, template: str | None, info: ValidationInfo) -> str | None:
        return checked_rewrite(template, info.data)

    @field_validator("id")
    @classmethod
    def _slug(cls, value: str) -> str:
        if not SLUG.fullmatch(value):
            raise ValueError("must be a slug like `core.git:reset-hard` (lower case, one colon)")
        return value

    @field_validator("regex")
    @classmethod
    def _compiles(cls, pattern: str) -> str:
        try:
            matching.compile_pattern(pattern)
        except CortexError as error:
            raise ValueError(error.message) from None
        return pattern

    @field_validator("tool")
    @classmethod
    def _matcher(cls, matcher: str) -> str:
        try:
            return matching.check_tool_matcher(matcher)
        except CortexError as error:
            raise ValueError(error.message) from None


def read(text: str, name: str) -> list[SharedLearning]:
    """Every learning of a file in the shared format; CortexError naming the first problem
    (`NAME line N: field: message`), the format's own rules included."""
    records: list[SharedLearning] = []
    lines = text.split("\n")
    if text and not text.endswith("\n"):
        raise CortexError(f"{name}: the last line has no final newline", USAGE)
    for number, line in enumerate(lines[:-1] if text else [], 1):
        where = f"{name} line {number}"
        try:
            value = json.loads(line)
        except json.JSONDecodeError as error:
            raise CortexError(f"{where}: not JSON ({error.msg})", USAGE) from None
        if not isinstance(value, dict):
            raise CortexError(f"{where}: not a JSON object", USAGE)
        if list(value) != sorted(value):
            raise CortexError(f"{where}: keys are not sorted", USAGE)
        try:
            records.append(SharedLearning.model_validate(value))
        except ValidationError as error:
            first = error.errors()[0]
            field = ".".join(str(part) for part in first["loc"]) or "line"
            raise CortexError(f"{where}: {field}: {first['msg']}", USAGE) from None
    ids = [record.id for record in records]
    if ids != sorted(ids):
        raise CortexError(f"{name}: lines are not sorted by id", USAGE)
    if len(set(ids)) != len(ids):
        raise CortexError(f"{name}: an id appears twice", USAGE)
    return records


def dump(records: list[SharedLearning]) -> str:
    """Records in the canonical form: sorted by id, keys sorted, a final newline."""
    lines = [
        json.dumps(record.model_dump(mode="json"), sort_keys=True, ensure_ascii=False)
        for record in sorted(records, key=lambda record: record.id)
    ]
    return "".join(line + "\n" for line in lines)
