"""The text of a lifecycle pass: each change, then the counts (and where pruned memories went)."""

from __future__ import annotations

from cortex_hooks.texts.words import clean
from cortex_hooks.upkeep import pruned_file

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cortex_hooks.api.databases import Databases
    from cortex_hooks.upkeep.lifecycle import Report


def report(done: Report, databases: Databases, *, dry_run: bool) -> str:
    lines = [
        f"#{change['id']} {change['field']}: {_shown(change['before'])} -> {_shown(change['after'])}"
        for change in done.changes
    ]
    counts = done.counts()
    verb = "Would change" if dry_run else "Changed"
    kept = f" (pruned memories kept in {clean(pruned_file.path(databases.path))})" if counts["pruned"] else ""
    lines.append(
        f"{verb} {databases.scope} memories: {counts['decayed']} decayed, {counts['archived']} archived, "
        f"{counts['pruned']} pruned{kept}."
    )
    return "\n".join(lines)


def _shown(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.2f}"
    return "-" if value is None else str(value)
