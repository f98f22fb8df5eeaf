"""Another MCP server's tools against the guard's places (docs/internals/integrity.md class 5): a
shell
tool's command is read as Bash, a path is found in any field a server names it by, a tool is our
own only by our server's name, and `read_and_delete` is no reader. Each refusal reaches the rule
through the hook's substring tests."""

from __future__ import annotations

from typing import Any

import pytest
from test_self_protection import PROJECT, places

from cortex_hooks import location
from cortex_hooks.guard import verdict_texts
from cortex_hooks.guard.selfguard import mcp_tools, tool_calls
from cortex_hooks.guard.selfguard.protected import Refusal
from cortex_hooks.install import wiring

DB = f"{PROJECT}/.cortex/cortex.db"

REFUSED: list[tuple[str, dict[str, Any]]] = [
    ("mcp__shell__run_command", {"command": "rm -rf .cortex"}),
    ("mcp__shell__execute", {"command": "printf '%s' 'rm -rf .cortex' | bash"}),
    ("mcp__desktop__start_process", {"cmd": "sqlite3 .cortex/cortex.db 'delete from learning'"}),
    ("mcp__exec__spawn", {"cmd": ["rm", "-rf", ".cortex"]}),
    ("mcp__fs__write_file", {"filePath": ".cortex/config.toml", "content": "block_gate = 0.89"}),
    ("mcp__fs__write_file", {"file": f"{PROJECT}/.claude/settings.json", "content": "{}"}),
    ("mcp__fs__delete_files", {"paths": ["notes.md", DB]}),
    ("mcp__fs__edit", {"uri": f"file://{PROJECT}/.cortex/config.toml", "text": "x"}),
    ("mcp__fs__edit", {"uri": f"file://{PROJECT}/%2Ecortex/config.toml", "text": "x"}),
    ("mcp__serena__replace_content", {"relative_path": ".claude/cortex-team.jsonl", "needle": "block"}),
    ("mcp__fs__read_and_delete", {"path": DB}),
    ("mcp__fs__readAndDelete", {"path": DB}),
    ("mcp__fs__delete_directory", {"path": PROJECT}),
    ("mcp__fs__move_file", {"source": f"{PROJECT}/.cortex", "destination": "/tmp/old"}),
    ("mcp__cortex_tools__write_file", {"path": ".cortex/config.toml", "content": "x"}),
    ("mcp__evilcortex__delete_file", {"path": DB}),
    ("mcp__plugin_x_shell__run", {"command": "rm -rf ."}),
]
ALLOWED: list[tuple[str, dict[str, Any]]] = [
    ("mcp__shell__run_command", {"command": "ls -la .cortex"}),
    ("mcp__shell__run_command", {"command": "mv build/app.js ."}),
    ("mcp__exec__spawn", {"cmd": ["git", "status"]}),
    ("mcp__fs__read_file", {"path": f"{PROJECT}/.cortex/config.toml"}),
    ("mcp__fs__read_text_file", {"filePath": ".cortex/config.toml"}),
    ("mcp__fs__list_directory", {"path": "."}),
    ("mcp__fs__write_file", {"path": "notes.md", "content": "x"}),
    ("mcp__fs__delete_file", {"paths": ["build/a.o", "build/b.o"]}),
    ("mcp__fs__edit", {"uri": "https://example.com/.cortex/config.toml"}),
    ("mcp__cortex__cortex_index_code", {"path": f"{PROJECT}/.cortex/config.toml", "prose": "x"}),
    ("mcp__plugin_cortex-hooks_cortex__cortex_add_learning", {"path": ".cortex/config.toml"}),
]


def refusal(tool: str, tool_input: dict[str, Any]) -> Refusal | None:
    return tool_calls.refusal(
        tool, tool_input, places(), PROJECT, current=lambda path: None, settings_lost=wiring.weakened
    )


@pytest.mark.parametrize(("tool", "tool_input"), REFUSED)
def test_another_servers_tool_on_the_guards_places_is_refused(tool: str, tool_input: dict[str, Any]) -> None:
    refused = refusal(tool, tool_input)
    assert refused is not None, (tool, tool_input)
    text = verdict_texts.protected(refused, [], verdict_texts.TEXT_LIMIT)
    assert text.startswith(verdict_texts.PROTECTED)
    assert location.names_own_place(tool_input, PROJECT), (tool, tool_input)


@pytest.mark.parametrize(("tool", "tool_input"), ALLOWED)
def test_a_reader_our_own_server_or_an_everyday_command_passes(tool: str, tool_input: dict[str, Any]) -> None:
    assert refusal(tool, tool_input) is None


def test_a_shell_tools_command_is_shown_to_the_person() -> None:
    refused = refusal("mcp__shell__run_command", {"command": "rm -rf .cortex"})
    assert refused is not None
    assert refused.command == "rm -rf .cortex"
    assert "mcp__shell__run_command" in refused.what


def test_the_fields_the_rule_reads_are_those_the_hook_looks_at() -> None:
    assert mcp_tools.PATH_FIELDS == location.PATH_FIELDS
    assert mcp_tools.LIST_FIELDS == location.LIST_FIELDS
    assert mcp_tools.COMMAND_FIELDS == location.COMMAND_FIELDS
