"""Crash safety: SIGKILL at many points while a hook or the CLI works on a large database (issue 5.1).

After every kill the file passes `PRAGMA integrity_check` and each change is all or nothing: a
SessionEnd decayed every learning it owes or none (no half-decayed table), an import added every
record or none, a prune archived every prunable row or none. The kill points are graded over the
measured duration of one uninterrupted run, so they land in the start-up, the reads and the write.
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
from support import script

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
    db = tmp_path_factory.mktemp("large") / "cortex.db"
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
    return db


@pytest.fixture(scope="module")
def old(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """20,000 never-used learnings from 2020 (prunable) and 100 recent ones (not)."""
    db = tmp_path_factory.mktemp("old") / "cortex.db"
    records: list[dict[str, Any]] = [
        {"anti_pattern": f"old {n}", "correct_pattern": "c", "created_at": "2020-01-01T00:00:00Z"}
        for n in range(OLD)
    ]
    records += [{"anti_pattern": f"recent {n}", "correct_pattern": "c"} for n in range(100)]
    _import(db, records, "old.json")
    return db


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


class Killer:
    """Starts a process and SIGKILLs it after a delay, the delays calibrated on a run that is watched."""

    def __init__(self, argv: list[str], db: Path, seed: int) -> None:
        self.argv = argv
        self.db = db
        self.env = {**os.environ, "CORTEX_DB": str(db)}
        self.random = random.Random(seed)
        self.killed = 0
        self.killed_writing = 0  # killed at a point where the calibration run held the write lock
        self.finished = 0
        self.window = (0.0, 0.0)

    def summary(self) -> str:
        return (
            f"killed {self.killed} ({self.killed_writing} writing), finished {self.finished}, {self.window}"
        )

    def _start(self, stdin: bytes) -> subprocess.Popen[bytes]:
        with tempfile.TemporaryFile() as source:
            source.write(stdin)
            source.seek(0)
            return subprocess.Popen(
                self.argv, stdin=source, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=self.env
            )

    def _finished(self, process: subprocess.Popen[bytes]) -> bool:
        _, stderr = process.communicate(timeout=60)
        if process.returncode == -signal.SIGKILL:
            return False
        assert process.returncode == 0, stderr
        assert stderr == b"", stderr
        return True

    def attempt(self, stdin: bytes, delay: float) -> bool:
        """Run once, SIGKILLed after `delay` seconds unless finished; True if it finished."""
        process = self._start(stdin)
        try:
            process.wait(timeout=delay)
        except subprocess.TimeoutExpired:
            process.send_signal(signal.SIGKILL)
        if self._finished(process):
            self.finished += 1
            return True
        self.killed += 1
        self.killed_writing += self.window[0] <= delay <= self.window[1]
        return False

    def calibrate(self, stdin: bytes) -> float:
        """One full run, watched: its duration, and when it held the write lock (`self.window`)."""
        locked: list[float] = []
        with closing(sqlite3.connect(self.db, timeout=0, isolation_level=None)) as probe:
            start = time.monotonic()
            process = self._start(stdin)
            while process.poll() is None:
                try:
                    probe.execute("BEGIN IMMEDIATE")
                    probe.execute("ROLLBACK")
                except sqlite3.OperationalError:  # the process holds the write lock
                    locked.append(time.monotonic() - start)
                time.sleep(0.002)
            duration = time.monotonic() - start
        assert self._finished(process)
        assert locked, "the write transaction was never seen: nothing to kill in"
        self.window = (min(locked), max(locked))
        return duration

    def delays(self, full: float, count: int) -> list[float]:
        """Kill points: half graded over the whole run (jittered), half drawn inside its write
        transaction (which can be a few milliseconds short)."""
        low, high = self.window
        spread = [full * (0.05 + 0.95 * step / (count // 2 - 1)) for step in range(count // 2)]
        jittered = [delay * self.random.uniform(0.95, 1.05) for delay in spread]
        return jittered + [self.random.uniform(low, high) for _ in range(count - count // 2)]


def test_session_end_killed_anywhere_decays_all_or_nothing(large: Path, tmp_path: Path) -> None:
    db = copy(large, tmp_path / "cortex.db")
    killer = Killer([script("cortex-session-end")], db, seed=51)

    def end(session: str) -> bytes:
        return json.dumps(
            {"session_id": session, "hook_event_name": "SessionEnd", "reason": "other"}
        ).encode()

    full = killer.calibrate(end("calibration"))
    ended = 1
    for n, delay in enumerate(killer.delays(full, 32)):
        finished = killer.attempt(end(f"killed-{n}"), delay)
        assert_intact(db)
        sessions = query(db, "SELECT count(*) FROM session WHERE ended_at IS NOT NULL")[0][0]
        assert sessions in (ended, ended + 1)
        if finished:
            assert sessions == ended + 1
        ended = sessions
        # Every unpinned learning decayed exactly once per recorded session end, none more, none less.
        unpinned = query(db, CONFIDENCES.format(pinned=0))
        assert unpinned == [(90 - ended, LEARNINGS)], (n, delay, unpinned)
        assert query(db, CONFIDENCES.format(pinned=1)) == [(50, PINNED)]
    # Most attempts really were cut short, some of them while writing.
    assert killer.killed >= 8, killer.summary()
    assert killer.killed_writing >= 3, killer.summary()


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
    killer = Killer([script("cortex-hooks"), "import", str(source), f"--db={db}"], db, seed=52)

    def counts() -> tuple[int, ...]:
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

    full = killer.calibrate(b"")
    one = counts()
    assert one[0] == count
    assert one[2:] == (count // 10,) * 3
    assert one[1] >= count
    imports = 1
    for delay in killer.delays(full, 16):
        finished = killer.attempt(b"", delay)
        assert_intact(db)
        now = counts()
        assert now in (tuple(imports * c for c in one), tuple((imports + 1) * c for c in one)), (delay, now)
        if finished:
            assert now == tuple((imports + 1) * c for c in one)
        imports = now[0] // count
    assert query(db, "SELECT count(*) FROM learning WHERE context IS NULL")[0][0] == LEARNINGS + PINNED
    assert killer.killed >= 6, killer.summary()
    assert killer.killed_writing >= 3, killer.summary()


def test_prune_killed_anywhere_archives_all_or_nothing(old: Path, tmp_path: Path) -> None:
    db = copy(old, tmp_path / "cortex.db")
    killer = Killer([script("cortex-hooks"), "prune", f"--db={db}"], db, seed=53)

    def archived() -> list[tuple[Any, ...]]:
        return query(
            db,
            "SELECT anti_pattern LIKE 'old %', count(*), count(DISTINCT archived_at) FROM learning "
            "WHERE archived_at IS NOT NULL GROUP BY 1",
        )

    def reset() -> None:
        with closing(sqlite3.connect(db)) as connection:
            connection.execute("UPDATE learning SET archived_at = NULL")
            connection.commit()

    full = killer.calibrate(b"")
    assert archived() == [(1, OLD, 1)]
    for delay in killer.delays(full, 24):
        reset()
        finished = killer.attempt(b"", delay)
        assert_intact(db)
        now = archived()
        assert now in ([], [(1, OLD, 1)]), (delay, now)  # one transaction: one archived_at for all
        if finished:
            assert now == [(1, OLD, 1)]
    assert killer.killed >= 6, killer.summary()
    assert killer.killed_writing >= 3, killer.summary()
