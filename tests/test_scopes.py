"""The project and the user-global scope (docs/guide/scopes.md) in the hooks and the CLI: both checked, each
written where its rows live, each independent of the other."""

from __future__ import annotations

import shutil
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from support import cli, cli_json, payload, reminder_unless_regex, run

PRE, START, END = "cortex-pre-tool-use", "cortex-session-start", "cortex-session-end"


@pytest.fixture
def user_db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "home" / ".claude" / "memory" / "cortex-global.db"
    monkeypatch.setenv("CORTEX_GLOBAL_DB", str(path))
    return path


def bash(command: str, session: str = "s1") -> dict[str, Any]:
    return payload("pre_tool_use.bash", session_id=session, tool_input={"command": command})


def add(*args: str) -> dict[str, Any]:
    learning: dict[str, Any] = cli_json("add", *reminder_unless_regex(args))
    return learning


def test_the_default_global_database_is_under_claude_memory(tmp_path: Path) -> None:
    cli_json("remember", "tabs are evil", "--global")
    assert (tmp_path / "home" / ".claude" / "memory" / "cortex-global.db").exists()


def test_a_global_learning_denies_in_a_project_and_is_boosted_where_it_lives(db: Path, user_db: Path) -> None:
    add("--anti-pattern", "project rule", "--correct", "p", "--regex", "zzz")
    add(
        "--anti-pattern",
        "curl piped to sh",
        "--correct",
        "download first",
        "--regex",
        r"curl.*\| *sh",
        "--auto-block",
        "--global",
    )
    result = run(PRE, stdin=bash("curl x | sh"))
    assert result.code == 0, result.stderr
    reason = result.json()["hookSpecificOutput"]["permissionDecisionReason"]
    assert "learning #1 (global, medium, confidence 0.70 -> 0.80)" in reason
    assert cli_json("list", "--global")[0]["confidence"] == 0.8
    assert cli_json("list")[0]["access_count"] == 0  # the project's #1 untouched


