"""The shared learnings format (docs/guide/packs.md): shipped packs and the team file, one model.

A file of JSON lines, one learning per line, keys sorted, lines sorted by `id`, a final newline;
declarative fields only (no counters, no times): `id` (a slug, `core.git:reset-hard`), `tool`,
`target`, `regex`, `anti_pattern`, `correct_pattern`, `action`, `severity`, `rewrite`, `context`,
and `examples` (`{"deny": [...], "allow": [...]}`: commands the rule must deny and must let
through). The team file may also hold memories (`"kind": "memory"`: `id`, `type`,
`content`, `tags`); a pack's file begins with its policy (`"kind": "policy"`: `pack`, `policy`).
`entry` reads one line; `problems` every problem of a whole file, each naming its line; `read`
validates a whole file and refuses it on its first problem; `dump` writes records in the one
canonical form, so a file written by hand and checked stays stable.
"""

from __future__ import annotations

import json
from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from cortex_hooks import validation
from cortex_hooks.checks import encodable
from cortex_hooks.errors import USAGE, CortexError
from cortex_hooks.fields import Text
from cortex_hooks.guard import shared_rules as rules
from cortex_hooks.guard.learning_records import Action
from cortex_hooks.memory import given
from cortex_hooks.memory.vocabulary import MemoryType

SLUG = rules.SLUG


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
    rewrite: str | None = None  # a replacement for the match (guard.rewrite)
    context: str | None = None
    examples: dict[str, list[str]] | None = None  # commands it must deny and let through

    _encodable = field_validator("*")(encodable)

    _slug = field_validator("id")(rules.slug)
    _compiles = field_validator("regex")(rules.regex)  # compiles, and never exponential on benign text
    _matcher = field_validator("tool")(rules.tool)

    @field_validator("examples", mode="before")
    @classmethod
    def _examples(cls, value: object, info: ValidationInfo) -> dict[str, list[str]] | None:
        return rules.examples(value, str(info.data.get("id", ""))[:80])

    @field_validator("rewrite")
    @classmethod
    def _rewrite(cls, template: str | None, info: ValidationInfo) -> str | None:
        return rules.checked_rewrite(template, info.data)


class SharedMemory(BaseModel):
    """One memory of a team file (`"kind": "memory"`), as declared: memory.given's rules."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    id: str
    kind: Literal["memory"]
    content: Annotated[str, AfterValidator(given.content)]
    type: MemoryType = given.DEFAULT_TYPE
    tags: Annotated[
        list[Annotated[str, AfterValidator(given.tag)]],
        BeforeValidator(given.listed),
        AfterValidator(given.tags),
    ] = []

    _encodable = field_validator("*")(encodable)
    _slug = field_validator("id")(rules.slug)


class PackPolicy(BaseModel):
    """The first line of a pack's file: its policy, in words (what it denies, what it lets
    through, what it cannot know); validated by guard.shared_rules.policy, as the hooks read it."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    kind: Literal["policy"]
    pack: str
    policy: str

    @model_validator(mode="before")
    @classmethod
    def _rules(cls, value: object, info: ValidationInfo) -> object:
        if not isinstance(value, dict):
            return value
        return rules.policy(value, (info.context or {}).get("pack"))


Entry = SharedLearning | SharedMemory
CONFLICT_MARKERS = rules.CONFLICT_MARKERS


def entry(line: str, *, memories: bool = False) -> Entry:
    """One line of a file in the shared format, validated; ValueError saying what is wrong
    (`field: message`). A memory is allowed where `memories` (the team file, not a pack)."""
    kind, value = rules.parsed(line, memories=memories)
    model: type[SharedLearning] | type[SharedMemory] = SharedMemory if kind == "memory" else SharedLearning
    try:
        return model.model_validate(value)
    except ValidationError as error:
        raise ValueError(validation.explain(error, most=5, whole="line")) from None


def policy_line(line: str, pack: str) -> PackPolicy:
    """A pack file's first line, validated as the policy of `pack`; ValueError saying what is wrong."""
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):
        raise ValueError("not JSON: a pack's file begins with its policy line") from None
    if not isinstance(value, dict) or value.get("kind") != "policy":
        raise ValueError('kind: a pack\'s file begins with its policy ({"kind": "policy", …})')
    try:
        return PackPolicy.model_validate(value, context={"pack": pack})
    except ValidationError as error:
        raise ValueError(validation.explain(error, most=5, whole="line")) from None


def problems(
    text: str, name: str, *, memories: bool = False, pack: str | None = None
) -> tuple[list[Entry | PackPolicy], list[str]]:
    """Every valid entry of a file, and every problem of it, each naming its line (`NAME line N:
    …`): lines that do not validate, an id given twice (the first line holding it is kept), and
    the format's own rules (keys and lines sorted, a final newline). A pack's file (`pack`: its
    name) begins with its policy line, given first."""
    found: list[Entry | PackPolicy] = []
    said: list[str] = []
    first: dict[str, int] = {}
    lines = text.split("\n")
    if text and not text.endswith("\n"):
        said.append(f"{name}: the last line has no final newline")
    for number, line in enumerate(lines[:-1] if text.endswith("\n") else lines, 1):
        where = f"{name} line {number}"
        if not _keys_sorted(line):
            said.append(f"{where}: keys are not sorted")
        if pack is not None and number == 1:
            try:
                found.append(policy_line(line, pack))
            except ValueError as error:
                said.append(f"{where}: {error}")
            continue
        try:
            record = entry(line, memories=memories)
        except ValueError as error:
            said.append(f"{where}: {error}")
            continue
        if record.id in first:
            said.append(f"{where}: the id {record.id} appears again (first on line {first[record.id]})")
            continue
        first[record.id] = number
        found.append(record)
    ids = [record.id for record in found if not isinstance(record, PackPolicy)]
    if ids != sorted(ids):
        said.append(f"{name}: lines are not sorted by id")
    return found, said


def _keys_sorted(line: str) -> bool:
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):
        return True  # not JSON: said as such
    return not isinstance(value, dict) or list(value) == sorted(value)


def read(text: str, name: str, *, pack: str | None = None) -> list[SharedLearning]:
    """Every learning of a file in the shared format; CortexError naming the first problem
    (`NAME line N: field: message`), the format's own rules included (a pack's file: `pack`)."""
    records, said = problems(text, name, pack=pack)
    if said:
        ordered = sorted(said, key=lambda problem: " line " not in problem)  # a line's before the file's
        raise CortexError(ordered[0], USAGE)
    return [record for record in records if isinstance(record, SharedLearning)]


def dump(records: list[SharedLearning] | list[Entry], policy: PackPolicy | None = None) -> str:
    """Records in the canonical form: a pack's policy first, then sorted by id, keys sorted, a
    final newline; a learning without examples is written without the key (as before they were)."""
    lines = [json.dumps(policy.model_dump(mode="json"), sort_keys=True, ensure_ascii=False)] if policy else []
    for record in sorted(records, key=lambda record: record.id):
        value = record.model_dump(mode="json")
        if isinstance(record, SharedLearning) and record.examples is None:
            del value["examples"]
        lines.append(json.dumps(value, sort_keys=True, ensure_ascii=False))
    return "".join(line + "\n" for line in lines)
