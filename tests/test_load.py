"""Load: rounds of 28 processes at once — all three hooks and CLI writes — on one database.

The rounds are designed so that every counter afterwards is computable: pinned learnings move only
by boosts, idle ones only by decays, and the one that both matches and decays never reaches a
clamp, so the order in which the processes ran cannot change the result. Zero failures, zero
"locked", and every hook finishes inside its timeout. (The setup's adds run in-process.)
"""

from __future__ import annotations

import sqlite3
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from support import FIXTURES, Result, add, cli_json, payload, run, unexpected_lines

from cortex_hooks.install import wiring

PRE, START, END, CLI = "cortex-pre-tool-use", "cortex-session-start", "cortex-session-end", "cortex-hooks"
ROUNDS = 4
TOKENS = 8
# Bounded: every hook finished inside the timeout install gives it (Claude Code would have cut it
# short). How fast is a timing goal, and lives in benchmarks/: two loaded cores must not fail this.
BOUND = wiring.TIMEOUT


@dataclass
class Job:
    kind: str
    script: str
    args: tuple[str, ...] = ()
    stdin: dict[str, Any] | None = None


@dataclass
class Done:
    job: Job
    result: Result
    seconds: float


def execute(job: Job) -> Done:
    start = time.monotonic()
    result = run(job.script, *job.args, stdin=job.stdin, timeout=120)
    return Done(job, result, time.monotonic() - start)


def pre(command: str) -> Job:
    return Job("pre", PRE, stdin=payload("pre_tool_use.bash", tool_input={"command": command}))


def end(session: str) -> Job:
    transcript = str(FIXTURES / "transcript.jsonl")
    return Job("end", END, stdin=payload("session_end.other", session_id=session, transcript_path=transcript))


def test_rounds_of_parallel_hooks_and_cli_writes_keep_exact_counts(db: Path) -> None:  # noqa: PLR0915
    busy = add("--pin", "--confidence", "0.30", anti="busy", regex=r"\bLOADBUSY\b")
    tokens = [
        add("--pin", "--confidence", "0.30", anti=f"token {i}", regex=rf"\bTOK{i}X\b") for i in range(TOKENS)
    ]
    mixed = add("--confidence", "0.55", anti="mixed", regex=r"\bMIXED\b")
    blocker = add("--auto-block", "--pin", "--confidence", "0.90", anti="blocker", regex=r"\bBLOCKME\b")
    idle = [add("--confidence", "0.90", anti=f"idle {n}") for n in range(20)]
    shown = add("--pin", anti="shown")
    kept = [add("--pin", "--confidence", "0.35", anti=f"kept {n}") for n in range(3 * ROUNDS)]
    kept_unpinned = add("--confidence", "0.35", anti="kept unpinned")

    pre_calls = ends = keeps = 0
    new_sessions: list[str] = []
    done: list[Done] = []
    mixed_calls = {0, 11, 22}
    for round_ in range(ROUNDS):
        jobs: list[Job] = []
        for _ in range(8):
            words = ["echo", "LOADBUSY", f"TOK{pre_calls % TOKENS}X"]
            words += ["MIXED"] if pre_calls in mixed_calls else []
            words += ["BLOCKME"] if pre_calls % 4 == 0 else []
            jobs.append(pre(" ".join(words)))
            pre_calls += 1
        for _ in range(5):
            new_sessions.append(f"load-end-{ends}")
            jobs.append(end(new_sessions[-1]))
            ends += 1
        jobs.append(end("load-end-0"))  # a repeat: never decays twice
        for n in range(3):
            session = f"load-start-{round_}-{n}"
            jobs.append(Job("start", START, stdin=payload("session_start.startup", session_id=session)))
        for n in range(4):
            jobs.append(
                Job(
                    "add",
                    CLI,
                    (
                        "add",
                        "--no-regex",
                        "--anti-pattern",
                        f"added {round_}-{n}",
                        "--correct",
                        "c",
                        "--json",
                    ),
                )
            )
        for _ in range(4):
            jobs.append(Job("show", CLI, ("show", str(shown), "--json")))
        for _ in range(3):
            jobs.append(Job("keep", CLI, ("keep", str(kept[keeps]), "--json")))
            keeps += 1
        if round_ == ROUNDS - 1:
            jobs[-1] = Job("keep", CLI, ("keep", str(kept_unpinned), "--json"))
            keeps -= 1
        assert len(jobs) == 28
        with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
            done += list(pool.map(execute, jobs))

    # A hook that waited its bound for the write lock says so in one of support.BUSY_LINES; the
    # counts below hold all the same. Anything else on stderr is a failure.
    failures = [
        (d.job.kind, d.result.code, d.result.stderr)
        for d in done
        if d.result.code or unexpected_lines(d.result.stderr)
    ]
    assert failures == []
    assert not any("locked" in d.result.stderr.lower() for d in done)
    slowest = max(d.seconds for d in done if d.job.kind in ("pre", "start", "end"))
    assert slowest < BOUND, f"a hook took {slowest:.1f} s under load"

    records = {int(r["id"]): r for r in cli_json("list", "--all")}
    assert records[busy]["access_count"] == pre_calls == 8 * ROUNDS
    assert records[busy]["confidence"] == 0.9  # 0.30 + 32 boosts, capped
    for i, lid in enumerate(tokens):  # each token in exactly 4 calls: 0.30 + 4 x 0.10, no cap
        assert (records[lid]["access_count"], records[lid]["confidence"]) == (4, 0.7), i
    # 0.55 + 3 boosts - 20 decays, in any order without touching floor or ceiling: exactly 0.65.
    assert (records[mixed]["access_count"], records[mixed]["confidence"]) == (3, 0.65)
    assert records[blocker]["access_count"] == pre_calls // 4
    assert all(records[lid]["confidence"] == 0.7 for lid in idle)  # 0.90 - 20 x 0.01
    assert all(records[lid]["access_count"] == 0 for lid in idle)
    assert records[shown]["access_count"] == 4 * ROUNDS  # every show is an access (docs/guide/confidence.md)
    assert all(records[lid]["confidence"] == 0.7 for lid in kept[:keeps])
    assert all(records[lid]["confidence"] == 0.35 for lid in kept[keeps:])
    assert 0.5 <= records[kept_unpinned]["confidence"] <= 0.7  # kept at some point among the decays

    added = [d.result.json()["id"] for d in done if d.job.kind == "add"]
    assert len(set(added)) == 4 * ROUNDS
    assert {records[lid]["anti_pattern"] for lid in added} == {
        f"added {r}-{n}" for r in range(ROUNDS) for n in range(4)
    }
    assert all(0.5 <= records[lid]["confidence"] <= 0.7 for lid in added)
    assert all(1 <= d.result.json()["access_count"] <= 4 * ROUNDS for d in done if d.job.kind == "show")

    outputs = [d.result.json()["hookSpecificOutput"] for d in done if d.job.kind == "pre"]
    assert len(outputs) == pre_calls
    assert sum(1 for o in outputs if o.get("permissionDecision") == "deny") == pre_calls // 4
    assert all(f"#{busy}" in o["additionalContext"] for o in outputs)

    sessions = cli_json("sessions", "list")
    ended = {s["id"] for s in sessions if s["ended_at"]}
    started = {s["id"] for s in sessions if s["started_at"]}
    assert ended == set(new_sessions)
    assert started == {f"load-start-{r}-{n}" for r in range(ROUNDS) for n in range(3)}
    with closing(sqlite3.connect(db)) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
