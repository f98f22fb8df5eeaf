"""The one upgrade: a database of every earlier schema version (tests/fixtures/schemas/vN.sql, rows in
every table, hand edits past the old CHECKs) opened by the installed CLI and by each hook is brought
to the current schema in one step — every row arrives, the guard still denies what it denied, the
upgrade says in one line what it mended, and a second open changes nothing; a kill in the middle
leaves the old database as it was; a kept database's copy follows; a newer schema is refused.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
import schema_fixtures
from support import FIXTURES, Result, cli, payload, run, script

from cortex_hooks.redact import redact
from cortex_hooks.store.version import SCHEMA_VERSION

SCHEMAS = FIXTURES / "schemas"
EARLIER = range(1, SCHEMA_VERSION)
NOW = "2025-03-10T12:00:00Z"  # near the fixtures' rows: nothing of theirs is due to be pruned
FORCE_PUSH = payload("pre_tool_use.bash", tool_input={"command": "git push --force origin main"})
WRITE_ENV = payload(
    "pre_tool_use.bash", tool_name="Write", tool_input={"file_path": "/p/.env", "content": "A=1"}
)
TRANSCRIPT = FIXTURES / "transcript.jsonl"
NO_MATCH = payload("pre_tool_use.bash", tool_input={"command": "ls -la"})
DERIVED = {"learning_key"}  # made anew from the learnings
# Derived columns and counters the upgrade (and its commit) sets anew.
DERIVED_COLUMNS = {
    "learning": {"literals", "auto_block"},
    "memory": {"in_degree"},
    "guard_state": {"changed", "version"},
    "keeper_state": {"changes"},
}
REDACTED = {  # what an older version kept verbatim before the one redactor (version 17)
    "session": ("summary",),
    "proposal": ("anti_pattern", "correct_pattern", "content"),
    "proposal_occurrence": ("failed", "fixed"),
    "capture_success": ("command",),
    "verdict_call": ("call",),
}
# Claude Code's own memory files as last indexed: a hook reads them again (here: gone, out of the index).
INDEXED_AGAIN = {"claude_file", "claude_chunk"}
SECRETS = ("Tr0ub4dor-Horse", "S3cr3t-Passw0rd")  # the fixtures' made-up secrets
# The fixtures' hand edits (schema_fixtures.HAND_EDITS) and what the upgrade makes of each:
# (table, key, column): (the hand-edited value, the value after the upgrade).
MENDED: dict[tuple[str, object, str], tuple[object, object]] = {
    ("learning_confidence", 8, "confidence"): (0.9, 90),  # hundredths, within the floor and ceiling
    ("learning", 6, "access_count"): ("many", 0),
    ("learning", 2, "access_count"): (-3, 0),
    ("learning", 10, "tool"): (b"Bash", "Bash"),  # bytes of UTF-8: text
    ("learning", 3, "anti_pattern"): (b"\xff\xfe", "\\xff\\xfe"),  # archived (it was already)
    ("learning", 5, "action"): ("maybe", "block"),  # archived: which action was meant is unknown
    ("decision", 1, "access_count"): (2.5, 2),
    ("session", "9c8b7a6d-no-start", "key_changes"): ("not json", "[]"),
    ("memory", 2, "confidence"): (0.8, 80),
    ("memory", 2, "tags"): ("deploy, workers", '["deploy, workers"]'),
    ("memory", 4, "priority"): ("high", 5),  # archived: a new memory's priority
    ("learning_day", (6, "2025-03-08"), "matches"): ("x", 0),
}
ARCHIVED = {("learning", 5): "action", ("memory", 4): "priority"}  # (by the value in that column)


def build(version: int, path: Path) -> Path:
    """A database file from the SQL of one schema version (test code: executescript is fine)."""
    with closing(sqlite3.connect(path)) as connection:
        connection.executescript((SCHEMAS / f"v{version}.sql").read_text(encoding="utf-8"))
    return path


def current_keys() -> dict[str, list[str]]:
    """Each current table's key: its primary key's columns, or the rowid."""
    with closing(sqlite3.connect(":memory:", isolation_level=None)) as connection:
        from cortex_hooks.store import schema

        schema.create(connection)
        keys = {}
        for table in schema_fixtures.tables(connection):
            pk = [
                row[1]
                for row in sorted(connection.execute(f"PRAGMA table_info({table})"), key=lambda r: r[5])
                if row[5]
            ]
            keys[table] = pk or ["rowid"]
        return keys


KEYS = current_keys()


def dump(path: Path) -> dict[str, dict[object, dict[str, Any]]]:
    """Every row of every table the current schema knows, by its key."""
    with closing(sqlite3.connect(path)) as connection:
        connection.row_factory = sqlite3.Row
        present = set(schema_fixtures.tables(connection))
        found: dict[str, dict[object, dict[str, Any]]] = {}
        for table, key in KEYS.items():
            if table not in present:
                continue
            rowid = "rowid AS rowid, " if key == ["rowid"] else ""
            rows = [dict(row) for row in connection.execute(f"SELECT {rowid}* FROM {table}")]
            found[table] = {
                (row[key[0]] if len(key) == 1 else tuple(row[k] for k in key)): row for row in rows
            }
        return found


def expected(
    version: int, old: dict[str, dict[object, dict[str, Any]]]
) -> dict[str, dict[object, dict[str, Any]]]:
    """The rows the upgrade must leave of an old database's: each as it was, but for what moved
    (confidence, auto_block), what the redactor takes out, and the hand edits mended."""
    rows = {table: {key: dict(row) for key, row in table_rows.items()} for table, table_rows in old.items()}
    learnings = rows.get("learning", {})
    if "learning_confidence" not in rows:  # before version 5: a column of the learning
        rows["learning_confidence"] = {
            key: {"learning_id": key, "confidence": row.pop("confidence")} for key, row in learnings.items()
        }
    for row in learnings.values():
        if "action" not in row:  # before version 19: the flag (a hand-edited one: block, the stricter)
            row["action"] = "warn" if row["auto_block"] == 0 else "block"
    if version < 17:
        _redact(rows)
    _mend(rows)
    for table, columns in DERIVED_COLUMNS.items():
        for row in rows.get(table, {}).values():
            for column in columns:
                row.pop(column, None)
    return {table: table_rows for table, table_rows in rows.items() if table not in DERIVED}


def _redact(rows: dict[str, dict[object, dict[str, Any]]]) -> None:
    """What an older version kept verbatim, as the one redactor leaves it; a regex's mask stands
    for any value."""
    for table, columns in REDACTED.items():
        mapped = {}
        for key, row in rows.get(table, {}).items():
            for column in columns:
                row[column] = redact(row[column]) if isinstance(row[column], str) else row[column]
            mapped[(row["command"], row["session_id"]) if table == "capture_success" else key] = row
        if table in rows:
            rows[table] = mapped
    for table in ("learning", "proposal"):
        for row in rows.get(table, {}).values():
            if isinstance(row["regex"], str):
                row["regex"] = row["regex"].replace(r"\[REDACTED\]", ".+?")


def _mend(rows: dict[str, dict[object, dict[str, Any]]]) -> None:
    """The fixtures' hand edits, as the upgrade mends them (where that version has them)."""
    for (table, key, column), (edited, mended) in MENDED.items():
        row = rows.get(table, {}).get(key)
        if row is None or column not in row or row[column] != edited or type(row[column]) is not type(edited):
            continue
        row[column] = mended
        if (table, key) in ARCHIVED:
            row["archived_at"] = row.get("archived_at") or NOW
            if table == "memory":
                row["status"] = "archived"


