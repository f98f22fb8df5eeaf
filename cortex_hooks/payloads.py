"""pydantic models of the SessionStart and SessionEnd payloads.

Frozen, and blind to unknown fields: Claude Code adds fields release by release. (PreToolUse
reads its few fields with the standard library: see hooks.pre_tool_use; what the hooks print is
in cortex_hooks.protocol.)
"""

from __future__ import annotations

from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, field_validator

from cortex_hooks.errors import FAILURE
from cortex_hooks.validation import validated


# defer_build: a hook process builds only the models it uses (SessionEnd never builds the
# SessionStart ones); building a model's validator costs about as much as the hook's own work.
class _Payload(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore", defer_build=True)

    session_id: str
    transcript_path: str | None = None
    cwd: str | None = None

    @field_validator("session_id")
    @classmethod
    def _named(cls, session_id: str) -> str:
        # A validator rather than Field(min_length=1): Field imports pydantic.types, ~10 ms more.
        if not session_id:
            raise ValueError("must not be empty")
        return session_id


class SessionStartPayload(_Payload):
    hook_event_name: Literal["SessionStart"] = "SessionStart"
    source: str = "startup"  # startup | resume | clear | compact | fork, and whatever comes next


class SessionEndPayload(_Payload):
    hook_event_name: Literal["SessionEnd"] = "SessionEnd"
    reason: str = "other"


Model = TypeVar("Model", bound=_Payload)


def parse(model: type[Model], payload: dict[str, Any]) -> Model:
    """The payload validated, or CortexError naming every field that is wrong."""
    parsed: Model = validated(model, payload, "invalid payload", FAILURE)
    return parsed
