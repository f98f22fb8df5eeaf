"""The first minute with the real Claude Code CLI, offline (the harness is tests/claude_client.py):
a memory remembered, pinned or forgotten between two sessions — in the project, or in the user's
global memory from another folder — is as it is now in the next session's first request, exactly
once, on the `install` path; and right after `install` the core packs deny `git reset --hard`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from claude_client import (
    bash,
    run_claude,
    text_of,
    tool_result,
)
from support import cli_process

pytestmark = pytest.mark.claude_cli


@pytest.fixture
def installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project wired as a person wires it: `cortex-hooks install` in its folder, its own database
    (no CORTEX_DB), the user's global memory where the hooks inside the client find it too."""
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    monkeypatch.delenv("CORTEX_DB")
    monkeypatch.setenv("CORTEX_GLOBAL_DB", str(tmp_path / "global.db"))
    done = cli_process("install", cwd=project)
    assert done.code == 0, done.stderr
    return project


def remember(where: Path, *args: str) -> None:
    done = cli_process("remember", *args, cwd=where)
    assert done.code == 0, done.stderr


def test_a_memory_changed_between_sessions_is_current_in_the_next_first_request(
    claude: str, namespace: list[str], installed: Path, tmp_path: Path
) -> None:
    env = {"CORTEX_GLOBAL_DB": str(tmp_path / "global.db")}
    remember(installed, "The staging database is called orders_old")
    first = run_claude(claude, namespace, installed, [{"text": "Noted."}], **env)
    assert first.code == 0, first.explain()
    assert "orders_old" in text_of(first.requests[0])

    pinned = "Releases are cut from the trunk branch every Thursday"
    remember(installed, pinned, "--pin")
    assert cli_process("forget", "--match", "orders_old", "--yes", cwd=installed).code == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    remember(elsewhere, "I review every migration by hand", "--global", "--pin")

    second = run_claude(claude, namespace, installed, [{"text": "Noted."}], **env)
    assert second.code == 0, second.explain()
    seen = text_of(second.requests[0])  # the system prompt, the tools and the messages alike
    assert seen.count(pinned) == 1, seen[:4000]
    assert seen.count("I review every migration by hand") == 1, seen[:4000]
    assert "orders_old" not in seen


def test_git_reset_hard_right_after_install_is_denied(
    claude: str, namespace: list[str], installed: Path
) -> None:
    (installed / "work.txt").write_text("not committed yet")
    run = run_claude(claude, namespace, installed, [bash("git reset --hard"), {"text": "Stopped."}])
    assert run.code == 0, run.explain()
    (use,) = [
        block for block in run.requests[1]["messages"][-2]["content"] if block.get("type") == "tool_use"
    ]
    result = tool_result(run.requests[1]["messages"], use["id"])
    assert result.get("is_error") is True
    assert "git reset --hard" in json.dumps(result)
    assert (installed / "work.txt").read_text() == "not committed yet"
