"""Speed and size of `cortex-hooks report` on a large database, beside bench.py.

    .venv/bin/python benchmarks/bench_report.py [--runs N] [--keep]

Times the running interpreter's console script `cortex-hooks report` as a whole process (cold:
imports, reads, charts, the file written), with and without the `report` extra's charts (without:
the extra's module hidden from the process). The database: 10,000 learnings written by
`cortex-hooks import` and 100,000 memories as bench.py writes them (bench.learnings,
bench.add_memories), 50,000 edges among them, and a year of history written with sqlite3 in the
shape the hooks write it: every learning decays for a few weeks of session ends, a tenth of
them is matched on most days (a deny or a warning each), the memories' days, and the last calls
of each tripped learning. Goals: <= 3 s and a file <= 5 MB.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import closing
from datetime import date, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import bench

SCRIPTS = Path(sys.executable).parent
LEARNINGS, MEMORIES, EDGES = 10_000, 100_000, 50_000
TODAY = date(2026, 11, 23)
GOAL_SECONDS, GOAL_BYTES = 3.0, 5 * 1024 * 1024
DASH = "\u2013"
HIDE_EXTRA = (
    "import sys; sys.modules['vl_convert'] = None; from cortex_hooks.cli import main; sys.exit(main())"
)


def build(folder: Path) -> Path:
    database = folder / ".cortex" / "cortex.db"
    database.parent.mkdir(parents=True)
    source = folder / "learnings.json"
    source.write_text(json.dumps(bench.learnings(LEARNINGS)), encoding="utf-8")
    done = subprocess.run(
        [str(SCRIPTS / "cortex-hooks"), "import", str(source), "--db", str(database)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"bench_report: import failed: {done.stderr.strip()}")
    bench.add_memories(str(database), MEMORIES, 7)
    history(database)
    return database


def history(database: Path, seed: int = 28) -> None:
    """A year of history, as the hooks would have left it (see the module's docstring)."""
    rng = random.Random(seed)
    days = [(TODAY - timedelta(days=n)).isoformat() for n in range(365)]
    learning_days: dict[tuple[int, str], list[int]] = {}
    for learning in range(1, LEARNINGS + 1):  # a few weeks of decay each, somewhere in the year
        start = rng.randrange(0, 330)
        for offset, day in enumerate(days[start : start + 30]):
            learning_days[(learning, day)] = [0, 0, 0, 70 - offset]
    for learning in rng.sample(range(1, LEARNINGS + 1), LEARNINGS // 10):  # the busy tenth
        denies = rng.random() < 0.3
        for day in days:
            if rng.random() < 0.7:
                matches = rng.randrange(1, 6)
                denied, warned = (matches, 0) if denies else (0, matches)
                # a boost to the ceiling, then the day's session ends: 0.88 to 0.90 at the day's end
                learning_days[(learning, day)] = [matches, denied, warned, 90 - rng.randrange(0, 3)]
    calls = [
        {"id": learning, "at": f"{day}T10:{minute:02d}:00Z", "verdict": "deny" if denies else "warn",
         "call": f"git push --force origin feature-{learning}-{minute} && echo {rng.random():.12f}"}
        for (learning, day), (_, denies, _, _) in learning_days.items()
        if day >= days[6] and learning % 10 == 0
        for minute in range(2)
    ]  # fmt: skip
    with closing(sqlite3.connect(database)) as connection, connection:
        connection.executemany(
            """INSERT INTO learning_day (learning_id, day, matches, denies, warnings, confidence)
               VALUES (?, ?, ?, ?, ?, ?)""",
            ((lid, day, m, d, w, c) for (lid, day), (m, d, w, c) in learning_days.items()),
        )
        connection.executemany(
            """INSERT INTO scope_day (day, added, recalled, archived, pruned) VALUES (?, ?, ?, ?, ?)
               ON CONFLICT (day) DO UPDATE SET recalled = excluded.recalled""",
            ((day, rng.randrange(0, 30), rng.randrange(0, 300), rng.randrange(0, 10), rng.randrange(0, 5))
             for day in days),
        )  # fmt: skip
        connection.execute(  # the scope's sums of what the learnings' days hold
            """INSERT INTO scope_day (day, matches, denies, warnings)
               SELECT day, sum(matches), sum(denies), sum(warnings) FROM learning_day WHERE true GROUP BY day
               ON CONFLICT (day) DO UPDATE SET matches = excluded.matches, denies = excluded.denies,
                   warnings = excluded.warnings"""
        )
        connection.executemany(
            """INSERT INTO verdict_call (learning_id, at, verdict, tool, call)
               VALUES (:id, :at, :verdict, 'Bash', :call)""",
            calls,
        )
        pairs = {(rng.randrange(1, MEMORIES + 1), rng.randrange(1, MEMORIES // 20)) for _ in range(EDGES)}
        connection.executemany(
            """INSERT OR IGNORE INTO edge (from_id, to_id, type, strength, created_at)
               VALUES (?, ?, 'relates_to', 0.7, '2026-06-01T00:00:00Z')""",
            ((a, b) for a, b in pairs if a != b),
        )
        connection.execute(
            "UPDATE memory SET in_degree = (SELECT count(*) FROM edge WHERE to_id = memory.id)"
        )
    with closing(sqlite3.connect(database)) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds, and CPU seconds (user + system: what a loaded machine does not inflate)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    result = subprocess.run(argv, env=env, capture_output=True, check=False)
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert result.returncode == 0, result.stderr.decode()
    return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def case(name: str, argv: list[str], env: dict[str, str], out: Path, runs: int) -> tuple[str, bool]:
    timed(argv, env)  # warm-up: the page cache, as a person's second look
    measured = [timed(argv, env) for _ in range(runs)]
    seconds = [wall for wall, _ in measured]
    cpu = statistics.median(used for _, used in measured)
    size = out.stat().st_size
    median = statistics.median(seconds)
    met = median <= GOAL_SECONDS and size <= GOAL_BYTES
    row = (
        f"| {name} | {median:.2f} | {min(seconds):.2f}{DASH}{max(seconds):.2f} | {cpu:.2f} | "
        f"{size / 1024 / 1024:.2f} | "
        f"≤ {GOAL_SECONDS:.0f} s, ≤ {GOAL_BYTES // 1024 // 1024} MB | {'PASS' if met else 'FAIL'} |"
    )
    return row, met


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--keep", action="store_true", help="keep the work folder")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="cortex-bench-report-"))
    try:
        print("bench_report: 10,000 learnings, 100,000 memories, a year of history ...", file=sys.stderr)
        database = build(work)
        out = work / "report.html"
        env = {**os.environ, "CORTEX_DB": str(database), "CORTEX_NOW": f"{TODAY}T18:00:00Z",
               "CORTEX_EMBEDDINGS": "off"}  # fmt: skip
        command = ["report", "--out", str(out), "--days", "365"]
        rows, met = [], True
        for name, argv in (
            ("`cortex-hooks report --days 365`, charts", [str(SCRIPTS / "cortex-hooks"), *command]),
            ("the same without the report extra", [sys.executable, "-c", HIDE_EXTRA, *command]),
        ):
            row, ok = case(name, argv, env, out, args.runs)
            rows.append(row)
            met = met and ok
        print(f"| case | median s | min{DASH}max s | CPU s | file MB | goal | result |")
        print("|---" * 7 + "|")
        print("\n".join(rows))
        size = database.stat().st_size / 1024 / 1024
        print(f"\n{args.runs} runs each; database {size:.0f} MB; {bench.machine()}")
        return 0 if met else 1
    finally:
        if args.keep:
            print(f"kept {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
