"""`import --from cortex [PATH]`: the original Cortex's database (schema 1 or 2, built here from its
DDL written as data) read only, its learnings, decisions, errors and unfinished items added as
ours in one transaction, counts and times kept where they mean the same; a regex that cannot be
ours is left out and said; the source file is never written."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from support import cli, cli_json, run

# The original Cortex's tables as its schema 2 declares them (the ones import reads, and two it
# leaves); schema 1 is the same without access_count, last_accessed and archived_at on decisions,
# errors and learnings.
ACCESSED = ("access_count INTEGER DEFAULT 0", "last_accessed TEXT", "archived_at TEXT")
TABLES = {
    "sessions": [
        "id TEXT PRIMARY KEY",
        "started_at TEXT NOT NULL",
        "ended_at TEXT",
        "summary TEXT",
        "status TEXT DEFAULT 'active'",
    ],
    "decisions": [
        "id INTEGER PRIMARY KEY AUTOINCREMENT",
        "session_id TEXT",
        "created_at TEXT NOT NULL",
        "category TEXT NOT NULL",
        "title TEXT NOT NULL",
        "reasoning TEXT NOT NULL",
        "alternatives TEXT",
        "files_affected TEXT",
        "superseded_by INTEGER",
        "confidence TEXT DEFAULT 'high'",
        *ACCESSED,
    ],
    "errors": [
        "id INTEGER PRIMARY KEY AUTOINCREMENT",
        "session_id TEXT",
        "first_seen TEXT NOT NULL",
        "last_seen TEXT NOT NULL",
        "occurrences INTEGER DEFAULT 1",
        "error_signature TEXT NOT NULL UNIQUE",
        "error_message TEXT NOT NULL",
        "root_cause TEXT",
        "fix_description TEXT",
        "fix_diff TEXT",
        "files_involved TEXT",
        "prevention_rule TEXT",
        "severity TEXT DEFAULT 'medium'",
        *ACCESSED,
    ],
    "learnings": [
        "id INTEGER PRIMARY KEY AUTOINCREMENT",
        "session_id TEXT",
        "created_at TEXT NOT NULL",
        "anti_pattern TEXT NOT NULL",
        "correct_pattern TEXT NOT NULL",
        "detection_regex TEXT",
        "context TEXT NOT NULL",
        "severity TEXT DEFAULT 'medium'",
        "occurrences INTEGER DEFAULT 1",
        "auto_block INTEGER DEFAULT 0",
        *ACCESSED,
    ],
    "conventions": [
        "id INTEGER PRIMARY KEY AUTOINCREMENT",
        "name TEXT NOT NULL UNIQUE",
        "description TEXT NOT NULL",
    ],
    "unfinished": [
        "id INTEGER PRIMARY KEY AUTOINCREMENT",
        "session_id TEXT",
        "created_at TEXT NOT NULL",
        "description TEXT NOT NULL",
        "context TEXT",
        "priority TEXT DEFAULT 'medium'",
        "resolved_at TEXT",
        "resolved_session TEXT",
    ],
    "schema_version": ["version INTEGER NOT NULL"],
}
HUGE = "x" * 1_000_000
T0 = "2025-01-02T03:04:05.678Z"  # as the original's `new Date().toISOString()` writes a time


def build(path: Path, version: int) -> Path:
    """A database of the original Cortex's schema `version`, in WAL mode as it keeps one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    accessed = version >= 2
    with closing(sqlite3.connect(path)) as connection:
        connection.execute("PRAGMA journal_mode = WAL")
        for table, columns in TABLES.items():
            kept = [c for c in columns if accessed or table == "schema_version" or c not in ACCESSED]
            connection.execute(f"CREATE TABLE {table} ({', '.join(kept)})")
        connection.execute("INSERT INTO schema_version VALUES (?)", (version,))
        extra = ", access_count, last_accessed, archived_at" if accessed else ""
        marks = ", ?, ?, ?" if accessed else ""
        learnings = [  # id, anti, correct, regex, context, severity, occurrences, auto_block (+ access)
            (
                1,
                "rm -rf on the data folder",
                "move it to the trash",
                r"rm\s+-rf\s+/srv/data",
                "ops",
                "high",
                3,
                1,
                7,
                T0,
                None,
            ),
            (2, "print debugging", "use logging", r"\bprint\(", "python", "low", 1, 0, None, None, None),
            (3, "a broken rule", "fix it", "(unclosed", "odd", "weird", None, None, 2, None, None),
            (4, "a reminder without a regex", "remember it", None, HUGE, None, 1, 1, 0, None, T0),
            (5, "a slow rule", "a fast one", "(a+)+$", "slow", "medium", 1, 1, 0, None, None),
        ]
        for row in learnings:
            connection.execute(
                "INSERT INTO learnings (id, anti_pattern, correct_pattern, detection_regex, context,"
                f" severity, occurrences, auto_block{extra}, created_at)"
                f" VALUES (?, ?, ?, ?, ?, ?, ?, ?{marks}, ?)",
                (*row[:8], *(row[8:] if accessed else ()), T0),
            )
        connection.execute(
            "INSERT INTO decisions (id, created_at, category, title, reasoning) VALUES"
            " (1, ?, 'architecture', 'SQLite for state', 'one file'),"
            " (2, ?, 'architecture', 'WAL mode', 'readers')",
            (T0, "2025-02-01T00:00:00Z"),
        )
        connection.execute("UPDATE decisions SET superseded_by = 2 WHERE id = 1")
        connection.execute(
            "INSERT INTO errors (first_seen, last_seen, occurrences, error_signature, error_message,"
            " fix_description, severity)"
            " VALUES (?, ?, 4, 'sig', 'ENOENT: no such file', 'create it first', NULL)",
            (T0, "2025-03-01T00:00:00Z"),
        )
        connection.execute(
            "INSERT INTO unfinished (created_at, description, priority, resolved_at) VALUES"
            " (?, 'write the docs', 'high', NULL), (?, 'ship it', 'urgent', '2025-04-01T10:00:00Z')",
            (T0, T0),
        )
        connection.execute("INSERT INTO sessions (id, started_at) VALUES ('s1', ?)", (T0,))
        connection.execute("INSERT INTO conventions (name, description) VALUES ('tabs', 'no tabs')")
        connection.commit()
    return path


