"""What a person or the agent gives for a memory (docs/guide/memories.md), checked with the standard library.

One function per rule. `checked` applies them for remember, memories update and index-code
without importing pydantic (its import and a model's first build were half of `remember`'s time);
the import file's pydantic model (records.ImportedMemory) wraps the very same functions as
validators, so the two agree on every limit, every default and every word.
"""

from __future__ import annotations

from typing import Any

from cortex_hooks import checks
from cortex_hooks.errors import USAGE, CortexError
from cortex_hooks.frozen import Record
from cortex_hooks.memory import vocabulary

SUMMARY_LENGTH = 200
TAG_LENGTH = 100
PRIORITIES = (1, 10)
DEFAULT_TYPE: vocabulary.MemoryType = "context"
DEFAULT_PRIORITY = 5
DEFAULT_CONFIDENCE = 70  # hundredths (docs/guide/memories.md)


class MemoryFields(Record):
    """The fields of a memory as given, every rule met (build one through `checked`)."""

    content: str
    type: str = DEFAULT_TYPE
    summary: str | None = None
    priority: int = DEFAULT_PRIORITY
    tags: list[str] = []  # noqa: RUF012 (never changed: a NamedTuple's default)
    pinned: bool = False

    def stored_summary(self) -> str:
        """The summary as stored: the one given, else the first line of the content."""
        return self.summary or summary_of(self.content)


def summary_of(content: str) -> str:
    """The first line of the content, cut to 200 characters (`…` when cut)."""
    first = next((line.strip() for line in content.splitlines() if line.strip()), "")
    return first if len(first) <= SUMMARY_LENGTH else first[: SUMMARY_LENGTH - 1] + "…"


def content(text: str) -> str:
    """Content is words: a text of only spaces has nothing to remember (nor to summarize)."""
    checks.text(text)
    if not text.strip():
        raise ValueError("must hold more than white space")
    return checks.encodable(text)


def memory_type(name: str) -> str:
    """One of the types (pydantic's wording for a Literal, which the import file's model uses)."""
    if name not in vocabulary.TYPES:
        *first, last = (repr(known) for known in vocabulary.TYPES)
        raise ValueError(f"Input should be {', '.join(first)} or {last}")
    return name


def summary(text: str) -> str:
    return checks.encodable(checks.within(1, SUMMARY_LENGTH, text))


def priority(value: int) -> int:
    return checks.within(*PRIORITIES, value)


def tag(text: str) -> str:
    return checks.within(1, TAG_LENGTH, text)


def listed(value: object) -> object:
    """One tag given alone is a list of one."""
    return [value] if isinstance(value, str) else value


def tags(each: list[str]) -> list[str]:
    """The tags (each already checked), stripped, without blanks and repeats, in their order."""
    checks.encodable(each)
    return list(dict.fromkeys(text.strip() for text in each if text.strip()))


def checked(given: dict[str, Any], what: str) -> MemoryFields:
    """The fields given (a missing one takes its default), or CortexError naming every offending
    field as `what: field: message; ...`, in the words and order pydantic would use."""
    unknown = set(given) - set(MemoryFields._fields)
    if unknown:
        raise TypeError(f"not fields of a memory: {sorted(unknown)}")  # a caller's mistake, not a person's
    problems: list[str] = []
    values: dict[str, Any] = {}

    def apply(name: str, rule: Any, value: Any) -> Any:
        try:
            return rule(value)
        except ValueError as error:
            problems.append(f"{name}: {error}")
            return None

    if given.get("content") is None:
        problems.append("content: Field required")
    else:
        values["content"] = apply("content", content, given["content"])
    for name, rule in (("type", memory_type), ("summary", summary), ("priority", priority)):
        if given.get(name) is not None:
            values[name] = apply(name, rule, given[name])
    if given.get("tags") is not None:
        each: list[str] = listed(given["tags"])  # type: ignore[assignment]
        fine = [apply(f"tags.{index}", tag, text) is not None for index, text in enumerate(each)]
        if all(fine):
            values["tags"] = apply("tags", tags, each)
    if given.get("pinned") is not None:
        values["pinned"] = bool(given["pinned"])
    if problems:
        raise CortexError(f"{what}: {'; '.join(problems)}", USAGE)
    return MemoryFields(**values)
