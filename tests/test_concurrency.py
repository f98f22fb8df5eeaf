"""End to end: many hook and CLI processes on one database at once (docs/guide/confidence.md and
docs/internals/guarantees.md).

Every count afterwards is exact: a lost update, a double decay or a "database is locked" fails.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from support import FIXTURES, add, cli_json, payload, script, unexpected_lines

PRE, START, END, CLI = (
    "cortex-pre-tool-use",
    "cortex-session-start",
    "cortex-session-end",
    "cortex-hooks",
)


class Finished:
    def __init__(self, label: str, code: int, stdout: bytes, stderr: bytes) -> None:
        self.label = label
        self.code = code
        self.stdout = stdout.decode("utf-8", "replace")
        self.stderr = stderr.decode("utf-8", "replace")

    def json(self) -> Any:
        return json.loads(self.stdout)


class Crowd:
    """Processes started one after another without waiting, then all awaited."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.running: list[tuple[str, subprocess.Popen[bytes]]] = []

    def hook(self, name: str, data: dict[str, Any], label: str = "") -> None:
        source = self.directory / f"stdin-{len(self.running)}.json"
        source.write_text(json.dumps(data))
        self._start(label or name, [script(name)], source)

    def cli(self, *args: str, label: str = "") -> None:
        self._start(label or " ".join(args[:1]), [script(CLI), *args], None)

    def _start(self, label: str, argv: list[str], source: Path | None) -> None:
        with open(source or os.devnull, "rb") as stdin:
            process = subprocess.Popen(argv, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.running.append((label, process))

    def finish(self, timeout: float = 120) -> list[Finished]:
        done = []
        for label, process in self.running:
            stdout, stderr = process.communicate(timeout=timeout)
            done.append(Finished(label, process.returncode, stdout, stderr))
        self.running = []
        return done


def assert_all_clean(results: list[Finished]) -> None:
    """Every process exited 0 and said nothing, but for the designed line of a hook that waited its
    bound for the write lock (support.BUSY_LINES: the counts hold all the same, which the tests then
    check). On a loaded machine that bound is reached; no error is."""
    failures = [(r.label, r.code, r.stderr) for r in results if r.code != 0 or unexpected_lines(r.stderr)]
    assert failures == [], failures


def learnings() -> dict[int, dict[str, Any]]:
    return {int(record["id"]): record for record in cli_json("list", "--all")}


def end_payload(session_id: str) -> dict[str, Any]:
    """A SessionEnd payload whose transcript is the real captured one."""
    transcript = str(FIXTURES / "transcript.jsonl")
    return payload("session_end.other", session_id=session_id, transcript_path=transcript)


def session_rows(db: Path) -> list[dict[str, Any]]:
    with closing(sqlite3.connect(db)) as connection:
        connection.row_factory = sqlite3.Row
        return [dict(row) for row in connection.execute("SELECT * FROM session")]


@pytest.fixture
def crowd(tmp_path: Path) -> Crowd:
    directory = tmp_path / "crowd"
    directory.mkdir()
    return Crowd(directory)


# --- PreToolUse ----------------------------------------------------------------------------------


def test_parallel_matches_boost_and_count_exactly(crowd: Crowd) -> None:
    blocker = add("--auto-block", "--confidence", "0.30", regex=r"rm\s+-rf", anti="BLOCKER")
    warner = add("--confidence", "0.50", regex=r"echo\s+REMOVED", anti="WARNER")
    bystander = add(regex=r"DROP TABLE", anti="BYSTANDER")
    calls = 40
    for _ in range(calls):
        crowd.hook(PRE, payload("pre_tool_use.bash"))
    results = crowd.finish()
    assert_all_clean(results)

    records = learnings()
    assert records[blocker]["access_count"] == calls
    assert records[blocker]["confidence"] == 0.9  # 0.30 + 40 boosts, capped
    assert records[warner]["access_count"] == calls
    assert records[warner]["confidence"] == 0.9
    assert records[bystander]["access_count"] == 0
    assert records[bystander]["confidence"] == 0.7

    outputs = [result.json()["hookSpecificOutput"] for result in results]
    # Each match sees the confidence the previous one left: 0.30 and 0.40 warn, 0.50 on deny.
    denied = [output for output in outputs if output.get("permissionDecision") == "deny"]
    assert len(denied) == calls - 2
    assert all(f"#{blocker}" in output["permissionDecisionReason"] for output in denied)
    assert all(f"#{warner}" in output["additionalContext"] for output in outputs)
    warned_only = [output for output in outputs if "permissionDecision" not in output]
    assert len(warned_only) == 2
    assert all(f"#{blocker}" in output["additionalContext"] for output in warned_only)


def test_parallel_matches_and_misses_write_only_the_matches(crowd: Crowd) -> None:
    lid = add(regex=r"git\s+push\s+--force", anti="force push")
    force = payload("pre_tool_use.bash", tool_input={"command": "git push --force origin main"})
    harmless = payload("pre_tool_use.bash", tool_input={"command": "git status"})
    for n in range(36):
        crowd.hook(PRE, force if n % 3 == 0 else harmless)
    results = crowd.finish()
    assert_all_clean(results)
    assert sum(1 for result in results if result.stdout) == 12
    assert all(result.stdout == "" for n, result in enumerate(results) if n % 3)
    record = learnings()[lid]
    assert record["access_count"] == 12
    assert record["confidence"] == 0.9


# --- SessionEnd ----------------------------------------------------------------------------------


def test_parallel_distinct_session_ends_decay_exactly_once_each(crowd: Crowd, db: Path) -> None:
    lid = add(anti="decays")
    pinned = add("--pin", anti="pinned")
    sessions = 30
    for n in range(sessions):
        crowd.hook(END, end_payload(f"parallel-{n}"))
    assert_all_clean(crowd.finish())
    records = learnings()
    assert records[lid]["confidence"] == 0.4  # 0.70 - 30 x 0.01, exactly
    assert records[pinned]["confidence"] == 0.7
    assert [record["id"] for record in cli_json("list", "--review")] == [lid]
    ended = [row for row in session_rows(db) if row["ended_at"] is not None]
    assert sorted(row["id"] for row in ended) == sorted(f"parallel-{n}" for n in range(sessions))


def test_parallel_repeats_of_one_session_end_decay_once(crowd: Crowd, db: Path) -> None:
    lid = add(anti="decays")
    for _ in range(12):
        crowd.hook(END, end_payload("the-same-session"))
    for n in range(5):
        crowd.hook(END, end_payload(f"other-{n}"))
    assert_all_clean(crowd.finish())
    assert learnings()[lid]["confidence"] == 0.64  # 1 + 5 distinct sessions
    assert len(session_rows(db)) == 6


# --- everything at once --------------------------------------------------------------------------


def test_hooks_and_cli_writes_at_once(crowd: Crowd, db: Path) -> None:
    # `matched` is pinned, so only boosts move it; `idle` never matches, so only decays move it.
    matched = add("--pin", "--confidence", "0.30", regex=r"rm\s+-rf", anti="matched")
    idle = add(anti="idle")
    matches, ends, starts, adds, shows = 24, 16, 4, 6, 4
    for n in range(max(matches, ends, starts, adds, shows)):
        if n < matches:
            crowd.hook(PRE, payload("pre_tool_use.bash"))
        if n < ends:
            crowd.hook(END, end_payload(f"end-{n}"))
        if n < starts:
            crowd.hook(START, payload("session_start.startup", session_id=f"start-{n}"))
        if n < adds:
            crowd.cli(
                "add", "--no-regex", "--anti-pattern", f"added {n}", "--correct", "c", "--json", label="add"
            )
        if n < shows:
            crowd.cli("show", str(matched), "--json", label="show")
    results = crowd.finish()
    assert_all_clean(results)

    records = learnings()
    assert records[matched]["confidence"] == 0.9
    assert records[matched]["access_count"] == matches + shows  # a show is an access
    assert records[idle]["confidence"] == 0.54  # 0.70 - 16 x 0.01
    assert records[idle]["access_count"] == 0
    added = [result.json()["id"] for result in results if result.label == "add"]
    assert len(set(added)) == adds
    assert set(added) <= set(records)
    assert {records[lid]["anti_pattern"] for lid in added} == {f"added {n}" for n in range(adds)}
    for lid in added:  # each new learning saw some of the session ends, never more than all
        assert 0.54 <= records[lid]["confidence"] <= 0.7
    rows = {row["id"]: row for row in session_rows(db)}
    assert sum(1 for row in rows.values() if row["ended_at"]) == ends
    assert all(rows[f"start-{n}"]["started_at"] for n in range(starts))


def test_first_use_from_many_processes_creates_one_database(crowd: Crowd, db: Path) -> None:
    """The CLI creates the database while hooks already run: nobody fails, nothing is lost."""
    assert not db.exists()
    adds = 6
    for n in range(adds):
        crowd.cli(
            "add",
            "--anti-pattern",
            f"first {n}",
            "--correct",
            "c",
            "--regex=rm",
            "--json",
            label="add",
        )
        crowd.hook(PRE, payload("pre_tool_use.bash"))
        crowd.hook(END, end_payload(f"early-{n}"))
    results = crowd.finish()
    failures = [(r.label, r.code, r.stderr) for r in results if r.code != 0 or "Traceback" in r.stderr]
    assert failures == []
    assert not any("locked" in r.stderr.lower() for r in results)
    added = [result.json()["id"] for result in results if result.label == "add"]
    assert len(set(added)) == adds
    records = learnings()
    assert sorted(records) == sorted(added)
    assert {record["anti_pattern"] for record in records.values()} == {f"first {n}" for n in range(adds)}
