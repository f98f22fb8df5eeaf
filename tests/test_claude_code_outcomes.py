"""What the agent did after a deny or an ask, with the real Claude Code CLI, offline (as
tests/test_claude_code.py runs it): the client's own transcript and its own SessionEnd settle each
catch; the rewrite the agent's retry shows is proposed; a learning the agent keeps retrying is
named to the model at the next session's start."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from claude_client import bash, run_claude, text_of
from support import cli_json

pytestmark = pytest.mark.claude_cli


def _shown(project: Path, learning_id: int) -> dict[str, Any]:
    shown: dict[str, Any] = cli_json(
        "show", str(learning_id), env={"CORTEX_DB": str(project / ".cortex" / "cortex.db")}
    )
    return shown


def test_a_deny_then_the_correct_command_is_followed_and_its_rewrite_proposed(
    claude: str, namespace: list[str], project: Path, learn: Any
) -> None:
    rule = learn(
        "--anti-pattern", "make check: there is no check target", "--correct", "`make test`",
        "--regex", r"^make check\b", "--tool", "Bash", "--action", "block",
    )  # fmt: skip
    (project / "Makefile").write_text("test:\n\t@echo 412 passed\n")
    run = run_claude(claude, namespace, project, [bash("make check"), bash("make test"), {"text": "Done."}])
    assert run.code == 0, run.explain()
    denied = [
        block
        for line in run.transcript
        for block in (line.get("message") or {}).get("content") or []
        if isinstance(block, dict) and block.get("type") == "tool_result" and block.get("is_error")
    ]
    assert "cortex-hooks blocked this tool call" in text_of(denied)
    outcomes = _shown(project, rule["id"])["outcomes"]
    assert (outcomes["caught"], outcomes["followed"], outcomes["retried"], outcomes["unknown"]) == (
        1,
        1,
        0,
        0,
    )
    (proposal,) = cli_json("proposals", env={"CORTEX_DB": str(project / ".cortex" / "cortex.db")})
    assert (proposal["signal"], proposal["learning_id"], proposal["rewrite"]) == (
        "followed",
        rule["id"],
        "make test",
    )


def test_an_ask_in_print_mode_then_the_same_again_is_retried_and_named_at_the_next_start(
    claude: str, namespace: list[str], project: Path, learn: Any
) -> None:
    """In `claude -p` no one can answer an ask: it is refused like a deny, and the agent asking
    again is a retry. Twice retried, never followed: the next session's first request names it."""
    rule = learn(
        "--anti-pattern", "git reset --hard throws away uncommitted work",
        "--correct", "`git stash` first, so the work can come back",
        "--regex", r"^git reset\b.*--hard\b", "--tool", "Bash", "--action", "ask",
    )  # fmt: skip
    turns = [
        bash("git reset --hard"),
        bash("git reset --hard HEAD"),
        bash("git reset --hard HEAD~0"),
        {"text": "I could not."},
    ]
    run = run_claude(claude, namespace, project, turns)
    assert run.code == 0, run.explain()
    outcomes = _shown(project, rule["id"])["outcomes"]
    assert (outcomes["caught"], outcomes["followed"], outcomes["retried"], outcomes["unknown"]) == (
        3,
        0,
        2,
        1,
    )
    assert outcomes["last_retried"]["call"] == "git reset --hard HEAD"
    assert outcomes["last_retried"]["retried_with"] == "git reset --hard HEAD~0"

    later = run_claude(claude, namespace, project, [{"text": "Nothing to do."}], "Anything left?")
    assert later.code == 0, later.explain()
    first = text_of(later.requests[0]["messages"])
    assert "the agent keeps retrying 1 learned anti-pattern" in first
    assert f"#{rule['id']} git reset --hard throws away uncommitted work" in first
    assert "last retried: `git reset --hard HEAD` then `git reset --hard HEAD~0`" in first
    started = [  # the person's one line, as the client received it from the hook
        json.loads(line["attachment"]["stdout"]).get("systemMessage", "")
        for line in later.transcript
        if isinstance(line.get("attachment"), dict)
        and line["attachment"].get("hookEvent") == "SessionStart"
        and line["attachment"].get("stdout", "").strip()
    ]
    assert any("1 learning the agent keeps retrying" in said for said in started), started
