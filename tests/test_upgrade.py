"""An upgrade of cortex-hooks migrates a database of an older schema on its first use, and the
person is told once: by the command that migrated it (stderr), or by the SessionStart that did (its
systemMessage, which Claude Code shows to the person). PreToolUse migrates silently (its no-match
path says nothing: tests/test_migrations.py), and so does SessionEnd."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from support import FIXTURES, cli, payload, run

from cortex_hooks.store.connection import SCHEMA_VERSION

NOW = "2026-11-22T09:00:00Z"


def old_database(path: Path, version: int = 3) -> Path:
    """A database of a released schema version (tests/fixtures/schemas)."""
    with closing(sqlite3.connect(path)) as connection:
        connection.executescript((FIXTURES / "schemas" / f"v{version}.sql").read_text(encoding="utf-8"))
    return path


def said(path: Path, version: int) -> str:
    return (
        f"upgraded the database {path} from schema version {version} to {SCHEMA_VERSION} "
        "(automatic, on its first use by this version; everything in it kept)"
    )


@pytest.mark.parametrize("version", [1, 3])
def test_the_command_that_migrates_says_so_once(tmp_path: Path, version: int) -> None:
    database = old_database(tmp_path / "cortex.db", version)
    env = {"CORTEX_DB": str(database), "CORTEX_NOW": NOW}
    first = cli("list", "--json", env=env)
    assert first.code == 0, first.stderr
    assert first.stderr == f"cortex-hooks: {said(database, version)}\n"
    json.loads(first.stdout)  # --json still prints exactly one JSON value on stdout
    again = cli("list", "--json", env=env)
    assert (again.code, again.stderr) == (0, "")


def test_a_new_database_is_created_without_an_upgrade_said(tmp_path: Path) -> None:
    env = {"CORTEX_DB": str(tmp_path / "cortex.db")}
    created = cli("remember", "a note", env=env)
    assert created.code == 0, created.stderr
    assert "upgraded" not in created.stderr


def test_session_start_tells_the_person_once(tmp_path: Path) -> None:
    database = old_database(tmp_path / "cortex.db")
    env = {"CORTEX_DB": str(database), "CORTEX_NOW": NOW}
    start = json.dumps(payload("session_start.startup"))
    first = run("cortex-session-start", stdin=start, env=env)
    assert first.code == 0, first.stderr
    message = first.json()["systemMessage"]
    assert message.startswith(f"cortex-hooks {said(database, 3)}.")
    assert "additionalContext" in first.json()["hookSpecificOutput"]  # the session's text as ever
    again = run("cortex-session-start", stdin=start, env=env)
    assert again.code == 0, again.stderr
    assert "upgraded" not in again.stdout


def test_pre_tool_use_migrates_without_a_word(tmp_path: Path) -> None:
    database = old_database(tmp_path / "cortex.db")
    call = json.dumps(payload("pre_tool_use.bash", tool_input={"command": "ls -la"}))
    quiet = run("cortex-pre-tool-use", stdin=call, env={"CORTEX_DB": str(database)})
    assert (quiet.code, quiet.stdout, quiet.stderr) == (0, "", "")
    with closing(sqlite3.connect(database)) as connection:
        assert connection.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
