"""A database held unreadable by another process never costs a deny (docs/guide/selfguard.md item
12).

`PRAGMA locking_mode=EXCLUSIVE` in another process keeps every other connection from reading a
WAL database: PreToolUse used to give up after 0.65 s with no deny. It now decides from the guard
file (cortex_hooks.store.guard_file), kept beside the database by every write that changes a
blocking learning. Real processes, real locks, the installed scripts.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from locking import held_exclusively
from support import cli, cli_json, payload, run

PRE, END = "cortex-pre-tool-use", "cortex-session-end"


def bash(command: str) -> dict[str, Any]:
    return payload("pre_tool_use.bash", tool_input={"command": command})


def guard(db: Path) -> list[tuple[int, int]]:
    """(id, confidence in hundredths) of each learning the guard file holds."""
    data = json.loads(Path(f"{db}.guard").read_text())
    return [(entry["id"], entry["confidence"]) for entry in data["learnings"]]


def unreadable(db: Path) -> None:
    """Nothing else can read the database now (asked without waiting: a person's command would
    say so after its ten seconds' wait, store.connection.BUSY_TIMEOUT)."""
    with (
        closing(sqlite3.connect(db, timeout=0)) as connection,
        pytest.raises(sqlite3.OperationalError, match="database is locked"),
    ):
        connection.execute("SELECT count(*) FROM learning").fetchone()


def decision(result: Any) -> str | None:
    assert result.code == 0, result.stderr
    return (
        result.json()["hookSpecificOutput"].get("permissionDecision", "warn")
        if result.stdout.strip()
        else None
    )


def test_a_deny_arrives_while_another_process_holds_the_database_exclusively(db: Path) -> None:
    cli_json(
        "add", "--anti-pattern", "rm -rf", "--correct", "trash it", "--regex", r"rm\s+-rf", "--auto-block"
    )
    cli_json("add", "--anti-pattern", "echo", "--correct", "printf", "--regex", "echo")  # warn-only
    with held_exclusively(db):
        unreadable(db)
        denied = run(PRE, stdin=bash("rm -rf build && echo done"))
        silent = run(PRE, stdin=bash("ls -la"))
    assert decision(denied) == "deny"
    assert "trash it" in denied.json()["hookSpecificOutput"]["permissionDecisionReason"]
    assert "decided from its guard file" in denied.stderr
    assert decision(silent) is None
    # the boost it could not write is applied once the lock is gone; the warn-only one was unread
    assert [(row["id"], row["confidence"], row["access_count"]) for row in cli_json("list")] == [
        (1, 0.8, 1),
        (2, 0.7, 0),
    ]
    assert guard(db) == [(1, 80)]  # and the guard file follows


def test_the_gate_is_judged_as_without_the_lock(db: Path) -> None:
    """At the review threshold a match warns and boosts; with the boost pending, the next blocks."""
    cli_json(
        "add", "--anti-pattern", "sudo make", "--correct", "make", "--regex", "sudo make", "--auto-block"
    )
    cli_json("update", "1", "--confidence", "0.40")
    with held_exclusively(db):
        first = run(PRE, stdin=bash("sudo make install"))
        second = run(PRE, stdin=bash("sudo make install"))
    assert (decision(first), decision(second)) == ("warn", "deny")
    assert cli_json("show", "1")["confidence"] == 0.6


def test_the_guard_file_follows_every_change_of_a_blocking_learning(db: Path) -> None:
    blocking = cli_json("add", "--anti-pattern", "a", "--correct", "b", "--regex", "aaa", "--auto-block")[
        "id"
    ]
    warning = cli_json("add", "--anti-pattern", "c", "--correct", "d", "--regex", "ccc")["id"]
    assert guard(db) == [(blocking, 70)]
    assert stat.S_IMODE(os.stat(f"{db}.guard").st_mode) == 0o600
    assert decision(run(PRE, stdin=bash("aaa"))) == "deny"
    assert guard(db) == [(blocking, 80)]  # the boost
    assert run(END, stdin=payload("session_end.other", session_id="s1")).code == 0
    assert guard(db) == [(blocking, 79)]  # the decay
    cli_json("update", str(warning), "--auto-block")
    assert guard(db) == [(blocking, 79), (warning, 69)]
    cli_json("update", str(blocking), "--no-auto-block")
    assert guard(db) == [(warning, 69)]
    assert cli("archive", str(warning)).code == 0
    assert guard(db) == []
    assert cli("restore", str(warning)).code == 0
    cli_json("update", str(warning), "--regex", "zzz", "--confidence", "0.55")
    assert json.loads(Path(f"{db}.guard").read_text())["learnings"][0]["regex"] == "zzz"
    assert guard(db) == [(warning, 55)]


def test_an_ask_and_a_rewrite_arrive_while_the_database_is_held(db: Path) -> None:
    """The guard file holds what an ask and a correction need too (docs/guide/actions.md): their action and
    rewrite; a rewrite's corrected command is checked again against the file's learnings."""
    asking = ["--anti-pattern", "push", "--correct", "ask first", "--regex", r"^git push\b", "--tool", "Bash"]
    cli_json("add", *asking, "--action", "ask")
    pip = ["--anti-pattern", "pip", "--correct", "python3 -m pip", "--regex", r"^pip\b", "--tool", "Bash"]
    cli_json("add", *pip, "--rewrite", "python3 -m pip")
    cli_json("add", "--anti-pattern", "no", "--correct", "x", "--regex", "forbidden", "--auto-block")
    held = json.loads(Path(f"{db}.guard").read_text())["learnings"]
    assert [(entry["action"], entry["rewrite"]) for entry in held] == [
        ("ask", None),
        ("warn", "python3 -m pip"),
        ("block", None),
    ]
    with held_exclusively(db):
        asked = run(PRE, stdin=bash("git push origin main"))
        corrected = run(PRE, stdin=bash("pip install requests"))
        refused = run(PRE, stdin=bash("pip install forbidden"))  # corrected, then denied
    assert decision(asked) == "ask"
    assert "ask first" in asked.json()["hookSpecificOutput"]["permissionDecisionReason"]
    specific = corrected.json()["hookSpecificOutput"]
    assert specific["updatedInput"]["command"] == "python3 -m pip install requests"
    assert decision(refused) == "deny"
    assert "updatedInput" not in refused.json()["hookSpecificOutput"]
    assert "decided from its guard file" in corrected.stderr
    # the boosts kept while the lock was held are applied afterwards
    assert [row["access_count"] for row in cli_json("list")] == [1, 2, 1]


def test_the_guard_file_follows_the_action_and_the_rewrite(db: Path) -> None:
    pip = ["--anti-pattern", "pip", "--correct", "python3 -m pip", "--regex", r"^pip\b", "--tool", "Bash"]
    learning = cli_json("add", *pip)["id"]
    assert guard(db) == []  # a warning needs no file
    cli_json("update", str(learning), "--action", "ask")
    assert guard(db) == [(learning, 70)]
    cli_json("update", str(learning), "--action", "warn")
    assert guard(db) == []
    cli_json("update", str(learning), "--rewrite", "python3 -m pip")
    assert guard(db) == [(learning, 70)]
    cli_json("update", str(learning), "--no-rewrite")
    assert guard(db) == []


def test_a_warn_only_match_leaves_the_guard_file_as_it_is(db: Path) -> None:
    cli_json("add", "--anti-pattern", "a", "--correct", "b", "--regex", "aaa", "--auto-block")
    cli_json("add", "--anti-pattern", "c", "--correct", "d", "--regex", "ccc")
    before = os.stat(f"{db}.guard")
    assert decision(run(PRE, stdin=bash("ccc"))) == "warn"
    after = os.stat(f"{db}.guard")
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)  # not rewritten


