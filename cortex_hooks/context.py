"""The text SessionStart injects: the review prompt, then the snapshot, within a budget (pure)."""

from __future__ import annotations

import sqlite3

from cortex_hooks import confidence

REVIEW_HEADER = (
    "cortex-hooks: {count} learned anti-pattern{s} lost confidence through disuse and "
    "{verb} review. Ask the user whether to keep or archive each:"
)


def review_entries(rows: list[sqlite3.Row]) -> list[str]:
    """One entry per learning awaiting review, with the exact commands that answer it."""
    return [
        f"- #{row['id']} {_line(row['anti_pattern'])} (confidence {confidence.show(row['confidence'])})"
        f" — keep: `cortex-hooks keep {row['id']}` · archive: `cortex-hooks archive {row['id']}`"
        for row in rows
    ]


def review_prompt(rows: list[sqlite3.Row], budget: int) -> str:
    """The review prompt, cut to `budget` characters with the rest counted, not silently lost."""
    if not rows:
        return ""
    one = len(rows) == 1
    header = REVIEW_HEADER.format(count=len(rows), s="" if one else "s", verb="awaits" if one else "await")
    return fit(header, review_entries(rows), budget, "cortex-hooks list --review")


def system_message(count: int) -> str:
    return (
        f"cortex-hooks: {count} learning{' awaits' if count == 1 else 's await'} review — keep or archive? "
        "(cortex-hooks list --review)"
    )


def fit(header: str, entries: list[str], budget: int, more: str) -> str:
    """The header and as many entries as fit in `budget`, then how many are left and where."""
    text = header
    for shown, entry in enumerate(entries):
        tail = f"\n- … {len(entries) - shown} more: `{more}`"
        if len(text) + 1 + len(entry) + len(tail) > budget:
            return text + tail if len(text) + len(tail) <= budget else text[:budget]
        text += "\n" + entry
    return text


def _line(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
