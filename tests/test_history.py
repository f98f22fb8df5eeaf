"""The history: what each learning's matches became per day, its confidence at each
day's end, the scope's days, the last denied or warned calls, folding past a year; written by the
transactions that already write, never by a call that matches nothing."""

from __future__ import annotations

import shutil
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support import add, cli, payload, run

from cortex_hooks.store import history
from cortex_hooks.store.connection import open_database

PRE, END = "cortex-pre-tool-use", "cortex-session-end"


def rows(db: Path, query: str) -> list[tuple[Any, ...]]:
    with closing(sqlite3.connect(db)) as connection:
        return [tuple(row) for row in connection.execute(query)]


def days(db: Path) -> list[tuple[Any, ...]]:
    """(learning, day, matches, denies, asks, warnings, rewrites, confidence) of every day row."""
    return rows(
        db,
        "SELECT learning_id, day, matches, denies, asks, warnings, rewrites, confidence FROM learning_day "
        "ORDER BY learning_id, day",
    )


def scope(db: Path) -> list[tuple[Any, ...]]:
    return rows(db, "SELECT * FROM scope_day ORDER BY day")


def calls(db: Path) -> list[tuple[Any, ...]]:
    return rows(db, "SELECT learning_id, at, verdict, tool, call FROM verdict_call ORDER BY id")


def bash(command: str, session: str = "s1") -> dict[str, Any]:
    return payload("pre_tool_use.bash", session_id=session, tool_input={"command": command})


def hook(script: str, data: dict[str, Any], now: str) -> str:
    result = run(script, stdin=data, env={"CORTEX_NOW": now})
    assert result.code == 0, result.stderr
    return result.stdout


def test_a_deny_and_a_warning_are_recorded_with_the_confidence_at_the_days_end(db: Path) -> None:
    force = add("--auto-block", anti="force push", regex=r"git push --force")
    sudo = add(anti="sudo pip", regex=r"sudo pip")
    hook(PRE, bash("git push --force origin main && sudo pip install x"), "2026-11-20T10:00:00Z")
    hook(PRE, bash("sudo pip install y"), "2026-11-20T11:00:00Z")
    hook(END, payload("session_end.other", session_id="s1", transcript_path=""), "2026-11-20T18:00:00Z")
    hook(PRE, bash("git push --force"), "2026-11-21T09:00:00Z")
    assert days(db) == [
        (force, "2026-11-20", 1, 1, 0, 0, 0, 79),  # 0.70 -> 0.80, then the session end's decay
        (force, "2026-11-21", 1, 1, 0, 0, 0, 89),
        (sudo, "2026-11-20", 2, 0, 0, 2, 0, 89),  # 0.70 -> 0.80 -> 0.90, then 0.89
    ]
    assert [row[:6] for row in scope(db)] == [("2026-11-20", 3, 1, 0, 2, 0), ("2026-11-21", 1, 1, 0, 0, 0)]
    assert calls(db) == [
        (force, "2026-11-20T10:00:00Z", "deny", "Bash", "git push --force origin main && sudo pip install x"),
        (sudo, "2026-11-20T10:00:00Z", "warn", "Bash", "git push --force origin main && sudo pip install x"),
        (sudo, "2026-11-20T11:00:00Z", "warn", "Bash", "sudo pip install y"),
        (force, "2026-11-21T09:00:00Z", "deny", "Bash", "git push --force"),
    ]


def test_an_auto_block_learning_at_the_gate_is_recorded_warned_then_denied(db: Path) -> None:
    gated = add("--auto-block", "--confidence", "0.40", anti="sudo make", regex=r"sudo make")
    first = hook(PRE, bash("sudo make install"), "2026-11-20T10:00:00Z")
    second = hook(PRE, bash("sudo make install"), "2026-11-20T10:01:00Z")
    assert "permissionDecision" not in first
    assert '"deny"' in second
    assert days(db) == [(gated, "2026-11-20", 2, 1, 0, 1, 0, 60)]  # ...is what the history says
    assert [row[2] for row in calls(db)] == ["warn", "deny"]


def test_a_call_that_matches_nothing_writes_nothing(db: Path) -> None:
    add("--auto-block", anti="force push", regex=r"git push --force")
    before = db.read_bytes()
    assert hook(PRE, bash("git status"), "2026-11-20T10:00:00Z") == ""
    assert db.read_bytes() == before
    assert days(db) == []
    assert calls(db) == []
    assert scope(db) == []


NO_MATCH_IMPORTS = """
import atexit, os, sys
watched = ("cortex_hooks.store.history", "cortex_hooks.hooks.kept_call", "cortex_hooks.capture.redact")
def report(): print(sorted(name for name in watched if name in sys.modules), file=sys.stderr, flush=True)
atexit.register(report)
leave = os._exit
os._exit = lambda status: (atexit.unregister(report), report(), leave(status))
from cortex_hooks.hooks import pre_tool_use
sys.exit(pre_tool_use.main())
"""


