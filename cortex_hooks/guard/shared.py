"""The shared learnings format (SPEC §17): shipped packs and the team file, one model.

A file of JSON lines, one learning per line, keys sorted, lines sorted by `id`, a final newline;
declarative fields only (no counters, no times): `id` (a slug, `core.git:reset-hard`), `tool`,
`target`, `regex`, `anti_pattern`, `correct_pattern`, `action`, `severity`, `rewrite`, `context`.
The team file may also hold memories (`"kind": "memory"`: `id`, `type`, `content`, `tags`).
`entry` reads one line; `problems` every problem of a whole file, each naming its line; `read`
validates a whole file and refuses it on its first problem; `dump` writes records in the one
canonical form, so a file written by hand and checked stays stable.
"""

from __future__ import annotations

import json
import re
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, ValidationError, field_validator

from cortex_hooks.checks import encodable
from cortex_hooks.errors import USAGE, CortexError
from cortex_hooks.fields import Text
from cortex_hooks.guard import matching
from cortex_hooks.memory import given
from cortex_hooks.memory.vocabulary import MemoryType

Action = Literal["block", "ask", "warn"]
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
    rewrite: str | None = None  # a replacement for the match (SPEC §16): read, not applied yet
    context: str | None = None

    _encodable = field_validator("*")(encodable)

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
        from cortex_hooks.guard.unmatchable import nested_quantifiers

        wrong = nested_quantifiers(pattern)  # it could take exponential time on benign text
        if wrong is not None:
            raise ValueError(wrong)
        return pattern

    @field_validator("tool")
    @classmethod
    def _matcher(cls, matcher: str) -> str:
        try:
            return matching.check_tool_matcher(matcher)
        except CortexError as error:
            raise ValueError(error.message) from None


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
    _slug = field_validator("id")(SharedLearning._slug.__func__)  # type: ignore[attr-defined]


Entry = SharedLearning | SharedMemory
# What git leaves in a file it could not merge: the lines between are both sides' (SPEC §17).
CONFLICT_MARKERS = ("<<<<<<<", "=======", ">>>>>>>", "|||||||")


def entry(line: str, *, memories: bool = False) -> Entry:
    """One line of a file in the shared format, validated; ValueError saying what is wrong
    (`field: message`). A memory is allowed where `memories` (the team file, not a pack)."""
    if line.startswith(CONFLICT_MARKERS):
        raise ValueError("a merge-conflict marker: resolve the conflict (git left both sides here)")
    try:
        value = json.loads(line)
    except json.JSONDecodeError as error:
        raise ValueError(f"not JSON ({error.msg})") from None
    except RecursionError:
        raise ValueError("not JSON (nested too deeply)") from None
    if not isinstance(value, dict):
        raise ValueError("not a JSON object")
    kind = value.get("kind", "learning")
    model: type[SharedLearning] | type[SharedMemory] = SharedLearning
    if kind == "memory" and memories:
        model = SharedMemory
    elif kind == "learning":
        value = {key: item for key, item in value.items() if key != "kind"}
    else:
        raise ValueError(f"kind: must be {'learning or memory' if memories else 'learning'}, got {kind!r}")
    try:
        return model.model_validate(value)
    except ValidationError as error:
        said = [
            f"{'.'.join(str(part) for part in item['loc']) or 'line'}: {item['msg']}"
            for item in error.errors()[:5]
        ]
        raise ValueError("; ".join(said)) from None


def problems(text: str, name: str, *, memories: bool = False) -> tuple[list[Entry], list[str]]:
    """Every valid entry of a file, and every problem of it, each naming its line (`NAME line N:
    …`): lines that do not validate, an id given twice (the first line holding it is kept), and
    the format's own rules (keys and lines sorted, a final newline)."""
    found: list[Entry] = []
    said: list[str] = []
    first: dict[str, int] = {}
    lines = text.split("\n")
    if text and not text.endswith("\n"):
        said.append(f"{name}: the last line has no final newline")
    for number, line in enumerate(lines[:-1] if text.endswith("\n") else lines, 1):
        where = f"{name} line {number}"
        if not _keys_sorted(line):
            said.append(f"{where}: keys are not sorted")
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
    ids = [record.id for record in found]
    if ids != sorted(ids):
        said.append(f"{name}: lines are not sorted by id")
    return found, said


def _keys_sorted(line: str) -> bool:
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):
        return True  # not JSON: said as such
    return not isinstance(value, dict) or list(value) == sorted(value)


def read(text: str, name: str) -> list[SharedLearning]:
    """Every learning of a file in the shared format; CortexError naming the first problem
    (`NAME line N: field: message`), the format's own rules included."""
    records, said = problems(text, name)
    if said:
        ordered = sorted(said, key=lambda problem: " line " not in problem)  # a line's before the file's
        raise CortexError(ordered[0], USAGE)
    return [record for record in records if isinstance(record, SharedLearning)]


def dump(records: list[SharedLearning] | list[Entry]) -> str:
    """Records in the canonical form: sorted by id, keys sorted, a final newline."""
    lines = [
        json.dumps(record.model_dump(mode="json"), sort_keys=True, ensure_ascii=False)
        for record in sorted(records, key=lambda record: record.id)
    ]
    return "".join(line + "\n" for line in lines)
