"""What the hooks print for Claude Code: its wire format, in one place, with the standard library.

Python names are snake_case, the wire's are Claude Code's camelCase; fields without a value are
left out. (No pydantic here: PreToolUse prints a decision without paying for it.)
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from cortex_hooks.guard.judge import Judgment


def _camel(name: str) -> str:
    first, *rest = name.split("_")
    return first + "".join(part.capitalize() for part in rest)


def _wire(**fields: Any) -> dict[str, Any]:
    return {_camel(name): value for name, value in fields.items() if value is not None}


def pre_tool_use(judged: Judgment) -> dict[str, Any]:
    """A deny or an ask with its reason, a rewrite's whole corrected tool_input, and the warning
    (or what was corrected) as the agent's context.

    A rewrite sends `updatedInput` without a permission decision: Claude Code 2.1.197 runs the
    corrected input through its normal permission flow (verified with the real client; an
    `allow` would also skip the prompt the person may have wanted)."""
    decision = judged.answer if judged.answer in ("deny", "ask") else None
    return _wire(
        hook_specific_output=_wire(
            hook_event_name="PreToolUse",
            permission_decision=decision,
            permission_decision_reason=judged.reason if decision else None,
            updated_input=judged.updated_input,
            additional_context=judged.context,
        )
    )


def session_start(additional_context: str, system_message: str | None) -> dict[str, Any]:
    """The context injected into the session, and a line for the user."""
    return _wire(
        system_message=system_message,
        hook_specific_output=_wire(hook_event_name="SessionStart", additional_context=additional_context),
    )


TOLD = (
    "cortex-hooks put back a change to its guard that it did not make (the agent may not weaken "
    "its own guard; the person was told):"
)


def told(event: str, output: dict[str, Any] | None, said: list[str]) -> dict[str, Any]:
    """A hook's output with what the keeper put back (docs/internals/integrity.md) told: to the person in the
    systemMessage, to the model at the head of the context; the rest of the answer as it was."""
    from cortex_hooks import sanitize

    lines = [sanitize.line(line, 600) for line in said[:10]]
    message = "cortex-hooks: " + " | ".join(lines)
    answer = dict(output or {})
    if answer.get("systemMessage"):
        message = f"{answer['systemMessage']} | {message}"
    answer["systemMessage"] = message[:2000]
    specific = dict(answer.get("hookSpecificOutput") or {"hookEventName": event})
    context = "\n".join([TOLD, *(f"- {line}" for line in lines)])
    if specific.get("additionalContext"):
        context = f"{context}\n\n{specific['additionalContext']}"
    specific["additionalContext"] = context[:9499]
    answer["hookSpecificOutput"] = specific
    return answer
