"""Crash safety: each command and hook writes in one transaction, so a SIGKILL anywhere leaves the
database as it was before the change or as it is after it, never between.

SQLite makes one transaction all or nothing through any crash (its WAL undoes a transaction cut
short); that is SQLite's, and is not proved again here. What is ours is that a change is ONE
transaction: no write outside `BEGIN IMMEDIATE` … `COMMIT`, and the parts of a change (a
SessionEnd's decay and the session's end, an import's records, a merge and its checkpoint) in the
same one. The first tests read that from every SQL statement a whole run of the installed command
executes (tests/stopper/ records them, with the database each ran on).

The kills then show it end to end where it decides, deterministically: the child stops itself at a
chosen SQL step (SIGSTOP, tests/stopper/) and is killed there — in the middle of the statement that
decays 30,000 learnings, just before the COMMIT runs, just after it, and in the middle of the copies
of a checkpoint and of a restore (those are ours: a checkpoint is listed only once complete, a
restore is one write of the live database). After every kill the file passes `PRAGMA
integrity_check` and holds the old state or the new one.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
import tempfile
from contextlib import closing
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from support import FIXTURES, built_once, script

LEARNINGS = 30_000  # "tens of thousands"
PINNED = 100
STOPPER = Path(__file__).parent / "stopper"  # its sitecustomize numbers a child's SQL steps

# A statement that changes a database (the trace gives each statement as it starts, parameters
# filled in). PRAGMA synchronous and busy_timeout set the connection, not the file.
WRITE = re.compile(
    r"(INSERT|UPDATE|DELETE|REPLACE|CREATE|DROP|ALTER)\b|PRAGMA (user_version|journal_mode) *="
)


def query(db: Path, sql: str) -> list[tuple[Any, ...]]:
    with closing(sqlite3.connect(db)) as connection:
        return connection.execute(sql).fetchall()


def assert_intact(db: Path) -> None:
    assert query(db, "PRAGMA integrity_check") == [("ok",)]
    assert query(db, "PRAGMA foreign_key_check") == []


class Step(NamedTuple):
    number: int  # from 1, as CORTEX_TEST_STOP_AT counts
    database: str  # the file of the connection that ran it
    what: str  # the statement, "tick" (inside one) or "backup" (pages copied into `database`)


class Transaction(NamedTuple):
    begin: int  # the step of its BEGIN
    commit: int  # the step of its COMMIT (its start: a run stopped there has not committed)
    writes: list[Step]


class Run:
    """A command run as a hook or a person runs it, on its own copy of a template database, with
    its own HOME (the keeper's folder is under it): two runs of the same command on the same
    template execute the very same SQL steps, so a step seen in a whole run can be stopped at."""

    def __init__(self, argv: list[str], template: Path, where: Path, stdin: bytes = b"") -> None:
        where.mkdir()
        (where / "home").mkdir()
        self.db = where / "cortex.db"
        shutil.copyfile(template, self.db)
        self.argv = [arg.replace("{db}", str(self.db)).replace("{dir}", str(where)) for arg in argv]
        self.stdin = stdin
        self.stderr = where / "stderr"
        self.env = {
            **os.environ,
            "CORTEX_DB": str(self.db),
            "HOME": str(where / "home"),
            "PYTHONPATH": str(STOPPER),
        }

    def _start(self, **env: str) -> subprocess.Popen[bytes]:
        """The command, its stderr in a file: no pipe for a stopped child to fill."""
        with tempfile.TemporaryFile() as source, self.stderr.open("wb") as stderr:
            source.write(self.stdin)
            source.seek(0)
            return subprocess.Popen(
                self.argv, stdin=source, stdout=subprocess.DEVNULL, stderr=stderr, env={**self.env, **env}
            )

    def steps(self) -> list[Step]:
        """Run it whole: every SQL step it took, in order."""
        record = self.db.with_name("steps.txt")
        code = self._start(CORTEX_TEST_STEPS=str(record)).wait(timeout=120)
        assert code == 0, self.stderr.read_text()
        lines = record.read_text().splitlines()
        return [Step(number, *line.split("\t", 1)) for number, line in enumerate(lines, start=1)]

    def kill_at(self, step: int) -> bool:
        """Run, stop at SQL step `step` and SIGKILL there; whether it held the write lock then."""
        process = self._start(CORTEX_TEST_STOP_AT=str(step))
        _, status = os.waitpid(process.pid, os.WUNTRACED)
        if not os.WIFSTOPPED(status):  # reaped here: Popen must not wait for it again
            process.returncode = os.waitstatus_to_exitcode(status)
            raise AssertionError(f"the run ended (status {status}) before step {step}")
        try:
            with closing(sqlite3.connect(self.db, timeout=0, isolation_level=None)) as probe:
                try:
                    probe.execute("BEGIN IMMEDIATE")
                except sqlite3.OperationalError:
                    return True
                probe.execute("ROLLBACK")
                return False
        finally:
            process.kill()  # SIGKILL ends a stopped process too
            process.wait(timeout=60)


def transactions(steps: list[Step], database: Path) -> tuple[list[Transaction], list[Step]]:
    """The write transactions run on `database`, and the writes run on it outside any (each of
    those commits alone: a kill after it leaves a change half made). A transaction that wrote
    nothing (a read's snapshot) is left out."""
    found: list[Transaction] = []
    outside: list[Step] = []
    begin: int | None = None
    writes: list[Step] = []
    for step in steps:
        if step.database != str(database):
            continue
        if step.what.startswith("BEGIN"):
            assert begin is None, f"a BEGIN inside a transaction: {step}"
            begin, writes = step.number, []
        elif step.what in ("COMMIT", "END", "ROLLBACK") and begin is not None:
            if writes and step.what != "ROLLBACK":
                found.append(Transaction(begin, step.number, writes))
            begin = None
        elif WRITE.match(step.what):
            (writes if begin is not None else outside).append(step)
    assert begin is None, "a transaction left open at the end of the run"
    return found, outside


def one_transaction(steps: list[Step], database: Path, *statements: str) -> Transaction:
    """The one write transaction of the run on `database`; it holds each of `statements` (by
    their start)."""
    found, outside = transactions(steps, database)
    assert outside == [], outside
    assert len(found) == 1, [[step.what for step in t.writes] for t in found]
    (transaction,) = found
    assert_holds(transaction, *statements)
    return transaction


def assert_holds(transaction: Transaction, *statements: str) -> None:
    done = [step.what for step in transaction.writes]
    for statement in statements:
        assert any(what.startswith(statement) for what in done), (statement, done)


def cortex(db: Path, *args: str, stdin: str | None = None) -> None:
    """`cortex-hooks ARGS` on `db`, with a HOME of its own beside it (never the real one)."""
    home = db.parent / "home"
    home.mkdir(exist_ok=True)
    completed = subprocess.run(
        [script("cortex-hooks"), *args, f"--db={db}"],
        input=stdin,
        text=True,
        capture_output=True,
        env={**os.environ, "HOME": str(home), "CORTEX_EMBEDDINGS": "off"},
        check=False,
        timeout=300,
    )
    assert completed.returncode == 0, completed.stderr


def _import(db: Path, records: Any) -> None:
    source = db.with_name(f"{db.stem}.json")
    source.write_text(json.dumps(records))
    cortex(db, "import", str(source))


# -- the templates, each built once per run through the installed CLI and copied by the tests --


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
    _import(db, records)


MEMORIES = 3_000
PAIRS = 40
OLD = 200


@pytest.fixture(scope="module")
def flagged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """3,000 memories, 40 pairs of them flagged for consolidation (ids 2k+1 and 2k+2); 200 never
    used learnings from 2020 (prunable) and 2 recent ones, the first of which blocks `needle`."""
    return built_once(tmp_path_factory, "crash-safety-flagged.db", _build_flagged)


def _build_flagged(db: Path) -> None:
    text = "memory {n}: " + "the words of a memory long enough to fill a few pages of the database " * 2
    memories = [
        {"content": text.format(n=n // 2 if n < 2 * PAIRS else n), "tags": [f"t{n}"]} for n in range(MEMORIES)
    ]
    learnings: list[dict[str, Any]] = [
        {"anti_pattern": "blocks needle", "correct_pattern": "c", "regex": r"\bneedle\b", "auto_block": True},
        {"anti_pattern": "warns of pin", "correct_pattern": "c", "regex": r"\bpin\b"},
    ]
    learnings += [
        {"anti_pattern": f"old {n}", "correct_pattern": "c", "created_at": "2020-01-01T00:00:00Z"}
        for n in range(OLD)
    ]
    _import(db, {"version": 2, "learnings": learnings, "memories": memories})
    with closing(sqlite3.connect(db)) as connection:
        connection.executemany(
            "INSERT INTO consolidation_flag VALUES (:a, :a + 1, 1.0, '2026-01-01T00:00:00Z')",
            [{"a": 2 * k + 1} for k in range(PAIRS)],
        )
        connection.commit()


# -- one transaction per change, read from every statement of a whole run --


def _hook(name: str, **changes: Any) -> tuple[list[str], bytes]:
    data = json.loads((FIXTURES / f"{name}.json").read_text())
    data.update(changes)
    data.pop("transcript_path", None)  # none to read: the writes are what is looked at
    return [script(f"cortex-{name.partition('.')[0].replace('_', '-')}")], json.dumps(data).encode()


def _export(count: int) -> dict[str, Any]:
    return {
        "version": 1,
        "learnings": [
            {"anti_pattern": f"imported {n}", "correct_pattern": "c", "regex": rf"imp{n}x"}
            for n in range(count)
        ],
        "decisions": [{"title": f"d{n}", "reasoning": "r"} for n in range(count // 10)],
        "errors": [{"message": f"e{n}", "fix": "f"} for n in range(count // 10)],
        "todos": [{"text": f"t {n}"} for n in range(count // 10)],
    }


# Each command that changes the database, with statements that must fall into its one transaction.
COMMANDS: dict[str, tuple[list[str], tuple[str, ...]]] = {
    "add": (
        ["add", "--anti-pattern=a", "--correct=c", r"--regex=\bzz\b", "--auto-block"],
        ("INSERT INTO learning ", "INSERT INTO learning_confidence", "INSERT INTO learning_key"),
    ),
    "update": (["update", "1", r"--regex=\bhay\b"], ("UPDATE learning SET", "INSERT INTO learning_key")),
    "archive": (["archive", "2"], ("UPDATE learning SET archived_at",)),
    "remember": (["remember", "a fact worth keeping", "--tag=t"], ("INSERT INTO memory ",)),
    "forget": (["forget", "100"], ("UPDATE memory SET status = 'archived'",)),
    "import": (
        ["import", "{db}.json"],
        ("INSERT INTO learning ", "INSERT INTO learning_key", "INSERT INTO decision", "INSERT INTO todo"),
    ),
    "prune": (["prune"], ("UPDATE learning SET archived_at",)),
    "consolidate": (["consolidate"], ("UPDATE memory", "INSERT INTO edge", "INSERT INTO consolidation")),
    "lifecycle": (["lifecycle"], ("UPDATE memory SET",)),
}


@pytest.mark.parametrize("command", COMMANDS)
def test_each_command_writes_in_one_transaction(command: str, flagged: Path, tmp_path: Path) -> None:
    args, statements = COMMANDS[command]
    run = Run([script("cortex-hooks"), *args], flagged, tmp_path / "run")
    run.db.with_name("cortex.db.json").write_text(json.dumps(_export(500)))
    steps = run.steps()
    transaction = one_transaction(steps, run.db, *statements)
    if command == "consolidate":  # the checkpoint is the state the merge changes: under its lock
        copied = [step.number for step in steps if step.what == "backup"]
        assert copied, "no checkpoint was made"
        assert all(transaction.begin < number < transaction.commit for number in copied)


def test_the_hooks_write_each_change_in_one_transaction(flagged: Path, tmp_path: Path) -> None:
    # SessionStart: the session's row; the prune of what has aged; the proposals that expired
    # (each a change of its own, each one transaction); no write outside one.
    argv, stdin = _hook("session_start.startup")
    found, outside = transactions(
        Run(argv, flagged, tmp_path / "start", stdin).steps(), tmp_path / "start/cortex.db"
    )
    assert outside == []
    assert_holds(found[0], "INSERT INTO session")
    assert any(write.what.startswith("UPDATE learning SET archived_at") for t in found for write in t.writes)

    # PreToolUse that denies: the access, the boost, the day's counts, the call recorded and its
    # outcome opened, together.
    argv, stdin = _hook("pre_tool_use.bash", tool_input={"command": "ls needle", "description": "x"})
    run = Run(argv, flagged, tmp_path / "deny", stdin)
    one_transaction(
        run.steps(),
        run.db,
        "UPDATE learning SET access_count",
        "UPDATE learning_confidence",
        "INSERT INTO learning_day",
        "INSERT INTO verdict_call",
        "INSERT INTO outcome",
    )

    # SessionEnd: the decay and the session's end together (the memory's lifecycle pass is a
    # change of its own, after it).
    argv, stdin = _hook("session_end.other")
    run = Run(argv, flagged, tmp_path / "end", stdin)
    found, outside = transactions(run.steps(), run.db)
    assert outside == []
    assert_holds(found[0], "UPDATE learning_confidence", "INSERT INTO session")
    assert all(
        not w.what.startswith(("UPDATE learning_confidence", "INSERT INTO session"))
        for t in found[1:]
        for w in t.writes
    )


def test_a_run_whose_writes_are_not_one_transaction_is_caught() -> None:
    """The reader of the steps above tells a write outside a transaction from one inside."""
    db = Path("/x/cortex.db")
    steps = [
        Step(n, str(db), what)
        for n, what in enumerate(
            [
                "PRAGMA user_version",
                "BEGIN IMMEDIATE",
                "UPDATE a SET b = 1",
                "COMMIT",
                "INSERT INTO c VALUES (1)",
            ],
            start=1,
        )
    ]
    found, outside = transactions(steps, db)
    assert found == [Transaction(2, 4, [steps[2]])]
    assert outside == [steps[4]]
    with pytest.raises(AssertionError):
        one_transaction(steps, db, "UPDATE a")
    assert transactions([*steps[:4], Step(5, "/x/other.db", "INSERT INTO c VALUES (1)")], db)[1] == []


# -- the kills, at the steps that decide --

CONFIDENCES = """SELECT c.confidence, count(*) FROM learning AS l
    JOIN learning_confidence AS c ON c.learning_id = l.id WHERE l.pinned = {pinned} GROUP BY 1"""


def test_session_end_killed_in_its_decay_decays_all_or_nothing(large: Path, tmp_path: Path) -> None:
    argv, stdin = _hook("session_end.other")
    steps = Run(argv, large, tmp_path / "whole", stdin).steps()
    whole = tmp_path / "whole" / "cortex.db"
    assert query(whole, CONFIDENCES.format(pinned=0)) == [(89, LEARNINGS)]
    decay = transactions(steps, whole)[0][0]
    assert_holds(decay, "UPDATE learning_confidence", "INSERT INTO session")
    # Inside the statement that decays every learning: a tick of it, half way.
    ticks = [
        step.number
        for step in steps
        if decay.begin < step.number < decay.commit and step.what == "tick" and step.database == str(whole)
    ]
    assert len(ticks) > 10, "the decay ran in too few steps to be cut in its middle"

    def ended(db: Path) -> int:
        return int(query(db, "SELECT count(*) FROM session WHERE ended_at IS NOT NULL")[0][0])

    for label, step, committed in (
        ("in the decay", ticks[len(ticks) // 2], False),
        ("at its COMMIT", decay.commit, False),
        ("after its COMMIT", decay.commit + 1, True),
    ):
        run = Run(argv, large, tmp_path / label.replace(" ", "-"), stdin)
        assert run.kill_at(step) is not committed, label  # the write lock held until the COMMIT ran
        assert_intact(run.db)
        assert ended(run.db) == committed, label
        # every unpinned learning decayed once, or none did; the pinned ones never
        assert query(run.db, CONFIDENCES.format(pinned=0)) == [(90 - committed, LEARNINGS)], label
        assert query(run.db, CONFIDENCES.format(pinned=1)) == [(50, PINNED)], label


@pytest.mark.parametrize("command", ["import", "prune"])
def test_a_command_killed_before_its_commit_changed_nothing(
    command: str, flagged: Path, tmp_path: Path
) -> None:
    args, _ = COMMANDS[command]
    counted = (
        "SELECT (SELECT count(*) FROM learning WHERE archived_at IS NULL),"
        " (SELECT count(*) FROM learning_key), (SELECT count(*) FROM decision), (SELECT count(*) FROM todo)"
    )
    before = query(flagged, counted)
    whole = Run([script("cortex-hooks"), *args], flagged, tmp_path / "whole")
    whole.db.with_name("cortex.db.json").write_text(json.dumps(_export(2_000)))
    transaction = one_transaction(whole.steps(), whole.db)
    assert query(whole.db, counted) != before
    middle = transaction.writes[len(transaction.writes) // 2].number
    for label, step in (("in the middle", middle), ("at its COMMIT", transaction.commit)):
        run = Run([script("cortex-hooks"), *args], flagged, tmp_path / label.replace(" ", "-"))
        run.db.with_name("cortex.db.json").write_text(json.dumps(_export(2_000)))
        assert run.kill_at(step), label
        assert_intact(run.db)
        assert query(run.db, counted) == before, label


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


def checkpoints(db: Path) -> list[Path]:
    """The checkpoints listed: each whole, each the state before a merge; a partial one unlisted."""
    from cortex_hooks.store import checkpoint

    listed = [Path(path) for path in checkpoint.existing(str(db))]
    for path in listed:
        assert not path.name.endswith(".partial")
        assert_intact(path)
        assert merge_state(path) == UNMERGED, path
    return listed


def test_consolidate_killed_in_its_checkpoint_or_merge_merges_all_or_nothing(
    flagged: Path, tmp_path: Path
) -> None:
    argv = [script("cortex-hooks"), "consolidate"]
    whole = Run(argv, flagged, tmp_path / "whole")
    steps = whole.steps()
    assert merge_state(whole.db) == MERGED
    transaction = one_transaction(steps, whole.db)
    copying = [step.number for step in steps if step.what == "backup"]
    assert len(copying) > 10, "the checkpoint was copied in too few steps to be cut in its middle"
    for label, step, listed in (
        ("in the checkpoint's copy", copying[len(copying) // 2], 0),
        ("at the merge's COMMIT", transaction.commit, 1),  # the checkpoint made, the merge not
    ):
        run = Run(argv, flagged, tmp_path / label.replace(" ", "-").replace("'", ""))
        assert run.kill_at(step), label
        assert_intact(run.db)
        assert merge_state(run.db) == UNMERGED, label
        assert len(checkpoints(run.db)) == listed, label


def test_restore_killed_in_its_copy_restores_all_or_nothing(flagged: Path, tmp_path: Path) -> None:
    merged = tmp_path / "merged" / "cortex.db"
    merged.parent.mkdir()
    shutil.copyfile(flagged, merged)
    cortex(merged, "consolidate")
    (made,) = checkpoints(merged)
    argv = [script("cortex-hooks"), "consolidate", "--restore", f"{{dir}}/checkpoints/{made.name}"]

    def restore_run(name: str) -> Run:
        run = Run(argv, merged, tmp_path / name)
        (run.db.parent / "checkpoints").mkdir()
        shutil.copyfile(made, run.db.parent / "checkpoints" / made.name)
        return run

    whole = restore_run("whole")
    steps = whole.steps()
    assert merge_state(whole.db) == UNMERGED
    # The restore copies into the live database through the backup API (one write of it); the
    # checkpoint of the state before it is copied first, under a transaction of its own.
    restoring = [step.number for step in steps if step.what == "backup" and step.database == str(whole.db)]
    assert len(restoring) > 10, steps
    run = restore_run("killed")
    run.kill_at(restoring[len(restoring) // 2])
    assert_intact(run.db)
    assert merge_state(run.db) == MERGED  # the restore never half done
