"""The MCP tools' arguments as pydantic models: they check types and give tools/list its schemas.

Only the types are checked here; every rule on values (a regex that compiles, a confidence in
range, a known id) is the library's own (cortex_hooks.api), which the CLI calls too: the two
front doors cannot disagree.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, model_validator

from cortex_hooks.guard.learning_records import GivenAction as Action
from cortex_hooks.guard.learning_records import GivenSeverity as Severity
from cortex_hooks.guard.learning_records import GivenTarget as Target
from cortex_hooks.memory import given
from cortex_hooks.memory.vocabulary import MemoryType

Kind = Literal["memory", "learning", "decision", "error", "todo"]


def _not_a_boolean(value: object) -> object:
    """JSON's true is no number: pydantic would take it for 1 (a limit of one, a priority of one)."""
    if isinstance(value, bool):
        raise ValueError("must be a number, not true or false")
    return value


Whole = Annotated[int, BeforeValidator(_not_a_boolean)]
Number = Annotated[float, BeforeValidator(_not_a_boolean)]

GLOBAL = Field(False, alias="global", description="act on the user-global database instead of the project's")


class _Arguments(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class _LearningFields(_Arguments):
    regex: str | None = Field(None, description="detection regex (required, unless no_regex)")
    tool: str | None = Field(None, description="Claude Code tool matcher, e.g. Bash (default * = every tool)")
    target: Target | None = Field(None, description="what the regex is matched against (default content)")
    severity: Severity | None = Field(None, description="default medium")
    action: Action | None = Field(
        None, description="what a trusted match does: block, ask (the user decides) or warn (the default)"
    )
    confidence: Number | None = Field(None, description="0.30 to 0.90, at most two decimals (default 0.70)")
    context: str | None = Field(None, description="why, where it came from")
    global_: bool = GLOBAL


class AddLearning(_LearningFields):
    anti_pattern: str = Field(description="what not to do")
    correct_pattern: str = Field(description="what to do instead (the text of a deny)")
    auto_block: bool = Field(False, description="deny matching calls once trusted, instead of warning")
    pinned: bool = Field(False, description="exempt from decay and pruning")
    no_regex: bool = Field(False, description="no regex: a reminder that never matches")


class UpdateLearning(_LearningFields):
    id: Whole = Field(description="the learning's id")
    anti_pattern: str | None = None
    correct_pattern: str | None = None
    auto_block: bool | None = Field(None, description="true: deny once trusted; false: only warn")
    pinned: Literal[True] | None = Field(None, description="true pins it (unpin: cortex-hooks unpin ID)")


class ListLearnings(_Arguments):
    archived: bool = Field(False, description="archived learnings only")
    all: bool = Field(False, description="active and archived")
    review: bool = Field(False, description="only those awaiting review (keep or archive?)")
    global_: bool = GLOBAL


class RunPruning(_Arguments):
    dry_run: bool = Field(False, description="say what would be archived, change nothing")


class Recall(_Arguments):
    query: str = Field(description="the words to look for")
    limit: Whole | None = Field(None, description="at most this many results (default 10)")
    type: MemoryType | None = Field(None, description="memories of this type only")
    kind: Kind | None = Field(None, description="one kind only")
    scope: Literal["both", "project", "global"] = Field("both", description="which databases to search")


class Remember(_Arguments):
    content: str = Field(description="the knowledge to keep")
    type: MemoryType | None = Field(None, description=f"default {given.DEFAULT_TYPE}")
    summary: str | None = Field(None, description="default: the first line of the content")
    priority: Whole | None = Field(
        None, description=f"{given.PRIORITIES[0]} to {given.PRIORITIES[1]} (default {given.DEFAULT_PRIORITY})"
    )
    tags: list[str] | None = None
    pinned: bool = Field(False, description="keep it at the top, never decayed")
    global_: bool = GLOBAL


class Forget(_Arguments):
    id: Whole | None = Field(None, description="the memory's id (give id or match)")
    match: str | None = Field(None, description="archive the memory that best matches these words")
    global_: bool = GLOBAL


class IndexCode(_Arguments):
    path: str = Field(description="the file, relative to the project or absolute")
    prose: str = Field(description="what the file does, in words")
    global_: bool = GLOBAL


class Consolidate(_Arguments):
    dry_run: bool = Field(False, description="say what would merge, write nothing (no checkpoint)")
    global_: bool = GLOBAL


class Reflect(_Arguments):
    action: Literal["decay", "similar"] = Field(
        description="decay (memories not accessed lately lose confidence) or similar (near-duplicates)"
    )
    days: Whole | None = Field(None, description="decay: not accessed for this many days (default 30)")
    threshold: Number | None = Field(None, description="similar: the least similarity (default 0.85)")
    limit: Whole | None = Field(None, description="similar: at most this many pairs (default 20)")
    dry_run: bool = Field(False, description="decay: say what would change, change nothing")
    global_: bool = Field(
        False,
        alias="global",
        description="decay: the user-global database; similar: compare across both scopes",
    )

    @model_validator(mode="after")
    def _for_the_action(self) -> Reflect:
        given: dict[str, object] = {"days": self.days, "dry_run": self.dry_run or None}
        if self.action == "decay":
            given = {"threshold": self.threshold, "limit": self.limit}
        wrong = [name for name, value in given.items() if value is not None]
        if wrong and not (self.action == "similar" and wrong == ["dry_run"]):  # similar never writes
            raise ValueError(f"{', '.join(wrong)} does not apply to action {self.action}")
        return self


class NoArguments(_Arguments):
    pass


MODELS: dict[str, type[_Arguments]] = {
    "cortex_add_learning": AddLearning,
    "cortex_update_learning": UpdateLearning,
    "cortex_list_learnings": ListLearnings,
    "cortex_run_pruning": RunPruning,
    "cortex_recall": Recall,
    "cortex_remember": Remember,
    "cortex_forget": Forget,
    "cortex_index_code": IndexCode,
    "cortex_consolidate": Consolidate,
    "cortex_reflect": Reflect,
    "cortex_snapshot": NoArguments,
    "cortex_get_access_stats": NoArguments,
}


def schema(name: str) -> dict[str, Any]:
    """The JSON schema of a tool's arguments, as tools/list sends it (built when the client first
    lists the tools): an optional
    argument is shown as its type alone, not as "that type or null"."""
    generated = MODELS[name].model_json_schema(by_alias=True)
    generated.pop("title", None)
    for name_, field in generated.get("properties", {}).items():
        field.pop("title", None)
        choices = field.get("anyOf", [])
        if field.get("default", 0) is None and len(choices) == 2 and {"type": "null"} in choices:
            del field["anyOf"], field["default"]
            generated["properties"][name_] = {**next(c for c in choices if c != {"type": "null"}), **field}
    return generated
