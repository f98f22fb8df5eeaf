"""SQL for the team file (docs/guide/team.md): what was read of it (stat, digest, problems, trust) and each of
its ids with the row that holds it (a learning of pack `team`, or a memory)."""

from __future__ import annotations

import json
import sqlite3

from cortex_hooks import stored
from cortex_hooks.location import ABSENT
from cortex_hooks.store.team_stat import stat
from cortex_hooks.stored.team_rows import TeamEntry, TeamFile, TeamListing

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from cortex_hooks.guard.precedence import Entry

__all__ = ["ABSENT", "stat"]  # and the functions below; PreToolUse reads `stat` only (store.team_stat)


def state(connection: sqlite3.Connection) -> TeamFile | None:
    found = stored.made(
        TeamFile, connection.execute(f"SELECT {stored.columns(TeamFile)} FROM team_file WHERE id = 1")
    )
    return found[0] if found else None


def trusted(connection: sqlite3.Connection) -> bool:
    """Whether the file as read is the one `team trust` accepted."""
    row = state(connection)
    return row is not None and row.digest is not None and row.digest == row.trusted


def record_read(
    connection: sqlite3.Connection, file_stat: str, digest: str | None, problems: list[str], now: str
) -> None:
    connection.execute(
        """INSERT INTO team_file (id, stat, digest, problems, read_at)
           VALUES (1, :stat, :digest, :problems, :now)
           ON CONFLICT (id) DO UPDATE SET stat = excluded.stat, digest = excluded.digest,
               problems = excluded.problems, read_at = excluded.read_at""",
        {"stat": file_stat, "digest": digest, "problems": json.dumps(problems), "now": now},
    )


def record_trust(connection: sqlite3.Connection, digest: str | None) -> None:
    connection.execute("UPDATE team_file SET trusted = :digest WHERE id = 1", {"digest": digest})


def entries(connection: sqlite3.Connection) -> dict[str, TeamEntry]:
    """Every id the file has held, by id."""
    rows = connection.execute(f"SELECT {stored.columns(TeamEntry)} FROM team_entry ORDER BY id")
    return {entry.id: entry for entry in stored.made(TeamEntry, rows)}


def put_entry(connection: sqlite3.Connection, values: Mapping[str, object]) -> None:
    connection.execute(
        """INSERT INTO team_entry (id, kind, row_id, line, action, rewrite)
           VALUES (:id, :kind, :row_id, :line, :action, :rewrite)
           ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, row_id = excluded.row_id,
               line = excluded.line, action = excluded.action, rewrite = excluded.rewrite""",
        values,
    )


def set_gone(connection: sqlite3.Connection, entry_id: str) -> None:
    connection.execute("UPDATE team_entry SET line = NULL WHERE id = :id", {"id": entry_id})


def add_learning(connection: sqlite3.Connection, values: Mapping[str, object]) -> int:
    from cortex_hooks.store import learnings

    return learnings.insert(connection, values)


def change_learning(connection: sqlite3.Connection, learning_id: int, changes: Mapping[str, object]) -> None:
    from cortex_hooks.store import learnings

    learnings.update(connection, learning_id, changes)


def add_memory(connection: sqlite3.Connection, values: Mapping[str, object]) -> int:
    from cortex_hooks.store import memories

    return memories.insert(connection, values)


def change_memory(connection: sqlite3.Connection, memory_id: int, changes: Mapping[str, object]) -> None:
    from cortex_hooks.store import memories

    memories.update(connection, memory_id, changes)


def archive(connection: sqlite3.Connection, kind: str, row_id: int, now: str) -> None:
    """A row whose line left the file: archived, its state kept for the line's return."""
    from cortex_hooks.store import learnings, memories

    if kind == "learning":
        learnings.update(connection, row_id, {"archived_at": now, "updated_at": now})
    else:
        memories.update(connection, row_id, {"status": "archived", "archived_at": now, "updated_at": now})


