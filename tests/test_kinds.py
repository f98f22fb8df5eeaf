"""Decisions, errors, todos and sessions through the installed CLI and hooks."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from support import FIXTURES, Result, cli, cli_json, payload, run

T0 = datetime(2026, 1, 5, 9, 30, tzinfo=UTC)
TRANSCRIPT = str(FIXTURES / "transcript.jsonl")


def iso(days: float) -> str:
    return (T0 + timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%SZ")


def at(days: float) -> dict[str, str]:
    """The environment that puts the clock `days` after T0."""
    return {"CORTEX_NOW": iso(days)}


def export() -> dict[str, Any]:
    """The whole memory (export is not an access)."""
    result = cli("export")
    assert result.code == 0, result.stderr
    data: dict[str, Any] = result.json()
    return data


def assert_usage_error(result: Result) -> None:
    """Exit 2, one `cortex-hooks:` line on stderr, nothing on stdout, no traceback."""
    assert result.code == 2, (result.code, result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("cortex-hooks:"), result.stderr
    assert result.stdout == ""


DECISION_FIELDS = {
    "id",
    "title",
    "reasoning",
    "category",
    "superseded_by",
    "access_count",
    "last_accessed",
    "created_at",
    "updated_at",
    "archived_at",
}
ERROR_FIELDS = {
    "id",
    "message",
    "fix",
    "severity",
    "occurrences",
    "first_seen",
    "last_seen",
    "access_count",
    "last_accessed",
    "archived_at",
}
TODO_FIELDS = {"id", "text", "priority", "done", "done_at", "created_at", "updated_at", "archived_at"}
SESSION_FIELDS = {"id", "source", "started_at", "ended_at", "reason", "summary", "key_changes"}


# --- decisions -----------------------------------------------------------------------------------


def test_decision_lifecycle_add_supersede_show_archive_restore() -> None:
    first = cli_json(
        "decisions", "add", "--title", "Store memory in SQLite", "--reasoning",
        "One file, transactions, no server", "--category", "storage", env=at(0),
    )  # fmt: skip
    assert set(first) == DECISION_FIELDS
    assert first["title"] == "Store memory in SQLite"
    assert first["reasoning"] == "One file, transactions, no server"
    assert first["category"] == "storage"
    assert first["superseded_by"] is None
    assert first["access_count"] == 0
    assert first["last_accessed"] is None
    assert first["created_at"] == first["updated_at"] == iso(0)
    assert first["archived_at"] is None

    second = cli_json(
        "decisions", "add", "--title", "Store memory in SQLite with WAL", "--reasoning",
        "Hooks run in parallel", "--supersedes", str(first["id"]), env=at(1),
    )  # fmt: skip
    assert second["id"] != first["id"]
    assert second["superseded_by"] is None
    assert second["category"] is None

    shown = cli_json("decisions", "show", str(first["id"]), env=at(2))
    assert shown["superseded_by"] == second["id"]
    assert shown["access_count"] == 1
    assert shown["last_accessed"] == iso(2)

    listed = cli_json("decisions", "list", env=at(2))
    assert [row["id"] for row in listed] == [first["id"], second["id"]]
    assert all(set(row) == DECISION_FIELDS for row in listed)

    archived = cli_json("decisions", "archive", str(first["id"]), env=at(3))
    assert archived["archived_at"] == iso(3)
    assert [row["id"] for row in cli_json("decisions", "list")] == [second["id"]]
    assert [row["id"] for row in cli_json("decisions", "list", "--archived")] == [first["id"]]
    assert len(cli_json("decisions", "list", "--all")) == 2

    restored = cli_json("decisions", "restore", str(first["id"]), env=at(4))
    assert restored["archived_at"] is None
    assert restored["superseded_by"] == second["id"]  # restoring does not undo the supersession
    assert [row["id"] for row in cli_json("decisions", "list")] == [first["id"], second["id"]]


# --- errors --------------------------------------------------------------------------------------


def test_error_seen_again_counts_occurrences_in_one_record() -> None:
    message = "sqlite3.OperationalError: database is locked"
    first = cli_json(
        "errors", "add", "--message", message, "--fix", "BEGIN IMMEDIATE and a busy timeout",
        "--severity", "high", env=at(0),
    )  # fmt: skip
    assert set(first) == ERROR_FIELDS
    assert (first["message"], first["fix"], first["severity"]) == (
        message,
        "BEGIN IMMEDIATE and a busy timeout",
        "high",
    )
    assert first["occurrences"] == 1
    assert first["first_seen"] == first["last_seen"] == iso(0)
    assert first["archived_at"] is None

    again = cli_json("errors", "add", "--message", message, env=at(2))
    assert again["id"] == first["id"]
    assert again["occurrences"] == 2
    assert again["first_seen"] == iso(0)
    assert again["last_seen"] == iso(2)
    assert again["fix"] == "BEGIN IMMEDIATE and a busy timeout"  # not erased by a bare repeat

    other = cli_json("errors", "add", "--message", "ImportError: No module named regex", env=at(2))
    assert other["id"] != first["id"]
    assert other["severity"] == "medium"  # the default
    assert other["fix"] is None

    cli_json("errors", "archive", str(first["id"]), env=at(3))
    fresh = cli_json("errors", "add", "--message", message, env=at(4))
    assert fresh["id"] not in (first["id"], other["id"])  # an archived error is not reopened
    assert fresh["occurrences"] == 1
    assert fresh["first_seen"] == iso(4)

    active = cli_json("errors", "list")
    assert [row["id"] for row in active] == [other["id"], fresh["id"]]
    assert cli_json("errors", "show", str(first["id"]))["occurrences"] == 2


# --- todos ---------------------------------------------------------------------------------------


def test_todo_priorities_done_archive_restore() -> None:
    high = cli_json("todos", "add", "--text", "Fix the flaky lock test", "--priority", "high")
    medium = cli_json("todos", "add", "--text", "Document the config file", env=at(0))
    low = cli_json("todos", "add", "--text", "Rename helpers", "--priority", "low")
    assert set(high) == TODO_FIELDS
    assert (high["priority"], medium["priority"], low["priority"]) == ("high", "medium", "low")
    assert medium["done"] is False
    assert medium["done_at"] is None
    assert medium["created_at"] == medium["updated_at"] == iso(0)

    done = cli_json("todos", "done", str(medium["id"]), env=at(1))
    assert done["done"] is True
    assert done["done_at"] == iso(1)
    assert done["text"] == "Document the config file"

    cli_json("todos", "archive", str(low["id"]), env=at(2))
    listed = cli_json("todos", "list")
    assert {row["id"]: row["done"] for row in listed} == {high["id"]: False, medium["id"]: True}
    assert cli_json("todos", "restore", str(low["id"]))["archived_at"] is None
    assert len(cli_json("todos", "list")) == 3


# --- refusals ------------------------------------------------------------------------------------


UNKNOWN_IDS = [
    ("decisions", "show", "99"),
    ("decisions", "archive", "99"),
    ("errors", "show", "99"),
    ("errors", "restore", "99"),
    ("todos", "done", "99"),
    ("todos", "show", "99"),
]


def test_unknown_id_is_a_usage_error_for_every_kind() -> None:
    cli_json("decisions", "add", "--title", "keep one row", "--reasoning", "so the db exists")
    with ThreadPoolExecutor(max_workers=3) as pool:
        results = list(pool.map(lambda args: cli(*args, "--json"), UNKNOWN_IDS))
    for args, result in zip(UNKNOWN_IDS, results, strict=True):
        assert_usage_error(result)
        assert "99" in result.stderr, args


def test_invalid_values_and_unknown_supersedes_write_nothing(db: Path) -> None:
    assert_usage_error(cli("errors", "add", "--message", "boom", "--severity", "urgent"))
    assert_usage_error(cli("todos", "add", "--text", "later", "--priority", "someday"))
    assert_usage_error(cli("decisions", "add", "--title", "x", "--reasoning", ""))
    assert not db.exists() or export() == {
        "version": 1,
        "learnings": [],
        "decisions": [],
        "errors": [],
        "todos": [],
    }
    kept = cli_json("decisions", "add", "--title", "Existing", "--reasoning", "r")
    refused = cli("decisions", "add", "--title", "New", "--reasoning", "r", "--supersedes", "42")
    assert_usage_error(refused)
    assert "42" in refused.stderr
    decisions = export()["decisions"]
    assert [row["id"] for row in decisions] == [kept["id"]]  # the new decision was not written
    assert decisions[0]["superseded_by"] is None


# --- sessions ------------------------------------------------------------------------------------


def hook(name: str, fixture: str, days: float, **changes: Any) -> None:
    result = run(name, stdin=payload(fixture, **changes), env=at(days))
    assert result.code == 0, result.stderr
    assert "Traceback" not in result.stderr


def test_sessions_list_fields_from_the_hooks() -> None:
    cli_json("todos", "add", "--text", "a database for the hooks to find")
    start = "session_start.startup"
    end = "session_end.other"
    hook("cortex-session-start", start, 0, session_id="s-full", transcript_path=TRANSCRIPT)
    hook("cortex-session-end", end, 0.5, session_id="s-full", transcript_path=TRANSCRIPT)
    hook("cortex-session-end", end, 1, session_id="s-no-start", transcript_path="/nonexistent")
    hook("cortex-session-start", start, 2, session_id="s-open", source="startup")

    sessions = {row["id"]: row for row in cli_json("sessions", "list")}
    assert set(sessions) == {"s-full", "s-no-start", "s-open"}
    assert all(set(row) == SESSION_FIELDS for row in sessions.values())

    full = sessions["s-full"]
    assert full["source"] == "startup"
    assert (full["started_at"], full["ended_at"]) == (iso(0), iso(0.5))
    assert full["reason"] == "other"
    assert full["summary"] == "Please add a greeting module and fix the typo"
    assert full["key_changes"] == [
        {"file": "PROJ/hello.py", "action": "Write"},
        {"file": "PROJ/hello.py", "action": "Edit"},
    ]

    no_start = sessions["s-no-start"]
    assert no_start["started_at"] is None
    assert no_start["ended_at"] == iso(1)
    assert no_start["summary"] is None
    assert no_start["key_changes"] == []

    still_open = sessions["s-open"]
    assert (still_open["started_at"], still_open["ended_at"]) == (iso(2), None)


# --- export / import -----------------------------------------------------------------------------


def without_ids(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in row.items() if k not in ("id", "superseded_by")} for row in records]


def test_export_import_round_trip_remaps_superseded_by(tmp_path: Path) -> None:
    learning = cli_json(
        "add", "--anti-pattern", "git push --force", "--correct", "git push --force-with-lease",
        "--regex", r"push\s+--force\b", "--tool", "Bash", "--auto-block", env=at(0),
    )  # fmt: skip
    archived = cli_json(
        "add",
        "--no-regex",
        "--anti-pattern",
        "pip install globally",
        "--correct",
        "a venv",
        "--tool",
        "Bash|Write",
    )
    cli("archive", str(archived["id"]), env=at(1))
    cli("show", str(learning["id"]), env=at(2))
    old = cli_json("decisions", "add", "--title", "Poll", "--reasoning", "simple", env=at(0))
    new = cli_json(
        "decisions", "add", "--title", "Watch", "--reasoning", "cheaper",
        "--supersedes", str(old["id"]), env=at(1),
    )  # fmt: skip
    cli("decisions", "archive", str(old["id"]), env=at(3))
    cli("errors", "add", "--message", "E1", "--fix", "F1", "--severity", "critical", env=at(0))
    cli("errors", "add", "--message", "E1", env=at(4))
    todo = cli_json("todos", "add", "--text", "T1", "--priority", "low", env=at(0))
    cli("todos", "done", str(todo["id"]), env=at(5))
    source = tmp_path / "export.json"
    written = cli("export", "--output", str(source))
    assert written.code == 0, written.stderr
    original = json.loads(source.read_text())
    assert original["decisions"][0]["superseded_by"] == new["id"]
    assert original["learnings"][1]["archived_at"] == iso(1)

    target = tmp_path / "target.db"
    other = {"CORTEX_DB": str(target)}
    for title in ("Pre-existing A", "Pre-existing B", "Pre-existing C"):  # shift the new ids
        cli_json("decisions", "add", "--title", title, "--reasoning", "r", env=other)
    imported = cli("import", str(source), "--json", env=other)
    assert imported.code == 0, imported.stderr
    assert imported.json() == {"learnings": 2, "decisions": 2, "errors": 1, "todos": 1, "memories": 0}

    copied = cli("export", env=other).json()
    decisions = copied["decisions"][3:]
    assert without_ids(decisions) == without_ids(original["decisions"])
    by_title = {row["title"]: row for row in decisions}
    assert by_title["Watch"]["id"] not in (new["id"], None)
    assert by_title["Poll"]["superseded_by"] == by_title["Watch"]["id"]  # remapped to the new id
    assert by_title["Watch"]["superseded_by"] is None
    for kind in ("learnings", "errors", "todos"):
        assert without_ids(copied[kind]) == without_ids(original[kind]), kind
    assert copied["errors"][0]["occurrences"] == 2
    assert copied["learnings"][0]["access_count"] == 1
    assert copied["todos"][0]["done_at"] == iso(5)


def test_a_learning_for_every_tool_survives_export_and_import(tmp_path: Path) -> None:
    """`--tool '*'` is the documented default; export prints it, import must take it."""
    cli_json("add", "--no-regex", "--anti-pattern", "curl | sh", "--correct", "download, read, then run")
    source = tmp_path / "export.json"
    assert cli("export", "--output", str(source)).code == 0
    assert json.loads(source.read_text())["learnings"][0]["tool"] == "*"
    imported = cli("import", str(source), "--json", env={"CORTEX_DB": str(tmp_path / "b.db")})
    assert imported.code == 0, imported.stderr
    copied = cli("export", env={"CORTEX_DB": str(tmp_path / "b.db")}).json()
    assert [row["tool"] for row in copied["learnings"]] == ["*"]
