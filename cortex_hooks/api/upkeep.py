"""Upkeep and overview of Part I's kinds: Ebbinghaus pruning of learnings, decisions and errors,
the most accessed of each, the text SessionStart injects, and the sessions seen."""

from __future__ import annotations

from contextlib import ExitStack, closing
from typing import Any

from cortex_hooks import clock, location
from cortex_hooks.api import databases as db
from cortex_hooks.api import startup
from cortex_hooks.api.databases import Databases
from cortex_hooks.api.wording import clean, count
from cortex_hooks.errors import CortexError
from cortex_hooks.frozen import Record
from cortex_hooks.guard.weakening import Weakens
from cortex_hooks.notes import Notes
from cortex_hooks.store import kinds, sessions
from cortex_hooks.store.connection import Transaction
from cortex_hooks.store.scopes import close

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cortex_hooks.guard.kind_records import Session

LABELS = {"learnings": "anti_pattern", "decisions": "title", "errors": "message"}  # what names a row


def prune(
    databases: Databases, notes: Notes, *, dry_run: bool = False, may_weaken: bool = True
) -> dict[str, int]:
    """Ebbinghaus pruning of learnings, decisions and errors: those never used and old
    are archived (never deleted); how many of each kind were (dry: would be). Unless it
    `may_weaken` (the person's command; SessionStart's own pruning), a pruning that would archive
    a learning is refused (guard.weakening.Weakens) and nothing is archived."""
    connection = db.for_reading(databases)
    if connection is None:
        return dict.fromkeys(kinds.PRUNED_KINDS, 0)
    with closing(connection), Transaction(connection, keep=not dry_run):
        config, now = db.config(databases, notes), clock.now()
        if not may_weaken and not dry_run:
            learnings = startup.prune(connection, config, now, dry_run=True)["learnings"]
            if learnings:
                raise Weakens(
                    "this pruning", [f"it would archive {learnings} learning{'' if learnings == 1 else 's'}"]
                )
        return startup.prune(connection, config, now, dry_run=dry_run)


def most_accessed(databases: Databases, days: int = 7) -> dict[str, Any]:
    """The ten most accessed learnings, decisions and errors, with their access counts, and the
    history of the last `days` days (key `history`: matches, denies, warnings, memory events)."""
    from cortex_hooks.report import numbers

    top: dict[str, Any] = {kind: [] for kind in LABELS}
    now = clock.now()
    top["history"] = numbers.empty(now, days)
    connection = db.for_reading(databases)
    if connection is None:
        return top
    with closing(connection):
        top["history"] = numbers.window(connection, now, days)
        for kind, label in LABELS.items():
            top[kind] = [
                {"id": row_id, label: text, "access_count": count, "last_accessed": last}
                for row_id, text, count, last in kinds.most_accessed(connection, kind)
            ]
    return top


class Snapshot(Record):
    text: str
    awaiting_review: int


def snapshot(databases: Databases, notes: Notes) -> Snapshot:
    """Exactly the text SessionStart would inject now: pruning included, then rolled back."""
    text, awaiting = "", 0
    scopes, skipped = db.both(databases)
    with ExitStack() as previews:
        previews.callback(close, scopes)
        now = clock.now()
        for scope in scopes:
            previews.enter_context(Transaction(scope.connection, keep=False))  # rolled back: a preview
            config = location.config_for(scope.path, notes)
            if config.prune:
                startup.prune(scope.connection, config, now, dry_run=False)
        if scopes:
            proposals = startup.pending_proposals(scopes)
            text, awaiting = startup.session_text(scopes, now, proposals, location.project_root())
        if skipped and not text:  # as the hook: a skipped scope beside nothing to say is a failure
            raise CortexError("; ".join(skipped))
        notes.extend(skipped)  # as SessionStart names them
    return Snapshot(text, awaiting)


def session_list(databases: Databases) -> list[Session]:
    """Every session the hooks saw, the latest first."""
    from cortex_hooks.guard.kind_records import Session

    connection = db.for_reading(databases)
    if connection is None:
        return []
    with closing(connection):
        return [Session.from_row(row) for row in sessions.select(connection)]


# What people read of it, from the CLI and the MCP server alike. The texts of pruning, the access
# statistics and the sessions list.


def pruned(counts: dict[str, int], *, dry_run: bool) -> str:
    verb = "Would archive" if dry_run else "Archived"
    return f"{verb} " + ", ".join(count(n, kind) for kind, n in counts.items()) + "."


def accessed(top: dict[str, Any]) -> str:
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
    if window["retried"]:  # docs/guide/outcomes.md: what the agent tried again after a deny, ask or rewrite
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
    """`3 denied, 5 warned`, with the asks and rewrites (docs/guide/actions.md) where there are some, and what
    the agent did after them (docs/guide/outcomes.md) where it is known."""
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


def session_lines(listed: list[Session]) -> str:
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
