"""pydantic models of the SessionStart and SessionEnd payloads and of the JSON hooks print.

Inbound models are frozen and ignore unknown fields: Claude Code adds fields release by release.
Outbound models use snake_case names in Python and Claude Code's camelCase on the wire.
(PreToolUse reads and writes its few fields with the standard library: see hooks.pre_tool_use.)
"""

from __future__ import annotations

from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, field_validator
from pydantic.alias_generators import to_camel

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


class _Wire(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, frozen=True, defer_build=True)


class SessionStartContext(_Wire):
    hook_event_name: Literal["SessionStart"] = "SessionStart"
    additional_context: str


class SessionStartOutput(_Wire):
    system_message: str | None = None
    hook_specific_output: SessionStartContext | None = None

    def wire(self) -> dict[str, Any]:
        return self.model_dump(by_alias=True, exclude_none=True)


Model = TypeVar("Model", bound=_Payload)


def parse(model: type[Model], payload: dict[str, Any]) -> Model:
    """The payload validated, or CortexError naming every field that is wrong."""
    parsed: Model = validated(model, payload, "invalid payload", FAILURE)
    return parsed
