"""The team file with the real Claude Code CLI, offline (docs/guide/team.md): a learning one teammate commits
to `.claude/cortex-team.jsonl` denies in another teammate's fresh clone once trusted there."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from claude_client import (
    after_tool_use,
    bash,
    run_claude,
    text_of,
    tool_result,
)
from support import cli, cli_json

pytestmark = pytest.mark.claude_cli

GIT = {"GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@example.com", "GIT_COMMITTER_NAME": "a",
       "GIT_COMMITTER_EMAIL": "a@example.com", "GIT_CONFIG_NOSYSTEM": "1"}  # fmt: skip


def git(*args: str, cwd: Path) -> None:
    import os

    subprocess.run(["git", *args], cwd=cwd, env={**os.environ, **GIT}, check=True, capture_output=True)


def test_a_trusted_team_learning_denies_in_a_fresh_clone(
    claude: str, namespace: list[str], tmp_path: Path
) -> None:
    author = tmp_path / "author"
    author.mkdir()
    git("init", "-q", "-b", "main", cwd=author)
    database = {"CORTEX_DB": str(author / ".cortex" / "cortex.db")}
    added = cli_json("add", "--anti-pattern", "git push --force rewrites the team's history",
                     "--correct", "push a branch and open a pull request", "--regex", r"^git push\s+--force",
                     "--tool", "Bash", "--auto-block", env=database, cwd=author)  # fmt: skip
    shared = cli_json(
        "team", "add", "acme:no-force-push", "--from", str(added["id"]), env=database, cwd=author
    )
    assert shared["action"] == "block"
    git("add", ".claude/cortex-team.jsonl", cwd=author)
    git("commit", "-q", "-m", "team: no force push", cwd=author)

    clone = tmp_path / "work" / "clone"
    clone.parent.mkdir()
    git("clone", "-q", str(author), str(clone), cwd=tmp_path)
    mine = {"CORTEX_DB": str(clone / ".cortex" / "cortex.db")}
    assert cli("install", cwd=clone, env=mine).code == 0
    listed = cli_json("team", "list", cwd=clone, env=mine)
    assert [entry["in_force"] for entry in listed["entries"]] == ["warn"]  # a stranger's block: not yet
    trusted = cli_json("team", "trust", cwd=clone, env=mine)
    assert trusted["block"] == 1

    run = run_claude(claude, namespace, clone, [bash("git push --force origin main && touch ran.flag"),
                                                {"text": "Noted."}])  # fmt: skip
    assert run.code == 0, run.explain()
    assert not (clone / "ran.flag").exists(), "the denied command ran"
    result = tool_result(after_tool_use(run.requests[1], "toolu_mock_1"), "toolu_mock_1")
    assert result["is_error"] is True
    reason = text_of(result["content"])
    assert "cortex-hooks blocked this tool call" in reason
    assert "push a branch and open a pull request" in reason
    assert "(team acme:no-force-push, " in reason  # the team's id, named
    assert [denial["tool_name"] for denial in run.result()["permission_denials"]] == ["Bash"]
    hits = {entry["id"]: entry["hits"] for entry in cli_json("team", "list", cwd=clone, env=mine)["entries"]}
    assert hits == {"acme:no-force-push": 1}  # the clone's own state, by id
    assert json.loads((clone / ".claude" / "cortex-team.jsonl").read_text())["id"] == "acme:no-force-push"