def foreign(path: Path) -> None:
    with closing(sqlite3.connect(path)) as connection:
        connection.execute("CREATE TABLE t (x)")


def footprint(path: Path) -> dict[str, str]:
    """Every file of the source's folder, with its contents' hash."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(path.parent.iterdir())}


def rows(db: Path, sql: str) -> list[tuple[Any, ...]]:
    with closing(sqlite3.connect(db)) as connection:
        return connection.execute(sql).fetchall()


@pytest.mark.parametrize("version", [1, 2])
def test_a_database_of_each_schema_is_imported_whole_and_left_untouched(
    db: Path, tmp_path: Path, version: int
) -> None:
    source = build(tmp_path / "old" / ".claude" / "cortex.db", version)
    before = footprint(source)
    result = cli_json("import", "--from", "cortex", str(source), process=True)
    assert footprint(source) == before  # nothing written, nothing made beside it
    assert result["schema"] == version
    assert result["imported"] == {"learnings": 5, "decisions": 2, "errors": 1, "todos": 2}
    assert result["not_imported"] == []
    assert {item["id"]: item["regex"] for item in result["changed"]} == {3: "(unclosed", 5: "(a+)+$"}
    assert result["left"] == {"sessions": 1, "conventions": 1}
    learnings = rows(
        db,
        "SELECT anti_pattern, regex, action, severity, access_count, last_accessed, archived_at,"
        " created_at, length(context) FROM learning ORDER BY id",
    )
    accessed = version >= 2
    assert learnings[0] == ("rm -rf on the data folder", r"rm\s+-rf\s+/srv/data", "block", "high",
                            7 if accessed else 0, "2025-01-02T03:04:05Z" if accessed else None, None,
                            "2025-01-02T03:04:05Z", 3)  # fmt: skip
    assert learnings[1][1:4] == (r"\bprint\(", "warn", "low")
    assert learnings[2][1:4] == (None, "warn", "medium")  # no regex, an unknown severity: medium
    assert learnings[3][1:3] == (None, "block")
    assert learnings[3][8] == len(HUGE)
    assert learnings[3][6] == ("2025-01-02T03:04:05Z" if accessed else None)  # archived stays archived
    assert learnings[4][1] is None
    (first, second) = rows(db, "SELECT id, title, superseded_by FROM decision ORDER BY id")
    assert (first[1], first[2], second[1]) == ("SQLite for state", second[0], "WAL mode")
    assert rows(db, "SELECT message, fix, occurrences, severity, first_seen, last_seen FROM error") == [
        (
            "ENOENT: no such file",
            "create it first",
            4,
            "medium",
            "2025-01-02T03:04:05Z",
            "2025-03-01T00:00:00Z",
        )
    ]
    assert rows(db, "SELECT text, priority, done, done_at FROM todo ORDER BY id") == [
        ("write the docs", "high", 0, None),
        ("ship it", "medium", 1, "2025-04-01T10:00:00Z"),
    ]


def test_the_learnings_act_and_the_text_says_what_was_left_out(db: Path, tmp_path: Path) -> None:
    source = build(Path.cwd() / ".claude" / "cortex.db", 2)  # the project's: the default
    result = cli("import", "--from", "cortex")
    assert result.code == 0, result.stderr
    assert result.stdout.startswith(
        f"Imported 5 learnings, 2 decisions, 1 error, 2 todos of the original Cortex (schema 2) from {source}"
    )
    assert "learnings #3: imported without its regex (unclosed: invalid regex" in result.stdout
    assert "left as they are (nothing of ours holds them): sessions (1), conventions (1)" in result.stdout
    payload = {"session_id": "s", "hook_event_name": "PreToolUse", "cwd": str(Path.cwd()),
               "tool_name": "Bash", "tool_input": {"command": "rm -rf /srv/data"}}  # fmt: skip
    denied = run("cortex-pre-tool-use", stdin=json.dumps(payload))
    assert denied.json()["hookSpecificOutput"]["permissionDecision"] == "deny", denied.stderr


def test_a_dry_run_writes_nothing(db: Path, tmp_path: Path) -> None:
    source = build(tmp_path / "old" / "cortex.db", 1)
    result = cli_json("import", "--from", "cortex", str(source), "--dry-run")
    assert result["dry_run"] is True
    assert result["imported"] == {"learnings": 5, "decisions": 2, "errors": 1, "todos": 2}
    assert not db.exists()
    assert cli("import", "--dry-run", str(source)).code == 2  # only with --from cortex


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (lambda p: p.write_text("not a database"), "is not a database of the original Cortex"),
        (foreign, "no table schema_version"),
        (None, "no such database"),
        (os.mkfifo, "not a regular file"),
        (Path.mkdir, "not a regular file"),
    ],
)
def test_what_is_not_a_database_of_the_original_cortex_is_refused(
    db: Path, tmp_path: Path, make: Any, said: str
) -> None:
    source = tmp_path / "other.db"
    if make is not None:
        make(source)
    result = cli("import", "--from", "cortex", str(source))
    assert result.code == 2
    assert said in result.stderr
    assert not db.exists()


def test_a_newer_schema_of_the_original_is_refused(db: Path, tmp_path: Path) -> None:
    source = build(tmp_path / "old" / "cortex.db", 2)
    with closing(sqlite3.connect(source)) as connection:
        connection.execute("UPDATE schema_version SET version = 3")
        connection.commit()
    result = cli("import", "--from", "cortex", str(source))
    assert (result.code, "knows schemas 1 and 2" in result.stderr) == (2, True)
    assert not db.exists()


def test_a_source_another_process_is_writing_is_read_through_its_log(db: Path, tmp_path: Path) -> None:
    source = build(tmp_path / "live" / "cortex.db", 2)
    with closing(sqlite3.connect(source)) as writer:  # the original Cortex, still open
        writer.execute("PRAGMA wal_autocheckpoint = 0")
        writer.execute(
            "INSERT INTO unfinished (created_at, description) VALUES (?, 'only in the log')", (T0,)
        )
        writer.commit()
        assert os.path.exists(f"{source}-wal")
        result = cli_json("import", "--from", "cortex", str(source))
    assert result["imported"]["todos"] == 3


def test_importing_again_adds_nothing_twice(db: Path, tmp_path: Path) -> None:
    source = build(tmp_path / "old" / "cortex.db", 2)
    first = cli_json("import", "--from", "cortex", str(source))
    assert sum(first["imported"].values()) > 0
    assert first["already_here"] == dict.fromkeys(first["imported"], 0)
    with closing(sqlite3.connect(source)) as connection:  # the original Cortex goes on working
        connection.execute("INSERT INTO unfinished (created_at, description) VALUES (?, 'a new item')", (T0,))
        connection.commit()
    again = cli_json("import", "--from", "cortex", str(source))
    assert again["imported"] == {"learnings": 0, "decisions": 0, "errors": 0, "todos": 1}
    assert again["already_here"] == first["imported"]
    listed = cli_json("todos", "list", "--all")
    assert sorted(todo["text"] for todo in listed).count("a new item") == 1
    said = cli("import", "--from", "cortex", str(source))
    expected = f"already here (imported before), not added again: {sum(again['already_here'].values()) + 1}"
    assert expected in said.stdout
