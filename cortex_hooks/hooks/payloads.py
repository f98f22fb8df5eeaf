"""The SessionStart and SessionEnd payloads, checked with the standard library.

Read-only, and blind to unknown fields: Claude Code adds fields release by release. No pydantic:
its import and a model's first build cost these hooks about ten times a bare interpreter, more
than all their own work, for five fields. (PreToolUse reads its own few fields the same way: see
hooks.pre_tool_use; what the hooks print is in cortex_hooks.judging.protocol.)
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, TypeVar

from cortex_hooks.errors import FAILURE, CortexError


class _Payload:
    """The fields both session hooks read. `EVENT` is the hook_event_name a payload may carry;
    `FIELD` the one field of its own, with the value it takes when absent."""

    EVENT = ""
    FIELD = ("", "")
    __slots__ = ("agent", "cwd", "session_id", "transcript_path")

    def __init__(self, payload: dict[str, Any], agent: ModuleType | None = None) -> None:
        self.agent = agent  # the adapter of the agent that sent it (cortex_hooks.agents); None: Claude Code
        problems: list[str] = []
        self.session_id = _text(payload, "session_id", problems, required=True) or ""
        self.transcript_path = _text(payload, "transcript_path", problems)
        self.cwd = _text(payload, "cwd", problems)
        event = payload.get("hook_event_name", self.EVENT)
        if event != self.EVENT:
            problems.append(f"hook_event_name: must be {self.EVENT!r}, got {event!r}")
        name, default = self.FIELD
        setattr(self, name, _text(payload, name, problems) or default)
        if problems:
            raise CortexError("invalid payload: " + "; ".join(problems), FAILURE)


class SessionStartPayload(_Payload):
    EVENT = "SessionStart"
    FIELD = ("source", "startup")  # startup | resume | clear | compact | fork, and whatever comes next
    __slots__ = ("source",)
    source: str


class SessionEndPayload(_Payload):
    EVENT = "SessionEnd"
    FIELD = ("reason", "other")
    __slots__ = ("reason",)
    reason: str


def _text(payload: dict[str, Any], name: str, problems: list[str], *, required: bool = False) -> str | None:
    """A string field (None when absent or null), or a problem named; never coerced."""
    value = payload.get(name)
    if value is None:
        if required:
            problems.append(f"{name}: required" if name not in payload else f"{name}: must be a string")
        return None
    if not isinstance(value, str):
        problems.append(f"{name}: must be a string, got {type(value).__name__}")
        return None
    if required and not value:
        problems.append(f"{name}: must not be empty")
    return value


Model = TypeVar("Model", bound=_Payload)


def parse(model: type[Model], payload: dict[str, Any], agent: ModuleType | None = None) -> Model:
    """The payload checked, or CortexError naming every field that is wrong; another agent's
    payload read into Claude Code's fields by its adapter first."""
    if agent is not None and agent.NAME != "claude":
        return model(agent.session(payload, model.EVENT), agent)
    return model(payload, agent)
