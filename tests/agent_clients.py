"""The real Codex, Gemini and Copilot CLIs, run offline against tests/mock_models.py inside a
private network namespace, with the hooks `cortex-hooks install --agent NAME` wrote: how each is
invoked and configured (reference/other-agents.md), what the model was shown, and turns in each
agent's own tool calls.

The CLIs are pinned npm packages `.ci/run` installs outside the package (CORTEX_CODEX_BIN,
CORTEX_GEMINI_BIN, CORTEX_COPILOT_BIN); where one is absent, or no private network namespace can
be made, its tests skip and say why.
"""

from __future__ import annotations

import atexit
import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from support import SCRIPTS, cli

MOCK = Path(__file__).with_name("mock_models.py")
RUN_TIMEOUT = 90  # seconds for one CLI run inside the launcher
PACKAGES = {
    "codex": ("CORTEX_CODEX_BIN", "@openai/codex@0.169.0", "codex"),
    "gemini": ("CORTEX_GEMINI_BIN", "@google/gemini-cli@0.61.0", "gemini"),
    "copilot": ("CORTEX_COPILOT_BIN", "@github/copilot@1.0.102", "copilot"),
}
API = {"codex": "responses", "gemini": "gemini", "copilot": "chat"}


def binary(agent: str) -> str:
    """The pinned CLI of an agent, or a skip saying how to have it."""
    variable, package, name = PACKAGES[agent]
    found = os.environ.get(variable)
    if not found:
        pytest.skip(
            f"the {agent} CLI is absent: set {variable} (.ci/run installs it with npm install "
            f"--prefix .ci-cache/{agent} {package}, as node_modules/.bin/{name})"
        )
    if not (os.path.isfile(found) and os.access(found, os.X_OK)):
        pytest.skip(f"{variable}={found} is not an executable file")
    return found


def network_namespace() -> list[str]:
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


def shell(agent: str, command: str) -> dict[str, Any]:
    """A turn in which the model runs a shell command with the agent's own tool."""
    if agent == "codex":
        return {"call": {"name": "exec_command", "arguments": {"cmd": command}}}
    if agent == "gemini":
        return {
            "call": {"name": "run_shell_command", "arguments": {"command": command, "description": "task"}}
        }
    return {"call": {"name": "bash", "arguments": {"command": command, "description": "task"}}}


def patch(agent: str, text: str) -> dict[str, Any]:
    """A turn in which the model applies a patch (Codex's apply_patch; Copilot's for GPT models)."""
    return {"custom": {"name": "apply_patch", "input": text}}


