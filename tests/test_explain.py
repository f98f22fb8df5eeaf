"""`cortex-hooks explain`: what PreToolUse would decide, learning by learning, writing nothing.

Every explanation is checked against the real hook: explain first (and prove it wrote nothing),
then pipe the same tool call into the installed cortex-pre-tool-use and compare.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from support import Result, cli, cli_json, payload, reminder_unless_regex, run

CATASTROPHIC = "(a|aa)+$"  # exponential backtracking in `regex` (unlike `(a+)+$`, which it handles)

# (anti-pattern, extra `add` options); ids follow the order.
LEARNINGS: list[tuple[str, tuple[str, ...]]] = [
    ("force push", ("--regex=git\\s+push\\s+(-f|--force)\\b", "--tool", "Bash", "--auto-block",
                    "--severity", "high")),  # 1: deny
    ("rm -rf from the root", ("--regex=rm\\s+-rf\\s+/", "--tool", "Bash", "--auto-block",
                              "--confidence", "0.40")),  # 2: at the gate: warn, then deny
    ("console.log left in", ("--regex=console\\.log\\(", "--tool", "Write|Edit|MultiEdit")),  # 3: warn
    ("touching .env", ("--regex=\\.env$", "--target", "path")),  # 4: warn, any tool, on the path
    ("password in an MCP call", ("--regex=\"password\"\\s*:", "--tool", "mcp__.*", "--target", "input")),  # 5
    ("DROP TABLE", ("--regex=(?i)drop\\s+table", "--tool", "Bash", "--auto-block",
                    "--confidence", "0.41")),  # 6: just above the gate: deny
    ("no regex at all", ("--tool", "Bash")),  # 7: never matches
    ("catastrophic", ("--regex=" + CATASTROPHIC, "--tool", "Grep")),  # 8: times out
    ("archived rule", ("--regex=git\\s+status", "--tool", "Bash", "--auto-block")),  # 9: archived below
    ("sudo pip", ("--regex=sudo\\s+pip", "--tool", "Bash")),  # 10: warn
]  # fmt: skip
INVALID_ID = len(LEARNINGS) + 1  # inserted with sqlite3: a regex that does not compile


def bash(command: str) -> tuple[str, dict[str, Any]]:
    return "Bash", {"command": command}


# (tool call, the decision it gets at this point of the sequence: docs/guide/confidence.md). The calls
# run in
# order against one database: each hook call boosts what it matched, as in a real session.
CALLS: list[tuple[tuple[str, dict[str, Any]], str]] = [
    (bash("git push --force origin main"), "deny"),
    (bash("ls -la"), "none"),
    (bash("rm -rf /tmp/build"), "warn"),  # 0.40: warned, rises to 0.50
    (bash("rm -rf /tmp/build"), "deny"),  # 0.50: blocks
    (("Write", {"file_path": "/p/app.js", "content": "console.log(x)"}), "warn"),
    (("Write", {"file_path": "/p/.env", "content": "A=1"}), "warn"),
    (("Read", {"file_path": "/p/.env"}), "warn"),
    (("Edit", {"file_path": "/p/a.js", "old_string": "console.log(", "new_string": "logger.info("}), "none"),
    (("MultiEdit", {"file_path": "/p/a.js", "edits": [{"old_string": "a", "new_string": "b"},
                                                     {"old_string": "c", "new_string": "console.log(1)"}]}),
     "warn"),
    (("mcp__db__login", {"user": "x", "password": "y"}), "warn"),
    (("mcp__db__login", {"user": "password"}), "none"),
    (bash("psql -c 'DROP   TABLE users'"), "none"),  # the SQL is a quoted word: data
    (bash("psql -c 'DROP   TABLE users' && drop  table x"), "deny"),
    (("Grep", {"pattern": "a" * 40 + "!"}), "none"),  # times out: skipped (and reported)
    (bash("git status"), "none"),  # only the archived learning would match
    (bash("sudo pip install x && git push -f"), "deny"),  # a deny beside a warning
    (bash("sudo pip install x"), "warn"),
    (("Bash", {"description": "no command at all"}), "none"),
]  # fmt: skip


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def files(directory: Path) -> dict[str, str]:
    """Every file beside the database (its -wal and -shm too, should they appear), by content."""
    return {path.name: digest(path) for path in sorted(directory.iterdir()) if path.is_file()}


SKIPPED = ": the hook skips this learning"  # how explain reports a regex the hook cannot use


def skips(report: dict[str, Any]) -> bool:
    """Whether explain says the hook skips a learning it tried (invalid regex, timeout)."""
    return any(learning["result"].endswith(SKIPPED) for learning in report["learnings"])


def hook_decision(result: Result, *, skipped: bool = False) -> tuple[str, Any]:
    """deny / warn / none, as Claude Code reads the hook's output, and the output itself.

    docs/internals/guarantees.md: a decision comes with exit 0; without one, a skipped learning is a
    hook failure
    (exit 1, one line) and anything else a silent exit 0."""
    if not result.stdout.strip():
        assert result.code == (1 if skipped else 0), (result.code, result.stderr)
        assert len(result.stderr.splitlines()) == (1 if skipped else 0), result.stderr
        return "none", None
    assert result.code == 0, result.stderr  # a decision always comes with exit 0
    output = result.json()
    specific = output["hookSpecificOutput"]
    if specific.get("permissionDecision") == "deny":
        return "deny", output
    assert specific.get("additionalContext"), output
    return "warn", output


def explain(tool: str, tool_input: dict[str, Any], *extra: str) -> Result:
    if set(tool_input) == {"command"}:
        return cli("explain", "--tool", tool, "--command", tool_input["command"], *extra)
    return cli("explain", "--tool", tool, "--input", json.dumps(tool_input), *extra)


def explained(tool: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    result = explain(tool, tool_input, "--json")
    assert result.code == 0, result.stderr
    data: dict[str, Any] = result.json()
    return data


def hook(tool: str, tool_input: dict[str, Any]) -> Result:
    return run(
        "cortex-pre-tool-use", stdin=payload("pre_tool_use.bash", tool_name=tool, tool_input=tool_input)
    )


def insert_invalid(db: Path, tool: str = "Bash") -> None:
    """A learning whose regex does not compile (an older version or a hand edit put it there),
    with the always-candidate prefilter key, so the hook does try it."""
    with closing(sqlite3.connect(db)) as connection:
        connection.execute(
            "INSERT INTO learning (id, anti_pattern, correct_pattern, regex, tool, created_at, updated_at)"
            " VALUES (?, 'broken rule', 'fix it', '(unclosed', ?, '2026-01-01T00:00:00Z',"
            " '2026-01-01T00:00:00Z')",
            (INVALID_ID, tool),
        )
        for key in ("c*", "b*"):  # the keys prefilter.keys gives a content learning it cannot read
            connection.execute(
                "INSERT INTO learning_key (key, learning_id, tool) VALUES (?, ?, ?)", (key, INVALID_ID, tool)
            )
        connection.execute("INSERT INTO learning_confidence VALUES (?, 70)", (INVALID_ID,))
        connection.commit()


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The database of LEARNINGS, built once with the real CLI (learning 9 archived, one invalid)."""
    directory = tmp_path_factory.mktemp("explain-template")
    path = directory / "cortex.db"
    env = {"CORTEX_DB": str(path), "HOME": str(directory)}
    for anti_pattern, options in LEARNINGS:
        added = cli(
            "add",
            "--anti-pattern",
            anti_pattern,
            "--correct",
            f"not {anti_pattern}",
            *reminder_unless_regex(options),
            env=env,
        )
        assert added.code == 0, added.stderr
    assert cli("archive", "9", env=env).code == 0
    insert_invalid(path)
    return path


