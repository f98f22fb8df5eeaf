"""SQL for sessions: starts, ends (at most once each) and their summaries."""

from __future__ import annotations

import json
import sqlite3

from cortex_hooks import stored

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cortex_hooks.stored.kind_rows import Session

DAY_OF_USE = "day of use"  # the reason of an agent's day's decay (hooks.day_of_use), kept as a session


def record_start(connection: sqlite3.Connection, session_id: str, source: str, now: str) -> bool:
    """Record a session's start; False when the session was known already (resume, clear …)."""
    cursor = connection.execute(
        """INSERT INTO session (id, source, started_at) VALUES (:id, :source, :now)
           ON CONFLICT (id) DO NOTHING""",
        {"id": session_id, "source": source, "now": now},
    )
    return cursor.rowcount == 1


def has_ended(connection: sqlite3.Connection, session_id: str) -> bool:
    row = connection.execute("SELECT ended_at FROM session WHERE id = :id", {"id": session_id}).fetchone()
    return row is not None and row[0] is not None


def record_end(connection: sqlite3.Connection, session_id: str, *, reason: str, now: str) -> None:
    """Mark a session ended (creating it when its start was never seen); no summary yet."""
    connection.execute(
        """INSERT INTO session (id, ended_at, reason) VALUES (:id, :now, :reason)
           ON CONFLICT (id) DO UPDATE SET ended_at = :now, reason = :reason,
               summary = NULL, key_changes = '[]'""",
        {"id": session_id, "now": now, "reason": reason},
    )


def record_summary(
    connection: sqlite3.Connection, session_id: str, *, summary: str | None, key_changes: list[dict[str, str]]
) -> None:
    """The summary of an ended session, read from its transcript after the end was recorded."""
    connection.execute(
        "UPDATE session SET summary = :summary, key_changes = :changes WHERE id = :id",
        {"id": session_id, "summary": summary, "changes": json.dumps(key_changes, ensure_ascii=False)},
    )


def select(connection: sqlite3.Connection) -> list[Session]:
    """Every session, the latest first."""
    from cortex_hooks.stored.kind_rows import Session  # the listing: never a hook's (store.pending's) path

    return stored.made(
        Session,
        connection.execute(
            f"""SELECT {stored.columns(Session)} FROM session
                ORDER BY coalesce(ended_at, started_at) DESC, rowid DESC"""
        ),
    )
