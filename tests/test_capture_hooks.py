"""Capture in the hooks (docs/guide/capture.md): SessionEnd scans, the worker finishes, SessionStart shows."""

from __future__ import annotations

import json
import os
import sqlite3
import time
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from support import cli, cli_json, payload, run
from transcripts import Transcript

from cortex_hooks import clock
from cortex_hooks.capture import scanning, worker
from cortex_hooks.confidence import DEFAULT
from cortex_hooks.store import proposals
from cortex_hooks.store.connection import open_database
from cortex_hooks.stored import capture_rows

MAKE = "make: *** No rule to make target 'check'.  Stop."


def make_session(session: str) -> Transcript:
    transcript = Transcript(session).prompt("run the checks")
    return transcript.bash("make check", MAKE, code=2).bash("make test", "all passed")


def end(path: Path, session: str) -> Any:
    result = run(
        "cortex-session-end",
        stdin=payload("session_end.other", session_id=session, transcript_path=str(path)),
    )
    assert result.code == 0, result.stderr
    return result


def start(session: str = "next") -> Any:
    result = run("cortex-session-start", stdin=payload("session_start.startup", session_id=session))
    assert result.code == 0, result.stderr
    return result


def database() -> str:
    return os.environ["CORTEX_DB"]


def scan_rows() -> list[capture_rows.Scan]:
    with closing(open_database(database())) as connection:
        return proposals.scans(connection)


@pytest.fixture
def two_sessions(tmp_path: Path) -> None:
    cli(
        "add", "--no-regex", "--anti-pattern", "unrelated", "--correct", "x"
    )  # a database: hooks never create one
    for session in ("s1", "s2"):
        end(make_session(session).write(tmp_path / f"{session}.jsonl"), session)


@pytest.mark.usefixtures("two_sessions")
def test_session_start_shows_the_proposal_with_its_commands() -> None:
    [proposal] = cli_json("proposals")
    output = start().json()
    context = output["hookSpecificOutput"]["additionalContext"]
    assert f"cortex-hooks accept {proposal['id']}" in context
    assert f"cortex-hooks reject {proposal['id']}" in context
    assert "make check" in context
    assert "make test" in context
    assert output["systemMessage"].count("\n") == 0
    assert "1 proposed learning awaits" in output["systemMessage"]
    assert cli("snapshot").stdout.strip() == context.strip()  # the same text as the hook's


@pytest.mark.usefixtures("two_sessions")
def test_the_review_notice_and_the_proposals_share_one_line() -> None:
    cli("add", "--no-regex", "--anti-pattern", "old", "--correct", "y", "--confidence", "0.40")
    message = start().json()["systemMessage"]
    assert "1 learning awaits review" in message
    assert "1 proposed learning awaits" in message
    assert "\n" not in message


@pytest.mark.usefixtures("two_sessions")
def test_a_proposal_unanswered_at_ten_starts_expires() -> None:
    for number in range(10):
        assert "proposed learning" in start(f"start-{number}").json()["systemMessage"]
    later = start("start-10")
    assert "proposed learning" not in later.stdout
    [expired] = cli_json("proposals", "--all")
    assert expired["status"] == "expired"


@pytest.mark.usefixtures("two_sessions")
def test_a_proposal_is_matched_by_no_hook_and_found_by_no_recall() -> None:
    call = payload("pre_tool_use.bash", tool_input={"command": "make check"})
    result = run("cortex-pre-tool-use", stdin=call)
    assert (result.code, result.stdout) == (0, "")
    assert cli_json("recall", "make check") == []


def test_a_repeated_session_end_scans_only_what_was_added(tmp_path: Path) -> None:
    cli("add", "--no-regex", "--anti-pattern", "unrelated", "--correct", "x")
    path = tmp_path / "s1.jsonl"
    transcript = make_session("s1")
    end(transcript.write(path), "s1")
    [row] = scan_rows()
    assert row.offset == path.stat().st_size
    transcript.bash("make check", MAKE, code=2).bash("make test")
    end(transcript.write(path), "s1")
    with closing(sqlite3.connect(database())) as connection:
        assert connection.execute("SELECT count(*) FROM proposal_occurrence").fetchone()[0] == 2
    assert cli_json("proposals") == []  # two sightings, one session: still a candidate


def test_capture_switched_off_per_project(tmp_path: Path) -> None:
    cli("add", "--no-regex", "--anti-pattern", "unrelated", "--correct", "x")
    Path(database()).with_name("config.toml").write_text("[capture]\nenabled = false\n", encoding="utf-8")
    for session in ("s1", "s2"):
        end(make_session(session).write(tmp_path / f"{session}.jsonl"), session)
    assert scan_rows() == []


