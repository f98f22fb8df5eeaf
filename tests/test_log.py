"""cortex.log: an internal error leaves its traceback beside the database, the one
stderr line says where, doctor shows the last entries, and no payload content is logged."""

from __future__ import annotations

import os
import sqlite3
import stat
from contextlib import closing
from pathlib import Path

from support import cli, cli_json, payload, run

from cortex_hooks import log

SECRET = "deploy --token=SECRET-VALUE-8421"


def break_the_prefilter(db: Path) -> None:
    with closing(sqlite3.connect(db)) as connection:
        connection.execute("DROP TABLE learning_key")
        connection.commit()


def test_an_internal_error_is_logged_with_its_traceback_and_named_on_stderr(db: Path) -> None:
    cli_json("add", "--anti-pattern", "x", "--correct", "y", "--regex", "deploy")
    break_the_prefilter(db)
    result = run("cortex-pre-tool-use", stdin=payload("pre_tool_use.bash", tool_input={"command": SECRET}))
    assert result.code == 1
    assert result.stdout == ""
    logged = db.parent / log.FILENAME
    (line,) = result.stderr.splitlines()
    assert line.startswith("cortex-hooks: PreToolUse: database error: no such table: learning_key")
    assert line.endswith(f"(details in {logged})")
    text = logged.read_text()
    assert "OperationalError: no such table: learning_key" in text
    assert 'File "' in text  # the traceback's frames
    assert "SECRET-VALUE" not in text  # never the payload's contents
    assert stat.S_IMODE(os.stat(logged).st_mode) == 0o600
    diagnosis = cli("doctor", "--json").json()
    (entry,) = [check for check in diagnosis["checks"] if check["check"] == "log"]
    assert "no such table: learning_key" in entry["detail"]


def test_the_log_is_rotated_once_and_stays_bounded(db: Path) -> None:
    cli_json("add", "--anti-pattern", "x", "--correct", "y", "--regex", "deploy")
    logged = db.parent / log.FILENAME
    logged.write_text("2026-01-01T00:00:00Z old entry\n" + "x" * log.LIMIT)
    break_the_prefilter(db)
    assert run("cortex-pre-tool-use", stdin=payload("pre_tool_use.bash")).code == 1
    assert (db.parent / (log.FILENAME + ".1")).read_text().startswith("2026-01-01T00:00:00Z old entry")
    assert logged.stat().st_size < log.LIMIT
    assert "no such table" in logged.read_text()


def test_a_project_without_a_database_folder_gets_no_log(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere" / ".cortex" / "cortex.db"
    result = run(
        "cortex-session-start", stdin=payload("session_start.startup"), env={"CORTEX_DB": str(missing)}
    )
    assert (result.code, result.stdout) == (0, "")
    assert not missing.parent.exists()
