"""The PreToolUse decision, pure: which matches deny, which warn, and the texts the agent reads."""

from __future__ import annotations

from cortex_hooks import confidence, sanitize

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3

TEXT_LIMIT = 9499  # under 9,500 (SPEC §4.4): Claude Code turns longer output into a file reference


class Hit:
    """A learning that matched this tool call, as it was before the match's boost."""

    __slots__ = (
        "anti_pattern",
        "auto_block",
        "before",
        "correct_pattern",
        "id",
        "policy",
        "scope",
        "severity",
    )

    def __init__(
        self,
        *,
        id: int,
        anti_pattern: str,
        correct_pattern: str,
        severity: str,
        auto_block: bool,
        before: int,
        scope: str = "project",
        policy: confidence.Policy = confidence.DEFAULT,
    ) -> None:
        self.id = id
        self.anti_pattern = anti_pattern
        self.correct_pattern = correct_pattern
        self.severity = severity
        self.auto_block = auto_block
        self.before = before
        self.scope = scope  # where the learning lives: named in the texts when it is global
        self.policy = policy  # the confidence model of its scope's configuration

    @classmethod
    def of(
        cls,
        row: sqlite3.Row,
        before: int | None = None,
        *,
        scope: str = "project",
        policy: confidence.Policy = confidence.DEFAULT,
    ) -> Hit:
        """The hit of a stored learning row, at its confidence before the boost: as stored, or
        `before` (with the writes still pending, see store.pending)."""
        return cls(
            id=row["id"],
            anti_pattern=row["anti_pattern"],
            correct_pattern=row["correct_pattern"],
            severity=row["severity"],
            auto_block=bool(row["auto_block"]),
            before=row["confidence"] if before is None else before,
            scope=scope,
            policy=policy,
        )


DENY_HEADER = (
    "cortex-hooks blocked this tool call: it matches a learned anti-pattern. Do it the correct way instead."
)
WARN_HEADER = (
    "cortex-hooks: this tool call matches learned anti-patterns (not blocked). "
    "Check it against the correct pattern:"
)


class Verdict:
    """What the agent is told: a deny with its reason, a warning, or both."""

    __slots__ = ("blocking", "deny_reason", "warning")

    def __init__(self, blocking: list[Hit], deny_reason: str | None, warning: str | None) -> None:
        self.blocking = blocking
        self.deny_reason = deny_reason
        self.warning = warning

    @property
    def decision(self) -> str:
        return "deny" if self.deny_reason is not None else "warn"


def blocks(hit: Hit) -> bool:
    """Whether this match denies the call: a trusted auto-block learning, judged on its confidence
    before the match's boost. Each hit is judged alone, so the history can record a deny or a
    warning in the very transaction that boosts, before the verdict is put together."""
    return hit.auto_block and confidence.blocks(hit.before, hit.policy)


def decide(hits: list[Hit], policy: confidence.Policy | None = None) -> Verdict | None:
    """The verdict on these matches: a deny when a trusted auto-block learning matched, the
    other matches as one warning in the agent's context; None when nothing matched. Each hit
    is judged by its own scope's policy unless `policy` is given."""
    if not hits:
        return None
    if policy is not None:
        for hit in hits:
            hit.policy = policy
    blocking = [hit for hit in hits if blocks(hit)]
    warning = [hit for hit in hits if hit not in blocking]
    reason = None
    room = TEXT_LIMIT
    if blocking:
        limit = TEXT_LIMIT * 2 // 3 if warning else TEXT_LIMIT
        reason = _text(DENY_HEADER, blocking, "NEVER", limit)
        room -= len(reason)
    context = _text(WARN_HEADER, warning, "AVOID", room) if warning else None
    return Verdict(blocking, reason, context)


def _text(header: str, hits: list[Hit], verb: str, limit: int) -> str:
    """The header and an entry per learning, within `limit` characters and naming every one:
    long texts are shortened to share the room, and learnings beyond room are named by id."""
    share = (limit - len(header)) // len(hits) - 1
    text = header
    for shown, hit in enumerate(hits):
        entry = _entry(hit, verb, share)
        if len(text) + 1 + len(entry) + len(_more(hits[shown + 1 :])) > limit:
            return (text + _more(hits[shown:]))[:limit]
        text += "\n" + entry
    return text


def _entry(hit: Hit, verb: str, room: int) -> str:
    """One learning in at most `room` characters (its first line at least)."""
    policy = hit.policy
    after = confidence.boosted(hit.before, policy)
    soon = hit.auto_block and not confidence.blocks(hit.before, policy) and confidence.blocks(after, policy)
    scope = "global, " if hit.scope == "global" else ""
    head = (
        f"- learning #{hit.id} ({scope}{sanitize.line(hit.severity)}, confidence "
        f"{confidence.show(hit.before)} -> {confidence.show(after)}"
        f"{'; auto-block: blocks from its next match' if soon else ''})"
    )
    labels = f"\n  {verb}: " + "\n  DO: "
    body = room - len(head) - len(labels)
    if body < 20:
        return head
    anti_pattern, correct_pattern = sanitize.line(hit.anti_pattern), sanitize.line(hit.correct_pattern)
    anti = _cut(anti_pattern, max(body // 2, body - len(correct_pattern)))
    correct = _cut(correct_pattern, body - len(anti))
    return f"{head}\n  {verb}: {anti}\n  DO: {correct}"


def _cut(text: str, room: int) -> str:
    return text if len(text) <= room else text[: max(room - 1, 0)] + "…"


def _more(rest: list[Hit]) -> str:
    if not rest:
        return ""
    ids = ", ".join(f"#{hit.id}" + (" (global)" if hit.scope == "global" else "") for hit in rest)
    show = "`cortex-hooks show ID`" + (", `--global` for a global one" if "(global)" in ids else "")
    return f"\n… and {len(rest)} more: learnings {ids} ({show})"