def text_of(value: Any) -> str:
    """Every string in a JSON value, joined: what the model reads, whatever the layout."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(text_of(item) for item in value)
    if isinstance(value, dict):
        return "\n".join(text_of(item) for item in value.values())
    return ""


class Run:
    """One run of a CLI: its exit status and output, and the requests the model was sent."""

    def __init__(self, agent: str, completed: subprocess.CompletedProcess[str], records: Path) -> None:
        self.agent = agent
        self.code = completed.returncode
        self.stdout = completed.stdout
        self.stderr = completed.stderr
        recorded: list[dict[str, Any]] = json.loads(records.read_text()) if records.exists() else []
        self.requests = [record["body"] for record in recorded if record["conversation"]]

    def outputs(self, index: int = -1) -> list[str]:
        """What the tools answered the model, as the request at `index` carries it (every tool
        output in it, in order)."""
        request = self.requests[index]
        if self.agent == "codex":
            return [
                text_of(item.get("output"))
                for item in request.get("input", [])
                if isinstance(item, dict)
                and item.get("type") in ("function_call_output", "custom_tool_call_output")
            ]
        if self.agent == "gemini":
            return [
                text_of(part["functionResponse"].get("response"))
                for content in request.get("contents", [])
                for part in content.get("parts", [])
                if isinstance(part, dict) and "functionResponse" in part
            ]
        return [
            text_of(message.get("content"))
            for message in request.get("messages", [])
            if isinstance(message, dict) and message.get("role") == "tool"
        ]

    def first_request_text(self) -> str:
        """Everything the model was shown in the first request: instructions, context, prompt."""
        return text_of(self.requests[0]) if self.requests else ""

    def explain(self) -> str:
        return f"exit {self.code}\nstdout: {self.stdout[-3000:]}\nstderr: {self.stderr[-3000:]}"


def install(project: Path, agent: str) -> None:
    """`cortex-hooks install --agent NAME` in the project, as a person would run it."""
    done = cli("install", "--agent", agent, cwd=project, process=True)
    assert done.code == 0, done.stderr


@functools.cache
def copilot_cache() -> Path:
    """Where Copilot's binary unpacks the package it carries (235 MB, ~0.8 s) at its first run:
    once per test process rather than into each test's HOME. Code, not state: every test still
    has its own HOME and COPILOT_HOME."""
    folder = tempfile.mkdtemp(prefix="cortex-tests-copilot-cache-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return Path(folder)


def environment(home: Path, **env: str) -> dict[str, str]:
    """An offline client's environment with its own HOME; our scripts found only through the
    absolute paths install wrote, never through PATH."""
    path = os.pathsep.join(
        part for part in os.environ.get("PATH", "").split(os.pathsep) if Path(part) != SCRIPTS
    )
    return {"PATH": path, "HOME": str(home), "LANG": "C.UTF-8", "NO_COLOR": "1", **env}


CODEX_CONFIG = """\
model = "gpt-5.5"
model_provider = "mock"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false
[analytics]
enabled = false
[feedback]
enabled = false
[features]
plugins = false
remote_plugin = false
apps = false
plugin_sharing = false
tool_suggest = false
skill_mcp_dependency_install = false
api_key_model_discovery = false
daemon_auto_start = false
in_app_updates = false
enable_request_compression = false
[model_providers.mock]
name = "mock"
base_url = "http://127.0.0.1:@PORT@/v1"
env_key = "MOCK_OPENAI_API_KEY"
wire_api = "responses"
supports_websockets = false
request_max_retries = 0
stream_max_retries = 0
"""

GEMINI_SETTINGS = {
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
    "general": {
        "disableAutoUpdate": True,
        "disableUpdateNag": True,
        "enableAutoUpdate": False,
        "enableAutoUpdateNotification": False,
    },
    "ide": {"enabled": False},
}


def run(  # noqa: PLR0917 (as test_claude_code's run_claude: the client, where, what)
    agent: str,
    client: str,
    namespace: list[str],
    project: Path,
    turns: list[dict[str, Any]],
    prompt: str = "Please do the task.",
    **env: str,
) -> Run:
    """Run the agent's CLI once in `project` against the mock, offline: `codex exec`, `gemini -p`,
    `copilot -p`, each as reference/other-agents.md invokes it."""
    work = project.parent
    home = work / f"{agent}-home"
    home.mkdir(exist_ok=True)
    (work / "turns.json").write_text(json.dumps(turns))
    records = work / "requests.json"
    records.unlink(missing_ok=True)
    fill: list[str] = []
    if agent == "codex":
        codex_home = work / "codex-home"
        codex_home.mkdir(exist_ok=True)
        (codex_home / "config.toml").write_text(CODEX_CONFIG)
        fill.append(f"--fill={codex_home / 'config.toml'}")
        variables = {
            "CODEX_HOME": str(codex_home),
            "MOCK_OPENAI_API_KEY": "sk-test-dummy",
            "CODEX_DISABLE_UPDATE_CHECK": "1",
            "RUST_LOG": "warn",
        }
        command = [
            client,
            "exec",
            "--json",
            "--skip-git-repo-check",
            "-C",
            str(project),
            "--dangerously-bypass-approvals-and-sandbox",
            "--dangerously-bypass-hook-trust",
            "--trust",
            prompt,
        ]
    elif agent == "gemini":
        (home / ".gemini").mkdir(exist_ok=True)
        (home / ".gemini" / "settings.json").write_text(json.dumps(GEMINI_SETTINGS))
        variables = {
            "GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:@PORT@",
            "GEMINI_API_KEY": "dummy-key",
            "GEMINI_CLI_TRUST_WORKSPACE": "true",
            "NO_BROWSER": "1",
        }
        command = [
            client,
            "-p",
            prompt,
            "--output-format",
            "json",
            "--skip-trust",
            "--approval-mode",
            "yolo",
            "-m",
            "gemini-2.5-pro",
        ]
    else:
        variables = {
            "COPILOT_HOME": str(work / "copilot-home"),
            "XDG_CACHE_HOME": str(copilot_cache()),
            "COPILOT_OFFLINE": "true",
            "COPILOT_PROVIDER_BASE_URL": "http://127.0.0.1:@PORT@/v1",
            "COPILOT_PROVIDER_API_KEY": "dummy",
            "COPILOT_PROVIDER_WIRE_API": "completions",
            "COPILOT_MODEL": "gpt-5.5",
            "COPILOT_AUTO_UPDATE": "false",
            "COPILOT_ALLOW_ALL": "true",
        }
        command = [
            client,
            "-p",
            prompt,
            "--allow-all-tools",
            "--output-format",
            "json",
            "--no-auto-update",
            "--log-dir",
            str(work / "copilot-logs"),
        ]
    launcher = [
        *namespace,
        sys.executable,
        str(MOCK),
        f"--api={API[agent]}",
        f"--turns={work / 'turns.json'}",
        f"--record={records}",
        *fill,
        f"--timeout={RUN_TIMEOUT}",
        "--",
        *command,
    ]
    completed = subprocess.run(
        launcher,
        cwd=project,
        env=environment(home, **variables, **env),
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT + 60,
        check=False,
    )
    return Run(agent, completed, records)