def test_global_learnings_apply_where_the_project_has_no_database(tmp_path: Path, user_db: Path) -> None:
    add(
        "--anti-pattern",
        "rm -rf /srv/app",
        "--correct",
        "no",
        "--regex",
        "rm -rf /srv/app",
        "--auto-block",
        "--global",
    )
    nowhere = tmp_path / "fresh" / ".cortex" / "cortex.db"
    result = run(PRE, stdin=bash("rm -rf /srv/app"), env={"CORTEX_DB": str(nowhere)})
    assert result.json()["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert not nowhere.parent.exists()  # hooks never create a database


def test_no_database_in_either_scope_is_silence(tmp_path: Path, user_db: Path) -> None:
    result = run(PRE, stdin=bash("rm -rf /srv/app"), env={"CORTEX_DB": str(tmp_path / "none.db")})
    assert (result.code, result.stdout, result.stderr) == (0, "", "")
    assert not user_db.exists()


def test_session_end_decays_each_database_once_per_session(db: Path, user_db: Path) -> None:
    add("--anti-pattern", "a", "--correct", "b")
    add("--anti-pattern", "c", "--correct", "d", "--global")
    for _ in range(2):
        assert run(END, stdin=payload("session_end.other")).code == 0
    assert (cli_json("list")[0]["confidence"], cli_json("list", "--global")[0]["confidence"]) == (0.69, 0.69)


def test_session_start_review_lists_both_scopes_with_exact_commands(db: Path, user_db: Path) -> None:
    add("--anti-pattern", "project stale rule", "--correct", "x", "--confidence", "0.40")
    add("--anti-pattern", "global stale rule", "--correct", "y", "--confidence", "0.30", "--global")
    result = run(START, stdin=payload("session_start.startup"))
    context = result.json()["hookSpecificOutput"]["additionalContext"]
    assert "cortex-hooks: 2 learned anti-patterns" in context
    assert "`cortex-hooks keep 1 --global`" in context
    assert "`cortex-hooks keep 1`" in context
    assert context.index("project stale rule") < context.index("global stale rule")
    assert "2 learnings await review" in result.json()["systemMessage"]
    assert cli("keep", "1", "--global").code == 0
    assert cli_json("list", "--global")[0]["confidence"] == 0.7


@pytest.mark.parametrize("damage", ["corrupt", "newer", "directory"])
def test_a_broken_global_database_never_stops_the_project(db: Path, user_db: Path, damage: str) -> None:
    add("--anti-pattern", "rm -rf", "--correct", "trash", "--regex", "rm -rf", "--auto-block")
    cli_json("remember", "global note", "--global")
    if damage == "corrupt":
        user_db.write_bytes(b"not a database at all" * 100)
    elif damage == "newer":
        with closing(sqlite3.connect(user_db)) as connection:
            connection.execute("PRAGMA user_version = 999")
    else:
        user_db.unlink()
        user_db.mkdir()
    before = user_db.read_bytes() if user_db.is_file() else None
    result = run(PRE, stdin=bash("rm -rf build"))
    assert result.code == 0, result.stderr
    assert result.json()["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "global database skipped" in result.stderr
    end = run(END, stdin=payload("session_end.other"))
    assert end.code == 1  # a hook error names the skipped scope ...
    assert "global database skipped" in end.stderr
    assert cli_json("list")[0]["confidence"] == 0.79  # ... and the project decayed all the same
    start = run(START, stdin=payload("session_start.startup"))
    assert "blocked: rm -rf" in start.json()["hookSpecificOutput"]["additionalContext"]
    assert cli_json("recall", "rm")[0]["kind"] == "learning"  # recall uses the scope it can
    if before is not None:
        assert user_db.read_bytes() == before  # never written


def test_a_broken_project_database_never_stops_the_global_one(db: Path, user_db: Path) -> None:
    add("--anti-pattern", "rm -rf", "--correct", "trash", "--regex", "rm -rf", "--auto-block", "--global")
    db.write_bytes(b"garbage" * 1000)
    result = run(PRE, stdin=bash("rm -rf build"))
    assert result.json()["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "project database skipped" in result.stderr


def test_parallel_remembers_and_matches_across_both_scopes_lose_nothing(db: Path, user_db: Path) -> None:
    add("--anti-pattern", "p", "--correct", "x", "--regex", "sudo")
    add("--anti-pattern", "g", "--correct", "y", "--regex", "sudo", "--global")
    jobs = [("remember", f"note number {n}", *(["--global"] if n % 2 else [])) for n in range(20)]
    with ThreadPoolExecutor(max_workers=10) as pool:
        remembered = list(pool.map(lambda job: cli(*job), jobs))
        matched = list(pool.map(lambda n: run(PRE, stdin=bash(f"sudo make {n}")), range(20)))
    assert all(result.code == 0 for result in remembered + matched)
    assert len(cli_json("memories", "list")) == 10
    assert len(cli_json("memories", "list", "--global")) == 10
    assert cli_json("list")[0]["access_count"] == 20
    assert cli_json("list", "--global")[0]["access_count"] == 20


def test_export_and_import_per_scope(tmp_path: Path, user_db: Path) -> None:
    add("--anti-pattern", "global one", "--correct", "y", "--global")
    exported = tmp_path / "global.json"
    assert cli("export", "--global", "--output", str(exported)).code == 0
    assert cli("import", str(exported)).code == 0
    assert [row["anti_pattern"] for row in cli_json("list")] == ["global one"]
    shutil.rmtree(user_db.parent)
    assert cli_json("list", "--global") == []


def test_explain_decides_with_both_scopes_as_the_hook_does(db: Path, user_db: Path) -> None:
    add("--anti-pattern", "local warn", "--correct", "x", "--regex", "deploy")
    add("--anti-pattern", "global block", "--correct", "y", "--regex", "deploy", "--auto-block", "--global")
    explained = cli_json("explain", "--tool", "Bash", "--command", "deploy now")
    hook = run(PRE, stdin=bash("deploy now"))
    assert explained["decision"] == "deny"
    assert explained["output"] == hook.json()  # the very output the hook printed
    assert {(r["scope"], r["effect"]) for r in explained["learnings"]} == {
        ("project", "warn"),
        ("global", "deny"),
    }
