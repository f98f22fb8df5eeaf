"""The hook scripts with `--agent NAME`, end to end with each agent's real payloads
(tests/fixtures/agents/, captured from the clients) and a real database: the translation into the
one internal call, the tool kinds, the answers, the session hooks, and bad input — missing
fields, wrong types, huge or newer payloads — which gives a clear stderr line and the agent's
non-blocking failure, and never an answer the agent reads as allow when a rule denies."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from support import FIXTURES, cli_json, run

from cortex_hooks import agents

AGENT_FIXTURES = FIXTURES / "agents"
FAILED = {"codex": 1, "gemini": 1, "copilot": 0, "cursor": 1}  # each agent's non-blocking failure


def fixture(name: str, **changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((AGENT_FIXTURES / f"{name}.json").read_text())
    data.update(changes)
    return data


def shell_payload(agent: str, command: str, cwd: Path) -> dict[str, Any]:
    """A shell call as the agent sends it, made in `cwd`."""
    if agent == "codex":
        return fixture("codex.pre_tool_use", cwd=str(cwd), tool_input={"command": command})
    if agent == "gemini":
        return fixture(
            "gemini.before_tool", cwd=str(cwd), tool_input={"command": command, "description": "d"}
        )
    if agent == "copilot":
        return fixture(
            "copilot.pre_tool_use", cwd=str(cwd), toolArgs={"command": command, "description": "d"}
        )
    return fixture(
        "cursor.pre_tool_use",
        cwd=str(cwd),
        workspace_roots=[str(cwd)],
        tool_input={"command": command, "working_directory": str(cwd)},
    )


def hook(agent: str, data: Any, script: str = "cortex-pre-tool-use", **env: str) -> Any:
    return run(script, "--agent", agent, stdin=data, env=env or None)


def blocks(agent: str, stdout: str) -> bool:
    """Whether the agent reads this answer as a refusal."""
    answer = json.loads(stdout) if stdout.strip() else None
    if not isinstance(answer, dict):
        return False
    if agent == "codex":
        return bool(answer.get("hookSpecificOutput", {}).get("permissionDecision") == "deny")
    if agent == "gemini":
        return bool(answer.get("decision") == "deny")
    if agent == "copilot":
        return answer.get("permissionDecision") in ("deny", "ask")
    return answer.get("permission") in ("deny", "ask")


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project whose database is its own `.cortex/cortex.db` (the hooks find it from the call's
    folder, as each agent's hooks run)."""
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    monkeypatch.delenv("CORTEX_DB")
    cli_json(
        "add",
        "--anti-pattern",
        "rm -rf build",
        "--correct",
        "run make clean",
        "--regex",
        r"^rm\s+-rf\s+build\b",
        "--tool",
        "shell",
        "--auto-block",
        cwd=root,
    )
    return root


ALL = ("codex", "gemini", "copilot", "cursor")


@pytest.mark.parametrize("agent", ALL)
def test_a_learned_block_denies_in_each_agents_answer(agent: str, project: Path) -> None:
    done = hook(agent, shell_payload(agent, "rm -rf build", project))
    assert (done.code, done.stderr) == (0, ""), done.stderr
    assert blocks(agent, done.stdout)
    assert "NEVER: rm -rf build" in done.stdout


@pytest.mark.parametrize("agent", ALL)
def test_a_call_in_a_subfolder_finds_the_projects_memory(agent: str, project: Path) -> None:
    """Codex loads a project's hooks from its git root, and runs them in the folder the session
    is in: the memory is that of the nearest folder above holding `.cortex/`."""
    inside = project / "src" / "deep"
    inside.mkdir(parents=True)
    data = shell_payload(agent, "rm -rf build", inside)
    if agent == "cursor":
        data["workspace_roots"] = [str(inside)]
    done = hook(agent, data)
    assert blocks(agent, done.stdout), done.stderr


@pytest.mark.parametrize("agent", ALL)
def test_a_newer_payload_with_fields_unknown_today_still_denies(agent: str, project: Path) -> None:
    data = shell_payload(agent, "rm -rf build", project)
    data.update({"future_field": {"deep": [1, {"x": None}]}, "another": 3.5})
    arguments = "toolArgs" if agent == "copilot" else "tool_input"
    data[arguments] = {**data[arguments], "sandbox": {"mode": "strict"}, "timeout_ms": 12}
    done = hook(agent, data)
    assert blocks(agent, done.stdout), done.stderr


