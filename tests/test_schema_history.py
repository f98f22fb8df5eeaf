"""Schema history (issue 5, item 6): a database of every released schema version, migrated forward.

tests/fixtures/schemas/vN.sql are frozen, hand-written SQL of each released version with realistic
rows in every table. They are never generated from the code, so a change to the migrations that
breaks an old database fails here. A database of a newer version is refused by every command and
hook, byte for byte untouched.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from support import FIXTURES, Result, cli, payload, run

from cortex_hooks.store.connection import SCHEMA_VERSION

SCHEMAS = FIXTURES / "schemas"
RELEASED = (1, 2, 3)
# The tables and columns a user's data lives in, per released version; derived data (the
# prefilter's learning_key rows and learning.literals) is recomputed, so it is not in here.
V1_TABLES = {"learning", "learning_key", "session"}
TABLES = {
    1: V1_TABLES,
    2: V1_TABLES | {"decision", "error", "todo"},
    3: V1_TABLES | {"decision", "error", "todo"},
}
DERIVED_TABLES = {"learning_key"}
DERIVED_COLUMNS = {"learning": {"literals"}}

FORCE_PUSH = payload("pre_tool_use.bash", tool_input={"command": "git push --force origin main"})
# One tool call per active learning with a regex in the fixtures, and the decision it must get.
MATCHING_CALLS: dict[int, tuple[dict[str, Any], str]] = {
    1: (FORCE_PUSH, "deny"),  # auto-block at 0.64
    4: (
        payload(
            "pre_tool_use.bash", tool_name="Write", tool_input={"file_path": "/p/.env", "content": "A=1"}
        ),
        "deny",  # a path learning, auto-block and pinned at 0.90
    ),
    5: (
        payload(
            "pre_tool_use.bash",
            tool_input={"command": "make", "dangerouslyDisableSandbox": True},
        ),
        "warn",  # an input learning
    ),
    6: (
        payload(
            "pre_tool_use.bash",
            tool_name="Edit",
            tool_input={"file_path": "/p/t.py", "old_string": "x", "new_string": "t = datetime.now()"},
        ),
        "warn",
    ),
}
ARCHIVED_CALL = payload("pre_tool_use.bash", tool_input={"command": "sudo pip install requests"})
NO_MATCH_CALL = payload("pre_tool_use.bash", tool_input={"command": "ls -la"})


def build(version: int, path: Path) -> Path:
    """A database file from the frozen SQL of one released version (test code: executescript is fine)."""
    with closing(sqlite3.connect(path)) as connection:
        connection.executescript((SCHEMAS / f"v{version}.sql").read_text(encoding="utf-8"))
    return path


def user_version(path: Path) -> int:
    with closing(sqlite3.connect(path)) as connection:
        version: int = connection.execute("PRAGMA user_version").fetchone()[0]
        return version


def columns(connection: sqlite3.Connection, table: str) -> list[str]:
    return [row[1] for row in connection.execute(f"PRAGMA table_info({table})")]


def shape_of(version: int, tmp_path: Path) -> dict[str, list[str]]:
    path = build(version, tmp_path / f"shape-v{version}.db")
    with closing(sqlite3.connect(path)) as connection:
        return {
            table: [c for c in columns(connection, table) if c not in DERIVED_COLUMNS.get(table, set())]
            for table in sorted(TABLES[version] - DERIVED_TABLES)
        }


# Columns a later version moved to a table of their own, read where they now live.
MOVED = {
    ("learning", "confidence"): "learning_confidence",  # version 5
}


def rows_in(path: Path, shape: dict[str, list[str]]) -> dict[str, list[tuple[Any, ...]]]:
    with closing(sqlite3.connect(path)) as connection:
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")}

        def read(table: str, name: str) -> str:
            home = MOVED.get((table, name))
            if home in tables:
                return f"(SELECT m.{name} FROM {home} AS m WHERE m.{table}_id = {table}.id)"
            return name

        return {
            table: connection.execute(
                f"SELECT {', '.join(read(table, name) for name in names)} FROM {table} ORDER BY 1"
            ).fetchall()
            for table, names in shape.items()
        }


def health(path: Path) -> tuple[str, list[Any]]:
    with closing(sqlite3.connect(path)) as connection:
        integrity = connection.execute("PRAGMA integrity_check").fetchone()[0]
        foreign = connection.execute("PRAGMA foreign_key_check").fetchall()
        return integrity, foreign


def decision_of(result: Result) -> str:
    assert result.code == 0, result.stderr
    if not result.stdout.strip():
        return "none"
    output = result.json()["hookSpecificOutput"]
    return "deny" if output.get("permissionDecision") == "deny" else "warn"


# --- the fixtures are what they claim to be -------------------------------------------------------


@pytest.mark.parametrize("version", RELEASED)
def test_fixture_is_a_realistic_database_of_its_version(version: int, tmp_path: Path) -> None:
    path = build(version, tmp_path / "fixture.db")
    assert user_version(path) == version
    with closing(sqlite3.connect(path)) as connection:
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        assert tables == TABLES[version]
        for table in tables:
            assert connection.execute(f"SELECT count(*) FROM {table}").fetchone()[0] >= 1, table
        flags = connection.execute(
            "SELECT sum(archived_at IS NOT NULL), sum(pinned), sum(auto_block), sum(regex IS NULL) "
            "FROM learning"
        ).fetchone()
        assert all(flags), flags  # archived, pinned, auto-block and regex-less learnings are there
        changes = [json.loads(row[0]) for row in connection.execute("SELECT key_changes FROM session")]
        assert any(changes), "a session with key changes"
        if version >= 2:
            superseded = connection.execute("SELECT count(*) FROM decision WHERE superseded_by IS NOT NULL")
            assert superseded.fetchone()[0] >= 1
        assert ("literals" in columns(connection, "learning")) == (version >= 3)
    assert health(path) == ("ok", [])


# --- every released version migrates forward -----------------------------------------------------


def assert_migrated(path: Path, version: int, before: dict[str, list[tuple[Any, ...]]], shape: Any) -> None:
    assert user_version(path) == SCHEMA_VERSION
    assert rows_in(path, shape) == before  # every user row, every column that version had
    assert health(path) == ("ok", [])
    with closing(sqlite3.connect(path)) as connection:
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        assert tables >= TABLES[RELEASED[-1]]
        regexes = connection.execute(
            "SELECT id, literals FROM learning WHERE regex IS NOT NULL ORDER BY id"
        ).fetchall()
        keys = connection.execute("SELECT learning_id, key FROM learning_key").fetchall()
        # version 13: every key carries its learning's tool matcher
        other_tool = connection.execute(
            """SELECT k.learning_id, k.tool, l.tool FROM learning_key AS k
               LEFT JOIN learning AS l ON l.id = k.learning_id WHERE k.tool IS NOT l.tool"""
        ).fetchall()
    assert other_tool == []
    # derived data recomputed: every regex has its literals, and no key of an older format is left
    assert all(literals for _, literals in regexes), regexes
    assert {learning for learning, _ in keys} >= {learning for learning, _ in regexes}
    assert all(key[1] in "=~*" for _, key in keys), keys


@pytest.mark.parametrize("version", RELEASED)
def test_a_cli_command_migrates_every_released_version(version: int, tmp_path: Path) -> None:
    shape = shape_of(version, tmp_path)
    path = build(version, tmp_path / "cortex.db")
    before = rows_in(path, shape)

    result = cli("list", "--all", "--json", env={"CORTEX_DB": str(path)})

    assert result.code == 0, result.stderr
    assert_migrated(path, version, before, shape)
    listed = {row["id"]: row for row in result.json()}
    learning_columns = shape["learning"]
    for row in before["learning"]:
        values = dict(zip(learning_columns, row, strict=True))
        shown = listed[values["id"]]
        assert shown["anti_pattern"] == values["anti_pattern"]
        assert shown["regex"] == values["regex"]
        assert shown["context"] == values["context"]
        assert round(shown["confidence"] * 100) == values["confidence"]
        assert shown["auto_block"] is bool(values["auto_block"])
        assert shown["pinned"] is bool(values["pinned"])
        assert shown["archived_at"] == values["archived_at"]
        assert shown["access_count"] == values["access_count"]


@pytest.mark.parametrize("version", RELEASED)
def test_a_hook_migrates_every_released_version_and_its_learnings_still_match(
    version: int, tmp_path: Path
) -> None:
    shape = shape_of(version, tmp_path)
    path = build(version, tmp_path / "cortex.db")
    before = rows_in(path, shape)
    env = {"CORTEX_DB": str(path)}

    quiet = run("cortex-pre-tool-use", stdin=NO_MATCH_CALL, env=env)
    assert (quiet.code, quiet.stdout, quiet.stderr) == (0, "", "")
    assert_migrated(path, version, before, shape)

    # The prefilter data was derived anew: each learning with a regex matches through the hook
    # (the fixtures' v1/v2 keys would let none of learnings 1 and 4 through), an archived one never.
    archived = run("cortex-pre-tool-use", stdin=ARCHIVED_CALL, env=env)
    assert decision_of(archived) == "none"
    for learning, (call, expected) in MATCHING_CALLS.items():
        result = run("cortex-pre-tool-use", stdin=call, env=env)
        assert decision_of(result) == expected, (learning, result.stdout, result.stderr)
        assert f"learning #{learning} " in result.stdout
    assert health(path) == ("ok", [])


# --- a newer schema is left untouched by everything -----------------------------------------------


def tree(directory: Path) -> dict[str, str]:
    return {
        name: hashlib.sha256((directory / name).read_bytes()).hexdigest() for name in os.listdir(directory)
    }


NEWER_COMMANDS: list[tuple[str, ...]] = [
    ("add", "--anti-pattern", "a", "--correct", "b", "--regex", "x"),
    ("list",), ("list", "--all", "--json"), ("list", "--review"),
    ("show", "1", "--json"), ("update", "1", "--context", "x"),
    ("pin", "1"), ("unpin", "4"), ("keep", "6"), ("archive", "1"), ("restore", "3"),
    ("prune",), ("prune", "--dry-run", "--json"), ("stats", "--json"), ("snapshot",),
    ("decisions", "add", "--title", "t", "--reasoning", "r"), ("decisions", "list"),
    ("decisions", "show", "2"), ("decisions", "archive", "2"), ("decisions", "restore", "3"),
    ("errors", "add", "--message", "m"), ("errors", "list"), ("errors", "show", "1"),
    ("errors", "archive", "1"), ("errors", "restore", "2"),
    ("todos", "add", "--text", "t"), ("todos", "list"), ("todos", "show", "1"),
    ("todos", "archive", "1"), ("todos", "restore", "3"), ("todos", "done", "1"),
    ("sessions", "list", "--json"), ("export",),
    ("import", "{import}"),
    ("explain", "--tool", "Bash", "--command", "git push --force"),
]  # fmt: skip
NEWER_HOOKS = {
    "cortex-pre-tool-use": FORCE_PUSH,
    "cortex-session-start": payload("session_start.startup"),
    "cortex-session-end": payload("session_end.other"),
}


def test_a_newer_schema_is_left_byte_for_byte_untouched_by_every_command(tmp_path: Path) -> None:
    template = build(3, tmp_path / "template.db")
    newer = SCHEMA_VERSION + 1
    with closing(sqlite3.connect(template)) as connection:
        connection.execute(f"PRAGMA user_version = {newer}")
    importing = tmp_path / "import.json"
    importing.write_text(json.dumps([{"anti_pattern": "a", "correct_pattern": "b", "regex": "x"}]))
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
        args = tuple(str(importing) if arg == "{import}" else arg for arg in args)
        return cli(*args, env=env, cwd=directory)

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(execute, jobs))

    failures = []
    for (what, directory, _), result in zip(jobs, results, strict=True):
        if tree(directory) != before[directory]:
            failures.append(f"{what}: changed the files: {sorted(tree(directory))}")
        if what.startswith("doctor"):
            said = result.stdout + result.stderr
            if result.code != 1 or "upgrade" not in said or str(newer) not in said:
                failures.append(f"{what}: exit {result.code}, does not say to upgrade: {said!r}")
            continue
        lines = result.stderr.splitlines()
        if (
            result.code != 1  # SPEC §2.1 "anything else"; for a hook, exit 2 would block the tool call
            or result.stdout
            or len(lines) != 1
            or not lines[0].startswith("cortex-hooks")
            or str(newer) not in lines[0]
            or "newer" not in lines[0]
        ):
            failures.append(f"{what}: exit {result.code}, stdout {result.stdout!r}, stderr {result.stderr!r}")
    assert not failures, "\n".join(failures)
