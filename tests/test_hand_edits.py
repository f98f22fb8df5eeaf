"""Hand-edited values (issue 11.2): a value the code could not read is refused by SQLite
at write time (every table STRICT, with CHECKs), so the database keeps only rows the code reads and
the hooks never meet one; the guard keeps deciding as before the attempt."""

from __future__ import annotations

import hashlib
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from support import cli, cli_json, payload, run

PRE = "cortex-pre-tool-use"


def bash(command: str) -> dict[str, Any]:
    return payload("pre_tool_use.bash", tool_input={"command": command})


@pytest.fixture
def guarded(db: Path) -> Path:
    """#1 and #2: two auto-block learnings, as `add` writes them."""
    for anti in ("rm -rf /srv/app", "git push --force"):
        cli_json("add", "--anti-pattern", anti, "--correct", "no", "--regex", anti.split()[0], "--auto-block")
    return db


HAND_EDITS = [
    "UPDATE learning_confidence SET confidence = 0.9 WHERE learning_id = 1",  # a REAL, not hundredths
    "UPDATE learning_confidence SET confidence = 'high' WHERE learning_id = 1",
    "UPDATE learning_confidence SET confidence = 5000 WHERE learning_id = 1",
    "UPDATE learning SET access_count = 'many' WHERE id = 1",  # text in a counter
    "UPDATE learning SET access_count = -3 WHERE id = 1",
    "UPDATE learning SET action = 'deny' WHERE id = 1",  # an action the code does not know
    "UPDATE learning SET pinned = 2 WHERE id = 1",
    "UPDATE learning SET anti_pattern = X'FFFE' WHERE id = 1",  # bytes in a text column
    "UPDATE learning SET anti_pattern = NULL WHERE id = 1",
    "UPDATE learning SET severity = 'urgent' WHERE id = 1",
    "UPDATE learning SET literals = 'not json' WHERE id = 1",
    "UPDATE learning SET examples = '[1, 2]' WHERE id = 1",  # JSON, but not the object it holds
    "INSERT INTO learning (anti_pattern, correct_pattern, created_at, updated_at, action)"
    " VALUES ('x', 'y', 'now', 'now', 'Block')",
]


@pytest.mark.parametrize("statement", HAND_EDITS)
def test_a_hand_edit_the_code_could_not_read_is_refused_at_write(guarded: Path, statement: str) -> None:
    before = hashlib.sha256(guarded.read_bytes()).hexdigest()
    with closing(sqlite3.connect(guarded)) as connection, pytest.raises(sqlite3.IntegrityError):
        connection.execute(statement)
    assert hashlib.sha256(guarded.read_bytes()).hexdigest() == before
    result = run(PRE, stdin=bash("rm -rf /srv/app && git push --force"))
    assert result.code == 0, result.stderr
    specific = result.json()["hookSpecificOutput"]
    assert specific["permissionDecision"] == "deny"
    assert "#1" in specific["permissionDecisionReason"]
    assert result.stderr == ""


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE learning_confidence SET confidence = 0.9 WHERE learning_id = 1",
        "UPDATE learning SET access_count = 'many' WHERE id = 1",
        "UPDATE learning SET anti_pattern = X'FFFE' WHERE id = 1",
    ],
)
def test_a_wrong_type_is_refused_even_with_the_checks_switched_off(guarded: Path, statement: str) -> None:
    with closing(sqlite3.connect(guarded)) as connection:
        connection.execute("PRAGMA ignore_check_constraints = ON")
        with pytest.raises(sqlite3.IntegrityError, match="cannot store"):
            connection.execute(statement)


def test_a_hand_edit_the_code_reads_is_taken(guarded: Path) -> None:
    with closing(sqlite3.connect(guarded)) as connection:
        connection.execute("UPDATE learning_confidence SET confidence = 90 WHERE learning_id = 1")
        connection.execute("UPDATE learning SET action = 'warn' WHERE id = 2")
        connection.commit()
    assert cli_json("show", "1")["confidence"] == 0.9
    assert cli_json("show", "2")["action"] == "warn"


def test_doctor_still_names_what_sqlite_cannot_check(guarded: Path) -> None:
    with closing(sqlite3.connect(guarded)) as connection:
        connection.execute("UPDATE learning SET regex = '(unclosed' WHERE id = 1")
        connection.commit()
    diagnosis = cli("doctor", "--json")
    assert diagnosis.code == 1
    problems = [check for check in diagnosis.json()["checks"] if check["status"] == "problem"]
    assert any("#1" in check["check"] + check["detail"] for check in problems), problems