@pytest.mark.parametrize("agent", ALL)
def test_a_huge_command_is_read_whole_and_still_denies(agent: str, project: Path) -> None:
    command = "echo " + "x" * 2_000_000 + " && rm -rf build"
    done = hook(agent, shell_payload(agent, command, project))
    assert blocks(agent, done.stdout), done.stderr[:500]


def _broken(agent: str, project: Path, how: str) -> Any:
    data = shell_payload(agent, "rm -rf build", project)
    name = {"codex": "tool_name", "gemini": "tool_name", "copilot": "toolName", "cursor": "tool_name"}[agent]
    arguments = "toolArgs" if agent == "copilot" else "tool_input"
    if how == "no tool name":
        del data[name]
        return data
    if how == "tool input of the wrong type":
        data[arguments] = ["rm -rf build"]
        return data
    if how == "a command of the wrong type":
        data[arguments] = {"command": ["rm", "-rf", "build"]}
        return data
    if how == "not JSON":
        return b'{"tool_name": "Bash", "tool_input": {'
    return b"[1, 2, 3]"  # a JSON array


@pytest.mark.parametrize("agent", ALL)
@pytest.mark.parametrize(
    "how",
    ["no tool name", "tool input of the wrong type", "a command of the wrong type", "not JSON", "an array"],
)
def test_bad_input_is_one_stderr_line_and_the_agents_non_blocking_failure(
    agent: str, how: str, project: Path
) -> None:
    done = hook(agent, _broken(agent, project, how))
    assert done.code == FAILED[agent], (done.code, done.stderr)
    assert done.stdout == ""  # nothing the agent could read as a decision either way
    (line,) = done.stderr.splitlines()
    assert line.startswith("cortex-hooks: PreToolUse: ")
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("agent", "event"), [("codex", "PostToolUse"), ("gemini", "AfterTool"), ("cursor", "afterShellExecution")]
)
def test_a_payload_of_another_event_is_refused_by_name(agent: str, event: str, project: Path) -> None:
    data = shell_payload(agent, "rm -rf build", project)
    data["hook_event_name"] = event
    done = hook(agent, data)
    assert done.code == 1
    assert f"got a payload of another event ('{event}')" in done.stderr


def test_an_unknown_agent_is_named_and_nothing_is_blocked(project: Path) -> None:
    done = run(
        "cortex-pre-tool-use", "--agent", "windsurf", stdin=shell_payload("codex", "rm -rf build", project)
    )
    assert (done.code, done.stdout) == (1, "")
    assert "unknown agent 'windsurf' (one of claude, codex, gemini, copilot, cursor)" in done.stderr


# --- the one internal call ----------------------------------------------------------------------


def calls(agent: str, data: dict[str, Any]) -> list[tuple[str, dict[str, Any], str | None]]:
    made, _rewrites = agents.adapter(agent).calls(data)
    return [(call.tool, call.input, call.kind) for call in made]


def test_codex_shapes_are_claude_codes_and_a_patch_is_a_call_per_file() -> None:
    assert calls("codex", fixture("codex.pre_tool_use")) == [
        ("Bash", {"command": "echo hi > a.txt"}, "shell")
    ]
    assert calls("codex", fixture("codex.apply_patch")) == [
        ("Write", {"file_path": "/home/dev/proj/b.txt", "content": "hello\n"}, "write"),
        (
            "MultiEdit",
            {"file_path": "/home/dev/proj/a.txt", "edits": [{"old_string": "hi", "new_string": "bye"}]},
            "edit",
        ),
    ]
    mcp = fixture("codex.pre_tool_use", tool_name="mcp__github__create_issue", tool_input={"title": "t"})
    assert calls("codex", mcp) == [("mcp__github__create_issue", {"title": "t"}, "mcp")]


def test_gemini_tools_are_read_as_claude_codes_of_their_kind() -> None:
    assert calls("gemini", fixture("gemini.before_tool")) == [
        ("Bash", {"command": "echo hi > a.txt", "description": "x"}, "shell")
    ]
    assert calls("gemini", fixture("gemini.write_file")) == [
        ("Write", {"file_path": "/home/dev/proj/b.txt", "content": "hello\n"}, "write")
    ]
    (edit,) = calls("gemini", fixture("gemini.replace"))
    assert (edit[0], edit[1]["file_path"]) == ("Edit", "/home/dev/proj/b.txt")
    assert (edit[1]["old_string"], edit[1]["new_string"], edit[1]["replace_all"]) == ("hello", "bye", False)
    mcp = fixture(
        "gemini.before_tool",
        tool_name="mcp_github_create_issue",
        tool_input={"title": "t"},
        mcp_context={"server_name": "github", "tool_name": "create_issue", "command": "gh-mcp"},
    )
    assert calls("gemini", mcp) == [("mcp__github__create_issue", {"title": "t"}, "mcp")]


