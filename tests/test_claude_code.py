"""End to end with the real Claude Code CLI, offline: the hooks wired by `cortex-hooks install`,
the model played by tests/mock_anthropic.py, both inside a network namespace with only loopback.

How the CLI is run (tests/claude_client.py): the pinned npm package `.ci/run` installs
(CORTEX_CLAUDE_BIN); where it is absent, or no private network namespace can be made, these tests
skip and say why.

Observed with Claude Code 2.1.197 and asserted here: SessionEnd *does* fire when `claude -p`
exits (reason "other"), unlike a report for 2.1.216; a hook that fails with
exit 1 is recorded in the transcript as a `hook_non_blocking_error` attachment and the tool runs.
"""

from __future__ import annotations

import json
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
    written,
)
from support import cli, cli_json, script

pytestmark = pytest.mark.claude_cli


def test_an_auto_block_learning_stops_the_command_and_the_model_reads_why(
    claude: str, namespace: list[str], project: Path, learn: Any
) -> None:
    (project / "build").mkdir()
    (project / "build" / "keep.txt").write_text("still here")
    rule = learn(
        "--anti-pattern",
        "rm -rf build",
        "--correct",
        "run `make clean`, which keeps the cache",
        "--regex",
        r"rm\s+-rf\s+build",
        "--tool",
        "Bash",
        "--auto-block",
    )
    run = run_claude(claude, namespace, project, [bash("rm -rf build && touch ran.flag"), {"text": "Noted."}])
    assert run.code == 0, run.explain()

    assert (project / "build" / "keep.txt").exists(), "the blocked command ran"
    assert not (project / "ran.flag").exists(), "the blocked command ran"
    assert len(run.requests) == 2, run.explain()
    tool_use_id = "toolu_mock_1"
    result = tool_result(after_tool_use(run.requests[1], tool_use_id), tool_use_id)
    assert result["is_error"] is True
    reason = text_of(result["content"])
    assert "cortex-hooks blocked this tool call" in reason
    assert f"learning #{rule['id']}" in reason
    assert "NEVER: rm -rf build" in reason
    assert "DO: run `make clean`, which keeps the cache" in reason
    denials = run.result()["permission_denials"]
    assert [denial["tool_name"] for denial in denials] == ["Bash"]
    after = learning(project, rule["id"])
    assert after["access_count"] == 1
    assert after["confidence"] == 0.79  # 0.70, +0.10 for the match, -0.01 at the session's end


def test_a_warning_reaches_the_model_next_to_the_tool_result(
    claude: str, namespace: list[str], project: Path, learn: Any
) -> None:
    rule = learn(
        "--anti-pattern",
        "echo into a file",
        "--correct",
        "use printf '%s\\n', echo mangles backslashes",
        "--regex",
        r"echo\s+hello\s*>",
    )
    run = run_claude(claude, namespace, project, [bash("echo hello > warned.flag"), {"text": "Noted."}])
    assert run.code == 0, run.explain()

    assert (project / "warned.flag").read_text() == "hello\n", "a warning must not block"
    assert len(run.requests) == 2, run.explain()
    # (the snapshot of SessionStart lists the learning too: look for the warning's own words)
    assert "matches learned anti-patterns" not in text_of(run.requests[0]["messages"])
    following = after_tool_use(run.requests[1], "toolu_mock_1")
    assert tool_result(following, "toolu_mock_1").get("is_error") in (None, False)
    (seen,) = [  # 2.1.197: a system reminder in the message that carries the tool result
        block["text"]
        for message in following
        for block in message.get("content") or []
        if isinstance(block, dict)
        and "PreToolUse:Bash hook additional context: cortex-hooks:" in block.get("text", "")
    ]
    assert "matches learned anti-patterns (not blocked)" in seen
    assert f"learning #{rule['id']}" in seen
    assert "AVOID: echo into a file" in seen
    assert "DO: use printf '%s\\n', echo mangles backslashes" in seen
    assert learning(project, rule["id"])["access_count"] == 1


def test_the_review_prompt_reaches_the_first_request(
    claude: str, namespace: list[str], project: Path, learn: Any
) -> None:
    stale = learn(
        "--anti-pattern", "pip install without a venv", "--correct", "use uv", "--confidence", "0.40"
    )
    learn("--anti-pattern", "trusted one", "--correct", "x")  # 0.70: not up for review
    run = run_claude(claude, namespace, project, [{"text": "Noted."}])
    assert run.code == 0, run.explain()

    first = run.requests[0]["messages"]
    context = [  # a system message: its content a string (2.1.197), or a list of text blocks (2.1.332)
        written(message["content"])
        for message in first
        if message["role"] == "system"
        and written(message["content"]).startswith("SessionStart hook additional context: ")
    ]
    assert len(context) == 1, text_of(first)[:3000]
    (text,) = context
    assert "lost confidence through disuse and awaits the user's review (keep or archive)" in text
    assert f"#{stale['id']} pip install without a venv (confidence 0.40)" in text
    assert f"`cortex-hooks keep {stale['id']}`" in text
    assert f"`cortex-hooks archive {stale['id']}`" in text
    # the venv is not on the client's PATH: the text says where the CLI is
    assert f"run it as {script('cortex-hooks')}" in text
    assert "trusted one (confidence" not in text


