"""The recency-gradient snapshot of the project memory, pure: sections from values."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

from cortex_hooks import clock
from cortex_hooks.guard import review
from cortex_hooks.sanitize import line
from cortex_hooks.text_budget import Section, assemble

RECENT_DAYS = 7
RECENT_SESSIONS = 3
OLDER_SESSIONS = 7
RECENT_DECISIONS = 5
RECENT_LEARNINGS = 5


class Rows:
    """What the snapshot is made of, as loaded from the store (rows as mappings)."""

    def __init__(
        self,
        *,
        sessions: list[dict[str, object]],
        decisions: list[dict[str, object]],
        auto_block: list[dict[str, object]],
        auto_block_total: int,
        recent_learnings: list[dict[str, object]],
        recent_learnings_total: int,
        older_learnings: int,
        todos: list[dict[str, object]],
    ) -> None:
        self.sessions = sessions  # ended, latest first, at most 10
        self.decisions = decisions  # active and not superseded, latest first
        # learnings that block or ask, the most trusted first, as many as a budget
        # could show (the name is the older flag's: `auto_block` is action block)
        self.auto_block = auto_block
        self.auto_block_total = auto_block_total
        self.recent_learnings = recent_learnings  # warn only, changed in the last 7 days
        self.recent_learnings_total = recent_learnings_total
        self.older_learnings = older_learnings  # warn only, not changed in the last 7 days
        self.todos = todos  # open, high or medium priority, high first


def session_context(
    waiting: list[dict[str, object]],
    awaiting: int,
    rows: Rows | None,
    now: datetime,
    *,
    budget: int,
    cli: str = "cortex-hooks",
    proposals: Section | None = None,
    unclear: Section | None = None,
) -> str:
    """The review prompt (`waiting` rows of `awaiting`), then the snapshot (when enabled), within
    `budget` characters. Commands are written `cortex-hooks …`; when that name is not on the
    agent's PATH (`cli` is then the installed path), a last line says where it is."""
    parts = [review.section(waiting, awaiting)]
    if unclear is not None:  # learnings the agent keeps retrying, with the review
        parts.append(unclear)
    if proposals is not None:  # capture's proposals, right after the review
        parts.append(proposals)
    if rows is not None:
        snapshot = [section for section in sections(rows, now) if section.length()]
        if snapshot:
            snapshot[0].heading = f"Project memory (cortex-hooks):\n{snapshot[0].heading}"
        parts += snapshot
    tail = where(cli)
    text = assemble(parts, budget - len(tail))
    return text + tail if text else ""


def where(cli: str) -> str:
    """The last line of a session's context when `cortex-hooks` is not on the agent's PATH (`cli`
    is then the installed path); nothing when it is."""
    return f"\n\n(`cortex-hooks` is not on PATH here: run it as {cli})" if cli != "cortex-hooks" else ""


def sections(rows: Rows, now: datetime) -> list[Section]:
    """The snapshot's sections in display order, ranked for cutting (see text_budget.assemble)."""
    since = clock.iso(now - timedelta(days=RECENT_DAYS))
    recent_decisions = [row for row in rows.decisions if str(row["created_at"]) >= since]
    older_decisions = len(rows.decisions) - len(recent_decisions)
    recent_learnings = rows.recent_learnings[:RECENT_LEARNINGS]
    high = [todo for todo in rows.todos if todo["priority"] == "high"]
    medium = [todo for todo in rows.todos if todo["priority"] == "medium"]
    recent_sessions = rows.sessions[:RECENT_SESSIONS]
    older_sessions = rows.sessions[RECENT_SESSIONS : RECENT_SESSIONS + OLDER_SESSIONS]
    return [
        Section(
            "Calls cortex-hooks blocks (auto-block learnings"
            + ("; asks first: the user is asked before the call runs):" if _asks(rows) else "):"),
            [
                _rule("asks first" if row.get("action") == "ask" else "blocked", row)
                for row in rows.auto_block
            ],
            rank=1,
            more="cortex-hooks list",
            hidden=rows.auto_block_total - len(rows.auto_block),
        ),
        Section(
            f"Learnings recorded or updated in the last {RECENT_DAYS} days:",
            [_rule(None, row) for row in recent_learnings],
            rank=3,
            more="cortex-hooks list",
            hidden=rows.recent_learnings_total - len(recent_learnings),
        ),
        _count_only(rows.older_learnings, "learnings", "cortex-hooks list"),
        Section(
            "Open todos, high priority:",
            [_todo(row) for row in high],
            rank=2,
            more="cortex-hooks todos list",
        ),
        Section(
            "Open todos, medium priority:",
            [_todo(row) for row in medium],
            rank=5,
            more="cortex-hooks todos list",
        ),
        Section(
            f"Decisions of the last {RECENT_DAYS} days:",
            [_decision(row) for row in recent_decisions[:RECENT_DECISIONS]],
            rank=4,
            more="cortex-hooks decisions list",
            hidden=max(0, len(recent_decisions) - RECENT_DECISIONS),
        ),
        _count_only(older_decisions, "decisions", "cortex-hooks decisions list"),
        Section(
            "Recent sessions:",
            [_recent_session(row) for row in recent_sessions],
            rank=6,
            more="cortex-hooks sessions list",
        ),
        Section(
            "Earlier sessions:",
            [_older_session(row) for row in older_sessions],
            rank=7,
            more="cortex-hooks sessions list",
        ),
    ]


def _count_only(count: int, what: str, command: str) -> Section:
    """Older memories of a kind: only how many there are, and where to see them."""
    noun = what.removesuffix("s") if count == 1 else what
    entries = [f"- {count} older {noun}: `{command}`"] if count else []
    return Section(f"Older {what}:", entries, rank=8, more=command)


def _asks(rows: Rows) -> bool:
    return any(row.get("action") == "ask" for row in rows.auto_block)


def _rule(said: str | None, row: dict[str, object]) -> str:
    """A learning as a fact, not an order (Claude Code's advice for a hook's context: imperative
    text there can trip the model's defences against prompt injection)."""
    what = f"{said}: " if said else ""
    return (
        f"- {what}{line(str(row['anti_pattern']), 160)} — "
        f"the correct way: {line(str(row['correct_pattern']), 200)}"
    )


def _todo(row: dict[str, object]) -> str:
    return f"- #{row['id']} {line(str(row['text']), 200)}"


def _decision(row: dict[str, object]) -> str:
    category = f" [{line(str(row['category']), 40)}]" if row.get("category") else ""
    return f"- #{row['id']} {line(str(row['title']), 120)}{category}: {line(str(row['reasoning']), 100)}"


def _recent_session(row: dict[str, object]) -> str:
    changes = _changes(row.get("key_changes"))
    shown = ", ".join(f"{line(change['file'], 80)} ({line(change['action'], 40)})" for change in changes[:3])
    more = f" +{len(changes) - 3} more" if len(changes) > 3 else ""
    changed = f" — changed: {shown}{more}" if changes else ""
    return f"- {str(row['ended_at'])[:10]}: {line(str(row.get('summary') or '(no summary)'), 200)}{changed}"


def _older_session(row: dict[str, object]) -> str:
    return f"- {str(row['ended_at'])[:10]}: {line(str(row.get('summary') or '(no summary)'), 80)}"


def _changes(raw: object) -> list[dict[str, str]]:
    try:
        changes = json.loads(str(raw or "[]"))
    except ValueError:
        return []
    return [
        {"file": str(change.get("file")), "action": str(change.get("action"))}
        for change in changes
        if isinstance(change, dict)
    ]