def assert_every_row_arrived(version: int, old: dict[str, Any], path: Path, *, exactly: bool) -> None:
    """Every old row is in the upgraded database (`exactly`: with the values it must have: a
    command that reads only; after a hook, only its key: the hook has done its own work since)."""
    assert user_version(path) == SCHEMA_VERSION
    new = dump(path)
    for table, rows in expected(version, old).items():
        if not exactly and table in INDEXED_AGAIN:
            continue
        arrived = new[table]
        lost = sorted(map(str, set(rows) - set(arrived)))
        assert not lost, f"v{version}: rows of {table} lost: {lost}"
        if not exactly:
            continue
        for key, row in rows.items():
            for column, value in row.items():
                if column == "rowid":
                    continue
                assert arrived[key][column] == value, (
                    version,
                    table,
                    key,
                    column,
                    arrived[key][column],
                    value,
                )
    with closing(sqlite3.connect(path)) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        # derived data made anew: every memory's in-degree, every regex's prefilter keys and literals
        wrong = connection.execute(
            """SELECT id FROM memory WHERE in_degree != (SELECT count(*) FROM edge
                   WHERE to_id = memory.id AND type != 'supersedes')"""
        ).fetchall()
        assert not wrong, wrong
        unkeyed = connection.execute(
            """SELECT id FROM learning WHERE regex IS NOT NULL AND (literals IS NULL
                   OR id NOT IN (SELECT learning_id FROM learning_key))"""
        ).fetchall()
        assert not unkeyed, unkeyed
        searched = connection.execute("SELECT count(*) FROM search").fetchone()[0]
        kinds = sum(connection.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                    for t in ("memory", "learning", "decision", "error", "todo"))  # fmt: skip
        assert searched == kinds
    every = repr(whole(path))
    for secret in SECRETS:
        assert secret not in every, f"v{version}: {secret} kept"