def test_copilot_tools_are_read_as_claude_codes_of_their_kind(tmp_path: Path) -> None:
    assert calls("copilot", fixture("copilot.pre_tool_use"))[0][0] == "Bash"
    assert calls("copilot", fixture("copilot.apply_patch")) == [
        ("Write", {"file_path": "/home/dev/proj/b.txt", "content": "hello\n"}, "write")
    ]
    edit = fixture(
        "copilot.pre_tool_use", toolName="edit", toolArgs={"path": "x.py", "old_str": "a", "new_str": "b"}
    )
    assert calls("copilot", edit) == [
        ("Edit", {"file_path": "/home/dev/proj/x.py", "old_string": "a", "new_string": "b"}, "edit")
    ]
    as_text = fixture("copilot.pre_tool_use", toolArgs=json.dumps({"command": "ls"}))  # a JSON string
    assert calls("copilot", as_text) == [("Bash", {"command": "ls"}, "shell")]
    home = tmp_path / "copilot-home"
    home.mkdir()
    (home / "mcp-config.json").write_text(json.dumps({"mcpServers": {"my-github": {"command": "x"}}}))
    os.environ["COPILOT_HOME"] = str(home)
    try:
        mcp = fixture("copilot.pre_tool_use", toolName="my-github-create_issue", toolArgs={"title": "t"})
        assert calls("copilot", mcp) == [("mcp__my-github__create_issue", {"title": "t"}, "mcp")]
    finally:
        del os.environ["COPILOT_HOME"]


def test_cursor_tools_follow_its_documentation() -> None:
    assert calls("cursor", fixture("cursor.pre_tool_use"))[0][:1] == ("Bash",)
    assert calls("cursor", fixture("cursor.before_shell_execution")) == [
        ("Bash", {"command": "npm install express"}, "shell")
    ]
    deleted = fixture("cursor.pre_tool_use", tool_name="Delete", tool_input={"file_path": ".env"})
    assert calls("cursor", deleted) == [("Bash", {"command": "rm -f -- /home/dev/proj/.env"}, "shell")]
    replaced = fixture(
        "cursor.pre_tool_use",
        tool_name="StrReplace",
        tool_input={"path": "a.py", "old_string": "x", "new_string": "y"},
    )
    assert calls("cursor", replaced) == [
        ("Edit", {"file_path": "/home/dev/proj/a.py", "old_string": "x", "new_string": "y"}, "edit")
    ]
    mcp = fixture("cursor.pre_tool_use", tool_name="MCP:create_issue", tool_input={"title": "t"})
    assert calls("cursor", mcp)[0][0] == "mcp__cursor__create_issue"


@pytest.mark.parametrize(
    ("matcher", "agent", "data", "accepted"),
    [
        ("shell", "claude", {"tool_name": "Bash", "tool_input": {"command": "x"}}, True),
        ("Bash", "gemini", fixture("gemini.before_tool"), True),
        ("write|edit", "codex", fixture("codex.apply_patch"), True),
        ("Write", "copilot", fixture("copilot.apply_patch"), True),
        ("mcp", "codex", fixture("codex.pre_tool_use", tool_name="mcp__x__y", tool_input={}), True),
        ("read", "gemini", fixture("gemini.write_file"), False),
        ("shell", "gemini", fixture("gemini.write_file"), False),
    ],
)
def test_the_kinds_and_claude_codes_names_match_every_agents_calls(
    matcher: str, agent: str, data: dict[str, Any], accepted: bool
) -> None:
    from cortex_hooks.guard.matching import tool_accepts

    made, _ = agents.adapter(agent).calls({"cwd": "/home/dev/proj", **data})
    assert any(tool_accepts(matcher, call.tool) for call in made) is accepted


# --- sessions -----------------------------------------------------------------------------------


def confidence_of(project: Path) -> float:
    (row,) = [row for row in cli_json("list", "--all", cwd=project) if row["anti_pattern"] == "rm -rf build"]
    return float(row["confidence"])


