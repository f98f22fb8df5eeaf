"""Write tests/fixtures/schemas/vN.sql: a database of schema version N as that version's code left
it, with representative rows in every table it has (odd but legal values among them) and, at the
end, hand edits that version let through its CHECKs. tests/test_schema_upgrade.py opens each with
the current code.

    python tests/schema_fixtures.py            # the current version's file (after a schema change)
    python tests/schema_fixtures.py --check    # exit 1 when the current version's file differs

v1.sql to v3.sql are older than this script: frozen by hand as those releases wrote them (their
prefilter keys in the format of their time), never regenerated. v4.sql to v23.sql were written by
this script from the code's migrations before they were replaced by one upgrade; from then on the
script can write the current version only (`store.schema.create`). A file once written is never
written again: a later schema change adds its own file.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

FOLDER = Path(__file__).parent / "fixtures" / "schemas"
FROZEN_BY_HAND = (1, 2, 3)
T0 = "2025-03-01T08:00:00Z"


class Since:
    """A value that changed with the schema: {first version: value, …}."""

    def __init__(self, values: dict[int, Any]) -> None:
        self.values = values

    def at(self, version: int) -> Any:
        return self.values[max(v for v in self.values if v <= version)]


ABSENT = object()  # a row (or a value) a version does not have


def times(day: int, hour: int = 9) -> str:
    return f"2025-03-{day:02d}T{hour:02d}:00:00Z"


# Secrets an older version kept verbatim (the one redactor came with version 17): made up, in forms
# the redactor knows, so that the upgrade's redaction shows.
SSH = "sshpass -p Tr0ub4dor-Horse ssh deploy@web1"
MYSQL = "mysql -u root -pS3cr3t-Passw0rd shop"
REDACTED_REGEX = r"mysql\s+-u\s+root\s+-p\[REDACTED\]\s"


def _rows(columns: str, *values: tuple[Any, ...]) -> list[dict[str, Any]]:
    names = columns.split()
    return [dict(zip(names, row, strict=True)) for row in values]


_LEARNING = """id anti_pattern correct_pattern regex tool target severity action pinned confidence
    access_count last_accessed created_at updated_at archived_at context"""
LEARNINGS = _rows(
    _LEARNING,
    (1, "git push --force on a shared branch", "git push --force-with-lease", r"git\s+push\s+(-f|--force)\b",
     "Bash", "content", "high", "block", 0, 64, 3, times(2), times(1), times(1), None,
     "lost a colleague's commits on main;\nsaid \"never again\" -- twice"),
    (2, "print() debugging left in the code", "use the logging module", None, "*", "content", "low", "warn",
     1, 70, 0, None, times(1), times(3), None, ""),
    (3, "sudo pip install", "pip install --user, or a venv", r"sudo\s+pip\s+install", "Bash", "content",
     "medium", "block", 0, 50, 7, times(4), times(1), times(5), times(5), None),
    (4, "writing secrets into .env files", "use the secret manager; .env stays untracked", r"\.env$",
     "Write|Edit", "path", "critical", "block", 1, 90, 12, times(6), times(1), times(1), None, None),
    (5, "Bash with the sandbox disabled", "keep the sandbox; ask for the permission instead",
     r'"dangerouslyDisableSandbox"\s*:\s*true', "Bash", "input", "high", Since({1: "warn", 19: "ask"}), 0, 55,
     1, times(7), times(2), times(2), None, None),
    (6, "naïve datetime.now() — “local” time 🕰", "datetime.now(timezone.utc)", r"datetime\.now\(\)",
     "Write|Edit|MultiEdit", "content", "medium", "warn", 0, 41, 2, times(8), times(2), times(3), None,
     "line one\nline two; DROP TABLE learning; --"),
    (7, "git reset --hard", "git stash, then git reset --hard", r"\bgit\s+reset\s+--hard\b", "Bash",
     Since({1: "content", 16: "raw"}), "high", "block", 0, 70, 0, None, times(3), times(3), None, None),
    (8, "Jira keys in MCP calls without the project", "name the project: OPS-12", r"[A-Z]{2,}-\d+",
     "mcp__jira__.*", "input", "low", "warn", 0, 0, 0, None, times(4), times(4), None, "long " * 60),
    (9, "pip install outside a venv", "python -m pip install, in the project's venv", r"^pip install\b",
     "Bash", "content", "medium", "block", 0, 100, 4, times(9), times(4), times(4), None, None),
    (10, "mysql with the password on the command line", "mysql --login-path=shop",
     # captured from redacted text by an older version: the mask stands for any value since 17
     Since({1: REDACTED_REGEX, 17: REDACTED_REGEX.replace(r"\[REDACTED\]", ".+?")}), "Bash", "content",
     "high", "warn", 0, 70, 0, None, times(5), times(5), None, None),
    (11, "npm publish from a laptop", "publish from CI", r"\bnpm\s+publish\b", "Bash", "content", "high",
     "block", 0, 70, 0, None, times(6), times(6), None, None),
)  # fmt: skip
LEARNINGS[0]["examples"] = Since(
    {1: ABSENT, 21: '{"deny": ["git push --force origin main"], "allow": ["git push"]}'}
)
LEARNINGS[6].update(  # a pack's learning (version 16), muted by the person
    slug=Since({1: ABSENT, 16: "core.git:reset-hard"}), pack=Since({1: ABSENT, 16: "core.git"}),
    muted=Since({1: ABSENT, 16: 1}))  # fmt: skip
LEARNINGS[8]["rewrite"] = Since({1: ABSENT, 19: "python -m pip install {rest}"})
LEARNINGS[10].update(_since=20, slug="team:npm-publish", pack="team")  # the team file's (version 20)

MEMORIES = _rows(
    """id type content summary priority confidence pinned tags source source_session path status access_count
    last_accessed created_at updated_at confirmed_at archived_at base_confidence lifecycle_due""",
    (1, "architecture", "The API listens on port 8080 behind nginx; TLS ends at the load balancer.",
     "API on 8080 behind nginx", 8, 80, 1, '["api", "nginx"]', "explicit", None, None, "active", 5,
     times(9), times(1), times(1), times(9), None, 80, None),
    (2, "gotcha", "Deploys need `make migrate` first — or the workers crash-loop.",
     "make migrate before a deploy", 1, 35, 0, "[]", "conversation", "0b6f4c1e-release", None, "active", 0,
     None, times(2), times(2), times(2), None, 70, ""),
    (3, "decision", "Use SQLite for the queue.", "SQLite queue", 10, 0, 0, '["queue"]', "explicit", None,
     None, "archived", 1, times(3), times(1), times(6), times(3), times(6), 60, times(20)),
    (4, "code", "def handler(event):\n    return {'statusCode': 200}\n", "handler() in lambda/app.py", 5,
     100, 0, "[]", "code_index", None, "lambda/app.py", "superseded", 0, None, times(4), times(4), times(4),
     None, 100, None),
)  # fmt: skip
CHAT = "/home/dev/.claude/projects/-home-dev-code-app/7d1e2f3a-open.jsonl"
AUTO_MEMORY = "/home/dev/.claude/projects/-home-dev-code-app/memory/MEMORY.md"
_COUNTS = "matches denies asks warnings rewrites"
_OUTCOMES = "followed retried asked"


def rows(version: int) -> dict[str, list[dict[str, Any]]]:
    """Every table's rows at a version, with every column any version had (the columns a version
    lacks are left out when they are written)."""
    old = version < 17  # before the one redactor: what was kept was kept verbatim
    ssh = SSH if old else "sshpass -p [REDACTED] ssh deploy@web1"
    mysql = MYSQL if old else "mysql -u root -p[REDACTED] shop"
    regex = REDACTED_REGEX if old else REDACTED_REGEX.replace(r"\[REDACTED\]", ".+?")
    changes = (
        '[{"file": "scripts/release.sh", "action": "Edit"}, {"file": "CHANGELOG.md", "action": "Write"}]'
    )
    found: dict[str, list[dict[str, Any]]] = {}
    found["learning"] = [row for row in LEARNINGS if row.get("_since", 1) <= version]
    found["session"] = _rows(
        "id source started_at ended_at reason summary key_changes",
        ("0b6f4c1e-release", "startup", times(1, 8), times(1, 10), "logout", f"Deploy with {ssh}", changes),
        ("7d1e2f3a-open", "resume", times(2, 8), None, None, None, "[]"),
        ("9c8b7a6d-no-start", None, None, times(2, 18), "other", "", "[]"),
    )
    found["decision"] = _rows(
        """id title reasoning category superseded_by access_count last_accessed created_at updated_at
        archived_at""",
        (1, "Keep the memory in a JSON file", "simplest thing; one writer at a time", "storage", 2, 4,
         times(3), times(1), times(3), None),
        (2, "Keep the memory in SQLite (WAL)", "hooks run in parallel; JSON rewrites lost updates", None,
         None, 0, None, times(3), times(3), None),
        (3, "Ship a web UI", "nobody asked for it", "", None, 0, None, times(1), times(4), times(4)),
    )  # fmt: skip
    found["error"] = _rows(
        "id message fix severity occurrences first_seen last_seen access_count last_accessed archived_at",
        (1, "sqlite3.OperationalError: database is locked", "BEGIN IMMEDIATE and a busy timeout", "high", 3,
         times(1), times(4), 2, times(5), None),
        (2, "UnicodeDecodeError in the transcript reader", None, "critical", 1, times(2), times(2), 0, None,
         times(6)),
    )  # fmt: skip
    found["todo"] = _rows(
        "id text priority done done_at created_at updated_at archived_at",
        (1, "Write the upgrade test", "high", 0, None, times(1), times(1), None),
        (2, "Rename the cli module", "low", 1, times(5), times(2), times(5), None),
        (3, "Try a Bloom filter for the prefilter", "medium", 0, None, times(1), times(7), times(7)),
    )
    found["pending_applied"] = _rows("id", ("1741852800-4242-0",), ("1741852801-4243-3",))
    found["memory"] = MEMORIES
    found["edge"] = _rows(
        "from_id to_id type strength created_at",
        (2, 1, "relates_to", 0.8, times(2)),
        (4, 1, "derived_from", 1.0, times(4)),
        (3, 1, "supersedes", 0.0, times(6)),  # never counted in the in-degree
    )
    found["lifecycle_state"] = _rows("id max_in_degree", (1, 2))
    found["consolidation_flag"] = _rows("first_id second_id similarity flagged_at", (1, 2, 0.91, times(2)))
    found["consolidation"] = _rows(
        "id at checkpoint groups superseded last_memory_id", (1, times(6), None, 1, 1, 4)
    )
    found["vector"] = _rows(
        "id kind item_id model data",
        (1, 1, 1, "voyage-code-3", b"\x00\x00\x80\x3f" * 4),
        (2, 2, 1, "voyage-code-3", b"\x00" * 16),
        (3, 5, 1, "local-minilm", b"\xff" * 16),
    )
    found["proposal"] = _rows(
        """id fingerprint kind signal anti_pattern correct_pattern regex tool content status proposed_in shown
        learning_id learning_scope drafted created_at updated_at rewrite""",
        (1, "3f2a9c1e", "learning", "failed-then-fixed", f"`{mysql}` fails", "mysql --login-path=shop", regex,
         "Bash", None, "proposed", "7d1e2f3a-open", 2, None, None, None, times(2), times(2),
         Since({1: ABSENT, 19: "mysql --login-path=shop"})),
        (2, "77aa01bc", "memory", "user-correction", "tabs in YAML", "two spaces", None, "Edit",
         "The CI config is indented with two spaces.", "accepted", "0b6f4c1e-release", 1, 2,
         "project", "ok", times(1), times(3), None),
        (3, "c0ffee00", "learning", Since({1: "model", 18: "remembered", 23: "followed"}),
         "make test without -j", "make -j8 test", r"^make test$", "Bash", None, "candidate", None, 0,
         Since({1: None, 23: 6}), None, None, times(4), times(4), None),
    )  # fmt: skip
    found["proposal_occurrence"] = _rows(
        "proposal_id session_id failed fixed seen_at",
        (1, "7d1e2f3a-open", mysql, "mysql --login-path=shop", times(2)),
        (1, "0b6f4c1e-release", "mysql -u root shop", "mysql --login-path=shop", times(1)),
    )
    found["proposal_rejected"] = _rows("fingerprint rejected_at", ("deadbeef", times(3)))
    found["capture_scan"] = _rows(
        "session_id transcript offset size tail updated_at",
        ("7d1e2f3a-open", CHAT, 40960, 40960, "[]", times(2)),
    )
    found["capture_success"] = _rows(
        "command session_id seen_at",
        ("make test", "7d1e2f3a-open", times(2)),
        (ssh, "7d1e2f3a-open", times(2)),
    )
    found["capture_note"] = _rows("name value at", ("worker", "claude exited 1: rate limited", times(2)))
    found["learning_day"] = _rows(
        f"learning_id day {_COUNTS} confidence {_OUTCOMES}",
        (1, "2025-03-02", 3, 2, 0, 1, 0, 64, 1, 1, 0),
        (6, "2025-03-08", 2, 0, 0, 2, 0, None, 0, 0, 0),
    )
    found["learning_month"] = _rows(
        f"learning_id month {_COUNTS} confidence {_OUTCOMES}", (1, "2024-02", 40, 38, 0, 2, 0, 90, 0, 0, 0)
    )
    found["scope_day"] = _rows(  # (the memories' triggers count their own days)
        f"day {_COUNTS} added recalled archived pruned protections {_OUTCOMES}",
        ("2025-02-27", 5, 2, 0, 3, 0, 0, 0, 0, 1, 4, 1, 1, 0),
    )
    found["scope_month"] = _rows(
        f"month {_COUNTS} added recalled archived pruned protections {_OUTCOMES}",
        ("2024-02", 40, 38, 0, 2, 0, 3, 9, 1, 0, 0, 0, 0, 0),
    )
    found["verdict_call"] = _rows(
        "id learning_id at verdict tool call",
        (1, 1, times(2), "deny", "Bash", "git push --force origin main"),
        (2, 6, times(8), "warn", "Edit", "t = datetime.now()"),
        (3, Since({1: 1, 21: 0}), times(9), "deny", "Bash", mysql),  # 0: the built-in protection
    )
    found["pack"] = _rows("name digest enabled_at", ("core.git", "sha256:9f86d081884c7d65", times(3)))
    found["claude_file"] = _rows(
        "path origin mtime_ns size indexed_at",
        (AUTO_MEMORY, "auto-memory", 1741852800000000000, 120, times(4)),
        ("/home/dev/code/app/CLAUDE.md", "claude-md", 1741852800123456789, 0, times(4)),
    )
    found["claude_chunk"] = _rows(
        "id path line summary content captured",
        (1, AUTO_MEMORY, 1, "Deploys", "Deploys go to eu-west-1.", 1),
        (2, AUTO_MEMORY, 5, "Style", "Never use tabs.", 0),
    )
    found["team_file"] = _rows(
        "id stat digest trusted problems read_at",
        (
            1,
            "1741852800000000000:212:4242",
            "sha256:2c26",
            "sha256:2c26",
            '["line 3: an id is needed"]',
            times(6),
        ),
    )
    found["team_entry"] = _rows(
        "id kind row_id line action rewrite",
        ("npm-publish", "learning", 11, "sha256:aa11", "block", None),
        ("deploy-region", "memory", 1, None, None, None),  # its line gone from the file
    )
    found["outcome"] = _rows(
        """id learning_id session_id call_id answer at tool call jobs transcript offset read result settled
        decided_at next_tool next_call""",
        (1, 1, "7d1e2f3a-open", "toolu_01", "deny", times(2), "Bash", "git push --force origin main",
         '["git push"]', CHAT, 1024, 2048, "followed", 1, times(2, 10), "Bash",
         "git push --force-with-lease origin main"),
        (2, 9, "7d1e2f3a-open", "toolu_02", "rewrite", times(3), "Bash", "pip install requests", "[]", None,
         0, 0, None, 0, None, None, None),
    )  # fmt: skip
    found["outcome_since"] = _rows("learning_id since followed retried", (1, times(1), 1, 0))
    return found


# Hand edits a version let through (a type its column's affinity kept, or a value past a CHECK with
# ignore_check_constraints): (first version, last version, statement). The upgrade mends what it
# can and archives what it cannot.
HAND_EDITS: list[tuple[int, int, str]] = [
    (1, 4, "UPDATE learning SET confidence = 0.9 WHERE id = 8"),
    (5, 23, "UPDATE learning_confidence SET confidence = 0.9 WHERE learning_id = 8"),
    (1, 23, "UPDATE learning SET access_count = 'many' WHERE id = 6"),
    (1, 23, "UPDATE learning SET access_count = -3 WHERE id = 2"),
    (1, 23, "UPDATE learning SET tool = CAST('Bash' AS BLOB) WHERE id = 10"),
    (1, 23, "UPDATE learning SET anti_pattern = X'FFFE' WHERE id = 3"),
    (1, 18, "PRAGMA ignore_check_constraints = ON"),
    (1, 18, "UPDATE learning SET auto_block = 2 WHERE id = 7"),
    (1, 18, "PRAGMA ignore_check_constraints = OFF"),
    (19, 23, "PRAGMA ignore_check_constraints = ON"),
    (19, 23, "UPDATE learning SET action = 'maybe' WHERE id = 5"),
    (19, 23, "PRAGMA ignore_check_constraints = OFF"),
    (1, 23, "UPDATE decision SET access_count = 2.5 WHERE id = 1"),
    (1, 23, "UPDATE session SET key_changes = 'not json' WHERE id = '9c8b7a6d-no-start'"),
    (7, 23, "UPDATE memory SET confidence = 0.8 WHERE id = 2"),
    (7, 23, "UPDATE memory SET tags = 'deploy, workers' WHERE id = 2"),
    (7, 23, "PRAGMA ignore_check_constraints = ON"),
    (7, 23, "UPDATE memory SET priority = 'high' WHERE id = 4"),
    (7, 23, "PRAGMA ignore_check_constraints = OFF"),
    (14, 23, "UPDATE learning_day SET matches = 'x' WHERE learning_id = 6"),
]


def build(connection: sqlite3.Connection, version: int) -> None:
    """The schema of a version, as its code made it: the current one (v4 to v23 were made by the
    migrations that version 24 replaced with one upgrade, store.upgrade)."""
    from cortex_hooks.store import schema
    from cortex_hooks.store.version import SCHEMA_VERSION

    assert version == SCHEMA_VERSION, f"the code writes version {SCHEMA_VERSION} only"
    connection.execute("BEGIN")
    schema.create(connection)
    connection.execute("COMMIT")


def columns(connection: sqlite3.Connection, table: str) -> list[str]:
    """A table's stored columns (not its generated ones)."""
    return [row[1] for row in connection.execute(f"PRAGMA table_xinfo({table})") if row[6] in (0, 1)]