def user_version(path: Path) -> int:
    with closing(sqlite3.connect(path)) as connection:
        version: int = connection.execute("PRAGMA user_version").fetchone()[0]
        return version


def whole(path: Path) -> list[object]:
    """The whole database, its version, schema and every row of every table (bytes as stored): what
    a second open, or a killed upgrade, must leave as it was."""
    with closing(sqlite3.connect(path)) as connection:
        connection.text_factory = bytes
        found: list[object] = [connection.execute("PRAGMA user_version").fetchone()]
        for kind, name, sql in connection.execute(
            "SELECT type, name, sql FROM sqlite_master ORDER BY name"
        ).fetchall():
            found.append((kind, name, sql))
            if kind == "table" and not (sql or b"").startswith(b"CREATE VIRTUAL"):
                found.append(sorted(map(repr, connection.execute(f'SELECT * FROM "{name.decode()}"'))))
        return found


def hook(name: str, stdin: dict[str, Any], path: Path) -> Result:
    return run(name, stdin=stdin, env={"CORTEX_DB": str(path), "CORTEX_NOW": NOW})


def said(path: Path, version: int) -> str:
    return f"upgraded the database {path} from schema version {version} to {SCHEMA_VERSION} "


# --- the fixtures are what they claim to be -------------------------------------------------------


@pytest.mark.parametrize("version", [*EARLIER, SCHEMA_VERSION])
def test_each_fixture_is_a_database_of_its_version_with_rows_in_every_table(
    version: int, tmp_path: Path
) -> None:
    path = build(version, tmp_path / "fixture.db")
    assert user_version(path) == version
    with closing(sqlite3.connect(path)) as connection:
        connection.execute("PRAGMA ignore_check_constraints = ON")  # its hand edits are past them
        assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        for table in schema_fixtures.tables(connection):
            assert connection.execute(f"SELECT count(*) FROM {table}").fetchone()[0], (version, table)


def test_the_current_versions_fixture_is_what_the_code_writes() -> None:
    """A change of the schema without a new version (and its own fixture) fails here."""
    assert schema_fixtures.main(["--check"]) == 0


# --- every earlier version, through the installed CLI and each hook --------------------------------


