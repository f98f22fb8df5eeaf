"""The other agents' transcripts, read as Claude Code's (transcripts.formats): a Codex
rollout and a Gemini chat (tests/fixtures/agents/, written by the real clients, long texts cut)
give the session's summary, capture's calls with their failures, and replay's calls — and
replay finds them for the project by itself."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest
from support import FIXTURES, cli_json

from cortex_hooks.capture import reading
from cortex_hooks.transcripts import call_log as replay_calls
from cortex_hooks.transcripts import formats as agent_transcripts
from cortex_hooks.transcripts import summary as transcript

ROLLOUT = FIXTURES / "agents" / "codex.rollout.jsonl"
CHAT = FIXTURES / "agents" / "gemini.chat.jsonl"


def test_the_formats_are_told_by_the_first_line() -> None:
    assert agent_transcripts.format_of(str(ROLLOUT)) == "codex"
    assert agent_transcripts.format_of(str(CHAT)) == "gemini"
    assert agent_transcripts.format_of(str(FIXTURES / "transcript.jsonl")) == "claude"


@pytest.mark.parametrize(("path", "written"), [(ROLLOUT, "/home/dev/proj/notes.txt"), (CHAT, "notes.txt")])
def test_the_summary_is_the_first_prompt_and_the_files_written(path: Path, written: str) -> None:
    summary = transcript.summarize(str(path))
    assert summary.summary == "Run the tests"
    assert summary.key_changes == [{"file": written, "action": "Write"}]


@pytest.mark.parametrize("path", [ROLLOUT, CHAT])
def test_capture_reads_the_calls_their_failures_and_the_prompt(path: Path) -> None:
    chunk = reading.read(str(path), 0, time.monotonic() + 10)
    prompts = [event.text for event in chunk.events if isinstance(event, reading.Prompt)]
    assert prompts == ["Run the tests"]
    found = [
        (event.tool, event.text, event.status) for event in chunk.events if isinstance(event, reading.Call)
    ]
    assert found == [
        ("Bash", "python3 -m pytest tests/missing_dir", "error"),
        ("Bash", "echo fixed", "ok"),
        ("Write", "", "ok"),
    ]
    assert chunk.finished
    assert chunk.session_id
    if path == ROLLOUT:
        (failed,) = [
            event for event in chunk.events if isinstance(event, reading.Call) and event.status == "error"
        ]
        assert failed.exit_code == 1


@pytest.mark.parametrize("path", [ROLLOUT, CHAT])
def test_replay_reads_the_calls_as_claude_codes(path: Path) -> None:
    left = replay_calls.Left()
    read = replay_calls.read(str(path), deadline=time.monotonic() + 10, since=None, grams=None, left=left)
    found = [call for call in read if isinstance(call, replay_calls.Call)]
    assert [(call.tool, call.input.get("command") or call.input.get("file_path")) for call in found][:2] == [
        ("Bash", "python3 -m pytest tests/missing_dir"),
        ("Bash", "echo fixed"),
    ]
    assert found[2].tool == "Write"
    assert all(call.session for call in found)
    assert left.problems == []


def test_replay_finds_the_projects_codex_and_gemini_transcripts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = Path("/home/dev/proj")  # where the sessions of the fixtures ran
    home = tmp_path / "home"
    rollouts = home / ".codex" / "sessions" / "2026" / "11" / "28"
    rollouts.mkdir(parents=True)
    shutil.copy(ROLLOUT, rollouts / "rollout-2026-11-28T01-25-03-x.jsonl")
    chats = home / ".gemini" / "tmp" / "proj" / "chats"
    chats.mkdir(parents=True)
    (chats.parent / ".project_root").write_text(str(project))
    shutil.copy(CHAT, chats / "session-x.jsonl")
    other = home / ".codex" / "sessions" / "2026" / "11" / "29"
    other.mkdir(parents=True)
    lines = ROLLOUT.read_text().replace("/home/dev/proj", "/home/dev/elsewhere")
    (other / "rollout-2026-11-29T00-00-00-y.jsonl").write_text(lines)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(project))
    cli_json(
        "add",
        "--anti-pattern",
        "pytest on a missing dir",
        "--correct",
        "x",
        "--regex",
        r"^python3 -m pytest\b",
    )
    report = cli_json("replay")
    assert report["transcripts"] == 2  # the other project's rollout is not read
    (learned,) = report["learnings"]
    assert learned["warned"] == 2
    assert sorted(Path(path).name for path in report["paths"][1:]) == [
        "rollout-2026-11-28T01-25-03-x.jsonl",
        "session-x.jsonl",
    ]


def test_a_codex_stop_stores_the_sessions_summary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from support import run

    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    monkeypatch.delenv("CORTEX_DB")
    cli_json("add", "--anti-pattern", "x", "--correct", "y", "--no-regex", cwd=project)
    stop = json.loads((FIXTURES / "agents" / "codex.stop.json").read_text())
    stop.update(cwd=str(project), transcript_path=str(ROLLOUT), session_id="01a21fc1")
    done = run("cortex-session-end", "--agent", "codex", stdin=stop)
    assert done.code == 0, done.stderr
    (session,) = cli_json("sessions", "list", cwd=project)
    assert (session["id"], session["reason"], session["summary"]) == ("01a21fc1", "stop", "Run the tests")
    assert session["key_changes"] == [{"file": "/home/dev/proj/notes.txt", "action": "Write"}]
