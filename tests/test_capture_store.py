"""Capture's records and commands: recurrence gates, caps, rejection, accept, offsets."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from support import cli, cli_json
from transcripts import NOT_FOUND, Transcript

MAKE = "make: *** No rule to make target 'check'.  Stop."


def make_session(session: str, *extra: str) -> Transcript:
    transcript = Transcript(session).prompt("run the checks")
    transcript.bash("make check", MAKE, code=2).bash("make test", "all passed")
    for command in extra:
        transcript.bash(command)
    return transcript


def capture(path: Path, *args: str) -> Any:
    return cli_json("capture", "--transcript", str(path), *args)


def test_failed_then_fixed_is_proposed_at_its_second_session(tmp_path: Path) -> None:
    first = capture(make_session("s1").write(tmp_path / "s1.jsonl"))
    assert first["proposed"] == []
    assert first["candidates"] == 1
    assert cli_json("proposals") == []
    second = capture(make_session("s2").write(tmp_path / "s2.jsonl"))
    [proposal] = second["proposed"]
    assert proposal["signal"] == "failed-then-fixed"
    assert proposal["kind"] == "learning"
    assert proposal["status"] == "proposed"
    assert proposal["occurrences"] == 2
    assert "make check" in proposal["anti_pattern"]
    assert "make test" in proposal["correct_pattern"]
    assert [item["session"] for item in proposal["evidence"]] == ["s1", "s2"]
    assert cli_json("proposals") == [proposal]


def test_several_occurrences_in_one_session_stay_a_candidate(tmp_path: Path) -> None:
    transcript = make_session("s1")
    transcript.bash("make check", MAKE, code=2).bash("make test")
    assert capture(transcript.write(tmp_path / "s1.jsonl"))["proposed"] == []
    assert cli_json("proposals") == []


def test_nothing_is_scanned_twice_and_what_was_added_is_scanned(tmp_path: Path) -> None:
    path = tmp_path / "s1.jsonl"
    transcript = make_session("s1")
    transcript.write(path)
    assert capture(path)["candidates"] == 1
    assert capture(path)["candidates"] == 0  # the same file again: nothing new
    transcript.prompt("again").bash("python x.py", NOT_FOUND.format(word="python"), code=127)
    text = transcript.text()
    path.write_text(text[: text.rindex('{"parentUuid"')], encoding="utf-8")  # its result not yet written
    assert capture(path)["candidates"] == 0  # the call waits for its result
    transcript.bash("python3 x.py")
    transcript.write(path)
    assert capture(path)["candidates"] == 1  # the fix, paired with the call of the last scan
    with closing(sqlite3.connect(os.environ["CORTEX_DB"])) as connection:
        counts = connection.execute("SELECT count(*) FROM proposal_occurrence").fetchone()[0]
    assert counts == 2


def test_a_dry_run_writes_nothing(tmp_path: Path) -> None:
    path = make_session("s1").write(tmp_path / "s1.jsonl")
    assert capture(path, "--dry-run")["candidates"] == 1
    assert capture(path)["candidates"] == 1  # the dry run did not move the offset
    capture(make_session("s2").write(tmp_path / "s2.jsonl"), "--dry-run")
    assert cli_json("proposals") == []


def test_a_dry_run_reports_what_the_run_would_propose(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """the dry run proposed nothing where the run proposed one."""
    monkeypatch.setenv("CORTEX_NOW", "2026-11-20T12:00:00Z")
    capture(make_session("s1").write(tmp_path / "s1.jsonl"))
    second = make_session("s2").write(tmp_path / "s2.jsonl")
    dry = capture(second, "--dry-run")
    human = cli("capture", "--transcript", str(second), "--dry-run")
    assert cli_json("proposals") == []  # still nothing written
    real = capture(second)
    assert len(real["proposed"]) == 1
    assert dry == real
    assert "1 new proposal (dry run: nothing written)" in human.stdout
    assert "AVOID: `make check` fails" in human.stdout


def test_a_rejected_proposal_is_never_proposed_again(tmp_path: Path) -> None:
    capture(make_session("s1").write(tmp_path / "s1.jsonl"))
    [proposal] = capture(make_session("s2").write(tmp_path / "s2.jsonl"))["proposed"]
    assert cli("reject", str(proposal["id"])).code == 0
    for session in ("s3", "s4", "s5"):
        result = capture(make_session(session).write(tmp_path / f"{session}.jsonl"))
        assert result["proposed"] == []
        assert any("rejected before" in item["reason"] for item in result["skipped"])
    assert cli_json("proposals") == []
    [rejected] = cli_json("proposals", "--all")
    assert rejected["status"] == "rejected"


def test_a_correction_is_proposed_at_first_sight(tmp_path: Path) -> None:
    transcript = Transcript("s1").bash("npm install").prompt("don't use npm, use pnpm")
    [proposal] = capture(transcript.write(tmp_path / "s1.jsonl"))["proposed"]
    assert proposal["signal"] == "user-correction"
    assert proposal["correct_pattern"] == "don't use npm, use pnpm"
    assert proposal["evidence"][0]["failed"] == "npm install"


def test_repeated_failures_without_a_fix_are_proposed_warn_only(tmp_path: Path) -> None:
    transcript = Transcript("s1")
    for _ in range(3):
        transcript.bash("pnpm test", NOT_FOUND.format(word="pnpm"), code=127)
    [proposal] = capture(transcript.write(tmp_path / "s1.jsonl"))["proposed"]
    assert proposal["signal"] == "repeated-failure"
    accepted = cli_json("accept", str(proposal["id"]))
    assert accepted["auto_block"] is False


def test_at_most_five_new_proposals_per_session(tmp_path: Path) -> None:
    transcript = Transcript("s1")
    for tool in ("npm", "yarn", "bower", "grunt", "gulp", "jake", "brunch"):
        transcript.bash(f"{tool} build").prompt(f"don't use {tool}")
    result = capture(transcript.write(tmp_path / "s1.jsonl"))
    assert len(result["proposed"]) == 5
    assert sum("cap reached" in item["reason"] for item in result["skipped"]) == 2


def test_accept_makes_a_warn_only_learning_at_the_start_confidence(tmp_path: Path) -> None:
    capture(make_session("s1").write(tmp_path / "s1.jsonl"))
    [proposal] = capture(make_session("s2").write(tmp_path / "s2.jsonl"))["proposed"]
    learning = cli_json("accept", str(proposal["id"]))
    assert learning["confidence"] == 0.70
    assert learning["auto_block"] is False
    assert learning["regex"] == proposal["regex"]
    assert cli_json("proposals") == []
    decision = cli_json("explain", "--tool", "Bash", "--command", "make check")
    assert decision["decision"] == "warn"
    again = cli("accept", str(proposal["id"]))
    assert again.code == 2
    assert "accepted already" in again.stderr


def test_accept_with_auto_block_and_a_regex_of_ones_own(tmp_path: Path) -> None:
    capture(make_session("s1").write(tmp_path / "s1.jsonl"))
    [proposal] = capture(make_session("s2").write(tmp_path / "s2.jsonl"))["proposed"]
    learning = cli_json("accept", str(proposal["id"]), "--auto-block", "--regex", r"^make check\b")
    assert learning["auto_block"] is True
    assert learning["regex"] == r"^make check\b"
    assert cli_json("explain", "--tool", "Bash", "--command", "make check")["decision"] == "deny"


def test_accept_global_puts_the_learning_in_the_global_database(tmp_path: Path) -> None:
    transcript = Transcript("s1").bash("npm install").prompt("don't use npm, use pnpm")
    [proposal] = capture(transcript.write(tmp_path / "s1.jsonl"))["proposed"]
    learning = cli_json("accept", str(proposal["id"]), "--global")
    assert cli_json("list", "--global")[0]["id"] == learning["id"]
    assert cli_json("list") == []
    [accepted] = cli_json("proposals", "--all")
    assert accepted["status"] == "accepted"


def test_an_accepted_pattern_seen_again_boosts_its_learning(tmp_path: Path) -> None:
    transcript = Transcript("s1").bash("npm install").prompt("don't use npm, use pnpm")
    [proposal] = capture(transcript.write(tmp_path / "s1.jsonl"))["proposed"]
    cli_json("accept", str(proposal["id"]))
    again = Transcript("s2").bash("npm ci").prompt("don't use npm, use pnpm")
    result = capture(again.write(tmp_path / "s2.jsonl"))
    assert result["proposed"] == []
    assert any("boosted" in item["reason"] for item in result["skipped"])
    assert cli_json("list")[0]["confidence"] == 0.80


def test_secrets_never_reach_the_database(tmp_path: Path) -> None:
    key = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
    transcript = Transcript("s1").bash(
        f"GITHUB_TOKEN={key} gh pr lsit", 'unknown command "lsit" for "gh pr"', code=1
    )
    transcript.bash(f"GITHUB_TOKEN={key} gh pr list")
    capture(transcript.write(tmp_path / "s1.jsonl"))
    assert key.encode() not in Path(os.environ["CORTEX_DB"]).read_bytes()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("capture", "--transcript", "missing.jsonl"), "cannot read transcript"),
        (("accept", "7"), "no proposal with id 7"),
        (("reject", "7"), "no proposal with id 7"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args: tuple[str, ...], message: str) -> None:
    cli("list")  # a database exists
    result = cli(*args)
    assert result.code == 2
    assert message in result.stderr
    assert result.stderr.count("\n") == 1


def test_a_directory_is_not_read_as_a_transcript(tmp_path: Path) -> None:
    result = cli("capture", "--transcript", str(tmp_path))
    assert result.code == 2


HEAP_PROGRAM = """
import ctypes, sys
from cortex_hooks.cli import main

