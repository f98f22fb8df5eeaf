"""The rough edges a careless or a new user hits (issue 23, Low): each answered in one line of our
own words, never an internal error, and nothing done that was not asked for."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import subprocess
from pathlib import Path

import pytest
from support import cli, cli_json, script

from cortex_hooks.mcp import tools

HUGE = "99999999999999999999999"


def one_line(result: object) -> str:
    stderr: str = result.stderr  # type: ignore[attr-defined]
    assert stderr.count("\n") == 1, stderr
    assert "internal error" not in stderr
    return stderr


@pytest.mark.parametrize(
    "argv",
    [
        ["show", HUGE],
        ["memories", "show", HUGE],
        ["forget", HUGE],
        ["decisions", "add", "--title", "t", "--reasoning", "r", "--supersedes", HUGE],
        ["link", "1", HUGE, "--type", "refines"],
    ],
)
def test_an_id_too_large_for_sqlite_is_no_id(db: Path, argv: list[str]) -> None:
    cli_json("add", "--anti-pattern", "x", "--correct", "y", "--regex", "x")  # a database to look in
    result = cli(*argv)
    assert result.code == 2
    assert f"'{HUGE}' is not an id (too large for an id)" in one_line(result)


def test_mcp_refuses_an_id_too_large_too(db: Path) -> None:
    cli_json("add", "--anti-pattern", "x", "--correct", "y", "--regex", "x")
    text, is_error = tools.call("cortex_update_learning", {"id": int(HUGE), "context": "c"})
    assert (is_error, "not an id" in text) == (True, True)


def test_the_mcp_server_with_its_stdout_closed_says_so(db: Path) -> None:
    completed = subprocess.run(
        f"{script('cortex-hooks')} mcp >&-", shell=True, capture_output=True, timeout=60, check=False
    )
    assert completed.returncode == 1
    assert completed.stderr == (
        b"cortex-hooks: the MCP server talks over stdin and stdout, and one of them is closed\n"
    )


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("cortex_recall", {"query": "x", "limit": True}),
        ("cortex_remember", {"content": "x", "priority": True}),
        ("cortex_reflect", {"action": "decay", "days": False}),
        (
            "cortex_add_learning",
            {"anti_pattern": "x", "correct_pattern": "y", "regex": "x", "confidence": True},
        ),
        ("cortex_forget", {"id": True}),
    ],
)
def test_mcp_takes_no_boolean_for_a_number(db: Path, tool: str, arguments: dict[str, object]) -> None:
    text, is_error = tools.call(tool, arguments)
    assert is_error
    assert text.startswith("invalid arguments: ")
    assert "must be a number, not true or false" in text
    assert not db.exists()


def test_export_says_how_many_memories_it_wrote(db: Path, tmp_path: Path) -> None:
    cli("remember", "first")
    cli("remember", "second")
    output = tmp_path / "export.json"
    result = cli("export", "--output", str(output))
    assert result.stderr == (
        f"Exported 0 learnings, 0 decisions, 0 errors, 0 todos, 2 memories, 0 edges to {output}.\n"
    )
    assert len(json.loads(output.read_text())["memories"]) == 2


def test_import_rejects_an_edge_to_a_memory_not_in_the_file(db: Path, tmp_path: Path) -> None:
    file = tmp_path / "export.json"
    memory = {"id": 1, "content": "the one memory"}
    file.write_text(
        json.dumps({"version": 2, "memories": [memory], "edges": [{"type": "refines", "from": 1, "to": 7}]})
    )
    result = cli("import", str(file))
    assert result.code == 2
    assert one_line(result) == (
        f"cortex-hooks: {file} rejected, nothing imported: edges.0.to: 7 is the id of no memory in the file\n"
    )
    assert not db.exists()


def test_restoring_another_databases_checkpoint_is_refused(db: Path, tmp_path: Path) -> None:
    other = tmp_path / "other" / "cortex.db"
    other.parent.mkdir()
    text = "the billing retries go through the payments queue with exponential backoff"
    for target in (str(other), str(db)):
        cli("remember", text, "--db", target)
        cli("remember", text + " always", "--db", target)
    merged = cli_json("consolidate", "--db", str(other))
    result = cli("consolidate", "--restore", merged["checkpoint"])
    assert result.code == 2
    assert f"{merged['checkpoint']} is a checkpoint of another database" in one_line(result)
    assert [m["status"] for m in cli_json("memories", "list", "--all")] == ["active", "active"]
    own = cli_json("consolidate")["checkpoint"]
    restored = cli("consolidate", "--restore", own)
    assert (restored.code, restored.stderr) == (0, "")
    copy = tmp_path / "kept-aside.db"  # a copy kept elsewhere: restored, and named
    copy.write_bytes(Path(own).read_bytes())
    named = cli("consolidate", "--restore", str(copy))
    assert named.code == 0
    assert f"{copy} is none of the checkpoints of {db}" in one_line(named)


@pytest.mark.parametrize("query", ["🚀", "→", "🚀🚀"])
def test_recall_searches_emoji(db: Path, query: str) -> None:
    cli("remember", "launch day 🚀 is friday → ship")
    cli("remember", "nothing to see")
    found = cli_json("recall", query)
    assert [row["content"] for row in found] == ["launch day 🚀 is friday → ship"]
    assert cli("recall", "?!").code == 2  # punctuation alone is still no query


def test_settings_files_are_0644_whatever_the_umask(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    completed = subprocess.run(
        f"umask 000 && {script('cortex-hooks')} install --with-commands",
        shell=True,
        cwd=project,
        capture_output=True,
        timeout=60,
        check=False,
        env={**os.environ, "CORTEX_DB": str(tmp_path / "cortex.db")},
    )
    assert completed.returncode == 0, completed.stderr
    for path in (project / ".claude", project / ".claude" / "commands"):
        assert stat.S_IMODE(path.stat().st_mode) == 0o755, path
    for path in (project / ".claude" / "settings.json", project / ".claude" / "commands" / "learn.md"):
        assert stat.S_IMODE(path.stat().st_mode) == 0o644, path
    settings = project / ".claude" / "settings.json"
    settings.write_text(json.dumps({**json.loads(settings.read_text()), "model": "opus"}))  # theirs: kept
    settings.chmod(0o600)
    subprocess.run(
        f"umask 000 && {script('cortex-hooks')} uninstall",
        shell=True,
        cwd=project,
        timeout=60,
        check=True,
        env={**os.environ, "CORTEX_DB": str(tmp_path / "cortex.db")},
        capture_output=True,
    )
    assert stat.S_IMODE(settings.stat().st_mode) == 0o600  # a file keeps its mode


@pytest.mark.parametrize(
    ("argv", "answer"),
    [
        (
            ["add", "--anti-patern", "x", "--correct", "y"],
            "unrecognized option --anti-patern: did you mean --anti-pattern?",
        ),
        (["recall", "x", "--limt", "3"], "unrecognized option --limt: did you mean --limit?"),
        (["remembr", "x"], "unknown command 'remembr': did you mean remember?"),
        (["memories", "updte", "1"], "unknown action 'updte': did you mean update?"),
    ],
)
def test_a_typo_is_answered_with_what_was_meant(db: Path, argv: list[str], answer: str) -> None:
    result = cli(*argv)
    assert result.code == 2
    assert answer in one_line(result)


@pytest.mark.parametrize(
    ("argv", "answer"),
    [
        (["--severity", "urgent"], "severity: 'urgent' is not a severity: low, medium, high or critical"),
        (["--target", "body"], "target: 'body' is not a target: content, path, input or raw"),
    ],
)
def test_a_value_out_of_its_set_is_refused_in_our_words(db: Path, argv: list[str], answer: str) -> None:
    result = cli("add", "--anti-pattern", "x", "--correct", "y", "--regex", "x", *argv)
    assert answer in one_line(result)
    assert "Input should be" not in result.stderr
    text, is_error = tools.call(
        "cortex_add_learning", {"anti_pattern": "x", "correct_pattern": "y", argv[0][2:]: argv[1]}
    )
    assert is_error
    assert answer in text
    assert "Input should be" not in text
    result = cli("todos", "add", "--text", "t", "--priority", "urgent")
    assert "priority: 'urgent' is not a priority: high, medium or low" in one_line(result)


def test_nothing_was_stored_by_the_refusals(db: Path) -> None:
    assert not db.exists() or sqlite3.connect(db).execute("SELECT count(*) FROM learning").fetchone() == (0,)
