"""The MCP server with the real Claude Code CLI, offline (see claude_client.py for how): the
model sees our tools as mcp__cortex__<tool>, calls them, and what they write is in force at once."""

from __future__ import annotations

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
from support import cli, cli_json

from cortex_hooks.mcp import models

pytestmark = pytest.mark.claude_cli
SCHEMAS = {name: models.schema(name) for name in models.MODELS}  # what tools/list sends


def said(result: dict[str, Any]) -> str:
    """The text of a tool result's content blocks."""
    content = result["content"]
    return content if isinstance(content, str) else "\n".join(block.get("text", "") for block in content)


def mcp(name: str, /, **arguments: Any) -> dict[str, Any]:
    return {"tool_use": {"name": f"mcp__cortex__{name}", "input": arguments}}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A git project with the hooks and the MCP server installed by `cortex-hooks install --with-mcp`."""
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    installed = cli("install", "--with-mcp", cwd=root)
    assert installed.code == 0, installed.stderr
    return root


def database(project: Path) -> dict[str, str]:
    return {"CORTEX_DB": str(project / ".cortex" / "cortex.db")}


def test_the_model_recalls_through_the_mcp_server(claude: str, namespace: list[str], project: Path) -> None:
    cli("remember", "We deploy with fly.io from the main branch only", env=database(project))
    run = run_claude(claude, namespace, project, [mcp("cortex_recall", query="deploy"), {"text": "Noted."}])
    assert run.code == 0, run.explain()

    offered = offered_tools(run.requests[0])  # listed whole, or deferred behind ToolSearch (2.1.328+)
    assert {f"mcp__cortex__{name}" for name in SCHEMAS} <= set(offered)
    schema = offered["mcp__cortex__cortex_recall"]
    assert schema is None or schema["properties"] == SCHEMAS["cortex_recall"]["properties"]
    result = tool_result(after_tool_use(run.requests[1], "toolu_mock_1"), "toolu_mock_1")
    assert result.get("is_error") in (None, False), result
    seen = text_of(result["content"])
    assert "We deploy with fly.io from the main branch only" in seen
    assert "(project memory, context, score 0." in seen
    (memory,) = cli_json("memories", "list", env=database(project))
    assert memory["access_count"] == 1  # the recall counted, as the CLI's does


def test_the_model_loads_a_deferred_tool_through_tool_search_then_calls_it(
    claude: str, namespace: list[str], project: Path
) -> None:
    """Claude Code 2.1.328 and later: the server's tools are named, deferred; ToolSearch loads one
    (its schema, ours) and the call works. (2.1.197 lists them whole: nothing to load.)"""
    cli("remember", "We deploy with fly.io from the main branch only", env=database(project))
    probe = run_claude(claude, namespace, project, [{"text": "Noted."}])
    assert probe.code == 0, probe.explain()
    offered = offered_tools(probe.requests[0])
    if offered.get("mcp__cortex__cortex_recall") is not None:
        pytest.skip("this Claude Code lists the MCP tools whole (no ToolSearch)")
    search = {"tool_use": {"name": "ToolSearch", "input": {"query": "select:mcp__cortex__cortex_recall"}}}
    run = run_claude(
        claude, namespace, project, [search, mcp("cortex_recall", query="deploy"), {"text": "Ok."}]
    )
    assert run.code == 0, run.explain()
    loaded = tool_result(after_tool_use(run.requests[1], "toolu_mock_1"), "toolu_mock_1")
    assert loaded.get("is_error") in (None, False), loaded
    later = {tool["name"]: tool for tool in run.requests[1].get("tools", [])}
    assert (
        later["mcp__cortex__cortex_recall"]["input_schema"]["properties"]
        == (SCHEMAS["cortex_recall"]["properties"])
    )
    recalled = tool_result(after_tool_use(run.requests[2], "toolu_mock_2"), "toolu_mock_2")
    assert "We deploy with fly.io from the main branch only" in text_of(recalled["content"])


def test_a_learning_added_through_mcp_denies_a_bash_call_in_the_same_session(
    claude: str, namespace: list[str], project: Path
) -> None:
    turns = [
        mcp(
            "cortex_add_learning",
            anti_pattern="npm install",
            correct_pattern="this project uses pnpm: run pnpm install",
            regex=r"\bnpm\s+install\b",
            tool="Bash",
            auto_block=True,
        ),
        bash("echo npm install left-pad > ran.flag"),
        {"text": "Noted."},
    ]
    run = run_claude(claude, namespace, project, turns)
    assert run.code == 0, run.explain()

    added = tool_result(after_tool_use(run.requests[1], "toolu_mock_1"), "toolu_mock_1")
    assert said(added) == (  # the server found the project's database, and made it: said where
        f"Added learning #1.\ncreated the project database {project / '.cortex' / 'cortex.db'}"
    )
    assert not (project / "ran.flag").exists(), "the denied command ran"
    denied = tool_result(after_tool_use(run.requests[2], "toolu_mock_2"), "toolu_mock_2")
    assert denied["is_error"] is True
    reason = text_of(denied["content"])
    assert "cortex-hooks blocked this tool call" in reason
    assert "DO: this project uses pnpm: run pnpm install" in reason


def test_bad_arguments_reach_the_model_as_an_error_and_write_nothing(
    claude: str, namespace: list[str], project: Path
) -> None:
    turns = [mcp("cortex_add_learning", anti_pattern="x", correct_pattern="y", regex="("), {"text": "Noted."}]
    run = run_claude(claude, namespace, project, turns)
    assert run.code == 0, run.explain()
    result = tool_result(after_tool_use(run.requests[1], "toolu_mock_1"), "toolu_mock_1")
    assert result["is_error"] is True
    assert "regex: invalid regex '('" in text_of(result["content"])
    assert cli_json("list", "--all", env=database(project)) == []


def test_default_mode_needs_the_user_allow_rule(claude: str, namespace: list[str], tmp_path: Path) -> None:
    """In `default` mode an MCP call is denied unless allowed; the rule `install --scope user
    --with-mcp` writes in the user's settings allows it (a project rule waits for folder trust)."""
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    home = tmp_path / "claude-home"
    home.mkdir()
    turns = [mcp("cortex_remember", content="the staging host is stg-3"), {"text": "Noted."}]

    assert cli("install", "--with-mcp", cwd=root).code == 0  # project scope: rule not yet trusted
    run = run_claude(claude, namespace, root, turns, mode="default")
    assert run.code == 0, run.explain()
    assert tool_result(after_tool_use(run.requests[1], "toolu_mock_1"), "toolu_mock_1")["is_error"] is True
    assert cli_json("memories", "list", env=database(root)) == []

    assert cli("install", "--scope", "user", "--with-mcp", cwd=root, env={"HOME": str(home)}).code == 0
    run = run_claude(claude, namespace, root, turns, mode="default")
    assert run.code == 0, run.explain()
    result = tool_result(after_tool_use(run.requests[1], "toolu_mock_1"), "toolu_mock_1")
    assert said(result).startswith("Remembered memory #1"), result
    assert [m["content"] for m in cli_json("memories", "list", env=database(root))] == [
        "the staging host is stg-3"
    ]