def test_capture_switched_off_for_every_project(tmp_path: Path) -> None:
    cli("add", "--no-regex", "--anti-pattern", "unrelated", "--correct", "x")
    home = Path(os.environ["HOME"]) / ".claude" / "memory"
    home.mkdir(parents=True)
    (home / "config.toml").write_text("[capture]\nenabled = false\n", encoding="utf-8")
    end(make_session("s1").write(tmp_path / "s1.jsonl"), "s1")
    assert scan_rows() == []


def test_what_the_budget_leaves_the_worker_finishes(tmp_path: Path) -> None:
    cli("add", "--no-regex", "--anti-pattern", "unrelated", "--correct", "x")
    for session in ("s1", "s2"):
        path = make_session(session).write(tmp_path / f"{session}.jsonl")
        with closing(open_database(database())) as connection:  # a budget already spent
            outcome = scanning.scan(
                connection, str(path), session, deadline=0.0, now=clock.iso(clock.now()), policy=DEFAULT
            )
        assert outcome.behind == path.stat().st_size
    doctor = cli("doctor")
    assert "scanned only in part" in doctor.stdout
    assert worker.run(database()) == 0
    assert all(row.offset == Path(row.transcript).stat().st_size for row in scan_rows())
    assert len(cli_json("proposals")) == 1
    assert "scanned only in part" not in cli("doctor").stdout


def test_the_worker_scans_a_session_that_sessionend_could_not_start(tmp_path: Path) -> None:
    """A SessionEnd that found the database busy stored no offset: the worker is told the session."""
    cli("add", "--no-regex", "--anti-pattern", "unrelated", "--correct", "x")
    first = make_session("s0").write(tmp_path / "s0.jsonl")
    with closing(open_database(database())) as connection:
        now = clock.iso(clock.now())
        scanning.scan(connection, str(first), "s0", deadline=10**9, now=now, policy=DEFAULT)
    path = make_session("s1").write(tmp_path / "s1.jsonl")
    assert [row.session_id for row in scan_rows()] == ["s0"]
    assert worker.run(database()) == 0  # without its name the worker cannot know it
    assert [row.session_id for row in scan_rows()] == ["s0"]
    assert worker.run(database(), ("s1", str(path))) == 0
    assert {row.session_id: row.offset for row in scan_rows()} == {
        "s0": first.stat().st_size,
        "s1": path.stat().st_size,
    }
    assert len(cli_json("proposals")) == 1  # the second session's sighting opened the gate


def test_the_worker_writes_down_its_error_for_doctor(tmp_path: Path) -> None:
    cli("add", "--no-regex", "--anti-pattern", "unrelated", "--correct", "x")
    path = make_session("s1").write(tmp_path / "s1.jsonl")
    with closing(open_database(database())) as connection:
        scanning.scan(connection, str(path), "s1", deadline=0.0, now=clock.iso(clock.now()), policy=DEFAULT)
    path.unlink()
    path.mkdir()  # a directory where the transcript was: never read
    worker.run(database())
    doctor = cli("doctor")
    assert "background worker's last error" in doctor.stdout
    assert "not a regular file" in doctor.stdout
    path.rmdir()
    make_session("s1").write(path)
    worker.run(database())  # a clean run clears the error
    assert "last error" not in cli("doctor").stdout


def test_only_one_worker_runs_at_a_time(tmp_path: Path) -> None:
    import fcntl

    cli("add", "--no-regex", "--anti-pattern", "unrelated", "--correct", "x")
    path = make_session("s1").write(tmp_path / "s1.jsonl")
    with closing(open_database(database())) as connection:
        scanning.scan(connection, str(path), "s1", deadline=0.0, now=clock.iso(clock.now()), policy=DEFAULT)
    with open(worker.lock_path(database()), "a", encoding="utf-8") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        assert worker.run(database()) == 0  # another holds the lock: it leaves at once
        assert scan_rows()[0].offset == 0
    worker.run(database())
    assert scan_rows()[0].offset == path.stat().st_size


