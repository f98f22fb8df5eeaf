"""One sanitizer for everything shown: bidi and zero-width characters in every stored
text field never reach a hook's output, nor the CLI's human output; `--json` keeps them."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from support import cli, cli_json, payload, run

INVISIBLE = "\u202e\u2066\u200b\u200d\u2060\ufeff\u061c"  # bidi override/isolate, zero-widths, BOM, ALM
MARK = f"x{INVISIBLE}y"


def hidden(text: str) -> list[str]:
    return [char for char in text if char in INVISIBLE]


@pytest.fixture
def everywhere(db: Path) -> Path:
    """Every stored text field of every kind holds the invisible characters."""
    cli_json("add", "--anti-pattern", f"deny {MARK}", "--correct", f"do {MARK}", "--context", MARK,
             "--regex", "danger", "--auto-block")  # fmt: skip
    cli_json("add", "--anti-pattern", f"warn {MARK}", "--correct", f"do {MARK}", "--regex", "danger",
             "--confidence", "0.30")  # fmt: skip
    cli_json("decisions", "add", "--title", f"decide {MARK}", "--reasoning", MARK, "--category", MARK)
    cli_json("todos", "add", "--text", f"todo {MARK}", "--priority", "high")
    cli_json("remember", f"memory {MARK}", "--tag", MARK)
    with closing(sqlite3.connect(db)) as connection:
        connection.execute(
            "INSERT INTO session (id, ended_at, summary, key_changes)"
            " VALUES ('old', '2026-01-01T00:00:00Z', ?, ?)",
            (f"summary {MARK}", json.dumps([{"file": f"f{MARK}.py", "action": f"Write{MARK}"}])),
        )
        connection.commit()
    return db


def test_pre_tool_use_deny_and_warning_show_none(everywhere: Path) -> None:
    result = run("cortex-pre-tool-use", stdin=payload("pre_tool_use.bash", tool_input={"command": "danger"}))
    specific = result.json()["hookSpecificOutput"]
    assert specific["permissionDecision"] == "deny"
    for text in (specific["permissionDecisionReason"], specific["additionalContext"]):
        assert "xy" in text  # the visible text is there, closed up
        assert hidden(text) == []


def test_session_start_context_and_message_show_none(everywhere: Path) -> None:
    result = run("cortex-session-start", stdin=payload("session_start.startup"))
    output = result.json()
    context = output["hookSpecificOutput"]["additionalContext"]
    assert "decide xy" in context
    assert "summary xy" in context
    assert hidden(context + output.get("systemMessage", "")) == []


@pytest.mark.parametrize(
    "command",
    [
        ["list"],
        ["show", "1"],
        ["decisions", "list"],
        ["todos", "list"],
        ["memories", "list"],
        ["memories", "show", "1"],
        ["recall", "memory"],
        ["snapshot"],
        ["sessions", "list"],
        ["explain", "--tool", "Bash", "--command", "danger"],
    ],
)
def test_human_output_shows_none(everywhere: Path, command: list[str]) -> None:
    result = cli(*command)
    assert result.code == 0, result.stderr
    assert hidden(result.stdout) == [], result.stdout


def test_json_keeps_the_stored_text(everywhere: Path) -> None:
    assert cli_json("show", "2")["anti_pattern"] == f"warn {MARK}"
    assert cli_json("memories", "show", "1")["tags"] == [MARK]