def test_session_end_decays_once_per_run(
    claude: str, namespace: list[str], project: Path, learn: Any
) -> None:
    """Claude Code 2.1.197 runs SessionEnd when `claude -p` exits (reason "other")."""
    rule = learn("--anti-pattern", "never matched", "--correct", "x")
    pinned = learn("--anti-pattern", "pinned one", "--correct", "x", "--pin")
    database = {"CORTEX_DB": str(project / ".cortex" / "cortex.db")}

    first = run_claude(claude, namespace, project, [{"text": "Noted."}])
    assert first.code == 0, first.explain()
    assert learning(project, rule["id"])["confidence"] == 0.69
    assert learning(project, pinned["id"])["confidence"] == 0.70
    (session,) = cli_json("sessions", "list", env=database)
    assert session["id"] == first.result()["session_id"]
    assert session["ended_at"] is not None
    assert session["reason"] == "other"

    second = run_claude(claude, namespace, project, [{"text": "Noted."}])
    assert second.code == 0, second.explain()
    assert learning(project, rule["id"])["confidence"] == 0.68
    assert len(cli_json("sessions", "list", env=database)) == 2


@pytest.mark.parametrize("failure", ["corrupt database", "CORTEX_DB is a directory"])
def test_a_failing_hook_never_blocks_the_tool(
    claude: str, namespace: list[str], project: Path, learn: Any, failure: str
) -> None:
    database = project / ".cortex" / "cortex.db"
    env: dict[str, str] = {}
    if failure == "corrupt database":
        database.parent.mkdir()
        database.write_bytes(b"this is not an SQLite database\n" * 200)
    else:
        learn("--anti-pattern", "touch", "--correct", "x", "--regex", "touch", "--auto-block")
        directory = project.parent / "a-directory"
        directory.mkdir()
        env["CORTEX_DB"] = str(directory)
    before = database.read_bytes()

    run = run_claude(claude, namespace, project, [bash("touch ran.flag"), {"text": "Noted."}], **env)
    assert run.code == 0, run.explain()

    assert (project / "ran.flag").exists(), "a failing hook blocked the tool"
    assert database.read_bytes() == before, "a failing hook changed the database"
    result = tool_result(after_tool_use(run.requests[1], "toolu_mock_1"), "toolu_mock_1")
    assert result.get("is_error") in (None, False)
    errors = [
        entry["attachment"]
        for entry in run.transcript
        if entry.get("type") == "attachment" and entry["attachment"].get("type") == "hook_non_blocking_error"
    ]
    pre_tool_use = [error for error in errors if error["hookEvent"] == "PreToolUse"]
    assert len(pre_tool_use) == 1, errors  # the hook did run, and failed
    assert pre_tool_use[0]["exitCode"] == 1
    assert "cortex-hooks: PreToolUse: " in pre_tool_use[0]["stderr"]
    assert "Traceback" not in json.dumps(errors)


def test_the_learn_command_reaches_the_model_and_its_cli_call_records_a_learning(
    claude: str, namespace: list[str], project: Path
) -> None:
    installed = cli("install", "--with-learn-command", cwd=project)
    assert installed.code == 0, installed.stderr
    text = (project / ".claude/commands/learn.md").read_text()
    (add_line,) = [line for line in text.splitlines() if " add --anti-pattern " in line]
    cortex = add_line.split()[0]  # the absolute path install wrote: the venv is not on PATH
    command = (
        f"{cortex} add --anti-pattern 'rm -rf build' --correct 'make clean'"
        " --regex 'rm\\s+-rf\\s+build' --tool Bash"
    )
    run = run_claude(
        claude,
        namespace,
        project,
        [bash(command), {"text": "Recorded."}],
        prompt="/learn never rm -rf build, use make clean",
    )
    assert run.code == 0, run.explain()

    seen = text_of(run.requests[0]["messages"])
    assert "Record this as a cortex-hooks learning: never rm -rf build, use make clean" in seen
    assert f"{cortex} explain --tool Bash --command" in seen
    rows = cli_json("list", env={"CORTEX_DB": str(project / ".cortex" / "cortex.db")})
    assert [(row["anti_pattern"], row["regex"]) for row in rows] == [("rm -rf build", r"rm\s+-rf\s+build")]


def test_a_pinned_memory_reaches_the_first_request_exactly_once_through_the_surface(
    claude: str, namespace: list[str], project: Path
) -> None:
    """install imported the surface in CLAUDE.local.md; the snapshot leaves memories to it."""
    database = {"CORTEX_DB": str(project / ".cortex" / "cortex.db")}
    pinned = "Releases are cut from the trunk branch every Thursday"
    cli_json("remember", pinned, "--pin", env=database)
    (project / "secret.txt").write_text("TOPSECRET-42\n")
    # an absolute `@path` must not become an import (Claude Code would put the file in the request)
    cli_json("remember", f"@{project}/secret.txt is not for the model", env=database)
    written = cli("surface", cwd=project, env=database)
    assert written.code == 0, written.stderr
    assert "@.claude/cortex-memory.local.md" in (project / "CLAUDE.local.md").read_text()

    run = run_claude(claude, namespace, project, [{"text": "Noted."}])
    assert run.code == 0, run.explain()

    seen = text_of(run.requests[0])  # system prompt, tools and messages alike
    assert seen.count(pinned) == 1, seen[:3000]
    assert "is not for the model" in seen
    assert "TOPSECRET-42" not in json.dumps(run.requests)
