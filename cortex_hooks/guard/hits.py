"""A learning that matched a tool call, as the verdict judges it (guard.verdict)."""

from __future__ import annotations

from cortex_hooks import confidence
from cortex_hooks.guard import actions

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cortex_hooks.guard.rewrite import Correction
    from cortex_hooks.stored import Learning


class Hit:
    """A learning that matched this tool call, as it was before the match's boost; with a
    rewrite, the correction it makes of this call (guard.rewrite), applied or not; where it comes
    from (`source`: pack, team, project or global); what it answers by itself (guard.judge)."""

    __slots__ = (
        "action",
        "answer",
        "anti_pattern",
        "before",
        "correct_pattern",
        "correction",
        "id",
        "policy",
        "rewrite",
        "scope",
        "severity",
        "slug",
        "source",
        "team",
    )

    def __init__(
        self,
        *,
        id: int,
        anti_pattern: str,
        correct_pattern: str,
        severity: str,
        before: int,
        action: str | None = None,
        auto_block: bool = False,
        rewrite: str | None = None,
        correction: Correction | None = None,
        scope: str = "project",
        policy: confidence.Policy = confidence.DEFAULT,
    ) -> None:
        self.id = id
        self.anti_pattern = anti_pattern
        self.correct_pattern = correct_pattern
        self.severity = severity
        self.action = action if action is not None else actions.of_auto_block(auto_block)
        self.rewrite = rewrite
        self.correction = correction
        self.before = before
        self.scope = scope  # where the learning lives: named in the texts when it is global
        self.policy = policy  # the confidence model of its scope's configuration
        self.team: str | None = None  # the team file's id of a team learning (named in the texts)
        self.slug: str | None = None  # a pack learning's stable id (named in the texts)
        self.source = scope  # pack, team, project or global (docs/internals/judge.md)
        self.answer = "warn"  # what this match does by itself, once judged (guard.judge.answer)

    @property
    def auto_block(self) -> bool:
        return self.action == "block"

    @classmethod
    def of(
        cls,
        row: Learning,
        before: int | None = None,
        *,
        scope: str = "project",
        policy: confidence.Policy = confidence.DEFAULT,
        correction: Correction | None = None,
    ) -> Hit:
        """The hit of a stored learning row, at its confidence before the boost: as stored, or
        `before` (with the writes still pending, see store.pending)."""
        hit = cls(
            id=row.id,
            anti_pattern=row.anti_pattern,
            correct_pattern=row.correct_pattern,
            severity=row.severity,
            action=row.action,
            rewrite=row.rewrite,
            correction=correction,
            before=row.confidence if before is None else before,
            scope=scope,
            policy=policy,
        )
        if row.pack is not None:
            hit.source = "team" if row.pack == "team" else "pack"
            if hit.source == "pack":
                hit.slug = row.slug
        return hit