class Info(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd",
        "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")]

libc = ctypes.CDLL(None)
libc.mallinfo2.restype = Info
if sys.argv[1:]:
    assert main(["capture", "--json", "--transcript", sys.argv[1]]) == 0
freed = bytearray(2 << 20)
del freed  # glibc raises its mmap threshold past a mapping it frees, unless it is pinned
mapped = libc.mallinfo2().hblks
block = bytearray(1 << 20)
print(libc.mallinfo2().hblks - mapped)
"""


@pytest.mark.skipif(os.confstr("CS_GNU_LIBC_VERSION") is None, reason="glibc's mallopt and mallinfo2")
def test_a_scan_keeps_each_block_a_mapping_of_its_own(tmp_path: Path, db: Path) -> None:
    """What a scan keeps between its 1 MiB blocks cannot pin heap fragments: a SessionEnd with
    capture over 100 MB peaked at 45.7 MiB every run, where glibc's rising threshold gave 45-52."""
    path = make_session("s1").write(tmp_path / "s1.jsonl")

    def new_mappings(*argv: str) -> int:
        done = subprocess.run(
            [sys.executable, "-c", HEAP_PROGRAM, *argv], capture_output=True, text=True, check=True
        )
        return int(done.stdout.splitlines()[-1])  # after what `capture --json` printed

    assert new_mappings() == 0  # glibc's own behaviour: the block came from the heap
    assert new_mappings(str(path)) == 1
    with closing(sqlite3.connect(db)) as connection:  # the scan ran, on this test's database
        assert connection.execute("SELECT count(*) FROM capture_scan").fetchone() == (1,)
