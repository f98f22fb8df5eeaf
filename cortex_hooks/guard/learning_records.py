"""pydantic models of what crosses the CLI boundary: learnings given, shown, exported, imported."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal, get_args

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from cortex_hooks import confidence
from cortex_hooks.checks import encodable
from cortex_hooks.errors import CortexError
from cortex_hooks.fields import Instant, Text
from cortex_hooks.guard import actions, examples, matching, shared_rules, unmatchable
from cortex_hooks.guard.shared_rules import checked_rewrite

if TYPE_CHECKING:
    from cortex_hooks import stored

Severity = Literal["low", "medium", "high", "critical"]
Target = Literal["content", "path", "input", "raw"]
Action = Literal["block", "ask", "warn"]  # guard.actions.ACTIONS


def one_of(what: str, choices: tuple[str, ...]) -> BeforeValidator:
    """A closed set given by a person or the agent, refused in our words (pydantic would say
    "Input should be 'low', 'medium', …"); the field's type keeps the set for JSON schemas."""

    def check(value: object) -> object:
        if isinstance(value, str) and value not in choices:
            *first, last = choices
            raise ValueError(f"{value!r} is not a {what}: {', '.join(first)} or {last}")
        return value

    return BeforeValidator(check)


GivenSeverity = Annotated[Severity, one_of("severity", get_args(Severity))]
GivenTarget = Annotated[Target, one_of("target", get_args(Target))]
GivenAction = Annotated[Action, one_of("action", get_args(Action))]
START_RANGE = (30, 90)  # what a user may set, whatever the configured floor/ceiling


def _settable(value: object) -> int:
    """A user's confidence (0.75, "0.75") as hundredths within [0.30, 0.90], two decimals at most."""
    hundredths = confidence.of_value(value)
    low, high = START_RANGE
    if not low <= hundredths <= high:
        raise ValueError(f"must lie in [{confidence.show(low)}, {confidence.show(high)}], got {value}")
    return hundredths


SettableConfidence = Annotated[int, BeforeValidator(_settable)]


class LearningFields(BaseModel):
    """What a user gives for a learning (add, update, import): validated before anything is written."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    anti_pattern: Text
    correct_pattern: Text
    regex: str | None = None
    tool: str = "*"
    target: GivenTarget = "content"
    severity: GivenSeverity = "medium"
    action: GivenAction = "warn"
    # the older flag, an alias: true is action block, false is warn (never stored, never dumped)
    auto_block: bool | None = Field(None, exclude=True)
    rewrite: str | None = None  # a Bash learning's correction of its match (docs/guide/actions.md)
    pinned: bool = False
    confidence: SettableConfidence = confidence.DEFAULT.start
    context: str | None = None
    # the calls it must catch and let through, proved by doctor through the judge
    examples: dict[str, list[str]] | None = None

    _encodable = field_validator("*")(encodable)

    @field_validator("examples", mode="before")
    @classmethod
    def _examples(cls, value: object) -> object:
        return shared_rules.examples(value)

    @field_validator("context")
    @classmethod
    def _context(cls, context: str | None) -> str | None:
        return context or None  # `--context ''` removes it

    @field_validator("regex")
    @classmethod
    def _compiles(cls, pattern: str | None, info: ValidationInfo) -> str | None:
        if pattern is None:
            return None
        if not pattern:  # taken for "no regex" it would quietly disarm an auto-block learning
            raise ValueError("must not be empty (no regex: update ID --no-regex, or null in a file)")
        try:
            matching.compile_pattern(pattern)
        except CortexError as error:
            raise ValueError(error.message) from None
        wrong = None if _kept(info, "regex") else unmatchable.nested_quantifiers(pattern)
        if wrong is not None:
            raise ValueError(wrong)
        return pattern

    @field_validator("tool")
    @classmethod
    def _matcher(cls, matcher: str, info: ValidationInfo) -> str:
        try:
            matching.check_tool_matcher(matcher)
        except CortexError as error:
            raise ValueError(error.message) from None
        wrong = None if _kept(info, "tool") else unmatchable.tool_case(matcher)
        if wrong is not None:
            raise ValueError(wrong)
        return matcher

    @field_validator("rewrite")
    @classmethod
    def _rewrite(cls, template: str | None, info: ValidationInfo) -> str | None:
        return checked_rewrite(template, info.data)

    @model_validator(mode="after")
    def _alias(self) -> LearningFields:
        """`auto_block` alone sets the action; given with `action`, the two must agree."""
        if self.auto_block is None:
            return self
        if "action" not in self.model_fields_set:
            object.__setattr__(self, "action", actions.of_auto_block(self.auto_block))
        elif self.auto_block != (self.action == "block"):
            raise ValueError(
                f"auto_block {str(self.auto_block).lower()} disagrees with action {self.action!r}"
                " (auto_block true is action block)"
            )
        return self


def _kept(info: ValidationInfo, field: str) -> bool:
    """Whether the field is one an update keeps as it was stored: the rules on a learning that
    could never do its work apply to what is given, never to an old learning's other fields."""
    context = info.context or {}
    return field in context.get("kept", ())


class RetriedCall(BaseModel):
    """The call a learning was last retried with: as the history keeps it, redacted."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    at: str  # when it was caught
    tool: str
    call: str  # the caught call
    retried_with: str | None  # the call that tried the anti-pattern again (or another rule caught)


class Outcomes(BaseModel):
    """What the agent did after a learning's catches (its denies, asks and rewrites: docs/guide/outcomes.md):
    followed, retried, asked (the person answered), unknown (not known, or from before they were
    worked out), and the latest retried call."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    caught: int = 0
    followed: int = 0
    retried: int = 0
    asked: int = 0
    unknown: int = 0
    last_retried: RetriedCall | None = None


class ImportedLearning(LearningFields):
    """A learning in an import file: what export prints, with ids, counters and times optional
    (and what `list --json` adds: its outcomes, history that an import does not bring)."""

    id: int | None = None
    slug: str | None = None  # a pack learning's (guard.packs.shipped); None for the user's own
    pack: str | None = None
    muted: bool = False
    access_count: int = Field(default=0, ge=0)
    last_accessed: Instant | None = None
    created_at: Instant | None = None
    updated_at: Instant | None = None
    archived_at: Instant | None = None
    outcomes: Outcomes | None = Field(None, exclude=True)


class Learning(BaseModel):
    """A stored learning as `--json` and export print it."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    id: int
    anti_pattern: str
    correct_pattern: str
    regex: str | None
    tool: str
    target: Target
    severity: Severity
    action: Action
    auto_block: bool  # action == "block": kept for whatever reads the older flag
    rewrite: str | None = None
    pinned: bool
    confidence: float
    access_count: int
    last_accessed: str | None
    created_at: str
    updated_at: str
    archived_at: str | None
    context: str | None
    slug: str | None = None  # a pack learning's stable id (`core.git:reset-hard`)
    pack: str | None = None  # the pack it came from
    muted: bool = False  # muted in this scope: it never matches
    examples: dict[str, list[str]] | None = None  # the calls it must catch and let through
    outcomes: Outcomes | None = None  # list and show: what the agent did after its catches

    @classmethod
    def from_row(cls, row: stored.Learning) -> Learning:
        values = row._asdict()
        values["examples"] = examples.loaded(row.examples)
        values["confidence"] = confidence.as_number(values["confidence"])
        return cls.model_validate(values)
