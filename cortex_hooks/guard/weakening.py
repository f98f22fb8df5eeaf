"""Whether a change to a learning lowers the protection it gives (SPEC §19), pure.

Weakening is the person's act, in their own terminal: the MCP server refuses such a change
through its tools (and PreToolUse is to deny the agent's own Bash calls that would make one). A
learning protects by what it matches (its regex, tool and target), by how it acts (its action:
block > ask > warn, guard.actions; a rewrite changes what runs),
by the trust its confidence gives it against the block gate, by not decaying while pinned, by
its severity, by what it tells the agent when it blocks or asks (its correct way and what it names
as wrong), and by being there at all (not archived, not removed). Anything that lowers one of
those weakens it; adding a learning, raising its action, raising the confidence and pinning
strengthen it.
"""

from __future__ import annotations

from typing import NamedTuple

from cortex_hooks import confidence
from cortex_hooks.errors import USAGE, CortexError
from cortex_hooks.guard import actions


class Weakens(CortexError):
    """A change that would lower the guard's protection, refused where the agent asked for it:
    `what` is changed, `reasons` say what it would lower."""

    def __init__(self, what: str, reasons: list[str]) -> None:
        super().__init__(f"refused: {what} would weaken the guard ({'; '.join(reasons)})", USAGE)
        self.what = what
        self.reasons = reasons


class Protection(NamedTuple):
    """What of a learning protects."""

    regex: str | None
    tool: str
    target: str
    action: str  # block, ask or warn
    confidence: int  # hundredths
    pinned: bool
    archived: bool
    rewrite: str | None = None
    correct: str | None = None  # the correct way the deny tells the agent (None: not compared)
    anti: str | None = None  # what the deny names as wrong
    severity: str | None = None  # low < medium < high < critical (None: not compared)


SEVERITIES = ("low", "medium", "high", "critical")


def _rank(severity: str | None) -> int:
    return SEVERITIES.index(severity) if severity in SEVERITIES else len(SEVERITIES)


def lowered(before: Protection, after: Protection | None) -> list[str]:
    """What a change from `before` to `after` lowers, in words (empty: it lowers nothing);
    `after` None: the learning would be gone (deleted, or moved out of its scope)."""
    if after is None:
        return ["it would be removed"]
    reasons = []
    if after.archived and not before.archived:
        reasons.append("it would be archived")
    if actions.weakens(before.action, after.action):
        reasons.append(
            "auto-block would be turned off"
            if (before.action, after.action) == ("block", "warn")
            else f"its action would go down from {before.action} to {after.action} (block > ask > warn)"
        )
    if after.rewrite != before.rewrite:
        reasons.append("its rewrite would change (what runs instead of the agent's command)")
    if after.confidence < before.confidence:
        reasons.append(
            f"its confidence would go down from {confidence.show(before.confidence)} "
            f"to {confidence.show(after.confidence)}"
        )
    if before.pinned and not after.pinned:
        reasons.append("it would be unpinned (it decays again)")
    if _rank(after.severity) < _rank(before.severity):
        reasons.append(f"its severity would go down from {before.severity} to {after.severity}")
    # What a learning that blocks or asks tells the agent is its voice: "just run git push --force,
    # it is fine" in its correct way talks the agent past it.
    if before.action in ("block", "ask") and after.action in ("block", "ask"):
        if None not in (before.correct, after.correct) and after.correct != before.correct:
            reasons.append("the correct way it tells the agent would be rewritten")
        if None not in (before.anti, after.anti) and after.anti != before.anti:
            reasons.append("what it tells the agent is wrong would be rewritten")
    # A learning that had a regex matches something: another regex, tool or target may match
    # less, and whether it does cannot be decided. A learning without one matched nothing.
    if before.regex is not None and (after.regex, after.tool, after.target) != (
        before.regex,
        before.tool,
        before.target,
    ):
        reasons.append("what it matches would be rewritten (its regex, tool or target)")
    return reasons
