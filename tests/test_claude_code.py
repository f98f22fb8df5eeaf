"""End to end with the real Claude Code CLI, offline: the hooks wired by `cortex-hooks install`,
the model played by tests/mock_anthropic.py, both inside a network namespace with only loopback.

The CLI is the pinned npm package `.ci/run` installs (CORTEX_CLAUDE_BIN); where it is absent, or
no private network namespace can be made, these tests skip and say why. How the CLI is run, and
what it was seen to do, is in reference/claude-code-hooks.md §9.

Observed with Claude Code 2.1.197 and asserted here: SessionEnd *does* fire when `claude -p`
exits (reason "other"), unlike the report for 2.1.216 in reference §4.4; a hook that fails with
exit 1 is recorded in the transcript as a `hook_non_blocking_error` attachment and the tool runs.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support import SCRIPTS, cli, cli_json, reminder_unless_regex, script

pytestmark = pytest.mark.claude_cli

MOCK = Path(__file__).with_name("mock_anthropic.py")
RUN_TIMEOUT = 60  # seconds for one CLI run inside the launcher; the launcher itself gets more


@pytest.fixture(scope="module")
def claude() -> str:
    binary = os.environ.get("CORTEX_CLAUDE_BIN")
    if not binary:
        pytest.skip(
            "the Claude Code CLI is absent: set CORTEX_CLAUDE_BIN (.ci/run installs it with "
            "npm install --prefix .ci-cache/claude-2.1.197 @anthropic-ai/claude-code@2.1.197)"
        )
    if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        pytest.skip(f"CORTEX_CLAUDE_BIN={binary} is not an executable file")
    return binary


@pytest.fixture(scope="module")
def namespace() -> list[str]:
    """The command prefix that runs a command in a private network namespace with loopback up."""
    search = os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/sbin"])
    unshare, ip = shutil.which("unshare", path=search), shutil.which("ip", path=search)
    if unshare is None or ip is None:
        pytest.skip("no private network namespace: `unshare` or `ip` is missing")
    prefixes = [[unshare, "-r", "-n"]]
    if os.geteuid() == 0:
        prefixes.insert(0, [unshare, "-n"])
    for prefix in prefixes:
        command = [*prefix, "sh", "-c", f'{ip} link set lo up && exec "$@"', "sh"]
        try:
            probe = subprocess.run([*command, "true"], capture_output=True, timeout=20, check=False)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if probe.returncode == 0:
            return command
    pytest.skip("no private network namespace could be made (unshare -n / unshare -r -n failed)")


class Run:
    """One `claude -p` run: its exit status and output, what the model was sent, the transcript."""

    def __init__(self, completed: subprocess.CompletedProcess[str], records: Path, home: Path):
        self.code = completed.returncode
        self.stdout = completed.stdout
        self.stderr = completed.stderr
        recorded: list[dict[str, Any]] = json.loads(records.read_text())
        self.requests = [record["body"] for record in recorded if record["conversation"]]
        self.transcript = [
            json.loads(line)
            for path in sorted(home.glob(".claude/projects/*/*.jsonl"))
            for line in path.read_text().splitlines()
            if line.strip()
        ]

    def result(self) -> dict[str, Any]:
        result: dict[str, Any] = json.loads(self.stdout)
        return result

    def explain(self) -> str:
        return f"exit {self.code}\nstdout: {self.stdout[-2000:]}\nstderr: {self.stderr[-2000:]}"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A git project with the hooks installed by `cortex-hooks install` and an empty memory."""
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    installed = cli("install", cwd=root)
    assert installed.code == 0, installed.stderr
    return root


@pytest.fixture
def learn(project: Path) -> Any:
    """`cortex-hooks add ...` into the project's own database (where the hooks will look)."""
    database = project / ".cortex" / "cortex.db"

    def add(*args: str) -> dict[str, Any]:
        learning: dict[str, Any] = cli_json(
            "add", *reminder_unless_regex(args), env={"CORTEX_DB": str(database)}
        )
        return learning

    return add


def learning(project: Path, learning_id: int) -> dict[str, Any]:
    """A learning as `list` shows it (list is not an access, so it changes nothing)."""
    database = str(project / ".cortex" / "cortex.db")
    rows = cli_json("list", "--all", env={"CORTEX_DB": database})
    (row,) = [row for row in rows if row["id"] == learning_id]
    return dict(row)