def tables(connection: sqlite3.Connection) -> list[str]:
    """The ordinary tables a version has, in the order it made them (no virtual or shadow table)."""
    return [
        name
        for name, sql in connection.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY rowid"
        )
        if not name.startswith("sqlite_")
        and sql.startswith("CREATE TABLE")
        and not sql.startswith("CREATE TABLE '")
    ]


def fill(connection: sqlite3.Connection, version: int) -> None:
    """Every table's rows, as that version's code wrote them (its triggers fire)."""
    present = set(tables(connection))
    connection.execute("BEGIN")
    for table, table_rows in rows(version).items():
        if table not in present:
            continue
        have = columns(connection, table)
        for row in table_rows:
            values = {
                k: (v.at(version) if isinstance(v, Since) else v) for k, v in row.items() if k != "_since"
            }
            values = {k: v for k, v in values.items() if v is not ABSENT}
            if table == "learning":
                _learning(connection, values, have, version)
                continue
            kept = {k: v for k, v in values.items() if k in have}
            listed = ", ".join(kept)
            marks = ", ".join(f":{k}" for k in kept)
            connection.execute(f"INSERT INTO {table} ({listed}) VALUES ({marks})", kept)
    if "memory" in present and "lifecycle_due" in columns(connection, "memory"):
        for memory in MEMORIES:  # what the lifecycle last set (a new memory's trigger says: now)
            due = {"due": memory["lifecycle_due"], "id": memory["id"]}
            connection.execute("UPDATE memory SET lifecycle_due = :due WHERE id = :id", due)
    if "vector" in present:  # ids are never reused: the sequence stays past a deleted row
        connection.execute("INSERT INTO vector (id, kind, item_id, model, data) VALUES (9, 4, 1, 'm', x'00')")
        connection.execute("DELETE FROM vector WHERE id = 9")
    _derive(connection)
    connection.execute("COMMIT")


