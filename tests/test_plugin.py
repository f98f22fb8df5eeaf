"""The Claude Code plugin (plugin/, and the marketplace in .claude-plugin/): its files in step with
the package, its launcher (an installed cortex-hooks, else its own environment, made in the
background while every hook fails open), and the real client installing it from a local marketplace."""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

import pytest
from claude_client import (
    after_tool_use,
    bash,
    offered_tools,
    run_claude,
    text_of,
    tool_result,
)
from support import FIXTURES, SCRIPTS, cli, cli_json, payload

from cortex_hooks.install.wiring import SCRIPTS as HOOK_SCRIPTS
from cortex_hooks.mcp import tools

ROOT = Path(__file__).resolve().parent.parent
PLUGIN = ROOT / "plugin"
LAUNCH = PLUGIN / "bin" / "cortex-launch"
SETUP = PLUGIN / "bin" / "cortex-setup"
COMMAND = PLUGIN / "bin" / "cortex-hooks"  # on the agent's Bash PATH: Claude Code adds a plugin's bin/
SKILLS = ("recall", "remember", "forget", "index-code", "consolidate", "learn")
SETUP_TIMEOUT = 600  # seconds for pip to build the environment: a bound on a hang, not a speed goal


def read(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def test_the_repository_is_a_marketplace_of_the_plugin() -> None:
    market = read(ROOT / ".claude-plugin" / "marketplace.json")
    (entry,) = market["plugins"]
    assert (market["name"], entry["name"], entry["source"]) == ("cortex-hooks", "cortex-hooks", "./plugin")
    manifest = read(PLUGIN / ".claude-plugin" / "plugin.json")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert (manifest["name"], manifest["version"]) == ("cortex-hooks", project["version"])


def test_the_plugin_folder_holds_what_pip_installs_from() -> None:
    for name in ("pyproject.toml", "README.md", "cortex_hooks/__init__.py", "cortex_hooks/mcp/server.py"):
        assert (PLUGIN / name).resolve() == (ROOT / name).resolve(), name


def test_the_plugin_hooks_run_the_three_scripts_through_the_launcher() -> None:
    hooks = read(PLUGIN / "hooks" / "hooks.json")["hooks"]
    assert set(hooks) == set(HOOK_SCRIPTS)
    welcome = hooks["SessionStart"].pop()  # a second SessionStart hook: the person told, once
    assert welcome == {
        "hooks": [
            {"type": "command", "command": '"${CLAUDE_PLUGIN_ROOT}/bin/cortex-launch" welcome', "timeout": 10}
        ]
    }
    for event, script in HOOK_SCRIPTS.items():
        (group,) = hooks[event]
        (handler,) = group["hooks"]
        assert (
            handler["command"]
            == f'"${{CLAUDE_PLUGIN_ROOT}}/bin/cortex-launch" {script.removeprefix("cortex-")}'
        )
        assert handler["timeout"] == 30
        assert group.get("matcher") == ("*" if event == "PreToolUse" else None)
    servers = read(PLUGIN / ".mcp.json")["mcpServers"]
    assert servers == {"cortex": {"command": "${CLAUDE_PLUGIN_ROOT}/bin/cortex-launch", "args": ["mcp"]}}


@pytest.mark.parametrize("name", SKILLS)
def test_each_skill_names_itself_and_real_tools(name: str) -> None:
    text = (PLUGIN / "skills" / name / "SKILL.md").read_text()
    front = re.match(r"---\nname: (.+)\ndescription: (.+)\n---\n", text)
    assert front is not None
    assert front[1] == name
    for tool in re.findall(r"`(cortex_[a-z_]+)`", text):
        assert tool in tools.BY_NAME, tool


@pytest.mark.parametrize("path", [LAUNCH, SETUP, COMMAND])
def test_the_launchers_are_posix_sh(path: Path) -> None:
    assert os.access(path, os.X_OK)
    assert path.read_text().startswith("#!/bin/sh\n")
    subprocess.run(["sh", "-n", str(path)], check=True)


def launch(
    *args: str, data: Path, path: str, stdin: str = "{}", project: Path | None = None, **env: str
) -> subprocess.CompletedProcess[str]:
    environment = {
        "HOME": os.environ["HOME"],
        "PATH": path,
        "CLAUDE_PLUGIN_ROOT": str(PLUGIN),
        "CLAUDE_PLUGIN_DATA": str(data),
        **({"CLAUDE_PROJECT_DIR": str(project)} if project else {}),
        **env,
    }
    return subprocess.run(
        [str(LAUNCH), *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=environment,
        timeout=60,
        check=False,
    )


def deny_payload(project: Path) -> str:
    call = payload("pre_tool_use.bash", cwd=str(project))
    call["tool_input"] = {"command": "npm install left-pad", "description": "task"}
    return json.dumps(call)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project whose default database holds an auto-block learning against `npm install`."""
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    added = cli(
        "add",
        "--anti-pattern",
        "npm install",
        "--correct",
        "this project uses pnpm",
        "--regex",
        r"\bnpm\s+install\b",
        "--tool",
        "Bash",
        "--auto-block",
        env={"CORTEX_DB": str(root / ".cortex" / "cortex.db")},
    )
    assert added.code == 0, added.stderr
    return root


def system_path() -> str:
    """PATH without our installed scripts (a person who installed only the plugin)."""
    return os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep) if Path(p) != SCRIPTS)


def test_an_installed_cortex_hooks_on_path_is_used(tmp_path: Path, project: Path) -> None:
    data = tmp_path / "data"
    path = os.pathsep.join([str(SCRIPTS), system_path()])
    ran = launch("pre-tool-use", data=data, path=path, stdin=deny_payload(project), project=project)
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert not data.exists()  # nothing to set up


def test_the_welcome_says_once_what_runs_the_hooks_and_how_to_start(tmp_path: Path) -> None:
    data = tmp_path / "data"
    path = os.pathsep.join([str(SCRIPTS), system_path()])
    first = launch("welcome", data=data, path=path)
    assert (first.returncode, first.stderr) == (0, "")
    message = json.loads(first.stdout)["systemMessage"]
    assert message.startswith(
        "cortex-hooks plugin 0.1.0 is set up: its hooks, the MCP server cortex and 6 skills"
    )
    assert f"run with {SCRIPTS / 'cortex-hooks'} (found on your PATH)" in message
    assert "cortex-hooks packs enable core" in message
    assert "ln -sf" not in message  # on the person's PATH already
    again = launch("welcome", data=data, path=path)
    assert (again.returncode, again.stdout, again.stderr) == (0, "", "")


def test_the_welcome_says_an_update_once_its_environment_is_the_new_version(tmp_path: Path) -> None:
    data = tmp_path / "data"
    (data / "venv").mkdir(parents=True)
    (data / "welcomed").write_text("0.0.9\n")  # said for an earlier version of the plugin
    (data / "venv" / ".ready").write_text("0.0.9\n")  # its environment not upgraded yet
    path = tools_dir(tmp_path)
    waiting = launch("welcome", data=data, path=path)
    assert (waiting.returncode, waiting.stdout, waiting.stderr) == (0, "", "")
    (data / "venv" / ".ready").write_text("0.1.0\n")  # upgraded in the background
    updated = launch("welcome", data=data, path=path)
    message = json.loads(updated.stdout)["systemMessage"]
    assert message.startswith("cortex-hooks plugin updated from 0.0.9 to 0.1.0: its hooks")
    assert f"its own Python environment, {data / 'venv'}" in message
    assert f"ln -sf '{data / 'venv' / 'bin' / 'cortex-hooks'}' ~/.local/bin/" in message
    assert (data / "welcomed").read_text() == "0.1.0\n"
    again = launch("welcome", data=data, path=path)
    assert (again.returncode, again.stdout) == (0, "")


def test_no_welcome_before_the_hooks_can_run(tmp_path: Path) -> None:
    data = tmp_path / "data"
    said = launch("welcome", data=data, path=tools_dir(tmp_path))
    assert (said.returncode, said.stdout, said.stderr) == (0, "", "")
    assert not (data / "welcomed").exists()  # said at a later session, once it is ready


def agents_bash(*args: str, path: str, home: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`cortex-hooks ARGS` as the agent's Bash runs it: the plugin's bin/ on PATH (Claude Code
    puts it last; first here, so that finding itself is tried), no CLAUDE_PLUGIN_* variables."""
    return subprocess.run(
        ["cortex-hooks", *args],
        capture_output=True,
        text=True,
        env={"HOME": str(home or os.environ["HOME"]), "PATH": os.pathsep.join([str(COMMAND.parent), path])},
        timeout=60,
        check=False,
    )


def test_the_agents_cortex_hooks_is_the_installed_one(tmp_path: Path) -> None:
    ran = agents_bash("--version", path=os.pathsep.join([str(SCRIPTS), system_path()]))
    assert (ran.returncode, ran.stdout) == (0, "cortex-hooks 0.1.0\n"), ran.stderr


def test_the_agents_cortex_hooks_says_when_the_environment_is_not_ready(tmp_path: Path) -> None:
    home, path = tmp_path / "home", tools_dir(tmp_path)  # no installation, no Python: never ready
    data = home / ".claude" / "plugins" / "data" / "cortex-hooks-cortex-hooks"  # as Claude Code names it
    # A setup under way (its lock held by a live process: this one). Without it, the setup the call
    # starts may fail before the call looks (no Python: at once), and it says that instead.
    (data / "setup.lock").mkdir(parents=True)
    (data / "setup.lock" / "pid").write_text(f"{os.getpid()}\n")
    ran = agents_bash("list", path=path, home=home)
    assert ran.returncode == 1
    assert "the plugin's Python environment is not ready yet" in ran.stderr
    assert ran.stdout == ""
    assert not (data / "setup.failed").exists()  # none started beside the one under way
    shutil.rmtree(data / "setup.lock")  # that setup gone: the next call starts one, which fails
    started = agents_bash("list", path=path, home=home)
    assert (started.returncode, started.stdout) == (1, "")
    assert "not ready yet" in started.stderr or "could not set up" in started.stderr, started.stderr
    wait_for(data / "setup.failed")
    wait_for_gone(data / "setup.lock")
    again = agents_bash("list", path=path, home=home)
    assert again.returncode == 1
    assert "could not set up its Python environment (no python3 >= 3.11 found" in again.stderr
    assert f"log: {data / 'setup.log'}" in again.stderr


def test_plugin_hooks_name_cortex_hooks_as_the_agent_finds_it(tmp_path: Path) -> None:
    """The plugin's bin/ is on the agent's Bash PATH: the session's text names `cortex-hooks`,
    not the installation's path, when a plugin runs the hooks (CLAUDE_PLUGIN_ROOT)."""
    database = tmp_path / "db"
    cli(
        "add",
        "--anti-pattern",
        "x",
        "--correct",
        "y",
        "--confidence",
        "0.40",
        "--no-regex",
        env={"CORTEX_DB": str(database)},
    )  # awaiting review: the text names commands
    env = {"CORTEX_DB": str(database), "PATH": system_path()}
    plain = cli("snapshot", process=True, env=env)
    assert "is not on PATH here: run it as" in plain.stdout
    from_plugin = cli("snapshot", process=True, env={**env, "CLAUDE_PLUGIN_ROOT": str(PLUGIN)})
    assert "`cortex-hooks keep 1`" in from_plugin.stdout
    assert "is not on PATH here" not in from_plugin.stdout


def tools_dir(tmp_path: Path) -> str:
    """A PATH with the commands the launchers use and no Python at all."""
    found = tmp_path / "no-python-bin"
    found.mkdir()
    for name in ("sh", "cat", "mkdir", "find", "sed", "setsid", "nohup", "rm", "cp", "mv"):
        where = shutil.which(name)
        if where:
            (found / name).symlink_to(where)
    return str(found)


def wait_for(path: Path, failed: Path | None = None) -> None:
    """Until `path` exists; a setup that failed (`failed` written) fails the test with its log."""
    deadline = time.monotonic() + SETUP_TIMEOUT
    while not path.exists():
        if failed is not None and failed.exists():
            log = failed.with_name("setup.log").read_text(errors="replace")
            raise AssertionError(f"the setup failed: {failed.read_text()}{log[-3000:]}")
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.2)


def pip_settings() -> dict[str, str]:
    """Where pip finds packages, as this test run was told (PIP_*): the plugin's first-use setup
    builds and installs the package (setuptools >= 77, pydantic, regex), which needs an index.
    Without one given, the tests of that path skip: a temporary HOME hides the user's pip.conf.
    pip tries each index once: in the client's network namespace (loopback only) PyPI cannot be
    reached, and pip's five retries of it cost eight seconds per package before the mirror answers."""
    found = {name: value for name, value in os.environ.items() if name.startswith("PIP_")}
    if not {"PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL"} & set(found) and not os.environ.get("CORTEX_TEST_PYPI"):
        pytest.skip(
            "the plugin's own environment is pip-installed: give the index (PIP_INDEX_URL or "
            "PIP_EXTRA_INDEX_URL, e.g. a local mirror), or CORTEX_TEST_PYPI=1 to use PyPI"
        )
    return {"PIP_RETRIES": "0", **found}


def test_without_python_every_hook_fails_open_and_says_so_once(tmp_path: Path, project: Path) -> None:
    data = tmp_path / "data"
    path = tools_dir(tmp_path)
    first = launch("pre-tool-use", data=data, path=path, stdin=deny_payload(project), project=project)
    assert (first.returncode, first.stderr) == (0, "")
    assert "setting up its Python environment" in json.loads(first.stdout)["systemMessage"]
    wait_for(data / "setup.failed")
    wait_for_gone(data / "setup.lock")
    told = launch("pre-tool-use", data=data, path=path, project=project)
    assert told.returncode == 0
    message = json.loads(told.stdout)["systemMessage"]
    assert "could not set up its Python environment (no python3 >= 3.11 found" in message
    for hook in ("pre-tool-use", "session-end"):
        again = launch(hook, data=data, path=path, project=project)
        assert (again.returncode, again.stdout, again.stderr) == (0, "", "")
    served = launch("mcp", data=data, path=path, stdin="", project=project)
    assert (served.returncode, served.stdout) == (0, "")


def wait_for_gone(path: Path) -> None:
    deadline = time.monotonic() + SETUP_TIMEOUT
    while path.exists():
        assert time.monotonic() < deadline, f"{path} never went away"
        time.sleep(0.2)


def test_the_plugin_makes_its_own_environment_from_its_folder(tmp_path: Path, project: Path) -> None:
    """The slow path a person without cortex-hooks takes once: pip installs the plugin's folder."""
    data = tmp_path / "data"
    path = system_path()
    pip = pip_settings()
    first = launch("pre-tool-use", data=data, path=path, stdin=deny_payload(project), project=project, **pip)
    assert first.returncode == 0
    assert "setting up" in first.stdout  # and the call was not denied: fail open
    wait_for(data / "venv" / ".ready", data / "setup.failed")
    assert (data / "venv" / ".ready").read_text().strip() == tomllib.loads(
        (ROOT / "pyproject.toml").read_text()
    )["project"]["version"]
    ran = launch("pre-tool-use", data=data, path=path, stdin=deny_payload(project), project=project)
    assert json.loads(ran.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny", ran.stderr
    # the core packs, enabled once in the user-global memory, guard a project that has no memory
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    guarded = launch("pre-tool-use", data=data, path=path, stdin=bash_payload(RESET, fresh), project=fresh)
    assert json.loads(guarded.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny", guarded.stderr
    assert (data / "packs.enabled").exists()
    assert not (fresh / ".cortex").exists()
    served = launch(
        "mcp", data=data, path=path, project=project, stdin='{"jsonrpc": "2.0", "id": 0, "method": "ping"}\n'
    )
    assert json.loads(served.stdout) == {"jsonrpc": "2.0", "id": 0, "result": {}}


# The real client, offline: the plugin installed from a local marketplace in a temporary HOME.


def marketplace(tmp_path: Path) -> Path:
    """A copy of this repository's marketplace (the plugin's links followed, as a clone has them)."""
    market = tmp_path / "market"
    shutil.copytree(ROOT / ".claude-plugin", market / ".claude-plugin")
    shutil.copytree(PLUGIN, market / "plugin", ignore=shutil.ignore_patterns("__pycache__"))
    return market


def install_plugin(claude: str, namespace: list[str], tmp_path: Path) -> Path:
    home = tmp_path / "claude-home"
    home.mkdir()
    environment = {
        **os.environ,
        "HOME": str(home),
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
    }
    market = marketplace(tmp_path)
    for command in (["marketplace", "add", str(market)], ["install", "cortex-hooks@cortex-hooks"]):
        done = subprocess.run(
            [*namespace, claude, "plugin", *command],
            env=environment,
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr
    return home


PLUGIN_TOOL = "mcp__plugin_cortex-hooks_cortex__{}"


@pytest.mark.claude_cli
def test_the_installed_plugin_blocks_through_its_hook_and_lists_its_tools(
    claude: str, namespace: list[str], tmp_path: Path, project: Path
) -> None:
    install_plugin(claude, namespace, tmp_path)
    path = os.pathsep.join([str(SCRIPTS), system_path()])  # cortex-hooks installed: used at once
    turns = [bash("echo npm install left-pad > ran.flag"), {"text": "Noted."}]
    run = run_claude(claude, namespace, project, turns, **{"PATH": path})
    assert run.code == 0, run.explain()
    assert not (project / "ran.flag").exists(), "the denied command ran"
    denied = tool_result(after_tool_use(run.requests[1], "toolu_mock_1"), "toolu_mock_1")
    assert denied["is_error"] is True
    offered = offered_tools(run.requests[0])  # listed whole, or deferred behind ToolSearch (2.1.328+)
    assert {PLUGIN_TOOL.format(tool.name) for tool in tools.TOOLS} <= set(offered)
    session = run.result()["session_id"]  # its end recorded by a process of its own (1.5 s budget)
    deadline = time.monotonic() + 60
    while not [s for s in sessions(project) if s["id"] == session and s["ended_at"]]:
        assert time.monotonic() < deadline, sessions(project)
        time.sleep(0.2)


def sessions(project: Path) -> list[dict[str, Any]]:
    listed: list[dict[str, Any]] = cli_json(
        "sessions", env={"CORTEX_DB": str(project / ".cortex" / "cortex.db")}
    )
    return listed


def test_the_end_of_a_session_is_recorded_detached_and_the_hook_returns_at_once(
    tmp_path: Path, project: Path
) -> None:
    """Claude Code kills a plugin's SessionEnd hooks after 1.5 s whatever their `timeout`."""
    data, path = tmp_path / "data", os.pathsep.join([str(SCRIPTS), system_path()])
    transcript = tmp_path / "transcript.jsonl"
    transcript.write_text((FIXTURES / "transcript.jsonl").read_text() * 200)
    end = payload(
        "session_end.other", session_id="ended-1", transcript_path=str(transcript), cwd=str(project)
    )
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    holder = sqlite3.connect(project / ".cortex" / "cortex.db", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # the work cannot be done while this is held: the hook returns
    try:
        ran = launch(
            "session-end", data=data, path=path, stdin=json.dumps(end), project=project, TMPDIR=str(temporary)
        )
        assert (ran.returncode, ran.stdout, ran.stderr) == (0, "", "")
        assert not [s for s in sessions(project) if s["id"] == "ended-1"]
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    deadline = time.monotonic() + 60
    while not [s for s in sessions(project) if s["id"] == "ended-1" and s["ended_at"]]:
        assert time.monotonic() < deadline, sessions(project)
        time.sleep(0.1)
    while list(temporary.iterdir()):  # the payload's file, removed by the process it fed
        assert time.monotonic() < deadline, list(temporary.iterdir())
        time.sleep(0.1)


PINNED = "Releases are cut from the trunk branch every Thursday"


def attachments(run: Any, kind: str) -> list[Any]:
    """The attachments of one kind in this run's session (the HOME keeps earlier sessions too)."""
    session = run.result()["session_id"]
    return [
        entry["attachment"].get("content")
        for entry in run.transcript
        if entry.get("sessionId") == session
        and entry.get("type") == "attachment"
        and entry["attachment"].get("type") == kind
    ]


@pytest.mark.claude_cli
def test_a_pinned_memory_reaches_the_first_request_of_the_first_session_after_setup(
    claude: str, namespace: list[str], tmp_path: Path
) -> None:
    """Plugin installed, a memory pinned: the plugin's SessionStart carries the surface's digest
    (no CLAUDE.local.md import: the plugin writes nothing into the project), once, and tells the
    person once what was set up."""
    install_plugin(claude, namespace, tmp_path)
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    assert cli("remember", PINNED, "--pin", cwd=project, env={"CORTEX_DB": ""}).code == 0
    path = os.pathsep.join([str(SCRIPTS), system_path()])

    run = run_claude(claude, namespace, project, [{"text": "Noted."}], **{"PATH": path})
    assert run.code == 0, run.explain()
    assert text_of(run.requests[0]).count(PINNED) == 1, text_of(run.requests[0])[:3000]
    (welcome,) = attachments(run, "hook_system_message")
    assert welcome.startswith("cortex-hooks plugin 0.1.0 is set up")
    assert sorted(path.name for path in project.iterdir()) == [".cortex", ".git"]  # nothing else written

    again = run_claude(claude, namespace, project, [{"text": "Noted."}], **{"PATH": path})
    assert again.code == 0, again.explain()
    assert text_of(again.requests[0]).count(PINNED) == 1
    assert attachments(again, "hook_system_message") == []  # said once


@pytest.mark.claude_cli
def test_the_plugin_alone_fails_open_then_works_once_its_environment_is_ready(
    claude: str, namespace: list[str], tmp_path: Path, project: Path
) -> None:
    environment = {"PATH": system_path(), **pip_settings()}  # no cortex-hooks: the plugin makes its own
    home = install_plugin(claude, namespace, tmp_path)
    turns = [bash("echo npm install left-pad > ran.flag"), {"text": "Noted."}]
    run = run_claude(claude, namespace, project, turns, **environment)
    assert run.code == 0, run.explain()
    assert (project / "ran.flag").exists(), "a hook that is not ready must fail open"
    (project / "ran.flag").unlink()
    data = home / ".claude" / "plugins" / "data" / "cortex-hooks-cortex-hooks"
    wait_for(data / "venv" / ".ready", data / "setup.failed")

    run = run_claude(claude, namespace, project, [mcp_recall(), *turns], **environment)
    assert run.code == 0, run.explain()
    recalled = tool_result(after_tool_use(run.requests[1], "toolu_mock_1"), "toolu_mock_1")
    assert "npm install" in json.dumps(recalled["content"])
    assert not (project / "ran.flag").exists(), "the denied command ran"
    assert tool_result(after_tool_use(run.requests[2], "toolu_mock_2"), "toolu_mock_2")["is_error"] is True
    (welcome,) = attachments(run, "hook_system_message")  # the first session it could run in
    assert f"its own Python environment, {data / 'venv'}" in welcome

    # the one command the welcome gives puts cortex-hooks in the person's shell
    (command,) = re.findall(r"To have it in your shell too: (.*? ~/\.local/bin/)\. ", welcome)
    linked = subprocess.run(["sh", "-c", command], env={"HOME": str(home)}, check=False, capture_output=True)
    assert linked.returncode == 0, linked.stderr
    person = home / ".local" / "bin" / "cortex-hooks"
    remembered = subprocess.run(
        [str(person), "remember", PINNED, "--pin"],
        cwd=project,
        env={"HOME": str(home)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert remembered.returncode == 0, remembered.stderr

    # the next session: the pinned memory in its first request, and the agent's own cortex-hooks
    turns = [bash("cortex-hooks recall Thursday > recalled.txt 2>&1"), {"text": "Noted."}]
    run = run_claude(claude, namespace, project, turns, **environment)
    assert run.code == 0, run.explain()
    assert text_of(run.requests[0]).count(PINNED) == 1
    assert PINNED in (project / "recalled.txt").read_text()
    assert attachments(run, "hook_system_message") == []


def mcp_recall() -> dict[str, Any]:
    return {"tool_use": {"name": PLUGIN_TOOL.format("cortex_recall"), "input": {"query": "npm"}}}


# While its environment is being made: the core packs alone, on the standard library.

RESET = "git reset --hard"


def bash_payload(command: str, project: Path) -> str:
    call = payload("pre_tool_use.bash", cwd=str(project))
    call["tool_input"] = {"command": command, "description": "task"}
    return json.dumps(call)


def test_the_packs_alone_judge_as_the_hook_does_on_the_packs_corpora() -> None:
    from judging import CORPORA, DCG, cases, core, denied

    from cortex_hooks.hooks import packs_only

    corpus = [
        *cases(CORPORA / "pack_core_git.toml"),
        *cases(CORPORA / "pack_core_filesystem.toml"),
        *cases(CORPORA / "agent_commands.toml"),
        *(cases(DCG) if DCG.is_dir() else []),
    ]
    assert len(corpus) > 300

    def judged(command: str) -> bool:
        output = packs_only.decide({"tool_name": "Bash", "tool_input": {"command": command}})
        return output is not None and output["hookSpecificOutput"].get("permissionDecision") == "deny"

    rules = core()  # loaded once: the packs' files read and their patterns compiled per command took ~20 s
    differ = [command for command, _ in corpus if judged(command) != denied(rules, command, "content")]
    assert differ == []
    assert {learning.slug for learning in packs_only.learnings()} == {record.id for record in rules}


def test_the_packs_alone_need_only_the_standard_library(tmp_path: Path) -> None:
    """Run as the launcher runs it, without any site-packages (-S): pydantic and regex absent."""
    script = (
        "import sys; sys.path.insert(0, sys.argv[1]); from cortex_hooks.hooks import packs_only; "
        "code = packs_only.main(); "
        "assert not {'pydantic', 'regex'} & set(sys.modules), 'a dependency was imported'; sys.exit(code)"
    )
    project = tmp_path / "project"
    for command, denies in ((RESET, True), ("git status", False), ("rm -rf ~/code", True), ("ls", False)):
        ran = subprocess.run(
            [sys.executable, "-I", "-S", "-c", script, str(PLUGIN)],
            input=bash_payload(command, project),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert (ran.returncode, ran.stderr) == (0, ""), ran.stderr
        if denies:
            output = json.loads(ran.stdout)["hookSpecificOutput"]
            assert output["permissionDecision"] == "deny"
            assert "NEVER:" in output["permissionDecisionReason"]  # the one judge's words
            assert "only its core packs guard the tool calls" in output["additionalContext"]
        else:
            assert ran.stdout == ""
    broken = subprocess.run(
        [sys.executable, "-I", "-S", "-c", script, str(PLUGIN)],
        input="{",
        capture_output=True,
        text=True,
        check=False,
    )
    assert (broken.returncode, broken.stdout, broken.stderr) == (0, "", "")  # fails open


def test_while_the_environment_is_made_the_core_packs_deny_and_a_failure_says_how_to_retry_now(
    tmp_path: Path,
) -> None:
    data, project = tmp_path / "data", tmp_path / "project"
    path = system_path()  # a python3, no cortex-hooks; no package index: the setup fails
    offline = {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": ""}
    first = launch(
        "pre-tool-use",
        data=data,
        path=path,
        stdin=bash_payload(RESET, project),
        PIP_NO_INDEX="1",
        PIP_FIND_LINKS="",
    )
    assert first.returncode == 0, first.stderr
    said = json.loads(first.stdout)
    assert said["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "setting up its Python environment" in said["systemMessage"]
    assert "only its core packs guard the tool calls" in said["systemMessage"]
    quiet = launch(
        "pre-tool-use",
        data=data,
        path=path,
        stdin=bash_payload("git status", project),
        PIP_NO_INDEX="1",
        PIP_FIND_LINKS="",
    )
    assert (quiet.returncode, quiet.stdout) == (0, "")  # allowed, and the setup was said once
    wait_for(data / "setup.failed")
    wait_for_gone(data / "setup.lock")
    told = launch(
        "pre-tool-use",
        data=data,
        path=path,
        stdin=bash_payload("git status", project),
        PIP_NO_INDEX="1",
        PIP_FIND_LINKS="",
    )
    message = json.loads(told.stdout)["systemMessage"]
    assert "could not set up its Python environment (pip install of cortex-hooks failed" in message
    (command,) = re.findall(r"or now with: (.*)$", message)
    assert command == f"sh '{PLUGIN}/bin/cortex-setup' '{PLUGIN}' '{data}'"
    still = launch(
        "pre-tool-use",
        data=data,
        path=path,
        stdin=bash_payload(RESET, project),
        PIP_NO_INDEX="1",
        PIP_FIND_LINKS="",
    )
    assert json.loads(still.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"  # guarded still
    assert "systemMessage" not in json.loads(still.stdout)  # told once

    # a new session tries again at once, without waiting an hour
    (data / "setup.failed").write_text("an earlier failure\n")
    started = launch("session-start", data=data, path=path, PIP_NO_INDEX="1", PIP_FIND_LINKS="")
    assert (started.returncode, started.stdout) == (0, "")  # tried again quietly
    wait_for(data / "setup.failed")
    assert (data / "setup.failed").read_text() != "an earlier failure\n"
    wait_for_gone(data / "setup.lock")
    by_hand = subprocess.run(
        ["sh", "-c", command],
        env={"HOME": os.environ["HOME"], "PATH": path, **offline},
        capture_output=True,
        text=True,
        timeout=SETUP_TIMEOUT,
        check=False,
    )
    assert by_hand.returncode == 1
    assert "cortex-setup: pip install of cortex-hooks failed" in by_hand.stderr  # pip's reasons above it


@pytest.mark.claude_cli
def test_the_first_session_of_the_plugin_is_guarded_by_the_core_packs_while_it_sets_up(
    claude: str, namespace: list[str], tmp_path: Path
) -> None:
    home = install_plugin(claude, namespace, tmp_path)
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (project / "work.txt").write_text("not committed yet")
    environment = {"PATH": system_path(), "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": ""}  # never ready
    turns = [bash(f"{RESET} && echo gone > work.txt"), {"text": "Stopped."}]
    run = run_claude(claude, namespace, project, turns, **environment)
    assert run.code == 0, run.explain()
    assert (project / "work.txt").read_text() == "not committed yet", "the denied command ran"
    denied = tool_result(after_tool_use(run.requests[1], "toolu_mock_1"), "toolu_mock_1")
    assert denied["is_error"] is True
    assert "core.git:reset-hard" in json.dumps(denied)
    data = home / ".claude" / "plugins" / "data" / "cortex-hooks-cortex-hooks"
    assert not (data / "venv" / ".ready").exists()
    messages = attachments(run, "hook_system_message")
    assert any("only its core packs guard the tool calls" in str(message) for message in messages), [
        entry.get("attachment", entry.get("type")) for entry in run.transcript
    ]