def client_environment(home: Path, **env: str) -> dict[str, str]:
    """The environment of an offline Claude Code run with its own HOME; `env` adds or overrides."""
    # Our scripts must be found through the absolute paths install wrote, not through PATH.
    path = os.pathsep.join(
        part for part in os.environ.get("PATH", "").split(os.pathsep) if Path(part) != SCRIPTS
    )
    return {
        "PATH": path,
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "ANTHROPIC_API_KEY": "sk-test-dummy",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "DISABLE_AUTOUPDATER": "1",
        "IS_SANDBOX": "1",  # bypassPermissions is refused to root otherwise
        # SessionStart starts no resident recall process, which would outlive the test by a
        # minute with the local model loaded (tests/test_resident.py runs it)
        "CORTEX_RESIDENT": "off",
        **env,
    }


def run_claude(
    claude: str,
    namespace: list[str],
    project: Path,
    turns: list[dict[str, Any]],
    prompt: str = "Please do the task.",
    *,
    mode: str = "bypassPermissions",
    **env: str,
) -> Run:
    """Run `claude -p` in `project` against the mock, as reference §9 describes, offline, in the
    permission mode given."""
    work = project.parent
    home = work / "claude-home"
    home.mkdir(exist_ok=True)
    (work / "turns.json").write_text(json.dumps(turns))
    records = work / "requests.json"
    records.unlink(missing_ok=True)
    environment = client_environment(home, **env)
    command = [
        *namespace,
        sys.executable,
        str(MOCK),
        f"--turns={work / 'turns.json'}",
        f"--record={records}",
        f"--timeout={RUN_TIMEOUT}",
        "--",
        claude,
        "-p",
        prompt,
        "--output-format",
        "json",
        "--permission-mode",
        mode,
    ]
    completed = subprocess.run(
        command,
        cwd=project,
        env=environment,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT + 30,
        check=False,
    )
    return Run(completed, records, home)


def bash(command: str) -> dict[str, Any]:
    return {"tool_use": {"name": "Bash", "input": {"command": command, "description": "task"}}}


def after_tool_use(request: dict[str, Any], tool_use_id: str) -> list[dict[str, Any]]:
    """The messages of a request that follow the assistant's tool_use `tool_use_id`."""
    messages: list[dict[str, Any]] = request["messages"]
    for index, message in enumerate(messages):
        content = message.get("content")
        if (
            message["role"] == "assistant"
            and isinstance(content, list)
            and any(block.get("id") == tool_use_id for block in content)
        ):
            return messages[index + 1 :]
    raise AssertionError(f"no tool_use {tool_use_id} in the request")


def tool_result(messages: list[dict[str, Any]], tool_use_id: str) -> dict[str, Any]:
    for message in messages:
        for block in message.get("content") or []:
            if isinstance(block, dict) and block.get("tool_use_id") == tool_use_id:
                return block
    raise AssertionError(f"no tool_result for {tool_use_id}")


# From 2.1.328 Claude Code offers an MCP server's tools through its ToolSearch tool: named in the
# system prompt as deferred tools, their schemas loaded when the model asks (2.1.197 lists them).
DEFERRED = re.compile(r"deferred tools are now available via ToolSearch\b[^\n]*\n((?:[^\n]+\n)*[^\n]+)")


def offered_tools(request: dict[str, Any]) -> dict[str, dict[str, Any] | None]:
    """The tools a request offers the model, by name, each with its input schema: listed whole
    (2.1.197), or deferred behind ToolSearch (2.1.328 and later: its schema None here)."""
    listed: dict[str, dict[str, Any] | None] = {
        tool["name"]: tool.get("input_schema") for tool in request.get("tools", [])
    }
    if "ToolSearch" in listed:
        for block in DEFERRED.findall(text_of(request.get("system")) + "\n" + text_of(request["messages"])):
            listed.update(dict.fromkeys((line.strip() for line in block.splitlines()), None))
    return listed


def written(content: Any) -> str:
    """A message's text: its content as a string, or its text blocks joined."""
    if isinstance(content, str):
        return content
    return "".join(block.get("text", "") for block in content if isinstance(block, dict))


def text_of(value: Any) -> str:
    """Every string in a JSON value, joined: what the model reads, whatever the block layout."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(text_of(item) for item in value)
    if isinstance(value, dict):
        return "\n".join(text_of(item) for item in value.values())
    return ""


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