@pytest.mark.parametrize("version", EARLIER)
def test_each_earlier_version_is_brought_to_the_current_schema_by_every_door(
    version: int, tmp_path: Path
) -> None:
    template = build(version, tmp_path / "template.db")
    old = dump(template)
    doors = {}
    for door in ("cli", "start", "pre", "end"):
        (tmp_path / door).mkdir()
        doors[door] = shutil.copyfile(template, tmp_path / door / "cortex.db")

    def open_with(door: str) -> Result:
        path = doors[door]
        if door == "cli":
            return cli(
                "list", "--all", "--json", process=True, env={"CORTEX_DB": str(path), "CORTEX_NOW": NOW}
            )
        name, stdin = {
            "start": ("cortex-session-start", payload("session_start.startup")),
            "pre": ("cortex-pre-tool-use", FORCE_PUSH),
            "end": ("cortex-session-end", payload("session_end.other", transcript_path=str(TRANSCRIPT))),
        }[door]
        return hook(name, stdin, path)

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = dict(zip(doors, pool.map(open_with, doors), strict=True))

    # the CLI: its one line says so (and what was mended), its output is the learnings
    listed = results["cli"]
    assert listed.code == 0, listed.stderr
    lines = listed.stderr.splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"cortex-hooks: {said(doors['cli'], version)}"), lines
    assert ("what a hand edit had made unreadable" in lines[0]) == (version > 3)
    assert {row["id"] for row in listed.json()} == set(old["learning"])
    assert_every_row_arrived(version, old, doors["cli"], exactly=True)
    # a second open changes nothing, and says nothing
    before = whole(doors["cli"])
    again = cli("list", "--all", "--json", env={"CORTEX_DB": str(doors["cli"]), "CORTEX_NOW": NOW})
    assert (again.code, again.stderr) == (0, "")
    assert whole(doors["cli"]) == before

    # SessionStart says it to the person; PreToolUse and SessionEnd say nothing of it
    start = results["start"]
    assert start.code == 0, start.stderr
    assert start.json()["systemMessage"].startswith(f"cortex-hooks {said(doors['start'], version)}")
    assert "additionalContext" in start.json()["hookSpecificOutput"]
    pre, end = results["pre"], results["end"]
    assert (pre.code, pre.stderr) == (0, ""), pre.stderr
    assert (end.code, end.stderr) == (0, ""), end.stderr
    for door in ("start", "pre", "end"):
        assert_every_row_arrived(version, old, doors[door], exactly=False)

    # the guard denies what it denied: a force push by learning #1, a write of .env by #4
    for result, learning in ((pre, 1), (hook("cortex-pre-tool-use", WRITE_ENV, doors["pre"]), 4)):
        decision = result.json()["hookSpecificOutput"]
        assert decision["permissionDecision"] == "deny", (version, result.stdout)
        assert f"learning #{learning} " in decision["permissionDecisionReason"]


def test_what_the_upgrade_mended_is_said_whole_in_its_one_line(tmp_path: Path) -> None:
    path = build(SCHEMA_VERSION - 1, tmp_path / "cortex.db")
    from cortex_hooks.store import connection as store

    env = {"CORTEX_DB": str(path), "CORTEX_NOW": NOW}
    shown = cli("list", "--json", env=env)
    assert shown.code == 0
    (line,) = shown.stderr.splitlines()
    assert "learning #2: its access_count -3 read as 0" in line
    assert "learning #3 archived: its anti_pattern" in line
    assert f"and {12 - store.SAID_MENDED} more" in line  # the rest, counted
    mended = {row["id"]: row for row in cli("list", "--all", "--json", env=env).json()}
    assert (mended[5]["action"], mended[5]["archived_at"]) == ("block", NOW)
    assert mended[8]["confidence"] == 0.9
    assert 5 not in {row["id"] for row in cli("list", "--json", env=env).json()}  # archived: never matches


def test_an_earlier_version_with_nothing_wrong_says_nothing_mended(tmp_path: Path) -> None:
    path = build(3, tmp_path / "cortex.db")
    result = cli("list", env={"CORTEX_DB": str(path)})
    assert result.stderr == (
        f"cortex-hooks: upgraded the database {path} from schema version 3 to {SCHEMA_VERSION} "
        "(automatic, on its first use by this version; everything in it kept)\n"
    )


def test_a_new_database_is_made_without_an_upgrade_said(tmp_path: Path) -> None:
    created = cli("remember", "a note", env={"CORTEX_DB": str(tmp_path / "cortex.db")})
    assert created.code == 0, created.stderr
    assert "upgraded" not in created.stderr
    assert user_version(tmp_path / "cortex.db") == SCHEMA_VERSION


