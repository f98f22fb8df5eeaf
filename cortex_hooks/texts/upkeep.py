"""The texts of pruning, the access statistics and the sessions list."""

from __future__ import annotations

from typing import Any

from cortex_hooks.api.upkeep import LABELS
from cortex_hooks.texts.words import clean, count

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cortex_hooks.guard.kind_records import Session


def pruned(counts: dict[str, int], *, dry_run: bool) -> str:
    verb = "Would archive" if dry_run else "Archived"
    return f"{verb} " + ", ".join(count(n, kind) for kind, n in counts.items()) + "."


def most_accessed(top: dict[str, Any]) -> str:
    blocks = []
    for kind in LABELS:
        rows = top[kind]
        lines = [f"Most accessed {kind}:"] + [
            f"  #{row['id']:<5} {row['access_count']:>5} x  {clean(row[LABELS[kind]], one_line=True)[:80]}"
            for row in rows
        ]
        blocks.append("\n".join(lines if rows else [*lines, "  (none yet)"]))
    blocks.append(_history(top["history"]))
    return "\n\n".join(blocks)


def _history(window: dict[str, Any]) -> str:
    """The window of the history in a few lines."""
    guard, memory = window["learnings"], window["memories"]
    lines = [
        f"Last {window['days']} days (since {window['since']}): {guard['matches']} matches, "
        f"{_answered(guard)}; memories {memory['added']} added, "
        f"{memory['recalled']} recalled, {memory['archived']} archived, {memory['pruned']} pruned."
    ]
    if window["built_in"]["denies"]:
        denied = window["built_in"]["denies"]
        lines.append(f"The built-in protection denied {denied} calls that would weaken the guard.")
    if window["retried"]:  # SPEC §23: what the agent tried again after a deny, ask or rewrite
        lines.append("Learnings the agent retried after a catch:")
    for row in window["retried"]:
        last = row["last_retried"]
        example = ""
        if last is not None:
            example = f"; last: `{clean(last['call'], one_line=True)[:60]}`"
            if last["retried_with"]:
                example += f" then `{clean(last['retried_with'], one_line=True)[:60]}`"
        lines.append(
            f"  #{row['id']:<5} retried {row['retried']}, followed {row['followed']}{example}  "
            f"{clean(row['anti_pattern'], one_line=True)[:60]}"
        )
    if window["most_matched"]:
        lines.append("Most matched learnings:")
    for row in window["most_matched"]:
        lines.append(
            f"  #{row['id']:<5} {row['matches']:>5} x  ({_answered(row)})  "
            f"{clean(row['anti_pattern'], one_line=True)[:60]}"
        )
    return "\n".join(lines)


def _answered(counts: Any) -> str:
    """`3 denied, 5 warned`, with the asks and rewrites (SPEC §16) where there are some, and what
    the agent did after them (SPEC §23) where it is known."""
    asked = f", {counts['asks']} asked" if counts["asks"] else ""
    rewritten = f", {counts['rewrites']} rewritten" if counts["rewrites"] else ""
    return f"{counts['denies']} denied{asked}{rewritten}, {counts['warnings']} warned{_next(counts)}"


def _next(counts: Any) -> str:
    """`; then followed 2, retried 1`: what the agent did after the catches (the person's answers
    where there were some); nothing when no catch's outcome is known."""
    if not (counts["followed"] or counts["retried"] or counts["asked"]):
        return ""
    answered = f", the person answered {counts['asked']}" if counts["asked"] else ""
    return f"; then followed {counts['followed']}, retried {counts['retried']}{answered}"


def sessions(listed: list[Session]) -> str:
    if not listed:
        return "No sessions."
    shown = []
    for session in listed:
        changes = ", ".join(f"{change.file} ({change.action})" for change in session.key_changes)
        shown.append(
            clean(
                f"{session.id}  {session.source or '-'}  {session.started_at or '?'} → "
                f"{session.ended_at or 'open'}  {session.reason or ''}\n"
                f"    {session.summary or '(no summary)'}" + (f"\n    changed: {changes}" if changes else "")
            )
        )
    return "\n".join(shown)
