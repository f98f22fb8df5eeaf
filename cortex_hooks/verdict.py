"""The PreToolUse decision, pure: which matches deny, which warn, and the texts the agent reads."""

from __future__ import annotations

from cortex_hooks import confidence

TEXT_LIMIT = 9500  # Claude Code turns longer hook output into a file reference (SPEC §4.4)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class Hit:
    """A learning that matched this tool call, as it was before the match's boost."""

    __slots__ = ("anti_pattern", "auto_block", "before", "correct_pattern", "id", "severity")

    def __init__(
        self,
        *,
        id: int,
        anti_pattern: str,
        correct_pattern: str,
        severity: str,
        auto_block: bool,
        before: int,
    ) -> None:
        self.id = id
        self.anti_pattern = anti_pattern
        self.correct_pattern = correct_pattern
        self.severity = severity
        self.auto_block = auto_block
        self.before = before


def decide(hits: list[Hit], policy: confidence.Policy = confidence.DEFAULT) -> dict[str, Any] | None:
    """The hook output for these matches: a deny when a trusted auto-block learning matched,
    the other matches as one warning in the agent's context; None when nothing matched."""
    if not hits:
        return None
    blocking = [hit for hit in hits if hit.auto_block and confidence.blocks(hit.before, policy)]
    warning = [hit for hit in hits if hit not in blocking]
    output: dict[str, Any] = {"hookEventName": "PreToolUse"}
    room = TEXT_LIMIT
    if blocking:
        reason = _fit(
            "cortex-hooks blocked this tool call: it matches a learned anti-pattern. "
            "Do it the correct way instead.",
            [_entry(hit, "NEVER", policy) for hit in blocking],
            room if not warning else TEXT_LIMIT * 2 // 3,
        )
        output["permissionDecision"] = "deny"
        output["permissionDecisionReason"] = reason
        room -= len(reason)
    if warning:
        output["additionalContext"] = _fit(
            "cortex-hooks: this tool call matches learned anti-patterns (not blocked). "
            "Check it against the correct pattern:",
            [_entry(hit, "AVOID", policy) for hit in warning],
            room,
        )
    return {"hookSpecificOutput": output}


def _entry(hit: Hit, verb: str, policy: confidence.Policy) -> str:
    after = confidence.boosted(hit.before, policy)
    note = ""
    if hit.auto_block and not confidence.blocks(hit.before, policy):
        note = "; auto-block, trusted again from the next match" if confidence.blocks(after, policy) else ""
    return (
        f"- learning #{hit.id} ({hit.severity}, confidence "
        f"{confidence.show(hit.before)} -> {confidence.show(after)}{note})\n"
        f"  {verb}: {hit.anti_pattern}\n"
        f"  DO: {hit.correct_pattern}"
    )


def _fit(header: str, entries: list[str], limit: int) -> str:
    """The header and as many entries as fit in `limit` characters, then how many were left out."""
    text = header
    for shown, entry in enumerate(entries):
        rest = len(entries) - shown
        tail = f"\n… and {rest} more: run `cortex-hooks list` to see them all"
        if len(text) + 1 + len(entry) + len(tail) > limit:
            room = limit - len(text) - len(tail) - 2
            if shown == 0 and room > 80:  # one huge learning: show its start rather than nothing
                return f"{text}\n{entry[:room]}…{tail}"
            return text[: limit - len(tail)] + tail
        text += "\n" + entry
    return text