def put_in_force(connection: sqlite3.Connection, trusted: bool) -> None:
    """Every active team learning acts as `guard.team_rules.in_force` says: as declared once trusted,
    else a warning without its rewrite (rows whose action or rewrite changes only: the guard file
    follows them)."""
    connection.execute(
        """UPDATE learning SET action = v.action, rewrite = v.rewrite
           FROM (SELECT row_id, CASE WHEN :trusted THEN coalesce(action, 'warn') ELSE 'warn' END AS action,
                        CASE WHEN :trusted THEN rewrite END AS rewrite
                 FROM team_entry WHERE kind = 'learning' AND line IS NOT NULL) AS v
           WHERE learning.id = v.row_id
               AND (learning.action IS NOT v.action OR learning.rewrite IS NOT v.rewrite)""",
        {"trusted": int(trusted)},
    )


_STATE = {
    "in_force": "l.action",
    "rewrite_in_force": "l.rewrite",
    "muted": "l.muted",
    "regex": "l.regex",
    "learning_hits": "l.access_count",
    "confidence": "c.confidence",
    "memory_hits": "m.access_count",
}


def listed(connection: sqlite3.Connection) -> list[TeamListing]:
    """The entries in the file now, with their rows' state (learnings: confidence, hits, muted)."""
    rows = connection.execute(
        f"""SELECT {stored.columns(TeamListing, "e", **_STATE)}
           FROM team_entry AS e
               LEFT JOIN learning AS l ON e.kind = 'learning' AND l.id = e.row_id
               LEFT JOIN learning_confidence AS c ON e.kind = 'learning' AND c.learning_id = e.row_id
               LEFT JOIN memory AS m ON e.kind = 'memory' AND m.id = e.row_id
           WHERE e.line IS NOT NULL ORDER BY e.id"""
    )
    return stored.made(TeamListing, rows)


def set_muted(connection: sqlite3.Connection, entry_id: str, muted: bool, now: str) -> bool:
    """Mute (or unmute) one team learning for this person; False when the file holds no such one."""
    cursor = connection.execute(
        """UPDATE learning SET muted = :muted, updated_at = :now
           WHERE id = (SELECT row_id FROM team_entry WHERE id = :id AND kind = 'learning'
                       AND line IS NOT NULL)""",
        {"muted": int(muted), "now": now, "id": entry_id},
    )
    return cursor.rowcount == 1


_PLACE = """CASE WHEN l.pack IS 'team' THEN e.id ELSE l.slug END AS key,
            CASE WHEN l.pack IS 'team' THEN 'team' ELSE :scope END AS place"""


def keys_of(connection: sqlite3.Connection, ids: list[int], scope: str) -> dict[int, tuple[str, str | None]]:
    """Each matched learning's place (project, team or global) and shared id (a slug, a team id)."""
    rows = connection.execute(
        f"""SELECT l.id, {_PLACE} FROM learning AS l
               LEFT JOIN team_entry AS e ON e.kind = 'learning' AND e.row_id = l.id
           WHERE l.id IN (SELECT value FROM json_each(:ids))""",
        {"ids": json.dumps(ids), "scope": scope},
    )
    return {int(row["id"]): (str(row["place"]), row["key"]) for row in rows}


def holding(connection: sqlite3.Connection, keys: list[str], scope: str) -> list[tuple[str, Entry]]:
    """The active, unmuted learnings of this database holding one of these shared ids: each id
    with its entry here."""
    from cortex_hooks.guard.precedence import Entry

    rows = connection.execute(
        f"""SELECT {_PLACE}, l.action, l.regex, l.tool, l.target
           FROM learning AS l LEFT JOIN team_entry AS e ON e.kind = 'learning' AND e.row_id = l.id
           WHERE l.archived_at IS NULL AND NOT l.muted
               AND (l.slug IN (SELECT value FROM json_each(:keys))
                    OR (l.pack IS 'team' AND e.line IS NOT NULL
                        AND e.id IN (SELECT value FROM json_each(:keys))))""",
        {"keys": json.dumps(keys), "scope": scope},
    )
    return [(key, Entry(*entry)) for key, *entry in rows]


def rows_of(connection: sqlite3.Connection, kind: str) -> set[int]:
    """Every row of one kind that came from the team file (the file, not an export, carries them)."""
    rows = connection.execute("SELECT row_id FROM team_entry WHERE kind = :kind", {"kind": kind})
    return {int(row[0]) for row in rows}
