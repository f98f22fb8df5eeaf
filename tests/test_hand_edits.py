"""Hand-edited values (issue 11.2): a row the code cannot read is skipped and named, every other
learning keeps working, and `doctor` names it with the command that mends it."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from support import cli, cli_json, payload, run

from cortex_hooks.confidence import DEFAULT
from cortex_hooks.guard import hand_edits

PRE, START, END = "cortex-pre-tool-use", "cortex-session-start", "cortex-session-end"


def sql(db: Path, statement: str, *parameters: Any) -> None:
    with closing(sqlite3.connect(db)) as connection:
        connection.execute(statement, parameters)
        connection.commit()


def stored_confidence(db: Path, learning_id: int) -> object:
    with closing(sqlite3.connect(db)) as connection:
        row = connection.execute(
            "SELECT confidence FROM learning_confidence WHERE learning_id = ?", (learning_id,)
        ).fetchone()
    return row[0]


@pytest.fixture
def edited(db: Path) -> Path:
    """#1 auto-block, its confidence edited by hand to the REAL 0.9; #2 a sound auto-block one."""
    for anti in ("rm -rf /srv/app", "git push --force"):
        cli_json("add", "--anti-pattern", anti, "--correct", "no", "--regex", anti.split()[0], "--auto-block")
    sql(db, "UPDATE learning_confidence SET confidence = 0.9 WHERE learning_id = 1")
    return db


def bash(command: str) -> dict[str, Any]:
    return payload("pre_tool_use.bash", tool_input={"command": command})


def test_a_match_of_the_edited_learning_is_skipped_named_and_never_boosted(edited: Path) -> None:
    result = run(PRE, stdin=bash("rm -rf /srv/app && git push --force"))
    assert result.code == 0, result.stderr  # the sound learning still decides
    specific = result.json()["hookSpecificOutput"]
    assert specific["permissionDecision"] == "deny"
    assert "#2" in specific["permissionDecisionReason"]
    assert "#1" not in specific["permissionDecisionReason"]
    assert "learning #1 skipped" in result.stderr
    assert "doctor --repair" in result.stderr
    assert stored_confidence(edited, 1) == 0.9  # not 10.9: nothing written for it
    assert stored_confidence(edited, 2) == 80


def test_a_match_of_only_the_edited_learning_is_a_named_hook_error(edited: Path) -> None:
    result = run(PRE, stdin=bash("rm -rf /srv/app"))
    assert (result.code, result.stdout) == (1, "")
    assert "learning #1 skipped" in result.stderr
    assert stored_confidence(edited, 1) == 0.9


def test_session_hooks_keep_working_and_name_the_row(edited: Path) -> None:
    start = run(START, stdin=payload("session_start.startup"))
    assert start.code == 0, start.stderr
    assert "git push --force" in start.json()["hookSpecificOutput"]["additionalContext"]
    assert "learning #1 skipped" in start.stderr
    end = run(END, stdin=payload("session_end.other"))
    assert end.code == 0, end.stderr
    assert "learning #1 skipped" in end.stderr
    assert (stored_confidence(edited, 1), stored_confidence(edited, 2)) == (0.9, 69)


@pytest.mark.parametrize(
    "command",
    [
        ["list"],
        ["list", "--json"],
        ["snapshot"],
        ["export"],
        ["explain", "--tool", "Bash", "--command", "rm -rf /srv/app"],
    ],
)
def test_commands_skip_and_name_the_row(edited: Path, command: list[str]) -> None:
    result = cli(*command)
    assert result.code == 0, result.stderr
    assert "learning #1" in result.stderr
    assert "doctor --repair" in result.stderr
    assert "internal error" not in result.stderr


def test_show_of_the_row_says_how_to_mend_it(edited: Path) -> None:
    result = cli("show", "1")
    assert result.code == 1
    assert result.stderr.startswith("cortex-hooks: learning #1 cannot be read")
    assert "doctor --repair" in result.stderr


def test_doctor_names_the_row_and_repair_mends_it_in_place(edited: Path) -> None:
    diagnosis = cli("doctor", "--json")
    assert diagnosis.code == 1
    problems = [check for check in diagnosis.json()["checks"] if check["status"] == "problem"]
    assert any(check["check"] == "learning #1" and "doctor --repair" in check["fix"] for check in problems)
    repaired = cli("doctor", "--repair", "--json")
    assert any(
        check["check"] == "repair" and "#1 mended" in check["detail"] for check in repaired.json()["checks"]
    )
    assert stored_confidence(edited, 1) == 90  # 0.9 meant 0.90
    assert cli_json("show", "1")["confidence"] == 0.9
    assert not [c for c in cli("doctor", "--json").json()["checks"] if c["check"] == "learning #1"]


def test_repair_archives_what_it_cannot_mend_and_deletes_nothing(edited: Path) -> None:
    sql(edited, "UPDATE learning SET anti_pattern = X'FFFE' WHERE id = 2")
    sql(edited, "UPDATE learning SET access_count = -3 WHERE id = 1")
    cli("doctor", "--repair")
    listed = cli("list", "--all", "--json")
    assert [row["id"] for row in listed.json()] == [1]  # #1 mended; #2 still cannot be read: named
    assert "learning #2 skipped" in listed.stderr
    with closing(sqlite3.connect(edited)) as connection:
        archived, blob = connection.execute(
            "SELECT archived_at, anti_pattern FROM learning WHERE id = 2"
        ).fetchone()
        count = connection.execute("SELECT access_count FROM learning WHERE id = 1").fetchone()[0]
    assert archived is not None
    assert blob == b"\xff\xfe"
    assert count == 0


@pytest.mark.parametrize(
    ("value", "mended"),
    [
        (0.9, 90),
        (55.5, 56),
        (0.05, DEFAULT.floor),
        (None, DEFAULT.start),
        ("x", DEFAULT.start),
        (-1, DEFAULT.start),
    ],
)
def test_mended_confidence(value: object, mended: int) -> None:
    row = {
        "confidence": value,
        "access_count": 0,
        **dict.fromkeys(
            ("anti_pattern", "correct_pattern", "tool", "target", "severity", "created_at", "updated_at"), "x"
        ),
        **dict.fromkeys(("regex", "context", "literals", "last_accessed", "archived_at")),
    }
    changes = hand_edits.mended(row, DEFAULT, "2026-01-01T00:00:00Z")
    assert changes == {"confidence": mended}