def _derive(connection: sqlite3.Connection) -> None:
    """The prefilter's data, as the code derives it."""
    from cortex_hooks.guard import prefilter

    for learning_id, regex, target, tool in connection.execute(
        "SELECT id, regex, target, tool FROM learning ORDER BY id"
    ).fetchall():
        if "literals" in columns(connection, "learning"):
            connection.execute(
                "UPDATE learning SET literals = :literals WHERE id = :id",
                {"literals": prefilter.literals(regex), "id": learning_id},
            )
        if regex:
            for key in prefilter.keys(regex, target):
                if "tool" in columns(connection, "learning_key"):
                    connection.execute("INSERT INTO learning_key VALUES (:key, :id, :tool)",
                                       {"key": key, "id": learning_id, "tool": tool})  # fmt: skip
                else:
                    connection.execute(
                        "INSERT INTO learning_key VALUES (:key, :id)", {"key": key, "id": learning_id}
                    )


def _learning(connection: sqlite3.Connection, values: dict[str, Any], have: list[str], version: int) -> None:
    values = dict(values)
    if "action" not in have:  # before version 19: the flag
        values["auto_block"] = int(values["action"] == "block")
    confidence = values.pop("confidence")
    if "confidence" in have:  # before version 5: a column of the learning
        values["confidence"] = confidence
    kept = {k: v for k, v in values.items() if k in have}
    connection.execute(
        f"INSERT INTO learning ({', '.join(kept)}) VALUES ({', '.join(f':{k}' for k in kept)})", kept
    )
    if "confidence" not in have:
        connection.execute(
            """INSERT INTO learning_confidence (learning_id, confidence) VALUES (:id, :confidence)
               ON CONFLICT (learning_id) DO UPDATE SET confidence = excluded.confidence""",
            {"id": values["id"], "confidence": confidence},
        )