@pytest.mark.parametrize(
    ("agent", "start"), [("codex", "codex.session_start"), ("gemini", "gemini.session_start")]
)
def test_an_agent_without_an_awaited_session_end_decays_once_per_day_of_use(
    agent: str, start: str, project: Path
) -> None:
    for session, now in (("s1", "2026-11-22T09:00:00Z"), ("s2", "2026-11-22T18:00:00Z")):
        done = hook(
            agent,
            fixture(start, session_id=session, cwd=str(project)),
            "cortex-session-start",
            CORTEX_NOW=now,
        )
        assert done.code == 0, done.stderr
    assert confidence_of(project) == 0.69  # two sessions, one day: one decay
    ending = {"codex": "codex.stop", "gemini": "gemini.session_end"}[agent]
    done = hook(agent, fixture(ending, session_id="s2", cwd=str(project)), "cortex-session-end")
    assert done.code == 0, done.stderr
    assert confidence_of(project) == 0.69  # its end decays nothing: the day did
    done = hook(
        agent,
        fixture(start, session_id="s3", cwd=str(project)),
        "cortex-session-start",
        CORTEX_NOW="2026-11-23T08:00:00Z",
    )
    assert done.code == 0, done.stderr
    assert confidence_of(project) == 0.68
    days = [row["id"] for row in cli_json("sessions", "list", cwd=project) if ":day:" in row["id"]]
    assert days == [f"{agent}:day:2026-11-23", f"{agent}:day:2026-11-22"]


def test_copilot_decays_once_per_session_end(project: Path) -> None:
    for session in ("s1", "s1", "s2"):
        data = fixture("copilot.session_end", sessionId=session, cwd=str(project))
        done = hook("copilot", data, "cortex-session-end")
        assert done.code == 0, done.stderr
    assert confidence_of(project) == 0.68


@pytest.mark.parametrize("agent", ["codex", "gemini", "copilot"])
def test_the_session_start_puts_the_review_where_the_model_reads_it(agent: str, project: Path) -> None:
    cli_json(
        "add",
        "--anti-pattern",
        "stale one",
        "--correct",
        "x",
        "--confidence",
        "0.40",
        "--no-regex",
        cwd=project,
    )
    data = fixture(f"{agent}.session_start", cwd=str(project))
    done = hook(agent, data, "cortex-session-start")
    assert done.code == 0, done.stderr
    answer = json.loads(done.stdout)
    context = (
        answer["additionalContext"]
        if agent == "copilot"
        else answer["hookSpecificOutput"]["additionalContext"]
    )
    assert "awaits the user's review" in context
    assert "stale one (confidence" in context


@pytest.mark.parametrize("agent", ALL)
def test_a_call_that_matches_nothing_imports_no_more_through_an_adapter(agent: str, project: Path) -> None:
    """The hot path's import budget (docs/index.md): an agent's call that matches nothing
    loads no answer text, no patch reader, no `regex`, no pydantic."""
    import subprocess
    import sys

    watched = [
        "cortex_hooks.agents.said",
        "cortex_hooks.guard.verdict_texts",
        "cortex_hooks.guard.apply_patch",
        "cortex_hooks.json_values",
        "regex",
        "pydantic",
    ]
    program = (
        "import atexit, os, sys\n"
        f"def report(): print([name for name in {watched!r} if name in sys.modules], file=sys.stderr)\n"
        "leave = os._exit\n"
        "os._exit = lambda status: (report(), leave(status))\n"
        f"sys.argv = ['cortex-pre-tool-use', '--agent', {agent!r}]\n"
        "from cortex_hooks.hooks import pre_tool_use\n"
        "sys.exit(pre_tool_use.main())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program],
        input=json.dumps(shell_payload(agent, "ls -la", project)),
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip().splitlines()[-1] == "[]", done.stderr


def test_a_rewrite_where_the_agent_cannot_carry_one_is_a_deny_naming_the_corrected_command(
    project: Path,
) -> None:
    """Cursor's beforeShellExecution has no updated_input: the learned correction is told."""
    cli_json(
        "add",
        "--anti-pattern",
        "pip outside the venv",
        "--correct",
        "python3 -m pip",
        "--regex",
        r"^pip\b",
        "--tool",
        "shell",
        "--rewrite",
        "python3 -m pip",
        cwd=project,
    )
    data = fixture("cursor.before_shell_execution", command="pip install left-pad", cwd=str(project))
    data["workspace_roots"] = [str(project)]
    done = hook("cursor", data)
    answer = json.loads(done.stdout)
    assert answer["permission"] == "deny", done.stdout
    assert "Run the corrected command instead:\npython3 -m pip install left-pad" in answer["agent_message"]
    generic = shell_payload("cursor", "pip install left-pad", project)
    answer = json.loads(hook("cursor", generic).stdout)
    assert answer["permission"] == "allow"
    assert answer["updated_input"]["command"] == "python3 -m pip install left-pad"