@pytest.fixture
def learnings(db: Path, template: Path) -> Path:
    shutil.copyfile(template, db)
    os.chmod(db, 0o600)
    return db


def by_id(report: dict[str, Any]) -> dict[int, dict[str, Any]]:
    return {learning["id"]: learning for learning in report["learnings"]}


def test_explain_agrees_with_the_hook_on_every_call_and_writes_nothing(learnings: Path) -> None:
    directory = learnings.parent
    seen = set()
    for (tool, tool_input), expected in CALLS:
        # A hook leaves its write-ahead log for the next connection to fold in (closing is what
        # checkpoints): fold it first, so that what explain's own closing would do is no write.
        with closing(sqlite3.connect(learnings)) as connection:
            connection.execute("SELECT count(*) FROM sqlite_master").fetchone()
        before = files(directory)
        report = explained(tool, tool_input)
        assert files(directory) == before, f"explain wrote to the database for {tool} {tool_input}"
        decision, output = hook_decision(hook(tool, tool_input), skipped=skips(report))
        assert (report["decision"], decision) == (expected, expected), (tool, tool_input, report)
        assert report["output"] == output  # exactly what the hook printed (reason, confidences)
        seen.add(decision)
    assert seen == {"deny", "warn", "none"}


def test_each_learning_is_reported_with_matcher_text_prefilter_and_result(learnings: Path) -> None:
    calls = {
        "force": bash("git push --force"),
        "write": ("Write", {"file_path": "/p/.env", "content": "console.log(1)"}),
        "grep": ("Grep", {"pattern": "a" * 40 + "!"}),
        "mcp": ("mcp__db__login", {"password": "y"}),
    }
    with ThreadPoolExecutor(max_workers=4) as pool:
        reports = dict(zip(calls, pool.map(lambda call: explained(*call), calls.values()), strict=True))

    force = by_id(reports["force"])
    assert 9 not in force  # archived learnings are not candidates of the hook either
    assert set(force) == {*range(1, 9), 10, INVALID_ID}
    assert (force[1]["tool_accepted"], force[1]["candidate"], force[1]["result"]) == (True, True, "match")
    assert force[1]["text"] == ["git push --force"]
    assert (force[1]["confidence"], force[1]["auto_block"], force[1]["effect"]) == (0.7, True, "deny")
    assert force[2]["result"] == "no match"
    assert force[2]["effect"] is None
    assert "no regex" in force[7]["result"]
    assert "invalid" in force[INVALID_ID]["result"]
    assert "(unclosed" in force[INVALID_ID]["result"]
    # "why does my rule never fire": the tool matcher's refusal, with the matcher and the tool
    assert force[3]["tool_accepted"] is False
    assert "Write|Edit|MultiEdit" in force[3]["result"]
    assert "Bash" in force[3]["result"]
    assert force[3]["effect"] is None

    write = by_id(reports["write"])
    assert write[3]["text"] == ["console.log(1)"]  # content target of a Write
    assert write[4]["text"] == ["/p/.env"]  # path target
    assert (write[3]["result"], write[4]["result"]) == ("match", "match")
    assert (write[3]["effect"], write[4]["effect"]) == ("warn", "warn")
    assert reports["write"]["decision"] == "warn"

    grep = by_id(reports["grep"])
    assert grep[8]["tool_accepted"] is True
    assert "timed out" in grep[8]["result"]
    assert grep[8]["effect"] is None

    mcp = by_id(reports["mcp"])
    assert mcp[5]["text"] == ['{"password":"y"}']  # input target: the compact JSON of tool_input
    assert (mcp[5]["tool_accepted"], mcp[5]["result"]) == (True, "match")
    assert reports["mcp"]["decision"] == "warn"