def literal(value: Any) -> str:
    """A value as SQL text that gives it back exactly."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, bytes):
        return f"X'{value.hex().upper()}'"
    return "'" + str(value).replace("'", "''") + "'"


def dump(connection: sqlite3.Connection) -> Iterator[str]:
    """The database as SQL: its tables, their rows, then its indexes and triggers (made after the
    rows, so that replaying the file fires no trigger), the full-text indexes' rows and the
    sequences — as the file's own statements left them, in the order made."""
    schema = connection.execute(
        "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid"
    ).fetchall()
    ordinary = tables(connection)
    for kind, name, sql in schema:
        if kind == "table" and (name in ordinary or sql.startswith("CREATE VIRTUAL TABLE")):
            yield f"{sql};"
    declared = {name: sql for _, name, sql in schema}
    for table in ordinary:
        have = columns(connection, table)
        order = "" if "WITHOUT ROWID" in declared[table].upper() else " ORDER BY rowid"  # else by key
        for row in connection.execute(f"SELECT {', '.join(have)} FROM {table}{order}"):
            yield f"INSERT INTO {table} ({', '.join(have)}) VALUES ({', '.join(map(literal, row))});"
    for kind, _name, sql in schema:
        if kind in ("index", "trigger"):
            yield f"{sql};"
    for kind, name, sql in schema:
        if kind == "table" and sql.startswith("CREATE VIRTUAL TABLE") and "fts5(" in sql:
            for row in connection.execute(f"SELECT rowid, * FROM {name} ORDER BY rowid"):
                listed = ", ".join(map(literal, row))
                yield f"INSERT INTO {name} (rowid, body) VALUES ({listed});"
    if "sqlite_sequence" in {name for _, name, _ in schema}:
        for name, seq in connection.execute("SELECT name, seq FROM sqlite_sequence ORDER BY name"):
            yield f"UPDATE sqlite_sequence SET seq = {seq} WHERE name = {literal(name)};"