def test_session_start_tells_the_person_once(tmp_path: Path) -> None:
    path = build(3, tmp_path / "cortex.db")
    first = hook("cortex-session-start", payload("session_start.startup"), path)
    assert first.json()["systemMessage"].startswith(f"cortex-hooks {said(path, 3)}")
    again = hook("cortex-session-start", payload("session_start.startup"), path)
    assert (again.code, "upgraded" in again.stdout) == (0, False)


def test_what_each_version_knew_is_kept_by_the_one_step(tmp_path: Path) -> None:
    """What the migrations of versions 9, 14 and 16 to 23 did to the rows before them: the memory's
    curve starts where it stands (9); the history counts the memories' own days (14); a target of
    the raw command, pack learnings, a redacted regex that stands for any value (16, 17); the
    action and the rewrite (19); the built-in protection's row in the history (21); the outcomes'
    columns (23)."""
    paths = {version: build(version, tmp_path / f"v{version}.db") for version in (8, 13, 16, 18, 22)}
    for path in paths.values():
        assert cli("list", env={"CORTEX_DB": str(path), "CORTEX_NOW": NOW}).code == 0

    def query(version: int, sql: str) -> list[tuple[Any, ...]]:
        with closing(sqlite3.connect(paths[version])) as connection:
            return connection.execute(sql).fetchall()

    assert query(8, "SELECT id, base_confidence, lifecycle_due FROM memory ORDER BY id") == [
        (1, 80, ""), (2, 80, ""), (3, 0, ""), (4, 100, "")
    ]  # fmt: skip
    assert query(13, "SELECT day, added, archived FROM scope_day ORDER BY day") == [
        ("2025-03-01", 2, 0), ("2025-03-02", 1, 0), ("2025-03-04", 1, 0), ("2025-03-06", 0, 1),
        ("2025-03-10", 0, 1),  # memory #4, archived by the upgrade (its priority could not be read)
    ]  # fmt: skip
    assert query(16, "SELECT target, slug, muted, regex FROM learning WHERE id IN (7, 10) ORDER BY id") == [
        ("raw", "core.git:reset-hard", 1, r"\bgit\s+reset\s+--hard\b"),
        ("content", None, 0, r"mysql\s+-u\s+root\s+-p.+?\s"),
    ]
    assert query(18, "SELECT id, action, auto_block, rewrite FROM learning WHERE id IN (5, 7, 9)") == [
        (5, "warn", 0, None), (7, "block", 1, None), (9, "block", 1, None)
    ]  # fmt: skip
    assert (
        query(22, "SELECT followed, retried, asked FROM learning_day ORDER BY learning_id") == [(0, 0, 0)] * 2
    )
    assert query(22, "SELECT signal FROM proposal ORDER BY id") == [
        ("failed-then-fixed",),
        ("user-correction",),
        ("remembered",),
    ]
    # a learning whose mask stood for a secret now matches the command with any password
    mysql = payload("pre_tool_use.bash", tool_input={"command": "mysql -u root -phunter2 shop"})
    warned = hook("cortex-pre-tool-use", mysql, paths[16])
    assert "learning #10 " in warned.stdout


# --- one transaction: a kill in the middle leaves the old database ---------------------------------

STOPPER = Path(__file__).parent / "stopper"  # its sitecustomize stops a child at a chosen SQL step


def test_an_upgrade_killed_in_the_middle_leaves_the_old_database_as_it_was(tmp_path: Path) -> None:
    path = build(SCHEMA_VERSION - 1, tmp_path / "cortex.db")
    before = whole(path)
    env = {**os.environ, "CORTEX_DB": str(path), "PYTHONPATH": str(STOPPER)}
    steps_file = tmp_path / "steps"
    shutil.copyfile(path, tmp_path / "counted.db")
    counting = subprocess.run(
        [script("cortex-hooks"), "list"],
        env={**env, "CORTEX_DB": str(tmp_path / "counted.db"), "CORTEX_TEST_STEPS": str(steps_file)},
        capture_output=True, timeout=120, check=False,
    )  # fmt: skip
    assert counting.returncode == 0, counting.stderr
    steps = steps_file.read_text(encoding="utf-8").splitlines()
    copied = next(i for i, step in enumerate(steps, 1) if step.startswith("INSERT OR IGNORE INTO memory"))
    child = subprocess.Popen(
        [script("cortex-hooks"), "list"], env={**env, "CORTEX_TEST_STOP_AT": str(copied + 3)},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while _state(child.pid) != "T":  # stopped at the step chosen: half the tables copied
        assert child.poll() is None, "the child ended before the step chosen"
        assert time.monotonic() < deadline
        time.sleep(0.01)
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=30)
    assert whole(path) == before  # the old database, every row, its version
    assert cli("list", env={"CORTEX_DB": str(path)}).code == 0  # and the next open upgrades it
    assert user_version(path) == SCHEMA_VERSION


