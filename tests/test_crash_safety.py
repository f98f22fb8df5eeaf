"""Crash safety: SIGKILL at many points while a hook or the CLI works on a large database (issue 5.1).

After every kill the file passes `PRAGMA integrity_check` and each change is all or nothing: a
SessionEnd decayed every learning it owes or none (no half-decayed table), an import added every
record or none, a prune archived every prunable row or none. The kills land where the test chooses: at SQL
steps spread over one uninterrupted run, the write transaction's first and last among them (see
Killer), and at times graded over its duration for the start-up and the close.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import tempfile
import time
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from support import built_once, script

LEARNINGS = 30_000  # "tens of thousands"
PINNED = 100
OLD = 20_000


def _import(db: Path, records: Any, name: str) -> None:
    source = db.parent / name
    source.write_text(json.dumps(records))
    completed = subprocess.run(
        [script("cortex-hooks"), "import", str(source), f"--db={db}"],
        capture_output=True,
        check=False,
        timeout=120,
    )
    assert completed.returncode == 0, completed.stderr


@pytest.fixture(scope="module")
def large(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """30,000 recent unpinned learnings at 0.90 and 100 pinned ones at 0.50."""
    return built_once(tmp_path_factory, "crash-safety-large.db", _build_large)


def _build_large(db: Path) -> None:
    records = [
        {
            "anti_pattern": f"anti {n}",
            "correct_pattern": f"correct {n}",
            "regex": rf"needle{n}\b",
            "confidence": 0.9,
        }
        for n in range(LEARNINGS)
    ]
    records += [
        {"anti_pattern": f"pinned {n}", "correct_pattern": "kept", "pinned": True, "confidence": 0.5}
        for n in range(PINNED)
    ]
    _import(db, records, "large.json")


@pytest.fixture(scope="module")
def old(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """20,000 never-used learnings from 2020 (prunable) and 100 recent ones (not)."""
    return built_once(tmp_path_factory, "crash-safety-old.db", _build_old)


def _build_old(db: Path) -> None:
    records: list[dict[str, Any]] = [
        {"anti_pattern": f"old {n}", "correct_pattern": "c", "created_at": "2020-01-01T00:00:00Z"}
        for n in range(OLD)
    ]
    records += [{"anti_pattern": f"recent {n}", "correct_pattern": "c"} for n in range(100)]
    _import(db, records, "old.json")


def copy(template: Path, db: Path) -> Path:
    shutil.copyfile(template, db)
    return db


CONFIDENCES = """SELECT c.confidence, count(*) FROM learning AS l
    JOIN learning_confidence AS c ON c.learning_id = l.id WHERE l.pinned = {pinned} GROUP BY 1"""


def query(db: Path, sql: str) -> list[tuple[Any, ...]]:
    with closing(sqlite3.connect(db)) as connection:
        return connection.execute(sql).fetchall()


def assert_intact(db: Path) -> None:
    assert query(db, "PRAGMA integrity_check") == [("ok",)]
    assert query(db, "PRAGMA foreign_key_check") == []


STOPPER = Path(__file__).parent / "stopper"  # its sitecustomize stops a child at a chosen SQL step


class Killer:
    """Runs a command to be SIGKILLed, and kills it at points of two kinds.

    Chosen steps, the deterministic part: the child stops itself (SIGSTOP, see stopper/) at the
    Nth SQL step — a statement starting, or a few thousand instructions inside one — and is killed
    there, so a kill inside the write transaction is certain, not a matter of timing. The write
    lock is probed while the child is stopped, so the test knows where each kill landed.

    Timed kills, graded over a watched run, reach where no SQL step is (start-up, the checkpoint
    on close); where they land is up to the machine, so nothing is asserted about that.
    """

    def __init__(self, argv: list[str], db: Path, stdin: bytes = b"", seed: int = 0) -> None:
        self.argv = argv
        self.db = db
        self.stdin = stdin
        self.env = {**os.environ, "CORTEX_DB": str(db), "PYTHONPATH": str(STOPPER)}
        self.random = random.Random(seed)
        self.stderr = db.with_name("stderr")

    def _start(self, **env: str) -> subprocess.Popen[bytes]:
        """The command, its stderr in a file (`self.stderr`): no pipe for a stopped child to fill."""
        with tempfile.TemporaryFile() as source, self.stderr.open("wb") as stderr:
            source.write(self.stdin)
            source.seek(0)
            return subprocess.Popen(
                self.argv, stdin=source, stdout=subprocess.DEVNULL, stderr=stderr, env={**self.env, **env}
            )

    def _check_finished(self, code: int) -> None:
        stderr = self.stderr.read_bytes()
        assert code == 0, stderr
        assert stderr == b"", stderr

    def steps(self, tmp_path: Path) -> tuple[list[str], float, Path]:
        """One whole run on a copy of the database: its SQL steps in order, how long it took, and
        the copy it changed. The database itself is left as it was, so a run stopped at any of
        these steps replays them exactly."""
        record, whole = tmp_path / "steps.txt", copy(self.db, tmp_path / "whole.db")
        start = time.monotonic()
        process = self._start(CORTEX_TEST_STEPS=str(record), CORTEX_DB=str(whole))
        self._check_finished(process.wait(timeout=120))
        return record.read_text().splitlines(), time.monotonic() - start, whole

    def _writing(self) -> bool:
        """Whether someone holds the write lock (the stopped child: nobody else writes)."""
        with closing(sqlite3.connect(self.db, timeout=0, isolation_level=None)) as probe:
            try:
                probe.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError:
                return True
            probe.execute("ROLLBACK")
            return False

    def kill_at_step(self, step: int) -> bool:
        """Run, stop at SQL step `step` and SIGKILL there; whether it held the write lock."""
        process = self._start(CORTEX_TEST_STOP_AT=str(step))
        _, status = os.waitpid(process.pid, os.WUNTRACED)
        if not os.WIFSTOPPED(status):  # reaped here: Popen must not wait for it again
            process.returncode = os.waitstatus_to_exitcode(status)
            raise AssertionError(f"the run ended (status {status}) before step {step}")
        try:
            return self._writing()
        finally:
            process.kill()  # SIGKILL ends a stopped process too
            process.wait(timeout=60)

    def kill_after(self, delay: float) -> bool:
        """Run, SIGKILLed after `delay` seconds unless finished; True if it finished."""
        process = self._start()
        try:
            code = process.wait(timeout=delay)
        except subprocess.TimeoutExpired:
            process.kill()
            code = process.wait(timeout=60)
            if code == -signal.SIGKILL:
                return False
        self._check_finished(code)
        return True

    def delays(self, full: float, count: int) -> list[float]:
        """Kill times graded over a whole run, jittered."""
        return [full * step / count * self.random.uniform(0.9, 1.1) for step in range(1, count + 1)]


def write_window(steps: list[str]) -> set[int]:
    """The steps (numbered from 1) at which a stopped run holds the write lock: after its
    `BEGIN IMMEDIATE` has run, up to and including the start of its `COMMIT`."""
    inside: set[int] = set()
    began: int | None = None
    for number, step in enumerate(steps, start=1):
        if step.startswith("BEGIN"):
            began = number
        elif step == "COMMIT" and began is not None:
            inside.update(range(began + 1, number + 1))
            began = None
    return inside


def kill_points(steps: list[str], count: int) -> list[int]:
    """`count` steps spread evenly over the run, plus both ends of each write transaction."""
    spread = {1 + (len(steps) - 1) * k // (count - 1) for k in range(count)}
    window = write_window(steps)
    assert window, f"no write transaction among the steps: {sorted(set(steps))}"
    return sorted(spread | {min(window), max(window)})


def test_session_end_killed_anywhere_decays_all_or_nothing(large: Path, tmp_path: Path) -> None:
    db = copy(large, tmp_path / "cortex.db")

    def end(session: str) -> bytes:
        return json.dumps(
            {"session_id": session, "hook_event_name": "SessionEnd", "reason": "other"}
        ).encode()

    killer = Killer([script("cortex-session-end")], db, end("killed"), seed=51)
    steps, full, whole = killer.steps(tmp_path)
    assert query(whole, CONFIDENCES.format(pinned=0)) == [(89, LEARNINGS)]
    ended = 0

    def check(label: object, *, finished: bool, committed: bool | None) -> None:
        """`committed`: whether the run must have committed; None when it may or may not have."""
        nonlocal ended
        assert_intact(db)
        sessions = query(db, "SELECT count(*) FROM session WHERE ended_at IS NOT NULL")[0][0]
        assert sessions in (ended, ended + 1), label
        if committed is not None or finished:
            assert sessions == ended + (finished or bool(committed)), label
        ended = sessions
        # Every unpinned learning decayed exactly once per recorded session end, none more, none less.
        unpinned = query(db, CONFIDENCES.format(pinned=0))
        assert unpinned == [(90 - ended, LEARNINGS)], (label, unpinned)
        assert query(db, CONFIDENCES.format(pinned=1)) == [(50, PINNED)]

    # The decay and the session's end are one transaction, the first of the run (the summary and
    # the surface come after it): a run stopped after its COMMIT has decayed, one stopped before
    # has not. A run stopped before committing replays the very steps of a whole run on the same
    # database; a committed run changed it (its history rows: the next decay of the day updates
    # them rather than inserting), so each kill's steps are read from a whole run just before it.
    points = kill_points(steps, 12)
    inside = 0
    for point in points:
        killer.stdin = end(f"stopped-{point}")  # a session of its own: one that ended never decays again
        steps = killer.steps(tmp_path)[0]
        step = min(point, len(steps))
        window = write_window(steps)
        inside += step in window
        assert killer.kill_at_step(step) == (step in window), (step, steps[step - 1])
        check((step, steps[step - 1]), finished=False, committed=step > steps.index("COMMIT") + 1)
    assert inside >= 3, steps  # the decay itself was cut short, many times
    for n, delay in enumerate(killer.delays(full, 8)):
        killer.stdin = end(f"timed-{n}")
        check(delay, finished=killer.kill_after(delay), committed=None)


def _export_file(marker: str, count: int) -> dict[str, Any]:
    return {
        "version": 1,
        "learnings": [
            {"anti_pattern": f"imported {n}", "correct_pattern": "c", "regex": rf"imp{n}x", "context": marker}
            for n in range(count)
        ],
        "decisions": [{"title": f"d{n}", "reasoning": marker} for n in range(count // 10)],
        "errors": [{"message": f"e{n}", "fix": marker} for n in range(count // 10)],
        "todos": [{"text": f"{marker} {n}"} for n in range(count // 10)],
    }


def test_import_killed_anywhere_adds_all_or_nothing(large: Path, tmp_path: Path) -> None:
    db = copy(large, tmp_path / "cortex.db")
    marker, count = "crash-safety-import", 8_000
    source = tmp_path / "import.json"
    source.write_text(json.dumps(_export_file(marker, count)))
    killer = Killer([script("cortex-hooks"), "import", str(source)], db, seed=52)

    def counts(db: Path) -> tuple[int, ...]:
        return (
            query(db, f"SELECT count(*) FROM learning WHERE context = '{marker}'")[0][0],
            query(
                db,
                "SELECT count(*) FROM learning_key JOIN learning ON id = learning_id "
                f"WHERE context = '{marker}'",
            )[0][0],
            query(db, f"SELECT count(*) FROM decision WHERE reasoning = '{marker}'")[0][0],
            query(db, f"SELECT count(*) FROM error WHERE fix = '{marker}'")[0][0],
            query(db, f"SELECT count(*) FROM todo WHERE text LIKE '{marker} %'")[0][0],
        )

    steps, full, whole = killer.steps(tmp_path)
    one = counts(whole)
    assert one[0] == count
    assert one[2:] == (count // 10,) * 3
    assert one[1] >= count
    window = write_window(steps)
    points = kill_points(steps, 8)
    for step in points:
        assert killer.kill_at_step(step) == (step in window), (step, steps[step - 1])
        assert_intact(db)
        assert counts(db) == (0, 0, 0, 0, 0), (step, steps[step - 1])
    assert len(window.intersection(points)) >= 3, steps
    imports = 0
    for delay in killer.delays(full, 6):
        finished = killer.kill_after(delay)
        assert_intact(db)
        now = counts(db)
        assert now in (tuple(imports * c for c in one), tuple((imports + 1) * c for c in one)), (delay, now)
        if finished:
            assert now == tuple((imports + 1) * c for c in one), (delay, now)
        imports = now[0] // count
    assert query(db, "SELECT count(*) FROM learning WHERE context IS NULL")[0][0] == LEARNINGS + PINNED


def test_prune_killed_anywhere_archives_all_or_nothing(old: Path, tmp_path: Path) -> None:
    db = copy(old, tmp_path / "cortex.db")
    killer = Killer([script("cortex-hooks"), "prune"], db, seed=53)

    def archived(db: Path) -> list[tuple[Any, ...]]:
        return query(
            db,
            "SELECT anti_pattern LIKE 'old %', count(*), count(DISTINCT archived_at) FROM learning "
            "WHERE archived_at IS NOT NULL GROUP BY 1",
        )

    def reset() -> None:
        with closing(sqlite3.connect(db)) as connection:
            connection.execute("UPDATE learning SET archived_at = NULL")
            connection.commit()

    steps, full, whole = killer.steps(tmp_path)
    assert archived(whole) == [(1, OLD, 1)]
    window = write_window(steps)
    points = kill_points(steps, 8)
    for step in points:
        assert killer.kill_at_step(step) == (step in window), (step, steps[step - 1])
        assert_intact(db)
        assert archived(db) == [], (step, steps[step - 1])
    assert len(window.intersection(points)) >= 3, steps
    for delay in killer.delays(full, 6):
        reset()
        finished = killer.kill_after(delay)
        assert_intact(db)
        now = archived(db)
        assert now in ([], [(1, OLD, 1)]), (delay, now)  # one transaction: one archived_at for all
        if finished:
            assert now == [(1, OLD, 1)], (delay, now)


MEMORIES = 3_000
PAIRS = 40


@pytest.fixture(scope="module")
def flagged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """3,000 memories, 40 pairs of them flagged for consolidation (ids 2k+1 and 2k+2)."""
    return built_once(tmp_path_factory, "crash-safety-flagged.db", _build_flagged)


def _build_flagged(db: Path) -> None:
    text = "memory {n}: " + "the words of a memory long enough to fill a few pages of the database " * 2
    memories = [
        {"content": text.format(n=n // 2 if n < 2 * PAIRS else n), "tags": [f"t{n}"]} for n in range(MEMORIES)
    ]
    _import(db, {"version": 2, "learnings": [], "memories": memories}, "memories.json")
    with closing(sqlite3.connect(db)) as connection:
        connection.executemany(
            "INSERT INTO consolidation_flag VALUES (:a, :a + 1, 1.0, '2026-01-01T00:00:00Z')",
            [{"a": 2 * k + 1} for k in range(PAIRS)],
        )
        connection.commit()


UNMERGED = (0, 0, PAIRS, 0)
MERGED = (PAIRS, PAIRS, 0, 1)


def merge_state(db: Path) -> tuple[int, ...]:
    """Superseded memories, supersedes edges, flags, consolidations recorded."""
    return (
        query(db, "SELECT count(*) FROM memory WHERE status = 'superseded'")[0][0],
        query(db, "SELECT count(*) FROM edge WHERE type = 'supersedes'")[0][0],
        query(db, "SELECT count(*) FROM consolidation_flag")[0][0],
        query(db, "SELECT count(*) FROM consolidation")[0][0],
    )


def assert_checkpoints_complete(db: Path) -> None:
    """Every checkpoint listed is whole and holds the state before a merge; a partial one is not listed."""
    from cortex_hooks.store import checkpoint

    for path in checkpoint.existing(str(db)):
        assert not path.endswith(".partial")
        assert_intact(Path(path))
        assert merge_state(Path(path)) == UNMERGED, path


def test_consolidate_killed_anywhere_merges_all_or_nothing(flagged: Path, tmp_path: Path) -> None:
    db = copy(flagged, tmp_path / "cortex.db")
    killer = Killer([script("cortex-hooks"), "consolidate"], db, seed=54)
    steps, full, whole = killer.steps(tmp_path)
    assert merge_state(whole) == MERGED
    window = write_window(steps)
    backups = [number for number, step in enumerate(steps, start=1) if step == "backup"]
    assert len(backups) > 10, steps  # the checkpoint is copied in many steps, each a kill point
    assert set(backups) <= window  # the checkpoint is taken under the merge's write lock
    merging = [number for number, step in enumerate(steps, start=1) if step.startswith("UPDATE memory")]
    chosen = {backups[0], backups[len(backups) // 2], backups[-1], merging[0], merging[-1]}
    points = sorted(set(kill_points(steps, 6)) | chosen)
    for step in points:
        assert killer.kill_at_step(step) == (step in window), (step, steps[step - 1])
        assert_intact(db)
        assert merge_state(db) == UNMERGED, (step, steps[step - 1])  # killed before its COMMIT ran
        assert_checkpoints_complete(db)
    for delay in killer.delays(full, 6):
        finished = killer.kill_after(delay)
        assert_intact(db)
        assert merge_state(db) in (UNMERGED, MERGED), delay
        if finished:
            assert merge_state(db) == MERGED
        assert_checkpoints_complete(db)


def test_restore_killed_anywhere_restores_all_or_nothing(flagged: Path, tmp_path: Path) -> None:
    from cortex_hooks.store import checkpoint

    db = copy(flagged, tmp_path / "cortex.db")
    assert cli_run(db, "consolidate") == 0
    (made,) = checkpoint.existing(str(db))
    assert merge_state(db) == MERGED
    killer = Killer([script("cortex-hooks"), "consolidate", "--restore", made], db, seed=55)
    steps, _, whole = killer.steps(tmp_path)
    assert merge_state(whole) == UNMERGED
    backups = [number for number, step in enumerate(steps, start=1) if step == "backup"]
    restoring = [number for number in backups if number > steps.index("COMMIT") + 1]  # after the checkpoint
    assert len(restoring) > 10, steps
    for step in (restoring[0], restoring[len(restoring) // 2], restoring[-2]):
        killer.kill_at_step(step)
        assert_intact(db)
        assert merge_state(db) == MERGED, (step, steps[step - 1])  # the restore never half done
    killer.kill_at_step(restoring[-1])  # after the last copy step: restored, or not yet
    assert_intact(db)
    assert merge_state(db) in (MERGED, UNMERGED)


def cli_run(db: Path, *args: str) -> int:
    return subprocess.run(
        [script("cortex-hooks"), *args, f"--db={db}"], capture_output=True, check=False, timeout=120
    ).returncode
