"""A write lock held by another process (issue 11.1): the hooks decide from what they can read,
never waiting on the writer, and keep the writes they could not make; the next process that can
write applies them exactly once."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any

from support import cli_json, payload, run

from cortex_hooks.store.connection import BUSY_TIMEOUT

PRE, START, END = "cortex-pre-tool-use", "cortex-session-start", "cortex-session-end"
HOLDER = """
import sqlite3, sys
connection = sqlite3.connect(sys.argv[1], isolation_level=None)
connection.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
sys.stdin.read()  # until the test closes our stdin
"""


@contextmanager
def write_lock(db: Path) -> Iterator[None]:
    """A real second process holding a write transaction on the database (as a sqlite3 shell
    or a DB browser does), until the block ends."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "locked"
        yield
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=30)


def bash(command: str, session: str = "s1") -> dict[str, Any]:
    return payload("pre_tool_use.bash", session_id=session, tool_input={"command": command})


def state(db: Path) -> list[tuple[int, float, int]]:
    return [
        (row["id"], row["confidence"], row["access_count"])
        for row in cli_json("list", "--all", env={"CORTEX_DB": str(db)})
    ]


def decision(result: Any) -> str:
    assert result.code == 0, result.stderr
    if not result.stdout.strip():
        return "none"
    return str(result.json()["hookSpecificOutput"].get("permissionDecision", "warn"))


def test_a_deny_arrives_while_another_process_holds_the_lock(db: Path) -> None:
    cli_json("add", "--anti-pattern", "rm -rf", "--correct", "trash it", "--regex", r"rm -rf", "--auto-block")
    with write_lock(db):
        started = time.monotonic()
        result = run(PRE, stdin=bash("rm -rf build"))
        elapsed = time.monotonic() - started
        assert decision(result) == "deny"
        assert "trash it" in result.json()["hookSpecificOutput"]["permissionDecisionReason"]
        assert "kept for later" in result.stderr
        assert "database is locked" not in result.stderr
    # Not the person's busy timeout (10 s, then exit 1 and no deny): the hook waits its own short
    # bound. Bounded by that timeout, which a wait for it can only exceed, not by a figure a
    # process start on a loaded machine reaches (it was 3 s).
    assert elapsed < BUSY_TIMEOUT, elapsed
    assert state(db) == [(1, 0.8, 1)]  # the boost, applied once the lock is gone


SEQUENCE: list[tuple[str, dict[str, Any]]] = [
    (START, payload("session_start.startup", session_id="s1")),
    (PRE, bash("sudo make install")),  # at 0.40: warned, boosted to 0.50
    (PRE, bash("sudo make install")),  # at 0.50: blocks, 0.60
    (PRE, bash("git status")),
    (END, payload("session_end.other", session_id="s1")),
    (END, payload("session_end.other", session_id="s1")),  # repeated: decays once only
    (START, payload("session_start.startup", session_id="s2")),
    (PRE, bash("sudo make install", "s2")),
    (END, payload("session_end.other", session_id="s2")),
]


def play(db: Path) -> list[str]:
    outcomes = []
    for script, data in SEQUENCE:
        result = run(script, stdin=data, env={"CORTEX_DB": str(db)})
        outcomes.append(decision(result) if script == PRE else f"exit {result.code}")
    return outcomes


def test_after_the_lock_everything_is_as_if_there_had_been_no_lock(db: Path, tmp_path: Path) -> None:
    cli_json(
        "add", "--anti-pattern", "sudo make", "--correct", "make", "--regex", "sudo make", "--auto-block"
    )
    cli_json("add", "--anti-pattern", "untouched", "--correct", "y", "--regex", "zzz-never")
    cli_json("add", "--no-regex", "--anti-pattern", "pinned", "--correct", "y", "--pin")
    cli_json("update", "1", "--confidence", "0.40")
    twin = tmp_path / "twin" / "cortex.db"
    twin.parent.mkdir()
    shutil.copy(db, twin)

    expected_outcomes = play(twin)
    with write_lock(db):
        outcomes = play(db)
        assert (db.parent / (db.name + ".pending")).stat().st_size > 0
    assert outcomes == expected_outcomes
    assert outcomes == ["exit 0", "warn", "deny", "none", "exit 0", "exit 0", "exit 0", "deny", "exit 0"]
    assert state(db) == state(twin)
    sessions = cli_json("sessions", "list")
    assert sorted(session["id"] for session in sessions if session["ended_at"]) == ["s1", "s2"]


def test_a_replay_killed_before_the_file_is_emptied_applies_nothing_twice(db: Path) -> None:
    cli_json("add", "--anti-pattern", "sudo make", "--correct", "make", "--regex", "sudo make")
    pending = db.parent / (db.name + ".pending")
    with write_lock(db):
        assert decision(run(PRE, stdin=bash("sudo make"))) == "warn"
        assert run(END, stdin=payload("session_end.other")).code == 0
        kept = pending.read_bytes()
    assert state(db) == [(1, 0.79, 1)]  # applied by `list`, once
    # The state a kill leaves between the replay's commit and the emptying of the file: the lines
    # are still there, and their ids are recorded as applied.
    pending.write_bytes(kept)
    ids = [json.loads(line)["id"] for line in kept.splitlines()]
    with closing(sqlite3.connect(db)) as connection:
        connection.executemany("INSERT INTO pending_applied (id) VALUES (?)", [(i,) for i in ids])
        connection.commit()
    assert state(db) == [(1, 0.79, 1)]  # nothing applied twice
    assert pending.stat().st_size == 0
    with closing(sqlite3.connect(db)) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert connection.execute("SELECT count(*) FROM pending_applied").fetchone()[0] == 0


def test_session_start_injects_its_context_under_the_lock(db: Path) -> None:
    cli_json("add", "--anti-pattern", "rm -rf", "--correct", "trash it", "--regex", "rm -rf", "--auto-block")
    with write_lock(db):
        result = run(START, stdin=payload("session_start.startup"))
    assert result.code == 0, result.stderr
    assert "blocked: rm -rf" in result.json()["hookSpecificOutput"]["additionalContext"]
    assert [session["id"] for session in cli_json("sessions", "list")] == [
        payload("session_start.startup")["session_id"]
    ]
