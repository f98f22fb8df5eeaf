"""A learning that can never do its work is refused when it is given (docs/guide/selfguard.md item
11):
a tool name in the wrong case, no regex unless said so, nested unbounded quantifiers. Through
`add`, `update`, MCP and `import` alike; an old learning's other fields are not judged again,
and an import file's learnings without a regex (existing ones, exported) are kept and said."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from support import cli, cli_json

from cortex_hooks.guard.unmatchable import nested_quantifiers, tool_case
from cortex_hooks.mcp import tools

BASE = ["add", "--anti-pattern", "force push", "--correct", "use --force-with-lease"]


def refused(*argv: str) -> str:
    result = cli(*argv)
    assert result.code == 2, result.stdout
    assert result.stderr.count("\n") == 1
    return result.stderr


@pytest.mark.parametrize(
    ("tool", "meant"),
    [("bash", "Bash"), ("Edit|WRITE", "Write"), ("WEBFETCH", "WebFetch"), ("Shell", "shell")],
)
def test_a_tool_name_in_the_wrong_case_is_refused_naming_the_right_one(
    db: Path, tool: str, meant: str
) -> None:
    stderr = refused(*BASE, "--regex", "git push -f", "--tool", tool)
    assert "never matches" in stderr
    assert f"use {meant}" in stderr
    assert not db.exists()


def test_a_learning_without_a_regex_must_say_so(db: Path) -> None:
    stderr = refused(*BASE)
    assert "a learning without a regex never matches" in stderr
    assert "--no-regex" in stderr
    assert not db.exists()
    reminder = cli_json(*BASE, "--no-regex")
    assert reminder["regex"] is None


@pytest.mark.parametrize("pattern", ["(a+)+$", r"(\w*\s?)*$", "((ab)*)*", "(a|b+)+x"])
def test_nested_unbounded_quantifiers_are_refused(db: Path, pattern: str) -> None:
    assert "nested unbounded quantifiers" in refused(*BASE, f"--regex={pattern}")
    assert not db.exists()


@pytest.mark.parametrize(
    "pattern", [r"(\d+\.)+\d+", "a+b+", "(?:ab)+", "(?>a+)+", "(a++)+", r"[A-Z]{2,}-\d+"]
)
def test_patterns_that_cannot_blow_up_are_fine(pattern: str) -> None:
    assert nested_quantifiers(pattern) is None


def test_through_mcp_and_import_too(db: Path, tmp_path: Path) -> None:
    given: dict[str, Any] = {"anti_pattern": "x", "correct_pattern": "y"}
    text, is_error = tools.call("cortex_add_learning", {**given, "regex": "x", "tool": "bash"})
    assert is_error
    assert "use Bash" in text
    text, is_error = tools.call("cortex_add_learning", given)
    assert is_error
    assert "a learning without a regex never matches" in text
    assert tools.call("cortex_add_learning", {**given, "no_regex": True}) == ("Added learning #1.", False)
    file = tmp_path / "learnings.json"
    for learning, where in (
        ({**given, "regex": "(a+)+$"}, "learnings.0.regex: nested unbounded quantifiers"),
        ({**given, "regex": "x", "tool": "bash"}, "learnings.0.tool: 'bash' is no tool name"),
    ):
        file.write_text(json.dumps([learning]))
        result = cli("import", str(file))
        assert result.code == 2
        assert where in result.stderr
    # An import file's learnings are existing ones (an export): one without a regex is kept, and said.
    file.write_text(json.dumps([given, {**given, "regex": None}]))
    imported = cli("import", str(file))
    assert imported.code == 0
    assert imported.stderr == (
        "cortex-hooks: 2 of the learnings imported have no regex and never match (reminders): give one "
        "with `cortex-hooks update ID --regex PATTERN`\n"
    )
    assert len(cli_json("list")) == 3


def test_an_old_learning_is_judged_only_on_what_changes(db: Path) -> None:
    """A learning stored before these rules (`bash`, `(a+)+`) can still be updated, pinned and kept;
    the rules apply to the fields an update gives."""
    cli_json(*BASE, "--regex", "git push -f", "--tool", "Bash")
    with sqlite3.connect(db) as connection:
        connection.execute("UPDATE learning SET tool = 'bash', regex = '(a+)+$' WHERE id = 1")
    assert cli_json("update", "1", "--context", "from an old database")["context"] == "from an old database"
    assert "use Bash or shell" in refused("update", "1", "--tool", "bash")
    assert cli_json("update", "1", "--tool", "Bash")["tool"] == "Bash"


def test_the_tool_check_names_only_real_tools_in_the_wrong_case() -> None:
    assert tool_case("Bash") is None
    assert tool_case("mcp__github__.*") is None
    assert tool_case("*") is None
    assert tool_case("bashful") is None
    assert tool_case("Bash|EDIT") is not None
    # the agent-neutral kinds are lower case; Claude Code's tools CamelCase: both are right
    assert tool_case("shell|edit|write|read|mcp") is None
    assert tool_case("Write|write") is None
    assert "use shell" in (tool_case("Shell") or "")
    assert "use Bash or shell" in (tool_case("bash") or "")
