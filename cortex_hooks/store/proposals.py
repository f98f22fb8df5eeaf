"""SQL of capture (docs/guide/capture.md): proposals and their occurrences, rejected fingerprints, per-session
scan offsets, the project's successful calls, and the worker's notes."""

from __future__ import annotations

import sqlite3
from typing import Any

from cortex_hooks import stored
from cortex_hooks.stored.capture_rows import Occurrence, Proposal, Scan

SUCCESS_KEPT = 20_000  # successful calls remembered (the oldest go first)
PENDING = ("proposed",)
SHOWN = ("proposed", "accepted", "rejected", "expired")


_SCANS = f"SELECT {stored.columns(Scan)} FROM capture_scan"


def scan_state(connection: sqlite3.Connection, session_id: str) -> Scan | None:
    found = stored.made(
        Scan, connection.execute(f"{_SCANS} WHERE session_id = :session", {"session": session_id})
    )
    return found[0] if found else None


def save_scan(
    connection: sqlite3.Connection,
    session_id: str,
    *,
    transcript: str,
    offset: int,
    size: int,
    tail: str,
    now: str,
) -> None:
    connection.execute(
        """INSERT INTO capture_scan (session_id, transcript, offset, size, tail, updated_at)
           VALUES (:session, :transcript, :offset, :size, :tail, :now)
           ON CONFLICT (session_id) DO UPDATE SET transcript = :transcript, offset = :offset,
               size = :size, tail = :tail, updated_at = :now""",
        {
            "session": session_id,
            "transcript": transcript,
            "offset": offset,
            "size": size,
            "tail": tail,
            "now": now,
        },
    )


def scans(connection: sqlite3.Connection) -> list[Scan]:
    """Every session's scan state, the most recently scanned first."""
    return stored.made(Scan, connection.execute(f"{_SCANS} ORDER BY updated_at DESC"))


def rejected(connection: sqlite3.Connection, fingerprint: str) -> bool:
    return (
        connection.execute(
            "SELECT 1 FROM proposal_rejected WHERE fingerprint = :fingerprint", {"fingerprint": fingerprint}
        ).fetchone()
        is not None
    )


def known(connection: sqlite3.Connection, fingerprint: str) -> bool:
    """Whether a rule was met before, whatever became of it (a proposal, a candidate, rejected)."""
    return (
        connection.execute(
            """SELECT 1 FROM proposal WHERE fingerprint = :fingerprint
               UNION ALL SELECT 1 FROM proposal_rejected WHERE fingerprint = :fingerprint""",
            {"fingerprint": fingerprint},
        ).fetchone()
        is not None
    )


def project_commands(connection: sqlite3.Connection) -> set[str]:
    """The first word of each successful call seen in this project: the programs it runs."""
    return {
        str(row[0]).split(None, 1)[0]
        for row in connection.execute("SELECT command FROM capture_success WHERE trim(command) != ''")
    }


def sighting(connection: sqlite3.Connection, values: dict[str, Any], session_id: str, now: str) -> int:
    """Record one occurrence of a candidate (its row made on first sight); the row's id."""
    row = connection.execute(
        "SELECT id FROM proposal WHERE fingerprint = :fingerprint AND signal = :signal", values
    ).fetchone()
    if row is None:
        cursor = connection.execute(
            """INSERT INTO proposal (fingerprint, signal, anti_pattern, correct_pattern, regex, rewrite,
                   tool, created_at, updated_at)
               VALUES (:fingerprint, :signal, :anti_pattern, :correct_pattern, :regex, :rewrite, :tool,
                   :now, :now)""",
            {"rewrite": None, **values, "now": now},
        )
        proposal_id = cursor.lastrowid
        assert proposal_id is not None
    else:
        proposal_id = int(row["id"])
    connection.execute(
        """INSERT INTO proposal_occurrence (proposal_id, session_id, failed, fixed, seen_at)
           VALUES (:id, :session, :failed, :fixed, :now)""",
        {
            "id": proposal_id,
            "session": session_id,
            "failed": values["failed"],
            "fixed": values["fixed"],
            "now": now,
        },
    )
    return proposal_id


def recurrence(connection: sqlite3.Connection, proposal_id: int) -> tuple[str, int, int]:
    """A row's status, the sessions it was seen in, and the most sightings in one session."""
    status = connection.execute("SELECT status FROM proposal WHERE id = :id", {"id": proposal_id}).fetchone()[
        0
    ]
    sessions, most = connection.execute(
        """SELECT count(*), coalesce(max(n), 0) FROM (SELECT count(*) AS n FROM proposal_occurrence
           WHERE proposal_id = :id GROUP BY session_id)""",
        {"id": proposal_id},
    ).fetchone()
    return str(status), int(sessions), int(most)


def counts(connection: sqlite3.Connection, session_id: str) -> tuple[int, int]:
    """Proposals this session brought, and proposals pending in this scope."""
    new, pending = connection.execute(
        """SELECT count(*) FILTER (WHERE proposed_in = :session),
                  count(*) FILTER (WHERE status = 'proposed') FROM proposal""",
        {"session": session_id},
    ).fetchone()
    return int(new), int(pending)


def propose(connection: sqlite3.Connection, proposal_id: int, session_id: str, now: str) -> None:
    connection.execute(
        """UPDATE proposal SET status = 'proposed', proposed_in = :session, updated_at = :now
           WHERE id = :id AND status = 'candidate'""",
        {"id": proposal_id, "session": session_id, "now": now},
    )


_SEEN = "(SELECT count(*) FROM proposal_occurrence o WHERE o.proposal_id = p.id)"
_LISTED = f"SELECT {stored.columns(Proposal, 'p', occurrences=_SEEN)} FROM proposal p"


