"""The review prompt, pure: learnings whose confidence sank to the threshold, put to the user."""

from __future__ import annotations

from cortex_hooks import confidence, sanitize
from cortex_hooks.text_budget import Section


def section(rows: list[dict[str, object]], total: int) -> Section:
    """Learnings awaiting review (`rows` of `total`), each with the exact commands that answer it."""
    one = total == 1
    heading = (
        f"cortex-hooks: {total} learned anti-pattern{'' if one else 's'} lost confidence "
        f"through disuse and {'awaits' if one else 'await'} the user's review (keep or archive):"
    )
    entries = []
    for row in rows:
        scope = " --global" if row.get("scope") == "global" else ""
        where = " (global)" if scope else ""
        action = row.get("action")
        acts = f", action {action}" if action in ("block", "ask") else ""
        entries.append(
            f"- #{row['id']}{where} {sanitize.line(str(row['anti_pattern']), 160)} "
            f"(confidence {confidence.show(int(str(row['confidence'])))}{acts})"
            f" — keep: `cortex-hooks keep {row['id']}{scope}`"
            f" · archive: `cortex-hooks archive {row['id']}{scope}`"
        )
    return Section(heading, entries, rank=0, more="cortex-hooks list --review", hidden=total - len(rows))


def system_message(count: int) -> str:
    """The one line that tells the user too."""
    verb = "learning awaits" if count == 1 else "learnings await"
    return f"cortex-hooks: {count} {verb} review — keep or archive? (cortex-hooks list --review)"
