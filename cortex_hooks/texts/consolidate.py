"""The texts of consolidation: what merged (dry: would merge), what was restored, how to undo it."""

from __future__ import annotations

import shlex

from cortex_hooks.store.checkpoint import KEPT
from cortex_hooks.texts.words import clean, count, memories

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cortex_hooks.api.consolidate import Outcome, Restored


def undo(checkpoint: str, scope: str, *, db: str | None = None, global_db: str | None = None) -> str:
    """The restore command as the user would type it for this database (the options they gave)."""
    words = ["cortex-hooks", "consolidate", "--restore", checkpoint]
    for option, value in (("--db", db), ("--global-db", global_db)):
        if value:
            words += [option, value]
    command = " ".join(shlex.quote(word) for word in words)
    return f"{command} --global" if scope == "global" else command


def outcome(result: Outcome, *, dry_run: bool, undo: str | None) -> str:
    if not result.ran:
        return (
            "No consolidation trigger is met (10 extractions since the last one, or more than "
            "500 active memories): nothing done."
        )
    lines = [f"Trigger: {result.trigger}."] if result.trigger else []
    if not result.merges:
        return "\n".join(
            [*lines, "Nothing to consolidate: no active memories are flagged as nearly the same."]
        )
    groups = count(len(result.merges), "groups")
    if dry_run:
        lines.append(
            f"Would merge {groups} ({memories(result.superseded)} superseded); dry run, nothing written:"
        )
    else:
        lines.append(f"Checkpoint: {clean(result.checkpoint)}")
        lines.append(f"Merged {groups} ({memories(result.superseded)} superseded):")
    similarity = {(row["first_id"], row["second_id"]): row["similarity"] for row in result.flagged}
    for merge in result.merges:
        members = sorted((merge.survivor, *merge.superseded))
        closest = max(
            value for (first, second), value in similarity.items() if first in members and second in members
        )
        tags = ", ".join(merge.tags) or "none"
        lines.append(
            f"  #{merge.survivor} kept (tags: {clean(tags, one_line=True)}"
            f"{', pinned' if merge.pinned else ''}; similarity up to {closest:.2f}): "
            f"{_summary(result, merge.survivor)}"
        )
        lines.extend(f"    #{other} superseded: {_summary(result, other)}" for other in merge.superseded)
    lines.extend(removed(result.removed))
    if undo:
        lines.append(f"Undo: {undo}")
    return "\n".join(lines)


def restored(result: Restored, *, dry_run: bool, undo: str | None) -> str:
    if dry_run:
        return (
            f"Would restore {clean(result.restored)} (schema version {result.schema_version}) into "
            f"{clean(result.database)}; dry run, nothing written."
        )
    return "\n".join(
        [
            f"Restored {clean(result.restored)} into {clean(result.database)}.",
            f"Checkpoint of the state before the restore: {clean(result.checkpoint)}",
            *removed(result.removed),
            f"Undo: {undo}",
        ]
    )


def removed(paths: list[str]) -> list[str]:
    return [f"Removed the old checkpoint {clean(path)} (the last {KEPT} are kept)." for path in paths]


def _summary(result: Outcome, memory_id: int) -> str:
    return clean(result.summaries.get(memory_id, ""), one_line=True)[:80]