def listed(connection: sqlite3.Connection, statuses: tuple[str, ...] = PENDING) -> list[Proposal]:
    """Proposals of these statuses, the most recurrent first."""
    marks = ", ".join(f":s{index}" for index in range(len(statuses)))
    return stored.made(
        Proposal,
        connection.execute(
            f"{_LISTED} WHERE p.status IN ({marks}) ORDER BY occurrences DESC, p.id",
            {f"s{index}": status for index, status in enumerate(statuses)},
        ),
    )


def get(connection: sqlite3.Connection, proposal_id: int) -> Proposal | None:
    found = stored.made(
        Proposal,
        connection.execute(f"{_LISTED} WHERE p.id = :id AND p.status != 'candidate'", {"id": proposal_id}),
    )
    return found[0] if found else None


def occurrences(connection: sqlite3.Connection, proposal_id: int, limit: int = 5) -> list[Occurrence]:
    return stored.made(
        Occurrence,
        connection.execute(
            f"""SELECT {stored.columns(Occurrence)} FROM proposal_occurrence WHERE proposal_id = :id
               ORDER BY rowid LIMIT :limit""",
            {"id": proposal_id, "limit": limit},
        ),
    )


def accepted(
    connection: sqlite3.Connection, proposal_id: int, learning_id: int, scope: str, now: str
) -> None:
    connection.execute(
        """UPDATE proposal SET status = 'accepted', learning_id = :learning, learning_scope = :scope,
               updated_at = :now WHERE id = :id""",
        {"id": proposal_id, "learning": learning_id, "scope": scope, "now": now},
    )


def aimed(connection: sqlite3.Connection, proposal_id: int, learning_id: int, scope: str) -> None:
    """A proposal for a learning that exists (a rewrite of it): named from the start."""
    connection.execute(
        "UPDATE proposal SET learning_id = :learning, learning_scope = :scope WHERE id = :id",
        {"id": proposal_id, "learning": learning_id, "scope": scope},
    )


def reject(connection: sqlite3.Connection, proposal_id: int, fingerprint: str, now: str) -> None:
    connection.execute(
        "UPDATE proposal SET status = 'rejected', updated_at = :now WHERE id = :id",
        {"id": proposal_id, "now": now},
    )
    connection.execute(
        "INSERT OR IGNORE INTO proposal_rejected (fingerprint, rejected_at) VALUES (:fingerprint, :now)",
        {"fingerprint": fingerprint, "now": now},
    )


def shown(connection: sqlite3.Connection, ids: list[int], now: str) -> None:
    """Count one SessionStart for each proposal shown."""
    for proposal_id in ids:
        connection.execute(
            "UPDATE proposal SET shown = shown + 1 WHERE id = :id AND status = 'proposed'",
            {"id": proposal_id},
        )


def expire(connection: sqlite3.Connection, after: int, now: str) -> int:
    """Proposals shown at `after` SessionStarts without an answer expire; how many did."""
    return connection.execute(
        """UPDATE proposal SET status = 'expired', updated_at = :now
           WHERE status = 'proposed' AND shown >= :after""",
        {"after": after, "now": now},
    ).rowcount


def remember_successes(
    connection: sqlite3.Connection, commands: list[str], session_id: str, now: str
) -> None:
    connection.executemany(
        """INSERT INTO capture_success (command, session_id, seen_at) VALUES (:command, :session, :now)
           ON CONFLICT DO UPDATE SET seen_at = :now""",
        [{"command": command, "session": session_id, "now": now} for command in commands],
    )
    connection.execute(
        """DELETE FROM capture_success WHERE rowid IN (SELECT rowid FROM capture_success
           ORDER BY seen_at DESC LIMIT -1 OFFSET :kept)""",
        {"kept": SUCCESS_KEPT},
    )


def successes(connection: sqlite3.Connection, session_id: str) -> list[str]:
    """The successful calls of earlier sessions (not this one)."""
    return [
        row[0]
        for row in connection.execute(
            "SELECT command FROM capture_success WHERE session_id != :session", {"session": session_id}
        )
    ]


def note(connection: sqlite3.Connection, name: str, value: str, now: str) -> None:
    connection.execute(
        """INSERT INTO capture_note (name, value, at) VALUES (:name, :value, :now)
           ON CONFLICT (name) DO UPDATE SET value = :value, at = :now""",
        {"name": name, "value": value, "now": now},
    )


def notes(connection: sqlite3.Connection) -> dict[str, tuple[str, str]]:
    return {
        row[0]: (row[1], row[2]) for row in connection.execute("SELECT name, value, at FROM capture_note")
    }


def undrafted(connection: sqlite3.Connection, limit: int) -> list[Proposal]:
    """Pending proposals the model has not worded yet (nor failed to)."""
    return stored.made(
        Proposal,
        connection.execute(
            f"{_LISTED} WHERE p.status = 'proposed' AND p.drafted IS NULL ORDER BY p.id LIMIT :limit",
            {"limit": limit},
        ),
    )


def drafted(
    connection: sqlite3.Connection, proposal_id: int, outcome: str, changes: dict[str, str], now: str
) -> None:
    """Record the model's wording (the columns in `changes`) or why there is none."""
    columns = "".join(f", {column} = :{column}" for column in changes if column in _DRAFTABLE)
    connection.execute(
        f"UPDATE proposal SET drafted = :outcome, updated_at = :now{columns} WHERE id = :id",
        {
            **{key: value for key, value in changes.items() if key in _DRAFTABLE},
            "outcome": outcome,
            "now": now,
            "id": proposal_id,
        },
    )


_DRAFTABLE = ("anti_pattern", "correct_pattern", "regex")