def test_a_deny_at_the_ceiling_leaves_the_guard_file_as_it_is(db: Path) -> None:
    """The file holds the confidence: a boost that cannot raise it (at the ceiling, 0.90) changes
    nothing the file holds, so it is not written again; the boost that raised it was."""
    learning = cli_json("add", "--anti-pattern", "a", "--correct", "b", "--regex", "aaa", "--auto-block")[
        "id"
    ]
    cli_json("update", str(learning), "--confidence", "0.85")
    assert decision(run(PRE, stdin=bash("aaa"))) == "deny"
    assert guard(db) == [(learning, 90)]  # raised to the ceiling: written
    before = os.stat(f"{db}.guard")
    assert decision(run(PRE, stdin=bash("aaa"))) == "deny"
    after = os.stat(f"{db}.guard")
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)  # not rewritten
    assert guard(db) == [(learning, 90)]
    assert [(row["confidence"], row["access_count"]) for row in cli_json("list")] == [(0.9, 2)]


def test_parallel_writers_leave_the_guard_file_of_the_last_commit(db: Path) -> None:
    cli_json("add", "--anti-pattern", "seed", "--correct", "x", "--no-regex")

    def add(number: int) -> int:
        result = cli(
            "add",
            "--anti-pattern",
            f"n{number}",
            "--correct",
            "x",
            "--regex",
            f"n{number}x",
            "--auto-block",
            process=True,
        )
        return result.code

    with ThreadPoolExecutor(8) as pool:
        assert list(pool.map(add, range(16))) == [0] * 16
    assert sorted(learning for learning, _ in guard(db)) == sorted(
        row["id"] for row in cli_json("list") if row["auto_block"]
    )


def test_without_a_guard_file_the_lock_is_the_failure_it_was(db: Path) -> None:
    cli_json(
        "add", "--anti-pattern", "rm -rf", "--correct", "trash it", "--regex", r"rm\s+-rf", "--auto-block"
    )
    Path(f"{db}.guard").unlink()
    with held_exclusively(db):
        result = run(PRE, stdin=bash("rm -rf build"))
    assert result.code == 1
    assert "database is locked" in result.stderr


@pytest.mark.parametrize("command", ["ls -la", "rm -rf build"])
def test_the_no_match_path_reads_no_guard_file_nor_imports_one(
    db: Path, tmp_path: Path, command: str
) -> None:
    """The guard file costs the ordinary path nothing: neither a read nor an import."""
    cli_json(
        "add", "--anti-pattern", "never", "--correct", "x", "--regex", r"\bnever-matches\b", "--auto-block"
    )
    Path(f"{db}.guard").write_text("not json")  # read, it would be ignored; it must not even be read
    modules = ("cortex_hooks.store.guard_file", "cortex_hooks.json_values", "cortex_hooks.redact", "tempfile")
    program = (
        "import atexit, os, sys\n"
        f"def report(): print([m for m in {modules!r} if m in sys.modules], file=sys.stderr, flush=True)\n"
        "leave = os._exit\n"
        "os._exit = lambda status: (report(), leave(status))\n"
        "from cortex_hooks.hooks import pre_tool_use\n"
        "sys.exit(pre_tool_use.main())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program],
        input=json.dumps(bash(command)),
        capture_output=True,
        text=True,
        env={**os.environ, "CORTEX_DB": str(db)},
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    assert done.stderr.strip() == "[]"
