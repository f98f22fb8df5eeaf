"""`install` protects from the first tool call: it enables the core packs (unless `--no-packs`) and
its last line says what protects the project; right after it, the installed PreToolUse hook denies
`git reset --hard` and `git push -f` (real payloads, the installed scripts, a fresh HOME)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import cli_process, payload, run

from cortex_hooks.guard.packs import shipped

CORE = sum(len(shipped.load(name)) for name in shipped.names() if name.startswith("core."))


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "my-app"
    folder.mkdir()
    monkeypatch.chdir(folder)
    monkeypatch.delenv("CORTEX_DB", raising=False)
    return folder


def decision(project: Path, command: str) -> str | None:
    call = payload("pre_tool_use.bash", tool_input={"command": command}, cwd=str(project))
    result = run("cortex-pre-tool-use", stdin=call, env={"CLAUDE_PROJECT_DIR": str(project)})
    assert result.code == 0, result.stderr
    if not result.stdout:
        return None
    answer: str = json.loads(result.stdout)["hookSpecificOutput"]["permissionDecision"]
    return answer


def test_right_after_install_a_destructive_git_command_is_denied(project: Path) -> None:
    installed = cli_process("install")
    assert (installed.code, installed.stderr) == (0, "")
    assert installed.stdout.splitlines()[-1] == (
        f"Protected in this project: packs core.filesystem and core.git, {CORE} learnings that deny "
        "destructive commands before they run (cortex-hooks packs show core)."
    )
    for command in ("git reset --hard", "git push -f origin main", "rm -rf ~/code", "git clean -fdx"):
        assert decision(project, command) == "deny", command
    for command in ("git status", "git push origin main", "rm -rf /tmp/build", "ls -la"):
        assert decision(project, command) is None, command


def test_install_no_packs_leaves_the_guard_empty(project: Path) -> None:
    installed = cli_process("install", "--no-packs")
    assert installed.code == 0, installed.stderr
    assert installed.stdout.splitlines()[-1].startswith("No pack protects in this project")
    assert decision(project, "git reset --hard") is None


def test_a_second_install_says_what_protects_and_changes_nothing(project: Path) -> None:
    assert cli_process("install").code == 0
    again = cli_process("install", "--no-packs", "--json")  # --no-packs disables nothing
    assert again.json()["packs"] == []
    assert again.json()["protected"] == {
        name: len(shipped.load(name)) for name in ("core.filesystem", "core.git")
    }
    assert decision(project, "git reset --hard") == "deny"


def test_a_dry_run_says_what_would_protect_and_writes_nothing(project: Path) -> None:
    dry = cli_process("install", "--dry-run")
    assert dry.code == 0, dry.stderr
    assert dry.stdout.splitlines()[-1].startswith("Would protect in this project: packs core.filesystem")
    assert not (project / ".cortex").exists()


def test_a_user_scope_install_protects_every_project(project: Path) -> None:
    installed = cli_process("install", "--scope", "user")
    assert installed.code == 0, installed.stderr
    assert installed.stdout.splitlines()[-1].startswith(
        "Protected in every project (the user-global memory): packs core.filesystem and core.git"
    )
    assert decision(project, "git reset --hard") == "deny"  # a project with no database of its own
