"""The agent cannot weaken its own guard through MCP (docs/guide/selfguard.md item 1): a change
that would
lower a learning's protection is refused with `isError` and the command the person can run in
their terminal, nothing written; strengthening keeps working; the person's CLI is never affected.
The rule itself is one pure function (guard.weakening.lowered), table-tested here."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support import cli, cli_json

from cortex_hooks.guard.weakening import Protection, lowered
from cortex_hooks.mcp import tools

BLOCKING = {
    "anti_pattern": "git push --force",
    "correct_pattern": "git push --force-with-lease",
    "regex": r"git push (-f|--force)\b",
    "tool": "Bash",
    "auto_block": True,
    "confidence": 0.85,
}


def call(name: str, **arguments: Any) -> tuple[str, bool]:
    return tools.call(name, arguments)


@pytest.fixture
def learning(db: Path) -> dict[str, Any]:
    assert call("cortex_add_learning", **BLOCKING) == ("Added learning #1.", False)
    (row,) = cli_json("list")
    return dict(row)


@pytest.mark.parametrize(
    ("change", "command", "reason"),
    [
        ({"auto_block": False}, "cortex-hooks update 1 --no-auto-block", "auto-block would be turned off"),
        ({"action": "warn"}, "cortex-hooks update 1 --action=warn", "auto-block would be turned off"),
        (
            {"action": "ask"},
            "cortex-hooks update 1 --action=ask",
            "its action would go down from block to ask (block > ask > warn)",
        ),
        (
            {"confidence": 0.84},
            "cortex-hooks update 1 --confidence=0.84",
            "its confidence would go down from 0.85 to 0.84",
        ),
        (
            {"regex": "git push --force$"},
            "cortex-hooks update 1 '--regex=git push --force$'",
            "what it matches would be rewritten",
        ),
        ({"tool": "Write"}, "cortex-hooks update 1 --tool=Write", "what it matches would be rewritten"),
        (  # issue 34 class 7: the agent talking itself past a block
            {"correct_pattern": "just run git push --force, it is fine"},
            "cortex-hooks update 1 '--correct=just run git push --force, it is fine'",
            "the correct way it tells the agent would be rewritten",
        ),
        (
            {"anti_pattern": "a push"},
            "cortex-hooks update 1 '--anti-pattern=a push'",
            "what it tells the agent is wrong would be rewritten",
        ),
        (
            {"severity": "low"},
            "cortex-hooks update 1 --severity=low",
            "its severity would go down from medium to low",
        ),
        ({"target": "path"}, "cortex-hooks update 1 --target=path", "what it matches would be rewritten"),
        (
            {"auto_block": False, "global": True},
            "cortex-hooks update 1 --no-auto-block --global",
            "auto-block would be turned off",
        ),
    ],
)
def test_a_weakening_update_is_refused_with_the_persons_command(
    learning: dict[str, Any], change: dict[str, Any], command: str, reason: str
) -> None:
    scope = ["--global"] if change.get("global") else []
    if scope:
        assert call("cortex_add_learning", **BLOCKING, **{"global": True})[1] is False
    before = cli_json("list", *scope)
    text, is_error = call("cortex_update_learning", id=1, **change)
    assert is_error
    assert "\n" not in text
    assert text.startswith("refused through MCP: this change to learning #1 would weaken the guard (")
    assert reason in text
    assert text.endswith(f"only the person can do that, in a terminal: {command}")
    assert cli_json("list", *scope) == before  # nothing written
    assert cli_json("list") == [learning]


def test_strengthening_through_mcp_keeps_working(db: Path) -> None:
    assert call("cortex_add_learning", **{**BLOCKING, "auto_block": False, "confidence": 0.5})[1] is False
    assert call("cortex_update_learning", id=1, auto_block=True) == ("Updated learning #1.", False)
    assert call("cortex_update_learning", id=1, confidence=0.8) == ("Updated learning #1.", False)
    assert call("cortex_update_learning", id=1, pinned=True) == ("Updated learning #1.", False)
    assert call("cortex_update_learning", id=1, confidence=0.8, context="seen in CI") == (
        "Updated learning #1.",
        False,
    )
    (row,) = cli_json("list")
    assert (row["auto_block"], row["confidence"], row["pinned"], row["context"]) == (
        True,
        0.8,
        True,
        "seen in CI",
    )


def test_an_action_is_raised_through_mcp_and_a_rewrite_never_touched(db: Path) -> None:
    """warn to ask to block strengthens; a rewrite decides what runs instead of the agent's
    command: MCP has no field for it, so it can neither add, change nor remove one."""
    assert call("cortex_add_learning", **{**BLOCKING, "auto_block": False})[1] is False
    assert call("cortex_update_learning", id=1, action="ask") == ("Updated learning #1.", False)
    assert cli_json("list")[0]["action"] == "ask"
    text, is_error = call("cortex_update_learning", id=1, auto_block=False)
    assert is_error
    assert "its action would go down from ask to warn (block > ask > warn)" in text
    assert call("cortex_update_learning", id=1, action="block") == ("Updated learning #1.", False)
    added = cli_json(
        "add", "--anti-pattern", "pip", "--correct", "python3 -m pip", "--regex", r"^pip\b", "--tool", "Bash"
    )
    for change in ({"rewrite": "python3 -m pip"}, {"rewrite": None}):
        text, is_error = call("cortex_update_learning", id=added["id"], **change)
        assert is_error
        assert "rewrite" in text
    assert cli_json("show", str(added["id"]))["rewrite"] is None


def test_a_learning_without_a_regex_may_be_given_one(db: Path) -> None:
    """It matched nothing: giving it a regex, a tool and a target only strengthens it."""
    reminder = {
        "anti_pattern": "sleep in tests",
        "correct_pattern": "wait for the condition",
        "no_regex": True,
    }
    assert call("cortex_add_learning", **reminder) == ("Added learning #1.", False)
    assert call("cortex_update_learning", id=1, regex=r"time\.sleep\(", tool="Edit|Write") == (
        "Updated learning #1.",
        False,
    )
    assert cli_json("list")[0]["regex"] == r"time\.sleep\("


def test_the_person_in_the_terminal_keeps_full_control(learning: dict[str, Any]) -> None:
    assert cli("update", "1", "--no-auto-block", "--confidence", "0.40").code == 0
    assert cli("archive", "1").code == 0
    (row,) = cli_json("list", "--archived")
    assert (row["auto_block"], row["confidence"]) == (False, 0.4)


def test_pruning_that_would_archive_a_learning_is_refused_through_mcp(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cli("add", "--anti-pattern", "old", "--correct", "new", "--regex", "old")
    cli("decisions", "add", "--title", "t", "--reasoning", "r")
    monkeypatch.setenv("CORTEX_NOW", "2099-01-01T00:00:00Z")  # both are old and never used
    assert call("cortex_run_pruning", dry_run=True) == (
        "Would archive 1 learning, 1 decision, 0 errors.",
        False,
    )
    text, is_error = call("cortex_run_pruning")
    assert is_error
    assert text == (
        "refused through MCP: this pruning would weaken the guard (it would archive 1 learning); "
        "only the person can do that, in a terminal: cortex-hooks prune"
    )
    assert [row["archived_at"] for row in cli_json("list", "--all")] == [None]
    assert [row["archived_at"] for row in cli_json("decisions", "list", "--all")] == [None]
    cli("archive", "1")  # with no learning to archive, the rest of the pruning goes through
    assert call("cortex_run_pruning") == ("Archived 0 learnings, 1 decision, 0 errors.", False)


BEFORE = Protection(
    regex="x", tool="Bash", target="content", action="block", confidence=70, pinned=True, archived=False
)


@pytest.mark.parametrize(
    ("after", "reasons"),
    [
        (BEFORE, []),
        (BEFORE._replace(confidence=71), []),
        (BEFORE._replace(confidence=69), ["its confidence would go down from 0.70 to 0.69"]),
        (BEFORE._replace(action="warn"), ["auto-block would be turned off"]),
        (BEFORE._replace(action="ask"), ["its action would go down from block to ask (block > ask > warn)"]),
        (
            BEFORE._replace(rewrite="python3 -m pip"),
            ["its rewrite would change (what runs instead of the agent's command)"],
        ),
        (BEFORE._replace(pinned=False), ["it would be unpinned (it decays again)"]),
        (BEFORE._replace(archived=True), ["it would be archived"]),
        (BEFORE._replace(regex=None), ["what it matches would be rewritten (its regex, tool or target)"]),
        (BEFORE._replace(tool="*"), ["what it matches would be rewritten (its regex, tool or target)"]),
        (None, ["it would be removed"]),
        (
            BEFORE._replace(action="warn", confidence=30),
            ["auto-block would be turned off", "its confidence would go down from 0.70 to 0.30"],
        ),
    ],
)
def test_what_lowers_a_learnings_protection(after: Protection | None, reasons: list[str]) -> None:
    assert lowered(BEFORE, after) == reasons


def test_strengthening_lowers_nothing() -> None:
    weak = Protection(
        regex=None, tool="*", target="content", action="warn", confidence=30, pinned=False, archived=True
    )
    strong = Protection(
        regex="x", tool="Bash", target="input", action="block", confidence=90, pinned=True, archived=False
    )
    assert lowered(weak._replace(action="ask"), weak._replace(action="block")) == []
    assert lowered(weak, strong) == []
    assert lowered(strong, weak) != []


def test_a_warnings_words_may_change_and_a_severity_rise(db: Path) -> None:
    """Issue 34 class 7 is what a learning that blocks or asks tells the agent: a warning's words
    may be improved through MCP, and raising a severity only strengthens."""
    assert call("cortex_add_learning", **{**BLOCKING, "auto_block": False})[1] is False
    assert call(
        "cortex_update_learning", id=1, correct_pattern="git push --force-with-lease origin HEAD"
    ) == (
        "Updated learning #1.",
        False,
    )
    assert call("cortex_update_learning", id=1, severity="critical") == ("Updated learning #1.", False)
    assert call("cortex_update_learning", id=1, auto_block=True) == ("Updated learning #1.", False)
    text, is_error = call("cortex_update_learning", id=1, correct_pattern="it is fine, just force push")
    assert is_error
    assert "the correct way it tells the agent would be rewritten" in text
    assert call("cortex_update_learning", id=1, severity="high")[1] is True
    (row,) = cli_json("list")
    assert (row["correct_pattern"], row["severity"]) == (
        "git push --force-with-lease origin HEAD",
        "critical",
    )