@pytest.mark.parametrize(
    ("command", "imported"), [("git status", "[]"), ("git push --force", "['cortex_hooks")]
)
def test_the_history_is_imported_by_a_match_only(db: Path, command: str, imported: str) -> None:
    import json
    import os
    import subprocess
    import sys

    add("--auto-block", anti="force push", regex=r"git push --force")
    done = subprocess.run(
        [sys.executable, "-c", NO_MATCH_IMPORTS],
        input=json.dumps(bash(command)),
        capture_output=True,
        text=True,
        env={**os.environ, "CORTEX_DB": str(db)},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith(imported)


def test_kept_calls_are_redacted_one_line_and_cut(db: Path) -> None:
    add(anti="curl with a token", regex=r"curl ")
    secret = "ghp_" + "a1B2c3D4" * 5
    command = f"curl -H 'Authorization: Bearer {secret}' https://api.example.com/\u202e\n" + "x" * 5000
    hook(PRE, bash(command), "2026-11-20T10:00:00Z")
    [(_, _, _, _, kept)] = calls(db)
    assert secret not in kept
    assert "[REDACTED]" in kept
    assert "\u202e" not in kept
    assert "\n" not in kept
    assert len(kept) <= 301


def test_each_learning_keeps_only_its_latest_calls(db: Path) -> None:
    noisy = add(anti="noisy", regex=r"echo ")
    rare = add(anti="rare", regex=r"rm -rf /tmp/x")
    hook(PRE, bash("rm -rf /tmp/x"), "2026-11-20T09:00:00Z")
    for minute in range(history.KEPT_CALLS + 3):
        hook(PRE, bash(f"echo {minute}"), f"2026-11-20T10:{minute:02d}:00Z")
    kept = calls(db)
    assert [row[4] for row in kept if row[0] == noisy] == [
        f"echo {n}" for n in range(3, history.KEPT_CALLS + 3)
    ]
    assert [row[4] for row in kept if row[0] == rare] == ["rm -rf /tmp/x"]  # never crowded out
    assert days(db)[0][2] == history.KEPT_CALLS + 3  # the counts keep every match


def test_the_decay_records_each_changed_learning_once_per_session(db: Path) -> None:
    plain = add(anti="plain", regex=r"zzz-plain")
    pinned = add("--pin", anti="pinned", regex=r"zzz-pinned")
    floor = add("--confidence", "0.30", anti="at the floor", regex=r"zzz-floor")
    end = payload("session_end.other", session_id="s1", transcript_path="")
    hook(END, end, "2026-11-20T18:00:00Z")
    hook(END, end, "2026-11-20T19:00:00Z")  # the same session again: no second decay
    hook(END, {**end, "session_id": "s2"}, "2026-11-21T18:00:00Z")
    assert days(db) == [(plain, "2026-11-20", 0, 0, 0, 0, 0, 69), (plain, "2026-11-21", 0, 0, 0, 0, 0, 68)]
    assert pinned
    assert floor


def test_keep_and_update_record_the_confidence_of_their_day(db: Path) -> None:
    learning = add("--confidence", "0.40", anti="x", regex=r"zzz")
    cli("keep", str(learning), env={"CORTEX_NOW": "2026-11-20T10:00:00Z"})
    cli("update", str(learning), "--confidence", "0.55", env={"CORTEX_NOW": "2026-11-22T10:00:00Z"})
    cli(
        "update",
        str(learning),
        "--context",
        "no confidence given",
        env={"CORTEX_NOW": "2026-11-23T10:00:00Z"},
    )
    assert [(row[1], row[7]) for row in days(db)] == [("2026-11-20", 70), ("2026-11-22", 55)]


def test_the_memories_days_count_what_the_memories_went_through(db: Path) -> None:
    on = {"CORTEX_NOW": "2026-11-20T10:00:00Z"}
    cli("remember", "The API listens on port 8080", env=on)
    cli("remember", "Deploys go through the staging cluster", env=on)
    cli("recall", "port 8080", env={"CORTEX_NOW": "2026-11-21T10:00:00Z"})
    cli("forget", "2", env={"CORTEX_NOW": "2026-11-22T10:00:00Z"})
    # archived and untouched for 90 days: the lifecycle prunes it
    cli("lifecycle", env={"CORTEX_NOW": "2027-03-01T10:00:00Z"})
    counted = {row[0]: row[6:10] for row in scope(db)}  # day: (added, recalled, archived, pruned)
    assert counted["2026-11-20"] == (2, 0, 0, 0)
    assert counted["2026-11-21"] == (0, 1, 0, 0)
    assert counted["2026-11-22"] == (0, 0, 1, 0)
    assert counted["2027-03-01"][3] == 1


def test_parallel_hooks_lose_no_match(db: Path) -> None:
    add(anti="sudo pip", regex=r"sudo pip")
    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(lambda n: hook(PRE, bash(f"sudo pip install p{n}"), "2026-11-20T10:00:00Z"), range(16)))
    assert days(db)[0][2] == 16
    assert scope(db)[0][1] == 16
    assert len(calls(db)) == history.KEPT_CALLS


