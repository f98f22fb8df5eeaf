"""The real Claude Code CLI driven offline, for the end-to-end tests (test_claude_code*.py,
test_plugin.py): the hooks wired by `cortex-hooks install`, the model played by
tests/mock_anthropic.py, both inside a network namespace with only loopback.

The CLI is the pinned npm package `.ci/run` installs (CORTEX_CLAUDE_BIN); where it is absent, or
no private network namespace can be made, the `claude` and `namespace` fixtures skip the test and
say why. How the CLI is run, and what it was seen to do, is in docs/internals/development.md.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from agent_clients import network_namespace
from support import SCRIPTS, cli, cli_json, reminder_unless_regex

MOCK = Path(__file__).with_name("mock_anthropic.py")
RUN_TIMEOUT = 60  # seconds for one CLI run inside the launcher; the launcher itself gets more


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """With CORTEX_CLAUDE_NEWEST_BIN too (`.ci/run`: the newest release), every test of the real
    client runs with each release, in the same run: `[pinned]` and `[newest]`."""
    newest = os.environ.get("CORTEX_CLAUDE_NEWEST_BIN")
    if "claude" in metafunc.fixturenames and newest and os.environ.get("CORTEX_CLAUDE_BIN"):
        metafunc.parametrize(
            "claude", [os.environ["CORTEX_CLAUDE_BIN"], newest], ids=["pinned", "newest"], indirect=True
        )


@pytest.fixture(scope="module")
def claude(request: pytest.FixtureRequest) -> str:
    """The Claude Code CLI: CORTEX_CLAUDE_BIN's, or the release this test was parametrized with."""
    binary = getattr(request, "param", None) or os.environ.get("CORTEX_CLAUDE_BIN")
    if not binary:
        pytest.skip(
            "the Claude Code CLI is absent: set CORTEX_CLAUDE_BIN (.ci/run installs it with "
            "npm install --prefix .ci-cache/claude-2.1.197 @anthropic-ai/claude-code@2.1.197)"
        )
    if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        pytest.skip(f"the Claude Code CLI {binary} is not an executable file")
    return binary


@pytest.fixture(scope="module")
def namespace() -> list[str]:
    """The command prefix that runs a command in a private network namespace with loopback up."""
    return network_namespace()


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
    """Run `claude -p` in `project` against the mock, offline (docs/internals/development.md), in
    the permission mode given; `env` adds to or overrides the client's environment."""
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
