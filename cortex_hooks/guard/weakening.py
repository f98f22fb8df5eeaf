"""Whether a change to a learning lowers the protection it gives (docs/guide/selfguard.md), pure.

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

from cortex_hooks import confidence
from cortex_hooks.errors import USAGE, CortexError
from cortex_hooks.frozen import Record
from cortex_hooks.guard import actions

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class Weakens(CortexError):
    """A change that would lower the guard's protection, refused where the agent asked for it:
    `what` is changed, `reasons` say what it would lower."""

    def __init__(self, what: str, reasons: list[str]) -> None:
        super().__init__(f"refused: {what} would weaken the guard ({'; '.join(reasons)})", USAGE)
        self.what = what
        self.reasons = reasons


class Protection(Record):
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


SEVERITIES = ("low", "medium", "high", "critical")  # weakest first


def lowered_in_words(before: dict[str, object], after: dict[str, object] | None, gate: int) -> list[str]:
    """What a learning lost between two stored states of its protective columns (store.keeper:
    the keeper's copy, and the database as another program left it), in words; empty: nothing.
    A confidence counts only where it crossed the gate (`gate`, hundredths) from above: the copy
    may hold a lower one than boosts since have given, which is no weakening."""
    if after is None:
        return ["it was removed"]
    reasons = []
    if before["archived_at"] is None and after["archived_at"] is not None:
        reasons.append("it was archived")
    if not before["muted"] and after["muted"]:
        reasons.append("it was muted")
    if before["action"] != after["action"] and (
        after["action"] not in actions.ACTIONS or actions.weakens(str(before["action"]), str(after["action"]))
    ):
        reasons.append(f"its action went down from {before['action']} to {after['action']}")
    if before["rewrite"] != after["rewrite"]:
        reasons.append("its rewrite changed (what runs instead of the agent's command)")
    if before["regex"] is not None and any(after[key] != before[key] for key in ("regex", "tool", "target")):
        reasons.append("what it matches was rewritten (its regex, tool or target)")
    if any(after[key] != before[key] for key in ("anti_pattern", "correct_pattern")):
        reasons.append("its words were changed (what the model reads: NEVER and DO)")
    if before["severity"] != after["severity"] and (
        after["severity"] not in SEVERITIES
        or SEVERITIES.index(str(after["severity"])) < SEVERITIES.index(str(before["severity"]))
    ):
        reasons.append(f"its severity went down from {before['severity']} to {after['severity']}")
    if before["pinned"] and not after["pinned"]:
        reasons.append("it was unpinned (it decays again)")
    kept, now = before["confidence"], after["confidence"]
    if isinstance(kept, int) and kept > gate and not (type(now) is int and now > gate):
        reasons.append(
            f"its confidence fell from {confidence.show(kept)} to {now}, where it no longer blocks"
        )
    return reasons


def config_lowered(before: Any, after: Any) -> list[str]:
    """What a change of the configuration (cortex_hooks.config.Config) lowers of the guard, in
    words (empty: nothing): a higher block gate or decay, a lower boost, start, ceiling or floor,
    a shorter regex timeout, pruning sooner."""
    old, new = before.policy, after.policy
    reasons = []
    for name, higher_weakens in (
        ("block_gate", True),
        ("decay", True),
        ("boost", False),
        ("start", False),
        ("ceiling", False),
        ("floor", False),
    ):
        was, now = getattr(old, name), getattr(new, name)
        if (now > was) if higher_weakens else (now < was):
            reasons.append(f"{name} went from {confidence.show(was)} to {confidence.show(now)}")
    if after.regex_timeout < before.regex_timeout:
        reasons.append(f"regex_timeout went down from {before.regex_timeout} to {after.regex_timeout}")
    for name in ("prune_unused_days", "prune_rarely_used_days"):
        if after.prune and getattr(after, name) < getattr(before, name):
            reasons.append(f"{name} went down (learnings are archived sooner)")
    if after.prune and not before.prune:
        reasons.append("pruning was turned on")
    return reasons


OUR_SCRIPTS = ("cortex-pre-tool-use", "cortex-session-start", "cortex-session-end")
# what, written into an agent's settings or hook file, can switch its hooks off (Claude Code's own
# settings are judged by install.wiring: disableAllHooks, our plugin disabled)
HOOK_SWITCHES = ("disableAllHooks", "hooksConfig", "allowManagedHooksOnly", "[hooks", "hooks =", "hooks=")


def hooks_dropped(before: str | None, after: str | None) -> list[str]:
    """What an agent's settings or hook file (its own format: Codex's, Gemini's, Copilot's,
    Cursor's) loses of our hooks between two texts, in words: our hooks' commands dropped, or a
    switch that could turn hooks off written into a file that holds ours. Empty: nothing; a file
    that held none of ours loses nothing."""
    held = sum(before.count(script) for script in OUR_SCRIPTS) if before else 0
    if not held or before is None:
        return []
    if after is None:
        return ["its cortex-hooks hooks would be removed"]
    lost = []
    if sum(after.count(script) for script in OUR_SCRIPTS) < held:
        lost.append("its cortex-hooks hooks would be removed")
    added = [switch for switch in HOOK_SWITCHES if after.count(switch) > before.count(switch)]
    if added:
        lost.append(f"it would write {added[0]!r}, which can switch hooks off")
    return lost
