"""SQL for packs: which packs a scope enabled (and from which file), and its pack learnings by slug."""

from __future__ import annotations

import sqlite3

from cortex_hooks import stored
from cortex_hooks.store import learnings
from cortex_hooks.stored import Learning

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from cortex_hooks.guard.packs.shipped import Plan


def enabled(connection: sqlite3.Connection) -> dict[str, str]:
    """The packs enabled in this scope, with the digest of the file their learnings came from."""
    return dict(connection.execute("SELECT name, digest FROM pack ORDER BY name").fetchall())


def learnings_of(connection: sqlite3.Connection, name: str) -> dict[str, Learning]:
    """This scope's learnings of one pack (archived ones too), by slug."""
    rows = connection.execute(
        f"""SELECT {learnings.SELECTED} FROM learning AS l
               LEFT JOIN learning_confidence AS c ON c.learning_id = l.id
           WHERE l.slug IS NOT NULL
               AND (l.pack = :pack OR substr(l.slug, 1, length(:pack) + 1) = :pack || ':')
           ORDER BY l.slug""",
        {"pack": name},
    )
    return {str(learning.slug): learning for learning in stored.made(Learning, rows)}


def slug_owner(connection: sqlite3.Connection, slug: str) -> Learning | None:
    """The learning that holds this slug (a pack's, or a team learning's id), if any."""
    found = stored.made(
        Learning,
        connection.execute(
            f"""SELECT {learnings.SELECTED} FROM learning AS l
                   LEFT JOIN learning_confidence AS c ON c.learning_id = l.id
               WHERE l.slug = :slug""",
            {"slug": slug},
        ),
    )
    return found[0] if found else None


def record_enabled(connection: sqlite3.Connection, name: str, digest: str, now: str) -> None:
    connection.execute(
        """INSERT INTO pack (name, digest, enabled_at) VALUES (:name, :digest, :now)
           ON CONFLICT (name) DO UPDATE SET digest = excluded.digest""",
        {"name": name, "digest": digest, "now": now},
    )


def record_disabled(connection: sqlite3.Connection, name: str) -> bool:
    return connection.execute("DELETE FROM pack WHERE name = :name", {"name": name}).rowcount == 1


def add(connection: sqlite3.Connection, values: Mapping[str, object]) -> int:
    """A new pack learning (every column given): through the one insert, so its prefilter keys
    are derived as any learning's are."""
    return learnings.insert(connection, values)


def redeclare(
    connection: sqlite3.Connection, learning_id: int, declared: Mapping[str, object], now: str
) -> None:
    """A pack learning takes its pack's new declaration; its state (hits, confidence, muted)
    stays. An archived one (its pack was disabled) comes back."""
    learnings.update(
        connection, learning_id, {**declared, "pinned": 1, "updated_at": now, "archived_at": None}
    )


def archive(connection: sqlite3.Connection, ids: list[int], now: str) -> None:
    for learning_id in ids:
        learnings.update(connection, learning_id, {"archived_at": now, "updated_at": now})


def set_muted(connection: sqlite3.Connection, slug: str, muted: bool, now: str) -> bool:
    """Mute (or unmute) one pack learning in this scope; False when no learning has the slug."""
    cursor = connection.execute(
        "UPDATE learning SET muted = :muted, updated_at = :now WHERE slug = :slug",
        {"muted": int(muted), "now": now, "slug": slug},
    )
    return cursor.rowcount == 1


def apply(
    connection: sqlite3.Connection, name: str, plan: Plan, *, digest: str, now: str, start: int
) -> list[int]:
    """Carry out a guard.packs.shipped.Plan for one pack, inside the caller's write transaction; the pack
    is then recorded as enabled, from the file of this `digest`. The ids of the learnings added."""
    from cortex_hooks.guard.packs import shipped

    fresh = {"pinned": 1, "confidence": start, "access_count": 0, "last_accessed": None}
    added = [
        add(
            connection,
            {
                **shipped.declared(record),
                **fresh,
                "created_at": now,
                "updated_at": now,
                "archived_at": None,
                "slug": record.id,
                "pack": name,
                "muted": 0,
            },
        )
        for record in plan.added
    ]
    for learning_id, record in plan.updated:
        redeclare(connection, learning_id, shipped.declared(record), now)
    archive(connection, [learning_id for learning_id, _slug in plan.archived], now)
    record_enabled(connection, name, digest, now)
    return added