@pytest.mark.parametrize(
    ("today", "boundary"),
    [("2026-11-20", "2025-11-01"), ("2026-03-01", "2025-03-01"), ("2024-02-29", "2023-03-01")],
)
def test_the_fold_boundary_is_the_first_of_a_month_a_year_back(today: str, boundary: str) -> None:
    assert history.fold_boundary(today) == boundary


_TEMPLATES: dict[int, Path] = {}


def _database(factory: pytest.TempPathFactory) -> sqlite3.Connection:
    """A new database in a write transaction: a copy of one made once per worker (a schema made
    per Hypothesis example took most of the property's ~13 s)."""
    template = _TEMPLATES.get(id(factory))
    if template is None:
        template = factory.mktemp("template") / "cortex.db"
        open_database(str(template), create=True).close()
        _TEMPLATES[id(factory)] = template
    path = factory.mktemp("fold") / "cortex.db"
    shutil.copy(template, path)
    connection = open_database(str(path))
    connection.execute("BEGIN")
    return connection


@given(
    st.lists(
        st.tuples(
            st.integers(1, 3),  # learning
            st.integers(0, 500),  # days before today
            st.integers(0, 5),
            st.integers(0, 5),
            st.integers(30, 90),
        ),
        max_size=60,
        unique_by=lambda row: (row[0], row[1]),
    )
)
def test_folding_keeps_every_count_and_each_months_last_confidence(
    tmp_path_factory: pytest.TempPathFactory, written: list[tuple[int, int, int, int, int]]
) -> None:
    today = date(2026, 11, 20)
    with closing(_database(tmp_path_factory)) as connection:
        for learning, back, denies, warnings, value in written:
            day = (today - timedelta(days=back)).isoformat()
            # what the agent did after the denies (docs/guide/outcomes.md): folded like every other count
            followed, retried = denies // 2, denies - denies // 2
            connection.execute(
                "INSERT INTO learning_day (learning_id, day, matches, denies, asks, warnings, rewrites,"
                " confidence, followed, retried) VALUES (:l, :d, :m, :de, 0, :w, 0, :c, :f, :r)",
                {
                    "l": learning,
                    "d": day,
                    "m": denies + warnings,
                    "de": denies,
                    "w": warnings,
                    "c": value,
                    "f": followed,
                    "r": retried,
                },
            )
            connection.execute(
                "INSERT INTO scope_day (day, matches, denies, warnings, followed, retried)"
                " VALUES (:d, :m, :de, :w, :f, :r) "
                "ON CONFLICT (day) DO UPDATE SET matches = matches + :m, denies = denies + :de, "
                "warnings = warnings + :w, followed = followed + :f, retried = retried + :r",
                {"d": day, "m": denies + warnings, "de": denies, "w": warnings, "f": followed, "r": retried},
            )
        sums = "SELECT sum(matches), sum(denies), sum(warnings), sum(followed), sum(retried) FROM {}"
        before = [
            connection.execute(sums.format(table)).fetchone() for table in ("learning_day", "scope_day")
        ]
        history.fold(connection, today.isoformat())
        history.fold(connection, today.isoformat())  # twice: nothing more to fold
        boundary = history.fold_boundary(today.isoformat())
        assert (
            connection.execute("SELECT count(*) FROM learning_day WHERE day < ?", (boundary,)).fetchone()[0]
            == 0
        )
        assert (
            connection.execute("SELECT count(*) FROM scope_day WHERE day < ?", (boundary,)).fetchone()[0] == 0
        )
        for days_table, months_table in (("learning_day", "learning_month"), ("scope_day", "scope_month")):
            after = [
                (a or 0) + (b or 0)
                for a, b in zip(
                    connection.execute(sums.format(days_table)).fetchone(),
                    connection.execute(sums.format(months_table)).fetchone(),
                    strict=True,
                )
            ]
            expected = before[0] if days_table == "learning_day" else before[1]
            assert after == [value or 0 for value in expected]
        last: dict[tuple[int, str], tuple[str, int]] = {}
        for learning, back, _, _, value in written:
            day = (today - timedelta(days=back)).isoformat()
            key = (learning, day[:7])
            if day < boundary and (key not in last or day > last[key][0]):
                last[key] = (day, value)
        months = dict(((row[0], row[1]), row[2]) for row in connection.execute(
            "SELECT learning_id, month, confidence FROM learning_month"
        ))  # fmt: skip
        assert months == {key: value for key, (_, value) in last.items()}