def text(version: int) -> str:
    """The fixture file of a version."""
    with closing(sqlite3.connect(":memory:", isolation_level=None)) as connection:
        build(connection, version)
        fill(connection, version)
        edits = [statement for first, last, statement in HAND_EDITS if first <= version <= last]
        body = list(dump(connection))
        for statement in edits:  # they run: a file that does not replay is never written
            connection.execute(statement)
    header = [
        f"-- cortex-hooks database, schema version {version}, as that version's code left it, with",
        "-- representative rows in every table (written by tests/schema_fixtures.py; never edited).",
        "-- Last, hand edits that version let through its CHECKs (the upgrade mends or archives them).",
        "",
    ]
    return "\n".join([*header, *body, "", "-- hand edits", *(f"{s};" for s in edits), "",
                      f"PRAGMA user_version = {version};", ""])  # fmt: skip


def write(versions: list[int], check: bool) -> int:
    wrong = 0
    for version in versions:
        path = FOLDER / f"v{version}.sql"
        made = text(version)
        if check:
            if not path.exists() or path.read_text(encoding="utf-8") != made:
                print(f"{path} differs from what the code writes", file=sys.stderr)
                wrong = 1
            continue
        path.write_text(made, encoding="utf-8")
        print(f"wrote {path}")
    return wrong


def main(argv: list[str] | None = None) -> int:
    from cortex_hooks.store.version import SCHEMA_VERSION

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="exit 1 when a file differs")
    parser.add_argument("--version", type=int, action="append", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    versions = args.version or [SCHEMA_VERSION]
    if any(version in FROZEN_BY_HAND for version in versions):
        parser.error(f"v{FROZEN_BY_HAND[0]} to v{FROZEN_BY_HAND[-1]} are frozen by hand")
    return write(versions, args.check)


if __name__ == "__main__":
    sys.exit(main())
