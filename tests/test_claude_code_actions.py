"""Ask, auto-correct and replay with the real Claude Code CLI, offline (as tests/test_claude_code.py
runs it): an `ask` in `claude -p` acts as a deny and the model reads its reason; a rewrite's
corrected command is the one that runs; and replay finds the transcripts the client wrote, in
the folder it named after the project (symbolic links resolved)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from claude_client import (
    after_tool_use,
    bash,
    learning,
    run_claude,
    text_of,
    tool_result,
)
from support import cli_json

pytestmark = pytest.mark.claude_cli


def test_an_ask_in_print_mode_acts_as_a_deny_and_the_model_reads_why(
    claude: str, namespace: list[str], project: Path, learn: Any
) -> None:
    rule = learn(
        "--anti-pattern",
        "force push",
        "--correct",
        "ask the user; or git push --force-with-lease",
        "--regex",
        r"^git push\b.*--force(?![\w-])",
        "--tool",
        "Bash",
        "--action",
        "ask",
    )
    run = run_claude(
        claude, namespace, project, [bash("git push --force origin main; touch ran.flag"), {"text": "Noted."}]
    )
    assert run.code == 0, run.explain()
    assert not (project / "ran.flag").exists(), "the asked-about command ran with no one to ask"
    result = tool_result(after_tool_use(run.requests[1], "toolu_mock_1"), "toolu_mock_1")
    assert result["is_error"] is True
    reason = text_of(result["content"])
    assert "cortex-hooks asks the user before this tool call" in reason
    assert f"learning #{rule['id']}" in reason
    assert "ASK FIRST: force push" in reason
    after = learning(project, rule["id"])
    assert after["access_count"] == 1
    assert _history(project) == [(rule["id"], 1, 0, 1, 0, 0)]


def test_a_rewrite_runs_the_corrected_command(
    claude: str, namespace: list[str], project: Path, learn: Any
) -> None:
    (project / "original.txt").write_text("ORIGINAL\n")
    (project / "corrected.txt").write_text("CORRECTED\n")
    rule = learn(
        "--anti-pattern",
        "reading original.txt",
        "--correct",
        "corrected.txt holds the current text",
        "--regex",
        r"\boriginal\.txt\b",
        "--tool",
        "Bash",
        "--rewrite",
        "corrected.txt",
    )
    turns = [bash("cat original.txt | tee seen.txt"), {"text": "Noted."}]
    run = run_claude(claude, namespace, project, turns)
    assert run.code == 0, run.explain()
    # the file the corrected command wrote, and the output the model was given, prove which ran
    assert (project / "seen.txt").read_text() == "CORRECTED\n"
    following = after_tool_use(run.requests[1], "toolu_mock_1")
    result = tool_result(following, "toolu_mock_1")
    assert result.get("is_error") in (None, False)
    assert "CORRECTED" in text_of(result["content"])
    assert "ORIGINAL" not in text_of(result["content"])
    told = text_of(following)
    assert "cortex-hooks corrected this Bash command before it ran" in told
    assert "your command: cat original.txt | tee seen.txt" in told
    assert "what runs:    cat corrected.txt | tee seen.txt" in told
    assert _history(project) == [(rule["id"], 1, 0, 0, 0, 1)]


def test_replay_reads_what_the_client_wrote_in_the_folder_it_named(
    claude: str, namespace: list[str], project: Path, learn: Any, tmp_path: Path
) -> None:
    """The client names the folder after the real path of the directory it started in: started
    through a symbolic link, its transcript is still where replay looks for the project."""
    link = tmp_path / "through-a-link"
    link.symlink_to(project)
    rule = learn(
        "--anti-pattern", "echo replayed", "--correct", "x", "--regex", r"^echo replayed\b", "--tool", "Bash"
    )
    run = run_claude(claude, namespace, link, [bash("echo replayed"), {"text": "Noted."}], PWD=str(link))
    assert run.code == 0, run.explain()
    home = project.parent / "claude-home"
    report = cli_json(
        "replay", env={"CORTEX_DB": str(project / ".cortex" / "cortex.db"), "HOME": str(home)}, cwd=project
    )
    (folder,) = report["paths"]
    assert Path(folder).parent == home / ".claude" / "projects"
    assert Path(folder).is_dir()
    assert report["transcripts"] == 1
    (item,) = [item for item in report["learnings"] if item["id"] == rule["id"]]
    assert item["warned"] == 1
    assert item["examples"][0]["call"] == "echo replayed"


def _history(project: Path) -> list[tuple[Any, ...]]:
    import sqlite3
    from contextlib import closing

    with closing(sqlite3.connect(project / ".cortex" / "cortex.db")) as connection:
        return connection.execute(
            "SELECT learning_id, matches, denies, asks, warnings, rewrites FROM learning_day ORDER BY 1"
        ).fetchall()
