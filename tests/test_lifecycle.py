"""The memory lifecycle (docs/guide/aging.md): the pure curve and its properties, the `lifecycle` command,
SessionEnd's pass, confirmations, hand-edited rows, a clock moving backwards, a read-only database,
and the migration that brought the curve's start value."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support import Result, cli, cli_json, payload, run, script

from cortex_hooks.config import HALF_LIVES
from cortex_hooks.memory import decay
from cortex_hooks.memory.decay import Aging, Step, step

START = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)


# --- the pure curve ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("base", "pinned", "accesses", "centrality", "expected"),
    [
        (30.0, False, 0, 0.0, 30.0),
        (30.0, False, 5, 0.0, 60.0),
        (30.0, False, 4, 0.0, 30.0),
        (30.0, False, 0, 0.5, 60.0),
        (30.0, False, 9, 0.8, 120.0),
        (30.0, True, 0, 0.0, None),
        (None, False, 9, 1.0, None),
    ],
)
def test_half_life_modifiers(
    base: float | None, pinned: bool, accesses: int, centrality: float, expected: float | None
) -> None:
    assert decay.half_life(base, pinned=pinned, access_count=accesses, centrality=centrality) == expected


def test_default_half_lives_are_the_spec_table() -> None:
    assert HALF_LIVES == {
        "architecture": None,
        "decision": 180,
        "pattern": 90,
        "gotcha": 60,
        "context": 30,
        "progress": 7,
        "code_description": None,
        "code": None,
    }


def memory(c0: int = 70, kind: str = "context", **fields: Any) -> Aging:
    values: dict[str, Any] = {
        "c0": c0,
        "confidence": c0,
        "type": kind,
        "pinned": False,
        "access_count": 0,
        "centrality": 0.0,
        "status": "active",
        "confirmed_at": START,
        "touched_at": START,
        "archived_at": None,
    }
    values.update(fields)
    return Aging(**values)


def settle(state: Aging, result: Step | None) -> Aging:
    """The memory as the lifecycle leaves it after one step."""
    if result is None:
        return state
    return memory(
        state.c0,
        state.type,
        confidence=result.confidence,
        status=result.status,
        archived_at=result.archived_at,
        pinned=state.pinned,
        access_count=state.access_count,
        centrality=state.centrality,
    )


def at(state: Aging, days: float) -> Step | None:
    return step(state, START + timedelta(days=days))


def looked_at(state: Aging, due: datetime | None, days: float) -> tuple[Aging, datetime | None]:
    """A pass at START + days: only a memory due by then is looked at (as store.lifecycle.due reads)."""
    now = START + timedelta(days=days)
    if due is not None and due > now:
        return state, due
    result = step(state, now)
    return settle(state, result), None if result is None else result.due


def test_a_progress_memory_over_a_month() -> None:
    progress = memory(70, "progress")
    values = [at(progress, days) for days in (0, 7, 14)]
    assert [value.confidence for value in values if value] == [70, 35, 18]
    low = decay.low_from(70, 7.0)
    assert low is not None
    archived = at(progress, low + 7)
    assert archived is not None
    assert archived.status == "archived"
    assert archived.archived_at == START + timedelta(days=low + 7)
    before = at(progress, low + 6.99)
    assert before is not None
    assert before.status == "active"


c0s = st.integers(min_value=0, max_value=100)
days = st.floats(min_value=0, max_value=3650, allow_nan=False)
halves = st.one_of(st.none(), st.floats(min_value=0.5, max_value=400))
kinds = st.sampled_from(list(HALF_LIVES))


@given(c0s, days, days, halves)
def test_the_curve_never_rises_with_time(c0: int, first: float, second: float, half: float | None) -> None:
    early, late = sorted((first, second))
    assert decay.hundredths(c0, late, half) <= decay.hundredths(c0, early, half)
    assert 0 <= decay.hundredths(c0, late, half) <= 100


@given(c0s, days, kinds, st.integers(0, 20), st.floats(0, 1))
def test_a_pinned_memory_keeps_its_start_value(
    c0: int, elapsed: float, kind: str, accesses: int, centrality: float
) -> None:
    result = at(memory(c0, kind, pinned=True, access_count=accesses, centrality=centrality), elapsed)
    assert result is not None
    assert (result.confidence, result.status, result.due) == (c0, "active", None)


@given(c0s, kinds, st.tuples(st.integers(0, 9), st.sampled_from([0.0, 0.6])), days, days)
def test_two_passes_leave_what_one_pass_at_the_later_time_leaves(
    c0: int, kind: str, usage: tuple[int, float], first: float, second: float
) -> None:
    accesses, centrality = usage
    early, late = sorted((first, second))
    state = memory(c0, kind, access_count=accesses, centrality=centrality)
    once, _ = looked_at(state, None, late)
    twice, due = looked_at(*looked_at(state, None, early), late)
    assert twice.status == once.status
    assert twice.archived_at == once.archived_at
    assert abs(twice.confidence - once.confidence) <= 1
    assert 0 <= twice.confidence <= 100
    if due is not None:  # what stays unlooked-at is never due before its time
        assert due > START + timedelta(days=late) or due is None


@given(c0s, days, days)
def test_splitting_a_period_changes_nothing_beyond_rounding(c0: int, first: float, second: float) -> None:
    half = 30.0
    whole = decay.exact(c0, first + second, half)
    halfway = decay.exact(c0, first, half)
    assert abs(halfway * 0.5 ** (second / half) - whole) < 1e-6


@given(c0s, kinds, days)
def test_a_clock_behind_the_memory_changes_nothing(c0: int, kind: str, behind: float) -> None:
    assert at(memory(c0, kind), -behind - 0.001) is None


def test_an_archived_memory_is_pruned_after_ninety_untouched_days() -> None:
    archived_at = START + timedelta(days=3)
    state = memory(20, "context", status="archived", archived_at=archived_at)
    before = at(state, 92.9)
    assert before is not None
    assert not before.pruned
    assert before.due == archived_at + timedelta(days=90)
    after = at(state, 93)
    assert after is not None
    assert after.pruned


# --- the command ------------------------------------------------------------------------------------


def now(day: str) -> dict[str, str]:
    return {"CORTEX_NOW": f"{day}T09:00:00Z"}


def remember(text: str, kind: str, day: str = "2026-01-01", *extra: str) -> int:
    memory_id: int = cli_json("remember", text, "--type", kind, *extra, env=now(day))["id"]
    return memory_id


def stored(db: Path, memory_id: int) -> sqlite3.Row | None:
    with closing(sqlite3.connect(db)) as connection:
        connection.row_factory = sqlite3.Row
        row: sqlite3.Row | None = connection.execute(
            "SELECT * FROM memory WHERE id = ?", (memory_id,)
        ).fetchone()
        return row


def column(db: Path, memory_id: int, name: str) -> Any:
    row = stored(db, memory_id)
    assert row is not None, f"memory #{memory_id} is gone"
    return row[name]


def lifecycle_json(day: str, *extra: str) -> dict[str, Any]:
    result: dict[str, Any] = cli_json("lifecycle", *extra, env=now(day))
    return result


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "cortex.db"


def test_the_lifecycle_decays_archives_and_reports_each_change(db: Path) -> None:
    progress = remember("Deploys wait for the staging smoke test", "progress")
    decision = remember("We chose Postgres over MySQL for JSONB", "decision")
    architecture = remember("The ledger is the source of truth", "architecture")
    first = lifecycle_json("2026-01-08")
    assert first["counts"] == {"decayed": 2, "archived": 0, "pruned": 0}
    assert {"id": progress, "field": "confidence", "before": 0.7, "after": 0.35} in first["changes"]
    assert {"id": decision, "field": "confidence", "before": 0.7, "after": 0.68} in first["changes"]
    assert first["dry_run"] is False
    assert first["complete"] is True
    assert first["scope"] == "project"
    second = lifecycle_json("2026-02-01")
    assert {"id": progress, "field": "status", "before": "active", "after": "archived"} in second["changes"]
    archived = stored(db, progress)
    assert archived is not None
    assert archived["status"] == "archived"
    assert archived["archived_at"] == "2026-01-18T18:33:06Z"  # from the curve, not from the run
    kept = stored(db, architecture)
    assert kept is not None
    assert kept["confidence"] == 70
    human = cli("lifecycle", env=now("2026-03-01"))
    assert human.code == 0
    assert f"#{decision} confidence: 0.62 -> 0.56" in human.stdout
    assert "Changed project memories: 1 decayed, 0 archived, 0 pruned." in human.stdout


def test_running_twice_leaves_what_once_at_the_later_time_leaves(tmp_path: Path) -> None:
    databases = [tmp_path / "twice.db", tmp_path / "once.db"]
    for database in databases:
        env = {"CORTEX_DB": str(database)}
        for number, kind in enumerate(("progress", "context", "gotcha", "pattern", "decision")):
            cli_json(
                "remember", f"note {number} about {kind}", "--type", kind, env={**env, **now("2026-01-01")}
            )
    cli_json("lifecycle", env={"CORTEX_DB": str(databases[0]), **now("2026-01-20")})
    for database in databases:
        cli_json("lifecycle", env={"CORTEX_DB": str(database), **now("2026-03-05")})

    def state(database: Path) -> list[tuple[Any, ...]]:
        with closing(sqlite3.connect(database)) as connection:
            return connection.execute("SELECT id, confidence, status, archived_at FROM memory").fetchall()

    twice, once = state(databases[0]), state(databases[1])
    assert [row[2:] for row in twice] == [row[2:] for row in once]
    assert all(abs(a[1] - b[1]) <= 1 for a, b in zip(twice, once, strict=True))


def test_a_dry_run_reports_the_changes_and_writes_nothing(db: Path) -> None:
    remember("Deploys wait for the staging smoke test", "progress")
    other = remember("A linked note on deploys", "context")
    cli("link", "1", str(other), "--type", "relates_to")
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    dry = lifecycle_json("2026-09-01", "--dry-run")
    assert dry["dry_run"] is True
    assert dry["counts"]["pruned"] == 2
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before
    assert not (db.parent / "pruned.jsonl").exists()
    real = lifecycle_json("2026-09-01")
    assert real["changes"] == dry["changes"]


def test_a_pruned_memory_is_kept_in_full_with_its_edges_then_deleted(db: Path) -> None:
    old = remember("Deploys wait for the staging smoke test", "progress")
    keeper = remember("The ledger is the source of truth", "architecture")
    assert cli("link", str(keeper), str(old), "--type", "refines").code == 0
    shown = cli_json("memories", "show", str(old), env=now("2026-01-01"))
    lifecycle_json("2026-02-05")  # archived (its in-edge doubles its half-life: on 29 January)
    assert column(db, old, "status") == "archived"
    column_archived = column(db, old, "archived_at")
    assert stored(db, old) is not None
    result = lifecycle_json("2026-04-30")
    assert {"id": old, "field": "status", "before": "archived", "after": "pruned"} in result["changes"]
    assert stored(db, old) is None
    lines = (db.parent / "pruned.jsonl").read_text().splitlines()
    assert len(lines) == 1
    record = json.loads(lines[0])
    assert list(record) == list(shown)  # every field, in the order `memories show --json` prints
    assert record == {
        **shown,
        "status": "archived",
        "confidence": record["confidence"],
        "archived_at": record["archived_at"],
    }
    assert record["edges"] == [{"type": "refines", "from": keeper, "to": old, "strength": 1.0}]
    assert record["archived_at"] == column_archived
    with closing(sqlite3.connect(db)) as connection:
        assert connection.execute("SELECT count(*) FROM edge").fetchone()[0] == 0
    assert cli_json("memories", "show", str(keeper))["edges"] == []


def test_a_confirmation_restarts_the_curve_and_reflect_decay_does_not(db: Path) -> None:
    memory_id = remember("Retries go through the orders queue", "context")
    lifecycle_json("2026-01-31")
    assert column(db, memory_id, "confidence") == 35
    cli_json("memories", "show", str(memory_id), env=now("2026-02-01"))  # an access: a confirmation
    assert column(db, memory_id, "confidence") == 70
    assert lifecycle_json("2026-02-01")["changes"] == []
    cli_json("memories", "update", str(memory_id), "--tag", "queue", env=now("2026-03-01"))  # not one
    row = stored(db, memory_id)
    assert row is not None
    assert row["confirmed_at"] == "2026-02-01T09:00:00Z"
    cli_json("reflect", "decay", env=now("2026-03-04"))  # not accessed for 31 days
    row = stored(db, memory_id)
    assert row is not None
    assert row["base_confidence"] == 63
    assert row["confirmed_at"] == "2026-02-01T09:00:00Z"
    lifecycle_json("2026-03-04")
    assert column(db, memory_id, "confidence") == 31  # 0.63 · 0.5^(31/30)
    cli_json("memories", "update", str(memory_id), "--priority", "7", env=now("2026-03-05"))
    assert column(db, memory_id, "confidence") == 63


def test_accesses_and_centrality_double_the_half_life(db: Path) -> None:
    plain = remember("A plain context note about billing", "context")
    used = remember("A used context note about invoices", "context")
    central = remember("A central context note about ledgers", "context")
    for _ in range(5):
        cli_json("memories", "show", str(used), env=now("2026-01-01"))
    cli("link", str(plain), str(central), "--type", "relates_to", env=now("2026-01-01"))
    lifecycle_json("2026-01-31")
    confidences = [column(db, i, "confidence") for i in (plain, used, central)]
    assert confidences == [35, 49, 49]  # 30 days: one half-life, half of one, half of one


def test_pinned_and_restored_memories(db: Path) -> None:
    pinned = remember("Never deploy on Fridays", "gotcha", "2026-01-01", "--pin")
    progress = remember("Half way through the migration", "progress")
    lifecycle_json("2026-03-01")
    assert column(db, pinned, "confidence") == 70
    assert column(db, progress, "status") == "archived"
    cli_json("memories", "restore", str(progress), env=now("2026-03-02"))
    assert lifecycle_json("2026-03-02")["changes"] == []  # restored: the curve starts again
    assert column(db, progress, "status") == "active"


def test_learnings_are_never_touched(db: Path) -> None:
    cli(
        "add",
        "--anti-pattern",
        "force push",
        "--correct",
        "lease",
        "--regex",
        "push -f",
        env=now("2026-01-01"),
    )
    remember("Deploys wait for the staging smoke test", "progress")
    with closing(sqlite3.connect(db)) as connection:
        before = connection.execute("SELECT * FROM learning").fetchall()
    lifecycle_json("2027-06-01")
    with closing(sqlite3.connect(db)) as connection:
        assert connection.execute("SELECT * FROM learning").fetchall() == before


def test_the_global_scope(tmp_path: Path) -> None:
    cli_json("remember", "A global progress note", "--type", "progress", "--global", env=now("2026-01-01"))
    result = cli_json("lifecycle", "--global", env=now("2026-01-08"))
    assert result["scope"] == "global"
    assert result["counts"]["decayed"] == 1
    assert lifecycle_json("2026-01-08")["changes"] == []  # the project's database has none


def test_no_database_is_nothing_to_do(db: Path) -> None:
    assert lifecycle_json("2026-01-08")["changes"] == []
    assert not db.exists()


# --- bad input and faults --------------------------------------------------------------------------

HAND_EDITS = [
    ("confidence", 5000),
    ("confidence", -1),
    ("base_confidence", None),
    ("type", "opinion"),
    ("access_count", -3),
    ("confirmed_at", "yesterday"),
]


@pytest.mark.parametrize(("column", "value"), HAND_EDITS)
def test_a_hand_edited_memory_is_skipped_and_named_and_the_others_proceed(
    db: Path, column: str, value: object
) -> None:
    broken = remember("A note someone edited by hand", "context")
    fine = remember("A note nobody touched", "context")
    with closing(sqlite3.connect(db)) as connection:
        connection.execute("PRAGMA ignore_check_constraints = ON")
        connection.execute(
            f"UPDATE memory SET {column} = ?, lifecycle_due = '' WHERE id = ?", (value, broken)
        )
        connection.commit()
    result = cli("lifecycle", "--json", env=now("2026-01-31"))
    assert result.code == 0, result.stderr
    assert f"memory #{broken} skipped by the lifecycle" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    changes = result.json()["changes"]
    assert {"id": fine, "field": "confidence", "before": 0.7, "after": 0.35} in changes
    assert all(change["id"] != broken for change in changes)


@pytest.mark.parametrize(("column", "value"), [("confidence", "high"), ("base_confidence", 0.5)])
def test_a_hand_edited_memory_of_the_wrong_type_is_refused_at_write(
    db: Path, column: str, value: object
) -> None:
    broken = remember("A note someone edited by hand", "context")
    with closing(sqlite3.connect(db)) as connection:
        connection.execute("PRAGMA ignore_check_constraints = ON")  # STRICT: the type is checked still
        with pytest.raises(sqlite3.IntegrityError, match="cannot store"):
            connection.execute(f"UPDATE memory SET {column} = ? WHERE id = ?", (value, broken))


def test_a_clock_moving_backwards_changes_nothing(db: Path) -> None:
    remember("Deploys wait for the staging smoke test", "progress", "2026-03-01")
    lifecycle_json("2026-03-05")
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    result = cli("lifecycle", "--json", env=now("2025-12-01"))
    assert result.code == 0
    assert result.stderr == ""
    assert result.json()["changes"] == []
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before


def _read_only(directory: Path) -> list[str]:
    """A command prefix under which `directory` cannot be written (root ignores file modes: a
    private mount namespace with a read-only bind mount instead)."""
    if os.geteuid() != 0:
        for path in [directory, *directory.iterdir()]:
            path.chmod(0o555 if path.is_dir() else 0o444)
        return []
    unshare = shutil.which("unshare")
    if unshare is None:
        pytest.skip("running as root without `unshare`: no way to make a read-only database")
    probe = subprocess.run([unshare, "-m", "true"], capture_output=True, check=False)
    if probe.returncode != 0:
        pytest.skip("running as root and `unshare -m` is not allowed here")
    mount = f"mount --bind {directory} {directory} && mount -o remount,bind,ro {directory}"
    return [unshare, "-m", "sh", "-c", f'{mount} && exec "$@"', "sh"]


def test_a_read_only_database_fails_with_one_clear_line_and_nothing_half_written(tmp_path: Path) -> None:
    folder = tmp_path / "project"
    folder.mkdir()
    db = folder / "cortex.db"
    cli_json(
        "remember",
        "Deploys wait for the smoke test",
        "--type",
        "progress",
        env={"CORTEX_DB": str(db), **now("2026-01-01")},
    )
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    prefix = _read_only(folder)
    completed = subprocess.run(
        [*prefix, script("cortex-hooks"), "lifecycle"],
        capture_output=True,
        text=True,
        env={**os.environ, "CORTEX_DB": str(db), **now("2026-06-01")},
        check=False,
    )
    assert completed.returncode == 1
    lines = completed.stderr.strip().splitlines()
    assert len(lines) == 1, completed.stderr
    assert "read-only" in lines[0]
    assert "Traceback" not in completed.stderr
    assert completed.stdout == ""
    if not prefix:
        folder.chmod(0o755)
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before
    assert not (folder / "pruned.jsonl").exists()


# --- SessionEnd ----------------------------------------------------------------------------------


def test_session_end_runs_the_lifecycle_after_the_learnings_decay(db: Path) -> None:
    progress = remember("Deploys wait for the staging smoke test", "progress")
    ended = run(
        "cortex-session-end", stdin=payload("session_end.other", session_id="s1"), env=now("2026-01-08")
    )
    assert ended.code == 0, ended.stderr
    assert column(db, progress, "confidence") == 35


def session_end(session: str, day: str) -> Result:
    return run("cortex-session-end", stdin=payload("session_end.other", session_id=session), env=now(day))


def test_session_end_leaves_the_lifecycle_for_later_while_another_process_writes(db: Path) -> None:
    progress = remember("Deploys wait for the staging smoke test", "progress")
    with closing(sqlite3.connect(db, isolation_level=None)) as holder:
        holder.execute("BEGIN IMMEDIATE")
        ended = run(
            "cortex-session-end", stdin=payload("session_end.other", session_id="s1"), env=now("2026-01-08")
        )
        assert ended.code == 0
        assert "lifecycle" not in ended.stderr
        assert column(db, progress, "confidence") == 70  # still due: nothing lost
        holder.execute("ROLLBACK")
    again = run(
        "cortex-session-end", stdin=payload("session_end.other", session_id="s2"), env=now("2026-01-08")
    )
    assert again.code == 0, again.stderr
    assert column(db, progress, "confidence") == 35


def test_session_end_names_a_hand_edited_memory_and_still_succeeds(db: Path) -> None:
    broken = remember("A note someone edited by hand", "context")
    with closing(sqlite3.connect(db)) as connection:
        connection.execute("PRAGMA ignore_check_constraints = ON")
        connection.execute("UPDATE memory SET type = 'opinion', lifecycle_due = '' WHERE id = ?", (broken,))
        connection.commit()
    ended = run(
        "cortex-session-end", stdin=payload("session_end.other", session_id="s2"), env=now("2026-01-08")
    )
    assert ended.code == 0
    assert f"memory #{broken} skipped" in ended.stderr


def test_half_lives_come_from_the_config_file(db: Path) -> None:
    (db.parent / "config.toml").write_text(
        '[half_lives]\ncontext = 10\narchitecture = 20\ndecision = "none"\n'
    )
    context = remember("A context note", "context")
    architecture = remember("An architecture note", "architecture")
    decision = remember("A decision note", "decision")
    lifecycle_json("2026-01-11")
    assert [column(db, i, "confidence") for i in (context, architecture, decision)] == [35, 49, 70]