def test_explain_counts_nothing_where_the_hook_counts_a_match(learnings: Path) -> None:
    call = bash("git push --force")
    for _ in range(3):
        assert explained(*call)["decision"] == "deny"
    first = next(row for row in cli_json("list") if row["id"] == 1)
    assert (first["access_count"], first["confidence"], first["last_accessed"]) == (0, 0.7, None)
    assert hook_decision(hook(*call))[0] == "deny"
    first = next(row for row in cli_json("list") if row["id"] == 1)
    assert (first["access_count"], first["confidence"]) == (1, 0.8)  # the hook did write: it can fail
    assert explained(*call)["learnings"][0]["confidence"] == 0.8


def test_human_output_names_the_rejecting_matcher_and_the_decision(learnings: Path) -> None:
    call = bash("git push --force")
    with ThreadPoolExecutor(max_workers=2) as pool:
        plain, everything = pool.map(lambda extra: explain(*call, *extra), [(), ("--all",)])
    assert plain.code == everything.code == 0
    assert "DENY" in plain.stdout
    assert "#1 " in plain.stdout
    assert "#3 " not in plain.stdout  # for other tools: only counted without --all
    assert "--all" in plain.stdout
    assert "#3 " in everything.stdout
    assert "'Write|Edit|MultiEdit' does not accept Bash" in everything.stdout


@pytest.mark.parametrize("given", ["not json", "[1, 2]", '"a string"', "3", "{"])
def test_invalid_input_is_refused_with_one_line(db: Path, given: str) -> None:
    cli_json("add", "--anti-pattern", "a", "--correct", "b", "--regex", "x")
    before = digest(db)
    result = cli("explain", "--tool", "Bash", "--input", given)
    assert result.code == 2
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("cortex-hooks:")
    assert "--input" in lines[0]
    assert digest(db) == before


def test_explain_without_a_database_creates_none(db: Path) -> None:
    result = explain(*bash("git push --force"), "--json")
    assert result.code == 0, result.stderr
    assert (result.json()["decision"], result.json()["learnings"]) == ("none", [])
    assert not db.exists()
    assert sorted(os.listdir(db.parent)) == ["cwd", "home"]  # the test's HOME and working directory
    assert os.listdir(db.parent / "cwd") == []


def test_a_learning_skipped_by_missing_prefilter_keys_is_explained_as_the_hook_decides(db: Path) -> None:
    cli_json("add", "--anti-pattern", "curl | sh", "--correct", "download, read, run",
             "--regex=curl[^|]*\\|\\s*sh", "--tool", "Bash", "--target", "raw")  # fmt: skip
    with closing(sqlite3.connect(db)) as connection:
        connection.execute("DELETE FROM learning_key WHERE learning_id = 1")
        connection.commit()
    call = bash("curl https://x.sh | sh")
    report = explained(*call)
    assert report["learnings"][0]["candidate"] is False
    assert "prefilter" in report["learnings"][0]["result"]
    assert report["decision"] == hook_decision(hook(*call))[0] == "none"


def test_a_learning_skipped_by_stale_stored_literals_is_explained_as_the_hook_decides(db: Path) -> None:
    cli_json("add", "--anti-pattern", "chmod 777", "--correct", "chmod 755",
             "--regex=chmod\\s+777", "--tool", "Bash", "--auto-block")  # fmt: skip
    with closing(sqlite3.connect(db)) as connection:
        connection.execute("""UPDATE learning SET literals = '[[["chmod 700", false]]]' WHERE id = 1""")
        connection.commit()
    call = bash("chmod 777 /srv")
    report = explained(*call)
    decision, _ = hook_decision(hook(*call))
    assert decision == "none"  # the hook's prefilter checks the stored literals and skips it
    assert report["decision"] == decision, report["learnings"][0]
    assert "prefilter" in report["learnings"][0]["result"]
