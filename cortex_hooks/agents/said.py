"""What a verdict comes to for an agent whose hooks can do less than Claude Code's, pure: the one
judge's Judgment (guard.judge) and what the agent can carry — an ask, a rewrite — give what is
said: deny, ask, rewrite or warn, with the text the model reads. An agent without ask gets a deny
whose reason says to ask the person; an agent without rewrite a deny with the corrected command
(guard.verdict_texts). Each adapter writes this in its own wire format, and nothing else."""

from __future__ import annotations

from cortex_hooks.guard import verdict_texts as texts

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from cortex_hooks.guard.judge import Judgment


class Said:
    """`decision`: deny, ask, rewrite, warn or None (allow: nothing to say); `reason` (a deny's or
    an ask's), `context` (what the model is told besides: the warnings, what was corrected),
    `updated_input` (a rewrite's whole tool input, in the agent's own fields)."""

    __slots__ = ("context", "decision", "reason", "updated_input")

    def __init__(
        self,
        decision: str | None,
        reason: str | None = None,
        context: str | None = None,
        updated_input: dict[str, Any] | None = None,
    ) -> None:
        self.decision = decision
        self.reason = reason
        self.context = context
        self.updated_input = updated_input


def said(judged: Judgment, *, ask: bool, rewrite: bool) -> Said:
    """What is said of this verdict to an agent that can (or cannot) ask and rewrite."""
    if judged.answer == "deny":
        return Said("deny", judged.reason or texts.BLOCKED, judged.context)
    if judged.answer == "ask":
        reason = judged.reason or texts.ASK_HEADER
        if ask:
            return Said("ask", reason, judged.context)
        return Said("deny", texts.asked_without_asking(reason), judged.context)
    if judged.answer == "rewrite" and judged.updated_input is not None:
        if rewrite:
            return Said("rewrite", None, judged.context, judged.updated_input)
        return Said("deny", texts.corrected_as_deny(judged.corrected or "", judged.context))
    if judged.answer in ("warn", "rewrite") and judged.context:
        return Said("warn", None, judged.context)
    return Said(None)


def joined(reason: str, context: str | None) -> str:
    """A reason with the other matches' warning after it, for an agent that shows the model a
    deny's reason and nothing else (within the room a verdict's texts share)."""
    if not context:
        return reason
    return f"{reason}\n{context}"[: texts.TEXT_LIMIT]
