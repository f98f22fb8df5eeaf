"""The wiring test (STYLE.md): pyproject scripts, bin/, settings.example.json and the docs in step."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from support import cli, cli_json, payload

ROOT = Path(__file__).resolve().parent.parent
# docs/reference/commands.md: the hooks and the events Claude Code runs them on, and the management CLI.
HOOKS = {
    "PreToolUse": "cortex-pre-tool-use",
    "SessionStart": "cortex-session-start",
    "SessionEnd": "cortex-session-end",
}
CLI = "cortex-hooks"
SESSION_END_DEFAULT_BUDGET = 1.5  # seconds (docs/internals/guarantees.md)


def project_scripts() -> dict[str, str]:
    with open(ROOT / "pyproject.toml", "rb") as handle:
        scripts: dict[str, str] = tomllib.load(handle)["project"]["scripts"]
    return scripts


def example() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((ROOT / "settings.example.json").read_text(encoding="utf-8"))
    return data


def commands_of(settings: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """event -> every handler of every group."""
    return {
        event: [handler for group in groups for handler in group["hooks"]]
        for event, groups in settings["hooks"].items()
    }


def test_pyproject_declares_exactly_the_four_console_scripts() -> None:
    scripts = project_scripts()
    assert set(scripts) == {*HOOKS.values(), CLI}
    for name, target in scripts.items():
        assert re.fullmatch(r"cortex_hooks(\.\w+)+:\w+", target), (name, target)


@pytest.mark.parametrize("name", sorted(HOOKS.values()))
def test_each_hook_has_a_bin_shim_naming_the_same_entry_point_and_no_logic(name: str) -> None:
    module, function = project_scripts()[name].split(":")
    shim = ROOT / "bin" / name
    assert shim.is_file(), f"bin/{name} is missing"
    assert os.access(shim, os.X_OK), f"bin/{name} is not executable"
    text = shim.read_text(encoding="utf-8")
    assert text.startswith("#!/bin/sh\n")
    code = [
        line.strip() for line in text.splitlines()[1:] if line.strip() and not line.lstrip().startswith("#")
    ]
    execs = [line for line in code if re.search(r"(^|\s)exec\s", line)]
    assert len(execs) == 1, code
    assert execs[0] == code[-1], "the exec line ends the shim"
    # the single entry point, as [project.scripts] names it, and no other module of ours
    assert f"from {module} import {function};" in execs[0]
    assert f"sys.exit({function}())" in execs[0]
    assert execs[0].endswith(' "$@"'), "the shim hands its arguments on (`--agent NAME`)"
    assert set(re.findall(r"cortex_hooks[\w.]*", text)) == {module}
    # no logic: beside the exec line at most the checkout root is found; no branches, loops or pipes
    for line in code[:-1]:
        assert re.fullmatch(r'root=\$\(cd "\$\(dirname "\$0"\)/\.\." && pwd\)', line), line
    words = set(re.findall(r"\b\w+\b", " ".join(code)))
    assert not words & {"if", "then", "case", "for", "while", "until", "function"}, code
    names_of_shims = sorted(path.name for path in (ROOT / "bin").iterdir())
    assert names_of_shims == sorted(HOOKS.values())


@pytest.mark.parametrize("name", sorted([*HOOKS.values(), CLI]))
def test_every_console_script_is_installed_beside_the_interpreter(name: str) -> None:
    module, function = project_scripts()[name].split(":")
    installed = Path(sys.executable).parent / name
    assert installed.is_file(), f"{name} is not installed beside {sys.executable}"
    assert os.access(installed, os.X_OK)
    assert f"from {module} import {function}" in installed.read_text(encoding="utf-8")


def test_settings_example_wires_the_three_hooks_with_timeouts() -> None:
    settings = example()
    assert set(settings) == {"hooks", "permissions"}  # and the deny rules for the guard's files
    handlers = commands_of(settings)
    assert set(handlers) == set(HOOKS)
    for event, script in HOOKS.items():
        assert [handler["command"] for handler in handlers[event]] == [script], event
        for handler in handlers[event]:
            assert handler["type"] == "command"
            assert isinstance(handler["timeout"], int | float), (event, handler)
            assert handler["timeout"] > 0
    assert all(handler["timeout"] > SESSION_END_DEFAULT_BUDGET for handler in handlers["SessionEnd"])
    (pre_tool_use,) = settings["hooks"]["PreToolUse"]
    assert pre_tool_use.get("matcher") in ("*", "")  # every tool


def test_settings_example_is_what_install_writes_modulo_the_paths(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    env = {"CLAUDE_PROJECT_DIR": str(project), "CORTEX_DB": ""}
    result = cli("install", env=env, cwd=project, process=True)
    assert result.code == 0, result.stderr
    written = json.loads((project / ".claude" / "settings.json").read_text(encoding="utf-8"))
    for event, handlers in commands_of(written).items():
        for handler in handlers:
            program = shlex.split(handler["command"])[0]
            assert os.path.isabs(program), handler  # works without the venv on PATH
            assert os.access(program, os.X_OK), handler
            assert Path(program).name == HOOKS[event]
            handler["command"] = Path(program).name
    assert written == example()


def test_the_bin_shims_run_the_hooks(tmp_path: Path) -> None:
    database = tmp_path / "shim.db"
    env = {"CORTEX_DB": str(database), "CORTEX_NOW": "2026-06-01T10:00:00Z"}
    blocked = cli_json(
        "add", "--anti-pattern", "rm -rf a build tree", "--correct", "make clean",
        "--regex=rm\\s+-rf\\s", "--tool", "Bash", "--auto-block", env=env,
    )  # fmt: skip
    shim_env = {**os.environ, **env, "CORTEX_PYTHON": sys.executable}
    shim_env.pop("PYTHONPATH", None)

    def shim(name: str, data: dict[str, Any]) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            [str(ROOT / "bin" / name)],
            input=json.dumps(data).encode(),
            capture_output=True,
            env=shim_env,
            cwd=tmp_path,
            timeout=60,
            check=False,
        )

    denied = shim("cortex-pre-tool-use", payload("pre_tool_use.bash"))
    assert denied.returncode == 0, denied.stderr
    output = json.loads(denied.stdout)["hookSpecificOutput"]
    assert output["permissionDecision"] == "deny"
    assert f"learning #{blocked['id']}" in output["permissionDecisionReason"]
    assert "make clean" in output["permissionDecisionReason"]

    with ThreadPoolExecutor(max_workers=2) as pool:
        started = pool.submit(shim, "cortex-session-start", payload("session_start.startup"))
        ended = pool.submit(shim, "cortex-session-end", payload("session_end.other", session_id="other"))
    assert started.result().returncode == 0, started.result().stderr
    assert ended.result().returncode == 0, ended.result().stderr
    sessions = {row["id"] for row in cli_json("sessions", "list", env=env)}
    assert sessions == {payload("session_start.startup")["session_id"], "other"}
    after = cli_json("show", str(blocked["id"]), env=env)
    assert after["confidence"] == 0.79  # 0.70, +0.10 for the deny, -0.01 for the session end


def test_the_docs_name_every_console_script_and_the_install_command() -> None:
    from docs_examples import pages

    docs = "".join(page.read_text(encoding="utf-8") for page in pages())
    names = [*HOOKS.values(), CLI, "cortex-hooks install", "settings.example.json"]
    missing = [name for name in names if name not in docs]
    assert not missing, f"README.md and docs/ do not mention: {missing}"
    assert "cortex-hooks install" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_every_data_file_of_the_package_ships_with_it() -> None:
    """A file the package reads at run time (a pack, benign.txt, commands.txt …) is in pyproject's
    package-data, or a non-editable install lacks it (found only by a user, never by the tests)."""
    with open(ROOT / "pyproject.toml", "rb") as handle:
        declared: dict[str, list[str]] = tomllib.load(handle)["tool"]["setuptools"]["package-data"]
    package = ROOT / "cortex_hooks"
    data = [
        path
        for path in package.rglob("*")
        if path.is_file() and path.suffix not in (".py", ".pyc") and "__pycache__" not in path.parts
    ]
    missing = [
        str(path.relative_to(ROOT))
        for path in data
        if not any(
            path.relative_to(ROOT / name.replace(".", "/")).match(pattern)
            for name, patterns in declared.items()
            if path.is_relative_to(ROOT / name.replace(".", "/"))
            for pattern in patterns
        )
    ]
    assert missing == []