def test_a_capture_killed_midway_loses_nothing_and_duplicates_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cli("add", "--no-regex", "--anti-pattern", "unrelated", "--correct", "x")
    path = make_session("s1").write(tmp_path / "s1.jsonl")

    def killed(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt  # as a signal would, after the sightings were written

    with closing(open_database(database())) as connection:
        with monkeypatch.context() as patch:
            patch.setattr(proposals, "save_scan", killed)
            with pytest.raises(KeyboardInterrupt):
                scanning.scan(
                    connection, str(path), "s1", deadline=1e12, now="2026-01-01T00:00:00Z", policy=DEFAULT
                )
        assert connection.execute("SELECT count(*) FROM proposal_occurrence").fetchone()[0] == 0
        assert proposals.scans(connection) == []
        scanning.scan(connection, str(path), "s1", deadline=1e12, now="2026-01-01T00:00:00Z", policy=DEFAULT)
        scanning.scan(connection, str(path), "s1", deadline=1e12, now="2026-01-01T00:00:00Z", policy=DEFAULT)
        assert connection.execute("SELECT count(*) FROM proposal_occurrence").fetchone()[0] == 1


def test_session_end_on_a_60_mb_transcript_hands_the_rest_to_the_worker(tmp_path: Path) -> None:
    cli("add", "--no-regex", "--anti-pattern", "unrelated", "--correct", "x")
    path = tmp_path / "big.jsonl"
    transcript = make_session("big")
    filler = "x" * 2000
    line = Transcript("big").bash("pytest -q", filler).text()
    with path.open("w", encoding="utf-8") as stream:
        stream.write(transcript.text())
        for _ in range(60 * 1024 * 1024 // len(line)):
            stream.write(line)
        stream.write(make_session("big").text())
    end(path, "big")
    deadline = time.monotonic() + 300  # the worker runs detached: wait for it, never time it
    while time.monotonic() < deadline:
        rows = scan_rows()
        if rows and rows[0].offset == path.stat().st_size:
            break
        time.sleep(0.5)
    else:
        pytest.fail("the background worker did not finish the transcript")
    with closing(sqlite3.connect(database())) as connection:
        assert connection.execute("SELECT count(*) FROM proposal_occurrence").fetchone()[0] == 2


def test_two_scanners_at_once_record_each_sighting_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cortex_hooks.capture import reading

    cli("add", "--no-regex", "--anti-pattern", "unrelated", "--correct", "x")
    path = str(make_session("s1").write(tmp_path / "s1.jsonl"))
    real_read = reading.read
    now = "2026-01-01T00:00:00Z"

    def read_then_race(*args: Any, **kwargs: Any) -> reading.Chunk:
        chunk = real_read(*args, **kwargs)
        monkeypatch.setattr(reading, "read", real_read)
        with closing(open_database(database())) as other:  # the other scanner wins the race
            scanning.scan(other, path, "s1", deadline=1e12, now=now, policy=DEFAULT)
        return chunk

    monkeypatch.setattr(reading, "read", read_then_race)
    with closing(open_database(database())) as connection:
        outcome = scanning.scan(connection, path, "s1", deadline=1e12, now=now, policy=DEFAULT)
        assert "scanned meanwhile by another process" in outcome.skipped
        assert connection.execute("SELECT count(*) FROM proposal_occurrence").fetchone()[0] == 1


@pytest.mark.usefixtures("two_sessions")
def test_with_drafting_on_and_no_claude_the_deterministic_proposal_stands(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    Path(database()).with_name("config.toml").write_text('[capture]\nllm = "claude-cli"\n', encoding="utf-8")
    monkeypatch.setenv("CORTEX_CLAUDE_BIN", str(Path(database()).with_name("no-such-claude")))
    [before] = cli_json("proposals")
    worker.run(database())
    [after] = cli_json("proposals")
    assert after == before
    assert "no `claude` was found" in cli("doctor").stdout


def test_the_claude_child_is_guarded_against_recursion(monkeypatch: pytest.MonkeyPatch) -> None:
    from cortex_hooks.capture import drafting

    monkeypatch.setenv("CLAUDECODE", "1")
    argv = drafting.command("claude")
    assert argv[argv.index("--setting-sources") + 1] == ""
    assert "--no-session-persistence" in argv
    assert argv[argv.index("--max-turns") + 1] == "1"
    assert "--max-budget-usd" in argv
    from cortex_hooks.boundary import child_environment

    env = child_environment()
    assert env["CORTEX_HOOKS_CHILD"] == "1"
    assert "CLAUDECODE" not in env


WORDING = {"anti_pattern": "a", "correct_pattern": "b", "regex": "c"}


@pytest.mark.parametrize(
    ("stdout", "expected"),
    [
        (
            json.dumps({"result": json.dumps(WORDING)}),
            "ok",
        ),
        (
            json.dumps({"result": "Sure! " + json.dumps(WORDING)}),
            "ok",
        ),
        ('{"result": "no json here"}', "no JSON object"),
        ('{"result": "{\\"anti_pattern\\": \\"a\\"}"}', "lacks a field"),
        ("not json", "not JSON"),
    ],
)
def test_the_models_answer_is_parsed_or_refused(stdout: str, expected: str) -> None:
    from cortex_hooks.capture import drafting

    result = drafting.parse(stdout)
    if expected == "ok":
        assert result == WORDING
    else:
        assert isinstance(result, str)
        assert expected in result