def _state(pid: int) -> str:
    with open(f"/proc/{pid}/stat", encoding="utf-8") as stat:
        return stat.read().rsplit(")", 1)[1].split()[0]


# --- a kept database: its copy follows the upgrade ------------------------------------------------


def test_an_old_kept_database_upgraded_still_has_a_weakening_undone(tmp_path: Path) -> None:
    """The keeper's copy follows the upgrade in its transaction: what the upgrade archived (a row a
    hand edit made unreadable) is never put back; what another program weakens after it is."""
    from cortex_hooks import location
    from cortex_hooks.keeper import check
    from cortex_hooks.store import keeper

    path = build(SCHEMA_VERSION - 1, tmp_path / "cortex.db")
    with closing(sqlite3.connect(path, isolation_level=None)) as connection:  # kept by the version before
        connection.execute("UPDATE learning SET action = 'ask' WHERE id = 5")  # (its copy refused 'maybe')
        connection.execute("UPDATE learning SET correct_pattern = X'FF' WHERE id = 1")  # not UTF-8: archived
        connection.execute("UPDATE team_file SET stat = 'absent'")  # no team file: nothing read again
        connection.execute("UPDATE guard_state SET changed = 0")  # its guard file written by that version
        check.adopt(connection, str(path), {})
    folder = Path(location.keeper_folder(str(path)))
    quiet = hook("cortex-pre-tool-use", NO_MATCH, path)
    assert (quiet.code, quiet.stdout, quiet.stderr) == (0, "", "")  # upgraded: nothing put back, nothing said
    with closing(sqlite3.connect(folder / keeper.COPY)) as copy:
        assert copy.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
        assert copy.execute("SELECT archived_at FROM learning WHERE id = 1").fetchone() == (NOW,)
    # another program weakens the guard: the next call puts back that, and that alone
    with closing(sqlite3.connect(path)) as connection:
        connection.execute("UPDATE learning SET action = 'warn' WHERE id = 4")
        connection.commit()
    denied = hook("cortex-pre-tool-use", WRITE_ENV, path).json()
    assert denied["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "learning #4 " in denied["systemMessage"]
    assert "learning #1 " not in denied["systemMessage"]


# --- many processes at once; a newer schema --------------------------------------------------------


def test_concurrent_first_opens_upgrade_once_without_errors(tmp_path: Path) -> None:
    path = build(1, tmp_path / "cortex.db")
    old = dump(path)
    commands = [
        [script("cortex-hooks"), "list", "--json"],
        [script("cortex-hooks"), "stats", "--json"],
        [script("cortex-hooks"), "decisions", "add", "--title", "A", "--reasoning", "r"],
        [script("cortex-hooks"), "todos", "add", "--text", "B"],
        [script("cortex-pre-tool-use")],
        [script("cortex-pre-tool-use")],
    ]
    stdin = json.dumps(NO_MATCH).encode()
    env = {**os.environ, "CORTEX_DB": str(path)}
    processes = [
        subprocess.Popen(c, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        for c in commands
    ]
    outcomes = [process.communicate(stdin, timeout=60) for process in processes]
    told = f"cortex-hooks: {said(path, 1)}".encode()
    upgrades = 0
    for command, process, (_, stderr) in zip(commands, processes, outcomes, strict=True):
        assert process.returncode == 0, (command, stderr)
        upgrades += stderr != b""
        assert stderr == b"" or (stderr.startswith(told) and stderr.count(b"\n") == 1), (command, stderr)
    assert upgrades <= 1  # one process upgraded (said by a command; a PreToolUse says nothing)
    assert_every_row_arrived(1, old, path, exactly=False)


def tree(directory: Path) -> dict[str, str]:
    return {
        name: hashlib.sha256((directory / name).read_bytes()).hexdigest() for name in os.listdir(directory)
    }


NEWER_COMMANDS: list[tuple[str, ...]] = [
    ("add", "--anti-pattern", "a", "--correct", "b", "--regex", "x"),
    ("list",), ("list", "--all", "--json"), ("show", "1", "--json"), ("update", "1", "--context", "x"),
    ("pin", "1"), ("archive", "1"), ("restore", "3"), ("prune",), ("stats", "--json"), ("snapshot",),
    ("decisions", "add", "--title", "t", "--reasoning", "r"), ("errors", "list"), ("todos", "done", "1"),
    ("sessions", "list", "--json"), ("export",), ("import", "{import}"),
    ("explain", "--tool", "Bash", "--command", "git push --force"),
]  # fmt: skip
NEWER_HOOKS = {
    "cortex-pre-tool-use": FORCE_PUSH,
    "cortex-session-start": payload("session_start.startup"),
    "cortex-session-end": payload("session_end.other"),
}


def test_a_newer_schema_is_left_byte_for_byte_untouched_by_every_command(tmp_path: Path) -> None:
    template = build(SCHEMA_VERSION, tmp_path / "template.db")
    newer = SCHEMA_VERSION + 1
    with closing(sqlite3.connect(template)) as connection:
        connection.execute(f"PRAGMA user_version = {newer}")
    importing = tmp_path / "import.json"
    importing.write_text(json.dumps([{"anti_pattern": "a", "correct_pattern": "b", "regex": "x"}]))
    original = tmp_path / "original.db"  # the original Cortex's database, to import from
    with closing(sqlite3.connect(original)) as connection:
        connection.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        connection.execute("INSERT INTO schema_version VALUES (2)")
    jobs: list[tuple[str, Path, Any]] = []
    cases: list[tuple[str, ...] | str] = [*NEWER_COMMANDS, ("doctor",), *NEWER_HOOKS]
    for number, args in enumerate(cases):
        directory = tmp_path / f"case{number}"
        directory.mkdir()
        shutil.copyfile(template, directory / "cortex.db")
        jobs.append((" ".join(args) if isinstance(args, tuple) else args, directory, args))
    before = {directory: tree(directory) for _, directory, _ in jobs}

    def execute(job: tuple[str, Path, Any]) -> Result:
        _, directory, args = job
        env = {"CORTEX_DB": str(directory / "cortex.db")}
        if isinstance(args, str):  # a hook
            return run(args, stdin=NEWER_HOOKS[args], env=env, cwd=directory)
        given = {"{import}": str(importing), "{cortex}": str(original)}
        return cli(*(given.get(arg, arg) for arg in args), env=env, cwd=directory)

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(execute, jobs))
    failures = []
    for (what, directory, _), result in zip(jobs, results, strict=True):
        if tree(directory) != before[directory]:
            failures.append(f"{what}: changed the files: {sorted(tree(directory))}")
        said_ = result.stdout + result.stderr
        if what == "doctor":
            if result.code != 1 or "upgrade" not in said_ or str(newer) not in said_:
                failures.append(f"{what}: exit {result.code}, does not say to upgrade: {said_!r}")
            continue
        lines = result.stderr.splitlines()
        if (
            result.code != 1
            or result.stdout
            or len(lines) != 1
            or str(newer) not in lines[0]
            or "newer" not in lines[0]
        ):
            failures.append(f"{what}: exit {result.code}, stdout {result.stdout!r}, stderr {result.stderr!r}")
    assert not failures, "\n".join(failures)


def test_strict_is_supported_by_this_sqlite() -> None:
    """STRICT tables need SQLite 3.37 (2021); Python 3.11 bundles it or newer where it bundles one."""
    assert sqlite3.sqlite_version_info >= (3, 37), sqlite3.sqlite_version
    assert sys.version_info >= (3, 11)
