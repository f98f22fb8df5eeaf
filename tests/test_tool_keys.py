"""The prefilter keys carry their learning's tool matcher (schema 13): PreToolUse drops the
learnings of other tools in the index, and whatever changes a learning's tool (the CLI, an import,
the sqlite3 shell) changes which calls it decides, exactly as its new matcher says."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
import support
from support import Result, cli, cli_json, cli_process, payload, run, script

from cortex_hooks.guard import prefilter
from cortex_hooks.store import learnings
from cortex_hooks.store.connection import open_database

HOOK = "cortex-pre-tool-use"
MARKER = "ZQX-MARKER"  # in the input of every call below, whatever the tool
CALLS: dict[str, dict[str, Any]] = {
    "Bash": {"command": f"echo {MARKER}", "description": "x"},
    "Edit": {"file_path": "/p/a.txt", "old_string": "a", "new_string": MARKER},
    "Write": {"file_path": "/p/a.txt", "content": MARKER},
    "mcp__jira__get_issue": {"issue": MARKER},
}


def add(tool: str, *options: str) -> int:
    """A learning on `tool` that matches MARKER anywhere in its input."""
    return support.add(
        "--target", "input", f"--tool={tool}", *options, anti="the marker", correct="no", regex=MARKER
    )


def decide(tool_name: str) -> Result:
    return run(HOOK, stdin=payload("pre_tool_use.bash", tool_name=tool_name, tool_input=CALLS[tool_name]))


def decided(learning_id: int) -> set[str]:
    """The tools of CALLS whose call this learning denies."""
    tools = set()
    for tool_name in CALLS:
        result = decide(tool_name)
        assert result.code == 0, result.stderr
        if result.stdout:
            specific = result.json()["hookSpecificOutput"]
            assert specific["permissionDecision"] == "deny"
            if f"learning #{learning_id} " in specific["permissionDecisionReason"]:
                tools.add(tool_name)
    return tools


def shell(db: Path, statement: str) -> None:
    """What a person does with the sqlite3 shell: no function or code of ours involved."""
    subprocess.run(["sqlite3", str(db), statement], check=True, capture_output=True)


def sql(db: Path, statement: str, *parameters: Any) -> None:
    with closing(sqlite3.connect(db)) as connection:
        connection.execute(statement, parameters)
        connection.commit()


def doctor_on(learning_id: int, *args: str) -> list[dict[str, Any]]:
    """What `doctor` says about one learning (its exit status also reflects the rest of the set-up)."""
    checks: list[dict[str, Any]] = cli("doctor", *args, "--json").json()["checks"]
    return [check for check in checks if check["check"] == f"learning #{learning_id}"]


def key_tools(db: Path) -> set[tuple[int, object]]:
    with closing(sqlite3.connect(db)) as connection:
        return set(connection.execute("SELECT learning_id, tool FROM learning_key").fetchall())


# --- the hook decides by the matcher the learning has now ----------------------------------------


def test_update_tool_through_the_cli_moves_the_decisions_to_the_new_tools(db: Path) -> None:
    learning = add("Bash", "--auto-block")
    assert decided(learning) == {"Bash"}
    updated = cli_process("update", str(learning), "--tool", "Edit|Write", "--json")
    assert updated.code == 0, updated.stderr
    assert key_tools(db) == {(learning, "Edit|Write")}
    assert decided(learning) == {"Edit", "Write"}
    cli_json("update", str(learning), "--tool", "mcp__jira__.*")
    assert decided(learning) == {"mcp__jira__get_issue"}
    cli_json("update", str(learning), "--tool", "*")
    assert decided(learning) == set(CALLS)


@pytest.mark.skipif(shutil.which("sqlite3") is None, reason="the sqlite3 shell is not installed")
def test_a_tool_changed_with_the_sqlite3_shell_is_followed_by_the_keys(db: Path) -> None:
    learning = add("Edit", "--auto-block")
    other = add("Write", "--auto-block")
    assert (decided(learning), decided(other)) == ({"Edit"}, {"Write"})
    shell(db, f"UPDATE learning SET tool = 'Bash|mcp__.*' WHERE id = {learning}")
    assert key_tools(db) == {(learning, "Bash|mcp__.*"), (other, "Write")}
    assert (decided(learning), decided(other)) == ({"Bash", "mcp__jira__get_issue"}, {"Write"})
    assert doctor_on(learning) == []  # its keys are as they should be: nothing stale


def test_an_imported_learning_is_keyed_with_its_tool(db: Path, tmp_path: Path) -> None:
    source = tmp_path / "import.json"
    imported = {"anti_pattern": "m", "correct_pattern": "n", "regex": MARKER, "target": "input"}
    source.write_text(json.dumps([{**imported, "tool": "Write", "auto_block": True}]))
    assert cli_process("import", str(source)).code == 0
    (learning,) = {learning for learning, _ in key_tools(db)}
    assert key_tools(db) == {(learning, "Write")}
    assert decided(learning) == {"Write"}


def test_a_hand_edited_tool_that_is_not_text_is_refused_at_write(db: Path) -> None:
    learning = add("Bash", "--auto-block")
    with pytest.raises(sqlite3.IntegrityError, match="cannot store BLOB"):
        sql(db, "UPDATE learning SET tool = ? WHERE id = ?", b"Bash", learning)
    assert key_tools(db) == {(learning, "Bash")}  # its keys as they were
    assert decided(learning) == {"Bash"}


# --- the store: a lookup for one tool never reads the learnings of others -------------------------


def test_candidates_skip_learnings_whose_matcher_does_not_accept_the_tool(db: Path) -> None:
    matchers = ["Bash", "Edit|Write", "mcp__jira__.*", "*", "NotebookEdit"]
    ids = {matcher: add(matcher) for matcher in matchers}
    ids[""] = add("Bash")  # made empty below (Claude Code reads an empty matcher as every tool)
    keys = json.dumps(prefilter.keys(MARKER, "input"))
    with closing(open_database(str(db))) as connection:
        connection.execute("UPDATE learning SET tool = '' WHERE id = :id", {"id": ids[""]})
        found = {
            tool_name: [row.id for row in learnings.candidates(connection, keys, tool_name)]
            for tool_name in ("Bash", "Edit", "mcp__jira__get_issue", "Read")
        }
    every = {"*": ids["*"], "": ids[""]}
    assert found == {
        "Bash": sorted([ids["Bash"], *every.values()]),
        "Edit": sorted([ids["Edit|Write"], *every.values()]),
        "mcp__jira__get_issue": sorted([ids["mcp__jira__.*"], *every.values()]),
        "Read": sorted(every.values()),
    }


# --- PreToolUse leaves without the interpreter's teardown: nothing it says is lost ---------------


def test_the_hook_says_everything_before_its_quick_exit_into_files(db: Path, tmp_path: Path) -> None:
    """Files are block-buffered, unlike a terminal: the deny and the note on the skipped learning
    (its regex does not compile) both reach them (hooks/pipeline.leave flushes before it ends the
    process)."""
    sound = add("Bash", "--auto-block")
    odd = add("Bash", "--auto-block")
    sql(db, "UPDATE learning SET regex = '(unclosed' WHERE id = ?", odd)  # its keys as they were
    call = payload("pre_tool_use.bash", tool_name="Bash", tool_input=CALLS["Bash"])
    out, err = tmp_path / "out", tmp_path / "err"
    buffered = {name: value for name, value in os.environ.items() if name != "PYTHONUNBUFFERED"}
    with out.open("wb") as stdout, err.open("wb") as stderr:
        done = subprocess.run(
            [script(HOOK)], input=json.dumps(call).encode(), stdout=stdout, stderr=stderr, env=buffered,
            check=False,
        )  # fmt: skip
    assert done.returncode == 0
    reason = json.loads(out.read_text())["hookSpecificOutput"]["permissionDecisionReason"]
    assert f"learning #{sound} " in reason
    assert err.read_text().startswith(f"cortex-hooks: PreToolUse: learning #{odd} skipped: invalid regex")


def test_doctor_names_keys_whose_tool_is_not_their_learnings_and_update_mends_them(db: Path) -> None:
    learning = add("Bash", "--auto-block")
    sql(db, "UPDATE learning_key SET tool = 'Edit' WHERE learning_id = ?", learning)  # bypasses the trigger
    assert decided(learning) == set()  # the index says Edit, the learning Bash: no tool gets through
    (said,) = doctor_on(learning)
    assert "prefilter data is missing or stale" in said["detail"]
    assert said["fix"] == f"cortex-hooks update {learning} --regex={MARKER}"
    assert cli("update", str(learning), f"--regex={MARKER}").code == 0
    assert (doctor_on(learning), decided(learning)) == ([], {"Bash"})
