"""A write lock held by another process: the hooks decide from what they can read,
never waiting on the writer, and keep the writes they could not make; the next process that can
write applies them exactly once."""

from __future__ import annotations

import json
import shutil
import sqlite3
import time
from contextlib import closing
from pathlib import Path

import pytest
from locking import END, PRE, START, bash, decision, play, write_lock
from support import cli_json, payload, run

from cortex_hooks.store.connection import BUSY_TIMEOUT


def state(db: Path) -> list[tuple[int, float, int]]:
    return [
        (row["id"], row["confidence"], row["access_count"])
        for row in cli_json("list", "--all", env={"CORTEX_DB": str(db)})
    ]


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


def history(db: Path) -> dict[str, list[tuple[object, ...]]]:
    """The history's tables (store.history): each learning's days, the scope's days, the last
    calls decided."""
    order = {"learning_day": "learning_id, day", "scope_day": "day", "verdict_call": "id"}
    with closing(sqlite3.connect(db)) as connection:
        return {
            table: [tuple(row) for row in connection.execute(f"SELECT * FROM {table} ORDER BY {by}")]
            for table, by in order.items()
        }


def test_after_the_lock_everything_is_as_if_there_had_been_no_lock(
    db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The outcomes, the learnings, the sessions and the history (store.history) alike."""
    monkeypatch.setenv("CORTEX_NOW", "2026-11-20T10:00:00Z")
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
    assert history(db) == history(twin)
    # (learning, day, matches, denies, asks, warnings, rewrites, confidence at the day's end)
    days = [row[:8] for row in history(db)["learning_day"] if row[0] == 1]
    assert days == [(1, "2026-11-20", 3, 2, 0, 1, 0, 68)]
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
