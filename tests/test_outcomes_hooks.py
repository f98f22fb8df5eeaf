"""What the agent did after a deny, ask or rewrite through the installed hooks, with real
payloads and real SQLite files: bad input (two sessions interleaved in one project, a learning
archived since its deny, a session end repeated, a database locked), a session end that never came,
the review of a learning the agent keeps retrying, capture's rewrite from the agent's own retry,
and nothing of it on the path of a call that matches nothing."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest
from locking import write_lock
from outcome_sessions import Transcript, add_learnings, end, outcomes, play
from support import cli, cli_json, payload, run

LEARNINGS = {
    "force": {
        "anti_pattern": "git push --force overwrites the remote's history",
        "correct": "`git push --force-with-lease`, which refuses when the remote moved",
        "regex": r"^git push\b.*(?:--force(?![\w-])|\s-f\b)",
        "action": "block",
    },
    "make": {
        "anti_pattern": "`make check` fails here",
        "correct": "`make test`",
        "regex": r"^make check\b",
        "action": "block",
    },
}


@pytest.fixture
def ids(db: Path, tmp_path: Path) -> dict[str, int]:
    return add_learnings(LEARNINGS, {"CORTEX_DB": str(db), "HOME": str(tmp_path / "home")})


def env(db: Path, tmp_path: Path) -> dict[str, str]:
    return {"CORTEX_DB": str(db), "HOME": str(tmp_path / "home")}


def counts(db: Path) -> dict[int, tuple[int, int, int, int]]:
    """Per learning: caught, followed, retried, asked, as the history counts them."""
    with closing(sqlite3.connect(db)) as connection:
        return {
            row[0]: tuple(row[1:])
            for row in connection.execute(
                """SELECT learning_id, sum(denies + asks + rewrites), sum(followed), sum(retried), sum(asked)
                   FROM learning_day GROUP BY learning_id"""
            )
        }


def test_a_session_that_follows_and_one_that_retries_interleaved_in_one_project(
    db: Path, tmp_path: Path, ids: dict[str, int]
) -> None:
    """Two sessions at once in one project: their calls alternate in time, each transcript its
    own; each catch is decided from its own session's calls, and an end of one never decides the
    other's catch wrongly (the other's end finishes it)."""
    home = tmp_path / "home"
    folder = home / ".claude" / "projects" / "-home-dev-proj"
    one = Transcript(folder / "one.jsonl", "one", "2026-11-28T10:00:00Z")
    two = Transcript(folder / "two.jsonl", "two", "2026-11-28T10:00:00Z")
    clock = {**env(db, tmp_path), "CORTEX_NOW": "2026-11-28T10:00:00Z"}

    def step(transcript: Transcript, command: str, number: int) -> None:
        call_id = f"toolu_{transcript.session}_{number}"
        tool_input = {"command": command, "description": "task"}
        source = transcript.assistant(
            [{"type": "tool_use", "id": call_id, "name": "Bash", "input": tool_input}]
        )
        decided = run(
            "cortex-pre-tool-use",
            stdin=payload("pre_tool_use.bash", session_id=transcript.session,
                          transcript_path=str(transcript.path), tool_input=tool_input, tool_use_id=call_id),
            env=clock,
        )  # fmt: skip
        assert decided.code == 0, decided.stderr
        said = decided.json()["hookSpecificOutput"] if decided.stdout.strip() else {}
        denied = said.get("permissionDecision") == "deny"
        transcript.result(call_id, source, said.get("permissionDecisionReason", "ok"), denied)

    step(one, "make check", 1)
    step(two, "make check", 1)
    step(two, "make check", 2)  # session two retries
    end("two", two.path, clock)  # two ends first; one is still running
    step(one, "make test", 2)  # session one follows
    end("one", one.path, clock)
    found = outcomes(str(db))
    assert found == {
        (ids["make"], "toolu_one_1"): "followed",
        (ids["make"], "toolu_two_1"): "retried",
        (ids["make"], "toolu_two_2"): "unknown",
    }
    assert counts(db)[ids["make"]] == (3, 1, 1, 0)


def test_a_deny_whose_learning_was_archived_since_is_still_decided_and_counted(
    db: Path, tmp_path: Path, ids: dict[str, int]
) -> None:
    home = tmp_path / "home"
    clock = {**env(db, tmp_path), "CORTEX_NOW": "2026-11-28T10:00:00Z"}
    session = {
        "steps": [
            {"call": "git push --force origin main"},
            {"call": "git push --force-with-lease origin main"},
        ]
    }

    def archive() -> None:  # after the deny and the call that followed it, before the session's end
        assert cli("archive", str(ids["force"]), env=clock).code == 0

    played = play(session, ids, clock, home, before_end=archive)
    assert played.session
    assert outcomes(str(db))[(ids["force"], _first(db))] == "followed"
    shown = cli_json("show", str(ids["force"]), env=clock)
    assert shown["archived_at"] is not None
    assert shown["outcomes"]["followed"] == 1


def _first(db: Path) -> str:
    with closing(sqlite3.connect(db)) as connection:
        return str(connection.execute("SELECT call_id FROM outcome ORDER BY id LIMIT 1").fetchone()[0])


def test_a_repeated_session_end_counts_nothing_twice(db: Path, tmp_path: Path, ids: dict[str, int]) -> None:
    home = tmp_path / "home"
    clock = {**env(db, tmp_path), "CORTEX_NOW": "2026-11-28T10:00:00Z"}
    played = play(
        {"steps": [{"call": "make check"}, {"call": "make check"}, {"call": "make test"}]}, ids, clock, home
    )
    before = counts(db)
    assert before[ids["make"]] == (2, 1, 1, 0)
    for _ in range(3):
        end(played.session, played.transcript, clock)
    assert counts(db) == before
    with closing(sqlite3.connect(db)) as connection:  # every count is one row's, once
        rows = dict(connection.execute("SELECT result, count(*) FROM outcome GROUP BY result").fetchall())
    assert rows == {"followed": 1, "retried": 1}


def test_without_a_session_end_the_retry_the_hook_saw_stands(
    db: Path, tmp_path: Path, ids: dict[str, int]
) -> None:
    """Claude Code does not always send SessionEnd: a deny the learning met again in the same
    session is counted retried by PreToolUse itself (provisional), and settled by a later read."""
    clock = {**env(db, tmp_path), "CORTEX_NOW": "2026-11-28T10:00:00Z"}
    for number in (1, 2):
        result = run(
            "cortex-pre-tool-use",
            stdin=payload("pre_tool_use.bash", session_id="lost", tool_use_id=f"toolu_{number}",
                          transcript_path=str(tmp_path / "never-written.jsonl"),
                          tool_input={"command": "make check"}),
            env=clock,
        )  # fmt: skip
        assert result.json()["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert outcomes(str(db)) == {(ids["make"], "toolu_1"): "retried", (ids["make"], "toolu_2"): "unknown"}
    assert counts(db)[ids["make"]] == (2, 0, 1, 0)


def test_a_locked_database_keeps_the_catch_for_later(db: Path, tmp_path: Path, ids: dict[str, int]) -> None:
    clock = {**env(db, tmp_path), "CORTEX_NOW": "2026-11-28T10:00:00Z"}
    deny = payload(
        "pre_tool_use.bash", session_id="held", tool_use_id="toolu_held", tool_input={"command": "make check"}
    )
    with write_lock(db):
        result = run("cortex-pre-tool-use", stdin=deny, env=clock)
        assert result.json()["hookSpecificOutput"]["permissionDecision"] == "deny"
        assert "kept for later" in result.stderr
    cli_json("list", env=clock)  # a read: nothing applied yet
    run("cortex-session-start", stdin=payload("session_start.startup", session_id="next"), env=clock)
    assert outcomes(str(db)) == {(ids["make"], "toolu_held"): "unknown"}


def test_the_review_names_a_learning_the_agent_keeps_retrying(
    db: Path, tmp_path: Path, ids: dict[str, int]
) -> None:
    home = tmp_path / "home"
    clock = {**env(db, tmp_path), "CORTEX_NOW": "2026-11-28T10:00:00Z"}
    play(
        {"steps": [{"call": "make check"}, {"call": "make check"}, {"call": "make check V=1"}]},
        ids,
        clock,
        home,
    )
    started = run(
        "cortex-session-start", stdin=payload("session_start.startup", session_id="after"), env=clock
    )
    said = started.json()
    context = said["hookSpecificOutput"]["additionalContext"]
    assert "the agent keeps retrying 1 learned anti-pattern" in context
    assert f"#{ids['make']} `make check` fails here — DO: `make test` (retried 2, followed 0" in context
    assert "last retried: `make check` then `make check V=1`" in context  # the latest retried catch
    assert f"reword: `cortex-hooks update {ids['make']} --correct" in context
    assert "1 learning the agent keeps retrying" in said["systemMessage"]
    # reworded: a new wording starts its count again, and is not named
    cli_json("update", str(ids["make"]), "--correct", "run `make test` (the suite); there is no check target",
             env={**clock, "CORTEX_NOW": "2026-11-28T11:00:00Z"})  # fmt: skip
    again = run("cortex-session-start", stdin=payload("session_start.startup", session_id="later"), env=clock)
    assert "keeps retrying" not in again.stdout


def test_the_agents_own_retry_becomes_a_proposed_rewrite(
    db: Path, tmp_path: Path, ids: dict[str, int]
) -> None:
    home = tmp_path / "home"
    clock = {**env(db, tmp_path), "CORTEX_NOW": "2026-11-28T10:00:00Z"}
    play(
        {
            "steps": [
                {"call": "git push --force origin main"},
                {"call": "git push --force-with-lease origin main"},
            ]
        },
        ids,
        clock,
        home,
    )
    (proposal,) = cli_json("proposals", env=clock)
    assert (proposal["signal"], proposal["learning_id"], proposal["rewrite"]) == (
        "followed",
        ids["force"],
        "git push --force-with-lease",
    )
    assert proposal["evidence"][0]["fixed"] == "git push --force-with-lease origin main"
    shown = cli("proposals", env=clock).stdout
    assert f"for learning #{ids['force']}: accept gives it this rewrite" in shown
    accepted = cli_json("accept", str(proposal["id"]), env=clock)
    assert accepted["rewrite"] == "git push --force-with-lease"
    rewritten = run(
        "cortex-pre-tool-use",
        stdin=payload(
            "pre_tool_use.bash", session_id="next", tool_input={"command": "git push --force origin dev"}
        ),
        env=clock,
    )
    assert (
        rewritten.json()["hookSpecificOutput"]["updatedInput"]["command"]
        == "git push --force-with-lease origin dev"
    )


NO_MATCH_IMPORTS = """
import atexit, os, sys
watched = (
    "cortex_hooks.store.outcomes", "cortex_hooks.guard.catch_outcomes", "cortex_hooks.hooks.session_outcomes"
)
def report(): print(sorted(name for name in watched if name in sys.modules), file=sys.stderr, flush=True)
atexit.register(report)
leave = os._exit
os._exit = lambda status: (atexit.unregister(report), report(), leave(status))
from cortex_hooks.hooks import pre_tool_use
sys.exit(pre_tool_use.main())
"""


@pytest.mark.parametrize(("command", "imported"), [("git status", "[]"), ("make check", "['cortex_hooks")])
def test_a_call_that_matches_nothing_imports_nothing_of_the_outcomes(
    db: Path, tmp_path: Path, ids: dict[str, int], command: str, imported: str
) -> None:
    done = subprocess.run(
        [sys.executable, "-c", NO_MATCH_IMPORTS],
        input=json.dumps(payload("pre_tool_use.bash", tool_input={"command": command})),
        capture_output=True,
        text=True,
        env={**os.environ, "CORTEX_DB": str(db)},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith(imported)


def test_stats_and_the_mcp_tools_show_each_learning_followed_and_retried(
    db: Path, tmp_path: Path, ids: dict[str, int]
) -> None:
    home = tmp_path / "home"
    clock = {**env(db, tmp_path), "CORTEX_NOW": "2026-11-28T10:00:00Z"}
    play(
        {"steps": [{"call": "make check"}, {"call": "make check V=1"}, {"call": "make test"}]},
        ids,
        clock,
        home,
    )
    stats = cli_json("stats", env=clock)["history"]
    assert (stats["learnings"]["followed"], stats["learnings"]["retried"]) == (1, 1)
    (retried,) = stats["retried"]
    assert (retried["id"], retried["followed"], retried["retried"]) == (ids["make"], 1, 1)
    assert retried["last_retried"]["call"] == "make check"
    assert retried["last_retried"]["retried_with"] == "make check V=1"
    from cortex_hooks.mcp import tools

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CORTEX_NOW", clock["CORTEX_NOW"])
        said, failed = tools.call("cortex_get_access_stats", {})
        listed, failed_too = tools.call("cortex_list_learnings", {})
    assert not failed
    assert not failed_too
    assert f"#{ids['make']:<5} retried 1, followed 1; last: `make check` then `make check V=1`" in said
    assert "CAUGHT FOL/RET" in listed
    (line,) = [line for line in listed.splitlines() if line.strip().startswith(f"{ids['make']} ")]
    assert line.split()[2:4] == ["2", "1/1"]


def test_the_report_shows_each_learning_followed_and_retried_and_draws_them_per_day(
    db: Path, tmp_path: Path, ids: dict[str, int]
) -> None:
    home = tmp_path / "home"
    clock = {**env(db, tmp_path), "CORTEX_NOW": "2026-11-28T10:00:00Z"}
    play(
        {"steps": [{"call": "make check"}, {"call": "make check V=1"}, {"call": "make test"}]},
        ids,
        clock,
        home,
    )
    out = tmp_path / "report.html"
    assert cli("report", "--out", str(out), env=clock).code == 0
    page = out.read_text()
    assert "the agent followed the correct way 1 times and retried the anti-pattern 1 times" in page
    assert 'caught</th><th scope="col" class=num>followed</th><th scope="col" class=num>retried</th>' in page
    assert "<b>last retried</b>" in page
    assert "<code>make check</code> → then <code>make check V=1</code>" in page
    from cortex_hooks.report import charts, values

    days = (values.Day("2026-11-28", {"followed": 1, "retried": 1, "asked": 0}),)
    spec = charts.outcomes(days, "2026-11-22", "2026-11-28")
    assert spec is not None
    assert spec["encoding"]["color"]["scale"]["domain"] == ["followed", "retried"]
    assert (
        charts.outcomes(
            (values.Day("2026-11-28", {"followed": 0, "retried": 0, "asked": 0}),), "2026-11-22", "2026-11-28"
        )
        is None
    )


def test_two_calls_at_once_are_no_retry_of_each_other(db: Path, tmp_path: Path, ids: dict[str, int]) -> None:
    """The agent sends two calls in one message: the second is no reaction to the first's deny
    (it was made before that answer). PreToolUse counts it a retry for the moment; the transcript,
    read whole at the session's end, undoes that."""
    folder = tmp_path / "home" / ".claude" / "projects" / "-home-dev-proj"
    transcript = Transcript(folder / "both.jsonl", "both", "2026-11-28T10:00:00Z")
    clock = {**env(db, tmp_path), "CORTEX_NOW": "2026-11-28T10:00:00Z"}
    calls = [("toolu_a", "make check"), ("toolu_b", "make check V=1")]
    source = transcript.assistant(
        [
            {"type": "tool_use", "id": call_id, "name": "Bash", "input": {"command": command}}
            for call_id, command in calls
        ]
    )
    reasons = []
    for call_id, command in calls:
        decided = run(
            "cortex-pre-tool-use",
            stdin=payload("pre_tool_use.bash", session_id="both", transcript_path=str(transcript.path),
                          tool_input={"command": command}, tool_use_id=call_id),
            env=clock,
        )  # fmt: skip
        reasons.append(decided.json()["hookSpecificOutput"]["permissionDecisionReason"])
    assert counts(db)[ids["make"]] == (2, 0, 1, 0)  # the second counted as a retry, for now
    for (call_id, _), reason in zip(calls, reasons, strict=True):
        transcript.result(call_id, source, reason, True)
    end("both", transcript.path, clock)
    assert outcomes(str(db)) == {(ids["make"], "toolu_a"): "unknown", (ids["make"], "toolu_b"): "unknown"}
    assert counts(db)[ids["make"]] == (2, 0, 0, 0)
