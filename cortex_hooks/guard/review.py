"""The review prompt, pure: learnings whose confidence sank to the threshold, put to the user; and
learnings the agent keeps retrying rather than following (docs/guide/outcomes.md), their correct way perhaps
unclear."""

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


def unclear(rows: list[dict[str, object]], total: int) -> Section:
    """Learnings the agent retried more often than it followed since they were last changed
    (`rows` of `total`): each with its correct way, its last retried call and the command that
    rewords it."""
    one = total == 1
    heading = (
        f"cortex-hooks: the agent keeps retrying {total} learned anti-pattern{'' if one else 's'} "
        "instead of doing it the correct way: is the correct way unclear? Ask the user whether to "
        "reword it (the command below), and do it the correct way yourself:"
    )
    entries = []
    for row in rows:
        scope = " --global" if row.get("scope") == "global" else ""
        where = " (global)" if scope else ""
        last = ""
        if row.get("retried_call"):
            last = f"; last retried: `{sanitize.line(str(row['retried_call']), 160)}`"
            if row.get("retried_with"):
                last += f" then `{sanitize.line(str(row['retried_with']), 160)}`"
        entries.append(
            f"- #{row['id']}{where} {sanitize.line(str(row['anti_pattern']), 160)} "
            f"— DO: {sanitize.line(str(row['correct_pattern']), 200)} "
            f"(retried {row['retried']}, followed {row['followed']}{last})"
            f" — reword: `cortex-hooks update {row['id']}{scope} --correct '…'`"
        )
    return Section(heading, entries, rank=0, more="cortex-hooks list", hidden=total - len(rows))


def unclear_message(count: int) -> str:
    """The one line that tells the user too."""
    verb = "learning the agent keeps retrying" if count == 1 else "learnings the agent keeps retrying"
    return f"cortex-hooks: {count} {verb} — reword its correct way? (cortex-hooks list)"
