"""SQL for the snapshot's rows (docs/guide/lifecycle.md), in a few small queries."""

from __future__ import annotations

import sqlite3

from cortex_hooks.guard.memory_snapshot import OLDER_SESSIONS, RECENT_LEARNINGS, RECENT_SESSIONS, Rows
from cortex_hooks.store import sessions

Listed = list[dict[str, object]]
AUTO_BLOCK_SHOWN = 500  # more than any snapshot budget can show (an entry is 20 characters or more)


def _rows(connection: sqlite3.Connection, sql: str, **parameters: object) -> Listed:
    return [dict(row) for row in connection.execute(sql, parameters).fetchall()]


def rows(connection: sqlite3.Connection, since: str) -> Rows:
    """The rows of the snapshot; `since` starts the recent window (ISO-8601, like the stored times)."""
    recent_learnings = _rows(
        connection,
        """SELECT id, anti_pattern, correct_pattern FROM learning
           WHERE archived_at IS NULL AND action = 'warn' AND updated_at >= :since  -- created: updated
           ORDER BY updated_at DESC, id DESC LIMIT :limit""",
        since=since,
        limit=RECENT_LEARNINGS,
    )
    recent, others = connection.execute(
        """SELECT count(*) FILTER (WHERE updated_at >= :since), count(*) FROM learning
           WHERE archived_at IS NULL AND action = 'warn'""",
        {"since": since},
    ).fetchone()
    return Rows(
        sessions=_rows(
            connection,
            """SELECT id, ended_at, summary, key_changes FROM session WHERE ended_at IS NOT NULL
               AND reason IS NOT :day_of_use
               ORDER BY ended_at DESC, rowid DESC LIMIT :limit""",
            limit=RECENT_SESSIONS + OLDER_SESSIONS,
            day_of_use=sessions.DAY_OF_USE,  # an agent's day's decay is no session worth showing
        ),
        decisions=_rows(
            connection,
            """SELECT id, title, reasoning, category, created_at FROM decision
               WHERE archived_at IS NULL AND superseded_by IS NULL
               ORDER BY created_at DESC, id DESC""",
        ),
        auto_block=_rows(
            connection,
            """SELECT l.id, l.anti_pattern, l.correct_pattern, l.action FROM learning AS l
                   LEFT JOIN learning_confidence AS c ON c.learning_id = l.id
               WHERE l.archived_at IS NULL AND l.action != 'warn' AND l.slug IS NULL
               ORDER BY c.confidence DESC NULLS LAST, l.id LIMIT :limit""",
            limit=AUTO_BLOCK_SHOWN,
        ),
        auto_block_total=connection.execute(
            # a pack's learnings are not listed: a deny explains itself, and 14 rules every session
            # would take half the budget (docs/internals/choices.md: packs)
            "SELECT count(*) FROM learning WHERE archived_at IS NULL AND action != 'warn' AND slug IS NULL"
        ).fetchone()[0],
        recent_learnings=recent_learnings,
        recent_learnings_total=recent,
        older_learnings=others - recent,
        todos=_rows(
            connection,
            """SELECT id, text, priority FROM todo
               WHERE archived_at IS NULL AND done = 0 AND priority IN ('high', 'medium')
               ORDER BY priority = 'high' DESC, id""",
        ),
    )
