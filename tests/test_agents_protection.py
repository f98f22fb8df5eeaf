"""The built-in protection covers each agent's own settings and hook files: no
agent's call — its shell, its file tools, a patch — removes or rewrites the hooks `install
--agent` wrote, in its own file or in another agent's; an edit that keeps them passes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support import cli, run


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    monkeypatch.delenv("CORTEX_DB")
    for agent in ("codex", "gemini", "copilot", "cursor"):
        done = cli("install", "--agent", agent, cwd=root)
        assert done.code == 0, done.stderr
    return root


def denied(agent: str, data: dict[str, Any]) -> str:
    """The built-in protection's reason, as the agent's answer carries it ('' when allowed)."""
    done = run("cortex-pre-tool-use", "--agent", agent, stdin=data)
    assert done.code == 0, done.stderr
    if not done.stdout.strip():
        return ""
    answer = json.loads(done.stdout)
    text = json.dumps(answer)
    return text if "built-in protection" in text else ""


def codex(project: Path, tool: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    return {
        "session_id": "s",
        "cwd": str(project),
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
    }


def gemini(project: Path, tool: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    return {
        "session_id": "s",
        "cwd": str(project),
        "hook_event_name": "BeforeTool",
        "tool_name": tool,
        "tool_input": tool_input,
    }


@pytest.mark.parametrize(
    "command",
    [
        "rm .codex/hooks.json",
        "echo '{}' > .gemini/settings.json",
        "rm -rf .github/hooks",
        "mv .cursor/hooks.json /tmp/",
        "rm -rf .codex",
    ],
)
def test_an_agents_shell_cannot_remove_any_agents_hooks(project: Path, command: str) -> None:
    assert denied("codex", codex(project, "Bash", {"command": command})), command
    assert (project / ".codex" / "hooks.json").exists()


def test_a_patch_that_deletes_or_empties_a_hook_file_is_refused(project: Path) -> None:
    deleting = "*** Begin Patch\n*** Delete File: .codex/hooks.json\n*** End Patch\n"
    assert denied("codex", codex(project, "apply_patch", {"command": deleting}))
    text = (project / ".gemini" / "settings.json").read_text()
    line = next(line for line in text.splitlines() if "cortex-pre-tool-use" in line)
    changed = line.replace("cortex-pre-tool-use", "true")
    hunk = f"@@\n-{line}\n+{changed}\n"
    dropping = f"*** Begin Patch\n*** Update File: .gemini/settings.json\n{hunk}*** End Patch\n"
    assert denied("codex", codex(project, "apply_patch", {"command": dropping}))


def test_a_file_tool_may_change_a_settings_file_and_keep_our_hooks(project: Path) -> None:
    settings = project / ".gemini" / "settings.json"
    kept = json.loads(settings.read_text())
    kept["theme"] = "dark"
    assert not denied(
        "gemini", gemini(project, "write_file", {"file_path": str(settings), "content": json.dumps(kept)})
    )
    lost = {**kept, "hooks": {}}
    reason = denied(
        "gemini", gemini(project, "write_file", {"file_path": str(settings), "content": json.dumps(lost)})
    )
    assert "would no longer run cortex-hooks' hooks" in reason
    switched = {**kept, "hooksConfig": {"enabled": False}}
    reason = denied(
        "gemini", gemini(project, "write_file", {"file_path": str(settings), "content": json.dumps(switched)})
    )
    assert "hooksConfig" in reason


def test_claude_codes_own_calls_are_refused_on_the_other_agents_files(project: Path) -> None:
    data = {
        "session_id": "s",
        "cwd": str(project),
        "hook_event_name": "PreToolUse",
        "tool_name": "Write",
        "tool_input": {
            "file_path": str(project / ".github" / "hooks" / "cortex-hooks.json"),
            "content": "{}",
        },
    }
    done = run("cortex-pre-tool-use", stdin=data)
    assert '"permissionDecision": "deny"' in done.stdout, done.stderr
    assert "built-in protection" in done.stdout


def test_a_file_without_our_hooks_stays_the_agents_to_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where cortex-hooks wired nothing, an agent's settings are its own business."""
    root = tmp_path / "elsewhere"
    (root / ".gemini").mkdir(parents=True)
    (root / ".gemini" / "settings.json").write_text('{"theme": "light"}\n')
    monkeypatch.delenv("CORTEX_DB")
    data = gemini(
        root,
        "write_file",
        {"file_path": str(root / ".gemini" / "settings.json"), "content": '{"theme": "dark"}'},
    )
    assert not denied("gemini", data)
