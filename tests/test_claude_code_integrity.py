"""Integrity with the real Claude Code CLI, offline (docs/guide/selfguard.md): no stored text
becomes an
import, a field the decision does not read never stops a deny, install guards the folder Claude
Code starts in. The harness is tests/claude_client.py.

Observed with Claude Code 2.1.197 and relied on here:
- a memory file is lexed with `marked` and `(?:^|\\s)@path` is followed in every text token, so
  `**bold**@path`, `` `x`@path ``, `<b>@path`, `[l](u)@path`, `\\*@path`, `<!-- c -->@path` and an
  `@` after a no-break or ideographic space all import the file (the controls below show each
  form live); the fullwidth at sign (U+FF20) imports nothing;
- a lone surrogate in a tool_use input reaches the hook as its `\\udXXX` escape, and the shell
  is handed U+FFFD in its place; an unknown key in a Bash input is refused by the client itself
  (InputValidationError) before any hook runs;
- project settings are read from `.claude/` of the folder the client starts in, never from the
  git root above it, and CLAUDE_PROJECT_DIR is that folder.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from claude_client import (
    after_tool_use,
    bash,
    run_claude,
    text_of,
    tool_result,
)
from support import cli, cli_json

pytestmark = pytest.mark.claude_cli

# --- item 2: no memory imports a file --------------------------------------------------------------

# `{p}`: the file the line would import. The first three are the issue's, reproduced on main.
FORMS = [
    "deploy notes **bold**@{p} end",
    "see `x`@{p}",
    "see <b>@{p}",
    "plain @{p}",
    "see *em*@{p}",
    "see [link](https://example.com)@{p}",
    "see \\*@{p}",
    "see <!-- c -->@{p}",
    "see\u00a0@{p}",
    "see\u3000@{p}",
]


def test_no_memory_imports_a_file_whatever_surrounds_its_at(
    claude: str, namespace: list[str], project: Path
) -> None:
    database = {"CORTEX_DB": str(project / ".cortex" / "cortex.db")}
    (project / ".cortex").mkdir(exist_ok=True)
    (project / ".cortex" / "config.toml").write_text("[surface]\nbudget = 8000\n")
    controls = []
    for index, form in enumerate(FORMS):
        for kind in ("stored", "control"):
            folder = project / f"{kind}-{index}"
            folder.mkdir()
            (folder / ".env").write_text(f"API_TOKEN={kind.upper()}-{index}-CONTENT\n")
        # the agent can store this through cortex_remember: it reaches the surface as a pinned memory
        cli_json("remember", form.format(p=project / f"stored-{index}" / ".env"), "--pin", env=database)
        # the same line written by the person in their own CLAUDE.local.md: the form is a live import
        controls.append("- " + form.format(p=project / f"control-{index}" / ".env"))
    local = project / "CLAUDE.local.md"
    local.write_text(local.read_text() + "\n" + "\n".join(controls) + "\n")
    written = cli("surface", cwd=project, env=database)
    assert written.code == 0, written.stderr
    surface = (project / ".claude" / "cortex-memory.local.md").read_text()
    for index in range(len(FORMS)):
        assert f"stored-{index}/.env" in surface  # every memory is on the surface, inert

    run = run_claude(claude, namespace, project, [{"text": "Noted."}])
    assert run.code == 0, run.explain()

    sent = json.dumps(run.requests, ensure_ascii=False)
    assert "deploy notes" in sent  # the surface itself reached the model
    for index, form in enumerate(FORMS):
        assert f"CONTROL-{index}-CONTENT" in sent, f"{form!r} is not an import in this client"
        assert f"STORED-{index}-CONTENT" not in sent, f"a memory {form!r} imported a file"


# --- item 3: a field the decision does not read never stops a deny ---------------------------------


def bash_with(command: str, description: str) -> dict[str, Any]:
    return {"tool_use": {"name": "Bash", "input": {"command": command, "description": description}}}


@pytest.mark.parametrize(
    ("command", "description"),
    [
        ("touch ran.flag", "task \udfff"),  # the case: a lone surrogate in the description
        ("touch ran.flag # \udfff", "task"),  # in the command itself: read as U+FFFD, still matched
    ],
)
def test_a_lone_surrogate_never_lets_a_blocked_command_run(  # noqa: PLR0917 (fixtures)
    claude: str, namespace: list[str], project: Path, learn: Any, command: str, description: str
) -> None:
    rule = learn(
        "--anti-pattern",
        "touch ran.flag",
        "--correct",
        "leave it",
        "--regex",
        r"touch\s+ran\.flag",
        "--tool",
        "Bash",
        "--auto-block",
    )
    run = run_claude(claude, namespace, project, [bash_with(command, description), {"text": "Noted."}])
    assert run.code == 0, run.explain()

    assert not (project / "ran.flag").exists(), "the blocked command ran"
    result = tool_result(after_tool_use(run.requests[1], "toolu_mock_1"), "toolu_mock_1")
    assert result["is_error"] is True
    assert f"learning #{rule['id']}" in text_of(result["content"])
    errors = [
        entry["attachment"]
        for entry in run.transcript
        if entry.get("type") == "attachment" and entry["attachment"].get("type") == "hook_non_blocking_error"
    ]
    assert [error for error in errors if error["hookEvent"] == "PreToolUse"] == []


def test_a_deep_unknown_key_in_a_bash_input_never_lets_the_command_run(
    claude: str, namespace: list[str], project: Path, learn: Any
) -> None:
    """The issue's second case. Claude Code 2.1.197 refuses an unknown key in a Bash input itself
    (InputValidationError, before any hook): the command never runs, and no hook sees it (a deep
    value reaches a hook through an open schema only, an MCP tool's: tests/test_unread_fields.py)."""
    learn("--anti-pattern", "touch", "--correct", "x", "--regex", r"touch\s+ran\.flag", "--auto-block")
    deep: Any = 1
    for _ in range(1_000):  # the depth, past the standard parser's limit
        deep = {"a": deep}
    turn = {
        "tool_use": {"name": "Bash", "input": {"command": "touch ran.flag", "description": "t", "x": deep}}
    }
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(50_000)  # this test writes the turn and reads the requests with json
    try:
        run = run_claude(claude, namespace, project, [turn, {"text": "Noted."}])
    finally:
        sys.setrecursionlimit(limit)
    assert run.code == 0, run.explain()
    assert not (project / "ran.flag").exists(), "the command ran"
    result = tool_result(after_tool_use(run.requests[1], "toolu_mock_1"), "toolu_mock_1")
    assert result["is_error"] is True


def test_the_shell_is_handed_u_fffd_for_a_lone_surrogate(
    claude: str, namespace: list[str], project: Path, learn: Any
) -> None:
    """Why the hook reads a surrogate as U+FFFD: it is what the shell runs."""
    learn("--anti-pattern", "unrelated", "--correct", "x")
    run = run_claude(claude, namespace, project, [bash("printf 'a\udfffb' > out.bin"), {"text": "Noted."}])
    assert run.code == 0, run.explain()
    assert (project / "out.bin").read_bytes() == "a\ufffdb".encode()


# --- item 7: install guards the folder Claude Code starts in -----------------------------------------


def test_install_in_a_subfolder_of_a_git_repository_guards_the_folder_claude_starts_in(
    claude: str, namespace: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CORTEX_DB")  # the database is the project's own, as for a person
    code = tmp_path / "code"
    app = code / "my-app"
    app.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(code)], check=True)
    (app / "README.md").write_text("my app\n")

    refused = cli("install", cwd=app)
    assert refused.code == 2, refused.stderr
    assert str(app) in refused.stderr  # both folders named
    assert str(code) in refused.stderr
    assert not (code / ".claude").exists()
    assert not (code / ".cortex").exists()
    assert not (app / ".claude").exists()

    installed = cli("install", cwd=app, env={"CLAUDE_PROJECT_DIR": str(app)})  # as the refusal says
    assert installed.code == 0, installed.stderr
    assert (app / ".claude" / "settings.json").exists()
    assert not (code / ".claude").exists()
    assert (app / ".cortex" / "cortex.db").exists()
    cli_json(
        "add",
        "--anti-pattern",
        "git push --force",
        "--correct",
        "git push --force-with-lease",
        "--regex",
        r"git\s+push\s+--force(?!-)",
        "--tool",
        "Bash",
        "--auto-block",
        cwd=app,  # a CLI command run in the folder later finds the database the hooks use
    )
    # and so does one run further down command run in the folder later finds the same database the hooks use
    (app / "src").mkdir()
    listed = cli_json("list", cwd=app / "src")
    assert [row["anti_pattern"] for row in listed if row["pack"] is None] == ["git push --force"]

    run = run_claude(
        claude, namespace, app, [bash("git push --force && touch pushed.flag"), {"text": "Noted."}]
    )
    assert run.code == 0, run.explain()
    assert not (app / "pushed.flag").exists(), "the force push ran"
    result = tool_result(after_tool_use(run.requests[1], "toolu_mock_1"), "toolu_mock_1")
    assert result["is_error"] is True
    assert "git push --force-with-lease" in text_of(result["content"])
