"""Details of the contract a black-box reading of SPEC.md checks, each found by an audit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import FIXTURES, cli, cli_json, payload, run

NOW = "2026-06-01T12:00:00Z"


def end_session(session_id: str, transcript: Path) -> None:
    result = run(
        "cortex-session-end",
        stdin=payload("session_end.other", session_id=session_id, transcript_path=str(transcript)),
    )
    assert result.code == 0, result.stderr


@pytest.mark.parametrize("separators", [(",", ":"), (", ", ": ")], ids=["compact", "spaced"])
def test_a_transcript_is_read_however_its_json_is_spaced(tmp_path: Path, separators: tuple[str, str]) -> None:
    """Claude Code writes compact JSON lines; a transcript written with spaces reads the same."""
    records = [json.loads(line) for line in (FIXTURES / "transcript.jsonl").read_text().splitlines()]
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("".join(json.dumps(record, separators=separators) + "\n" for record in records))
    cli_json("add", "--no-regex", "--anti-pattern", "a", "--correct", "b")
    end_session("spaced-or-not", transcript)
    (session,) = cli_json("sessions", "list")
    assert session["summary"] == "Please add a greeting module and fix the typo"
    assert session["key_changes"] == [
        {"file": "PROJ/hello.py", "action": "Write"},
        {"file": "PROJ/hello.py", "action": "Edit"},
    ]


def test_the_summary_is_the_first_prompt_as_written_cut_to_200(tmp_path: Path) -> None:
    prompt = "  Fix the bug\n\nin   parser.py " + "x" * 300
    record = {"type": "user", "message": {"role": "user", "content": prompt}}
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(json.dumps(record) + "\n")
    cli_json("add", "--no-regex", "--anti-pattern", "a", "--correct", "b")
    end_session("long-prompt", transcript)
    (session,) = cli_json("sessions", "list")
    assert session["summary"] == prompt.strip()[:200]


def test_snapshot_cuts_reasoning_at_100_and_older_sessions_at_80_characters(tmp_path: Path) -> None:
    env = {"CORTEX_NOW": NOW}
    cli_json("decisions", "add", "--title", "T", "--reasoning", "R" * 150, env=env)
    prompt = "P" * 150
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(json.dumps({"type": "user", "message": {"content": prompt}}) + "\n")
    for number in range(4):  # the fourth most recent is an "earlier" session
        result = run(
            "cortex-session-end",
            stdin=payload("session_end.other", session_id=f"s{number}", transcript_path=str(transcript)),
            env={"CORTEX_NOW": f"2026-05-2{number}T10:00:00Z"},
        )
        assert result.code == 0, result.stderr
    text = cli("snapshot", env=env).stdout
    assert "R" * 100 + "…" in text
    assert "R" * 101 not in text
    earlier = text.split("Earlier sessions:")[1]
    assert "P" * 80 + "…" in earlier
    assert "P" * 81 not in earlier


def test_older_memories_are_counted_beside_recent_ones() -> None:
    old, recent = {"CORTEX_NOW": "2026-05-01T10:00:00Z"}, {"CORTEX_NOW": NOW}
    for number in range(2):
        cli_json("decisions", "add", "--title", f"old {number}", "--reasoning", "r", env=old)
        cli_json("add", "--no-regex", "--anti-pattern", f"old {number}", "--correct", "c", "--pin", env=old)
    cli_json("decisions", "add", "--title", "new", "--reasoning", "r", env=recent)
    cli_json("add", "--no-regex", "--anti-pattern", "new", "--correct", "c", env=recent)
    text = cli("snapshot", env=recent).stdout
    assert "- #3 new: r" in text
    assert "2 older decisions" in text
    assert "- new — the correct way: c" in text
    assert "2 older learnings" in text


def test_snapshot_prints_exactly_the_injected_text_and_takes_json() -> None:
    cli_json("add", "--no-regex", "--anti-pattern", "a", "--correct", "b", "--confidence", "0.4")
    started = run("cortex-session-start", stdin=payload("session_start.startup"))
    injected = started.json()["hookSpecificOutput"]["additionalContext"]
    assert cli("snapshot").stdout == injected
    as_json = cli_json("snapshot")
    assert as_json == {"text": injected, "awaiting_review": 1}


def test_an_empty_memory_has_an_empty_snapshot() -> None:
    assert cli("snapshot").stdout == ""
    assert cli_json("snapshot") == {"text": "", "awaiting_review": 0}


def test_export_takes_json_too() -> None:
    cli_json("add", "--no-regex", "--anti-pattern", "a", "--correct", "b")
    assert cli_json("export")["learnings"][0]["anti_pattern"] == "a"


def test_a_configured_start_applies_to_new_and_imported_learnings(db: Path, tmp_path: Path) -> None:
    cli_json("add", "--no-regex", "--anti-pattern", "first", "--correct", "c")  # creates the database
    (db.parent / "config.toml").write_text("[confidence]\nstart = 0.60\n")
    assert cli_json("add", "--no-regex", "--anti-pattern", "a", "--correct", "b")["confidence"] == 0.6
    bare = tmp_path / "bare.json"
    bare.write_text(json.dumps([{"anti_pattern": "i", "correct_pattern": "c"}]))
    cli_json("import", str(bare))
    given = tmp_path / "given.json"
    given.write_text(json.dumps([{"anti_pattern": "g", "correct_pattern": "c", "confidence": 0.8}]))
    cli_json("import", str(given))
    by_text = {row["anti_pattern"]: row["confidence"] for row in cli_json("list")}
    assert by_text == {"first": 0.7, "a": 0.6, "i": 0.6, "g": 0.8}
    assert cli_json("keep", "4")["confidence"] == 0.6


@pytest.mark.parametrize(
    "changes",
    [
        {"hook_event_name": None},  # (no session id is no problem: the decision does not read it)
        {"tool_input": {"command": 5}},
        {"tool_name": "Write", "tool_input": {"file_path": "/a", "content": ["x"]}},
        {"tool_name": "MultiEdit", "tool_input": {"file_path": "/a", "edits": "x"}},
        {"tool_name": "Edit", "tool_input": {"file_path": 7, "new_string": "x"}},
    ],
    ids=["no-event", "command-int", "content-list", "edits-str", "path-int"],
)
def test_pre_tool_use_refuses_missing_and_mistyped_fields(db: Path, changes: dict[str, object]) -> None:
    cli_json("add", "--anti-pattern", "a", "--correct", "b", "--regex", ".", "--auto-block")
    data = payload("pre_tool_use.bash", **changes)
    data = {key: value for key, value in data.items() if value is not None}
    before = db.read_bytes()
    result = run("cortex-pre-tool-use", stdin=data)
    assert (result.code, result.stdout) == (1, "")
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith("cortex-hooks: PreToolUse: invalid payload")
    assert db.read_bytes() == before


def test_an_error_recorded_again_keeps_the_fix_given_now() -> None:
    cli_json("errors", "add", "--message", "database is locked")
    again = cli_json("errors", "add", "--message", "database is locked", "--fix", "BEGIN IMMEDIATE")
    assert (again["occurrences"], again["fix"], again["severity"]) == (2, "BEGIN IMMEDIATE", "medium")


def test_text_that_is_not_unicode_is_refused_as_invalid_input(db: Path) -> None:
    result = cli("add", "--anti-pattern", "x", "--correct", "y", "--regex=\udcff")
    assert result.code == 2
    assert result.stderr.startswith("cortex-hooks: invalid learning: regex:")
    assert not db.exists()


def test_an_empty_context_removes_it_and_no_regex_the_regex() -> None:
    cli_json("add", "--anti-pattern", "x", "--correct", "y", "--regex", "x", "--context", "why")
    updated = cli_json("update", "1", "--context", "", "--no-regex")
    assert (updated["context"], updated["regex"]) == (None, None)


@pytest.mark.parametrize("command", ["list", "snapshot", "doctor", "export"])
def test_non_ascii_text_is_written_as_utf8_whatever_the_locale(command: str) -> None:
    text = "caf\u00e9 \U0001f680"
    slow = "(\u00e9|a|aa)+$"  # doctor shows the regex of a learning whose probe times out
    cli_json("add", "--anti-pattern", text, "--correct", "th\u00e9", "--regex", slow)
    result = cli(command, env={"PYTHONUTF8": "0", "LC_ALL": "C", "LANG": "C"})
    assert "internal error" not in result.stderr, result.stderr
    assert result.code == (1 if command == "doctor" else 0), result.stderr  # doctor: not wired
    assert (slow if command == "doctor" else text) in result.stdout
