"""Capture with the real Claude Code CLI, offline, across sessions: a mistake made and
fixed in two sessions is proposed at the next start, and once accepted as auto-block it stops
the same mistake in the session after. The harness is tests/claude_client.py."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from claude_client import (
    after_tool_use,
    bash,
    client_environment,
    run_claude,
    text_of,
    tool_result,
    written,
)
from support import cli_json

pytestmark = pytest.mark.claude_cli

MAKEFILE = "test:\n\t@echo all tests passed\n"


def start_context(request: dict[str, Any]) -> str:
    texts = [  # a system message: its content a string (2.1.197), or a list of text blocks (2.1.332)
        written(message["content"])
        for message in request["messages"]
        if message["role"] == "system"
        and written(message["content"]).startswith("SessionStart hook additional context: ")
    ]
    return "\n".join(texts)


def test_make_check_fixed_twice_is_proposed_then_blocked_once_accepted(
    claude: str,
    namespace: list[str],
    project: Path,
    learn: Any,
    tmp_path: Path,
) -> None:
    (project / "Makefile").write_text(MAKEFILE)
    learn("--anti-pattern", "unrelated", "--correct", "x")  # the memory exists: hooks never create one
    database = {"CORTEX_DB": str(project / ".cortex" / "cortex.db")}
    transcripts = tmp_path / "transcripts"
    transcripts.mkdir()
    for number in (1, 2):
        run = run_claude(
            claude, namespace, project, [bash("make check"), bash("make test"), {"text": "Done."}]
        )
        assert run.code == 0, run.explain()
        failed = tool_result(after_tool_use(run.requests[1], "toolu_mock_1"), "toolu_mock_1")
        assert failed["is_error"] is True  # make: *** No rule to make target 'check'
        keep(run, transcripts / f"session{number}.jsonl")
    [proposal] = cli_json("proposals", env=database)
    assert proposal["signal"] == "failed-then-fixed"
    assert proposal["occurrences"] == 2
    assert "make test" in proposal["correct_pattern"]

    third = run_claude(claude, namespace, project, [{"text": "Noted."}])
    assert third.code == 0, third.explain()
    context = start_context(third.requests[0])
    assert f"cortex-hooks accept {proposal['id']}" in context, context[:3000]
    assert f"cortex-hooks reject {proposal['id']}" in context

    accepted = cli_json("accept", str(proposal["id"]), "--auto-block", env=database)
    assert accepted["auto_block"] is True

    fourth = run_claude(claude, namespace, project, [bash("make check"), {"text": "Noted."}])
    assert fourth.code == 0, fourth.explain()
    denied = tool_result(after_tool_use(fourth.requests[1], "toolu_mock_1"), "toolu_mock_1")
    assert denied["is_error"] is True
    reason = text_of(denied["content"])
    assert "cortex-hooks blocked this tool call" in reason
    assert "make test" in reason
    keep(fourth, transcripts / "session4.jsonl")
    assert capture(transcripts / "session4.jsonl", database)["candidates"] == 0  # our deny: no candidate


def keep(run: Any, path: Path) -> None:
    """The run's own transcript (the client's home holds every run's), for a later look."""
    session = run.result()["session_id"]
    lines = [line for line in run.transcript if line.get("sessionId") == session]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def capture(path: Path, database: dict[str, str]) -> Any:
    return cli_json("capture", "--transcript", str(path), "--dry-run", env=database)


def test_model_drafting_runs_no_hook_and_leaves_no_transcript(
    claude: str, namespace: list[str], project: Path, learn: Any, tmp_path: Path
) -> None:
    import subprocess
    import sys

    from claude_client import MOCK, RUN_TIMEOUT
    from transcripts import Transcript

    learn("--anti-pattern", "unrelated", "--correct", "x")
    database = str(project / ".cortex" / "cortex.db")
    (project / ".cortex" / "config.toml").write_text('[capture]\nllm = "claude-cli"\n')
    for session in ("s1", "s2"):
        transcript = Transcript(session).bash(
            "make check", "make: *** No rule to make target 'check'.  Stop.", code=2
        )
        path = transcript.bash("make test").write(tmp_path / f"{session}.jsonl")
        cli_json("capture", "--transcript", str(path), env={"CORTEX_DB": database})
    [before] = cli_json("proposals", env={"CORTEX_DB": database})
    wording = {
        "anti_pattern": "Running `make check`: this Makefile has no check target",
        "correct_pattern": "Run `make test`",
        "regex": r"^make\s+check\b",
    }
    work = project.parent
    home = work / "claude-home"
    home.mkdir(exist_ok=True)
    (work / "turns.json").write_text(json.dumps([{"text": json.dumps(wording)}]))
    records = work / "requests.json"
    environment = client_environment(
        home,
        PATH=os.environ.get("PATH", ""),
        CORTEX_CLAUDE_BIN=claude,
        CLAUDECODE="1",  # as when a hook of a running session starts the worker: the child loses it
    )
    worker = [sys.executable, "-m", "cortex_hooks.capture.worker", database]
    completed = subprocess.run(
        [
            *namespace,
            sys.executable,
            str(MOCK),
            f"--turns={work / 'turns.json'}",
            f"--record={records}",
            f"--timeout={RUN_TIMEOUT}",
            "--",
            *worker,
        ],
        cwd=project,
        env=environment,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT + 30,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    requests = [record["body"] for record in json.loads(records.read_text()) if record["conversation"]]
    assert len(requests) == 1
    assert "make check" in text_of(requests[0]["messages"])
    [after] = cli_json("proposals", env={"CORTEX_DB": database})
    assert after["id"] == before["id"]
    assert after["drafted"] == "model"
    assert after["anti_pattern"] == wording["anti_pattern"]
    assert after["correct_pattern"] == wording["correct_pattern"]
    assert after["regex"] == wording["regex"]
    assert cli_json("sessions", "list", env={"CORTEX_DB": database}) == []  # no hook ran in the child
    assert list(home.glob(".claude/projects/**/*.jsonl")) == []  # no transcript left behind
