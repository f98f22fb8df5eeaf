"""Schema migration of real database files by the installed commands and hooks (SPEC §4.4, STYLE).

The version-1 database is tests/fixtures/schemas/v1.sql, frozen SQL as the first release created it
(shared with test_schema_history), so this test keeps building the OLD database whatever the code's
migrations become.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import subprocess
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from support import FIXTURES, Result, cli, cli_json, payload, run, script

from cortex_hooks.guard import prefilter
from cortex_hooks.store.connection import SCHEMA_VERSION

# The first release's schema and realistic rows, frozen by hand: the one copy of version 1 (the
# schema history test migrates the same file).
V1 = FIXTURES / "schemas" / "v1.sql"
NOW = "2026-06-01T10:00:00Z"
V1_COLUMNS = (  # confidence: a column of learning until version 5, then a table of its own
    "id, anti_pattern, correct_pattern, regex, tool, target, severity, auto_block, pinned, {confidence}, "
    "access_count, last_accessed, created_at, updated_at, archived_at, context"
)
MOVED_CONFIDENCE = "(SELECT c.confidence FROM learning_confidence AS c WHERE c.learning_id = learning.id)"
NEW_TABLES = {"decision", "error", "todo"}


def build(path: Path, version: int = 1) -> dict[str, Any]:
    """A database as the first release left it, then stamped with `version`; its contents."""
    with closing(sqlite3.connect(path)) as connection:
        connection.executescript(V1.read_text(encoding="utf-8"))
        connection.execute(f"PRAGMA user_version = {version}")
    original = contents(path)
    assert original["version"] == version
    assert len(original["learning"]) >= 3, "v1.sql lost its rows"
    assert len(original["session"]) >= 2, "v1.sql lost its rows"
    return original


def contents(path: Path) -> dict[str, Any]:
    """The version, the tables, and the rows of the version-1 tables."""
    with closing(sqlite3.connect(path)) as connection:
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        return {
            "version": connection.execute("PRAGMA user_version").fetchone()[0],
            "tables": tables,
            # the version-1 columns: later versions may add columns, never change these
            "learning": connection.execute(
                f"SELECT {V1_COLUMNS} FROM learning ORDER BY id".format(
                    confidence=MOVED_CONFIDENCE if "learning_confidence" in tables else "confidence"
                )
            ).fetchall(),
            "learning_key": connection.execute(
                "SELECT key, learning_id FROM learning_key ORDER BY 1, 2"
            ).fetchall(),
            "session": connection.execute("SELECT * FROM session ORDER BY id").fetchall(),
        }


def assert_migrated(path: Path, original: dict[str, Any]) -> None:
    after = contents(path)
    assert after["version"] == SCHEMA_VERSION
    assert after["version"] > 1
    assert after["tables"] >= {"learning", "learning_key", "session"} | NEW_TABLES
    assert after["learning"] == original["learning"]
    # prefilter keys are derived data: the migration derives them anew from each regex
    derived = sorted(
        (key, row[0]) for row in original["learning"] if row[3] for key in prefilter.keys(row[3], row[5])
    )
    assert derived != original["learning_key"]  # v1.sql holds keys in the format of its time
    assert after["learning_key"] == derived
    assert after["session"] == original["session"]
    assert keys_with_another_tool(path) == []


def keys_with_another_tool(path: Path) -> list[Any]:
    """Prefilter keys whose copy of the tool matcher (version 13) is not their learning's."""
    with closing(sqlite3.connect(path)) as connection:
        return connection.execute(
            """SELECT k.key, k.learning_id, k.tool, l.tool FROM learning_key AS k
               LEFT JOIN learning AS l ON l.id = k.learning_id WHERE k.tool IS NOT l.tool"""
        ).fetchall()


# --- version 1 -> current -------------------------------------------------------------------------


def test_a_command_migrates_version_1_and_keeps_every_row(db: Path) -> None:
    original = build(db)
    listed = cli_json("list", "--all", env={"CORTEX_NOW": NOW})
    assert_migrated(db, original)
    assert [row["id"] for row in listed] == [1, 2, 3, 4, 5, 6]
    first = listed[0]
    assert (first["auto_block"], first["pinned"], first["confidence"]) == (True, False, 0.64)
    assert first["context"] == "lost a colleague's commits on main"
    assert listed[2]["archived_at"] == "2025-02-20T09:00:00Z"

    sessions = {row["id"]: row for row in cli_json("sessions", "list")}
    assert sessions["0b6f4c1e-release"]["key_changes"] == [
        {"file": "scripts/release.sh", "action": "Edit"},
        {"file": "CHANGELOG.md", "action": "Write"},
    ]
    assert sessions["7d1e2f3a-open"]["ended_at"] is None
    decision = cli_json("decisions", "add", "--title", "After the upgrade", "--reasoning", "works")
    assert decision["id"] == 1  # the new tables are there and usable
    assert_migrated(db, original)


def test_a_hook_migrates_version_1_and_keeps_every_row(db: Path) -> None:
    original = build(db)
    result = run("cortex-pre-tool-use", stdin=payload("pre_tool_use.bash"), env={"CORTEX_NOW": NOW})
    assert result.code == 0, result.stderr
    assert (result.stdout, result.stderr) == ("", "")  # no match: nothing said, nothing written
    assert_migrated(db, original)

    # The old learning still works after the upgrade: a force push is denied by it.
    push = payload("pre_tool_use.bash", tool_input={"command": "git push --force origin main"})
    denied = run("cortex-pre-tool-use", stdin=push, env={"CORTEX_NOW": NOW})
    assert denied.code == 0, denied.stderr
    assert denied.json()["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_concurrent_first_opens_migrate_once_without_errors(db: Path) -> None:
    original = build(db)
    commands = [
        [script("cortex-hooks"), "list", "--json"],
        [script("cortex-hooks"), "stats", "--json"],
        [script("cortex-hooks"), "decisions", "add", "--title", "A", "--reasoning", "r"],
        [script("cortex-hooks"), "todos", "add", "--text", "B"],
        [script("cortex-hooks"), "sessions", "list", "--json"],
        [script("cortex-pre-tool-use")],
        [script("cortex-pre-tool-use")],
        [script("cortex-hooks"), "errors", "add", "--message", "C"],
    ]
    stdin = json.dumps(payload("pre_tool_use.bash")).encode()
    processes = [
        subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for command in commands
    ]
    outcomes = [process.communicate(stdin, timeout=60) for process in processes]
    told = f"cortex-hooks: upgraded the database {db} from schema version 1 to ".encode()
    upgrades = 0
    for command, process, (_, stderr) in zip(commands, processes, outcomes, strict=True):
        assert process.returncode == 0, (command, stderr)
        upgrades += stderr != b""
        assert stderr == b"" or (stderr.startswith(told) and stderr.count(b"\n") == 1), (command, stderr)
    assert upgrades <= 1  # one process migrated (said by a command; a PreToolUse says nothing)
    assert_migrated(db, original)
    memory = cli("export").json()
    assert [len(memory[kind]) for kind in ("decisions", "todos", "errors")] == [1, 1, 1]


# --- a newer schema -------------------------------------------------------------------------------


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def refused(result: Result, what: str) -> None:
    """Exit 1 (SPEC §2.1 "anything else", §4.4 a hook's failure), one line naming the version."""
    assert result.code == 1, (what, result.code, result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 1, (what, result.stderr)
    assert lines[0].startswith("cortex-hooks"), (what, result.stderr)
    assert "99" in lines[0], (what, result.stderr)  # says which version it found
    assert result.stdout == "", what


@pytest.fixture
def newer(db: Path, tmp_path: Path) -> Path:
    build(db, version=99)
    return db


def test_a_newer_schema_is_refused_by_every_command_and_hook(newer: Path, tmp_path: Path) -> None:
    source = tmp_path / "import.json"
    source.write_text(json.dumps([{"anti_pattern": "a", "correct_pattern": "b", "tool": "Bash"}]))
    before = digest(newer), sorted(path.name for path in newer.parent.iterdir())
    commands = [
        ("list",), ("list", "--all"), ("list", "--review"), ("show", "1"),
        ("add", "--no-regex", "--anti-pattern", "a", "--correct", "b"), ("update", "1", "--context", "x"),
        ("pin", "2"), ("unpin", "2"), ("keep", "1"), ("archive", "1"), ("restore", "3"),
        ("prune",), ("prune", "--dry-run"), ("stats",), ("snapshot",), ("sessions", "list"),
        ("export",), ("import", str(source)),
        ("decisions", "add", "--title", "t", "--reasoning", "r"), ("decisions", "list"),
        ("decisions", "show", "1"), ("errors", "add", "--message", "m"), ("errors", "list"),
        ("todos", "add", "--text", "t"), ("todos", "list"), ("todos", "done", "1"),
        ("explain", "--tool", "Bash", "--command", "git push --force"),
    ]  # fmt: skip
    hooks = [
        ("cortex-pre-tool-use", "pre_tool_use.bash"),
        ("cortex-session-start", "session_start.startup"),
        ("cortex-session-end", "session_end.other"),
    ]

    def command(args: tuple[str, ...]) -> tuple[str, Result]:
        # in-process, but list, add and import through the installed script, as the shell sees them
        return " ".join(args), cli(*args, process=args[0] in {"list", "add", "import"})

    def hook(spec: tuple[str, str]) -> tuple[str, Result]:
        return spec[0], run(spec[0], stdin=payload(spec[1]))

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = [*pool.map(command, commands), *pool.map(hook, hooks)]
    for what, result in results:
        refused(result, what)
    assert (digest(newer), sorted(path.name for path in newer.parent.iterdir())) == before


# --- version 8 (memories, before consolidation) -> current ----------------------------------------


def _version_8(path: Path) -> None:
    """A database at schema 8 as that code left it: two near-duplicate memories and an edge."""
    from cortex_hooks.store import schema

    with closing(sqlite3.connect(path, isolation_level=None)) as connection:
        connection.execute("BEGIN")
        for statements in schema.MIGRATIONS[:8]:
            for statement in statements:
                assert isinstance(statement, str)  # the early versions are SQL only
                connection.execute(statement)
        connection.executemany(
            """INSERT INTO memory (type, content, summary, priority, confidence, source, created_at,
                   updated_at, confirmed_at) VALUES ('context', :c, :c, 5, 70, 'explicit', :t, :t, :t)""",
            [{"c": "the api listens on port 8080", "t": NOW}] * 2,
        )
        connection.execute("INSERT INTO edge VALUES (2, 1, 'relates_to', 1.0, :t)", {"t": NOW})
        connection.execute("PRAGMA user_version = 8")
        connection.execute("COMMIT")


def test_version_8_gains_consolidation_and_keeps_its_memories_and_edges(db: Path) -> None:
    _version_8(db)
    kept = """SELECT id, type, content, summary, priority, confidence, created_at, in_degree
        FROM memory ORDER BY id"""
    with closing(sqlite3.connect(db)) as connection:
        before = connection.execute(kept).fetchall()
    assert [row[-1] for row in before] == [1, 0]
    shown = cli_json("memories", "show", "2")
    assert shown["edges"] == [{"type": "relates_to", "from": 2, "to": 1, "strength": 1.0}]
    with closing(sqlite3.connect(db)) as connection:
        assert connection.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
        assert connection.execute(kept).fetchall() == before
        assert connection.execute("SELECT count(*) FROM consolidation_flag").fetchone() == (0,)
    # pairs stored before version 9 were never flagged: consolidate has nothing to merge, and the
    # next memory stored is flagged with both
    assert cli_json("consolidate", "--json")["merges"] == []
    cli_json("remember", "the api listens on port 8080")
    assert len(cli_json("consolidate", "--dry-run", "--json")["flagged"]) == 2


# --- version 10 -> 11: the vectors of semantic recall (SPEC §12) ------------------------------


def test_version_10_gains_the_vector_table_and_keeps_every_memory(db: Path) -> None:
    from cortex_hooks.store.schema import MIGRATIONS

    with closing(sqlite3.connect(db)) as connection:  # a database as version 10 left it
        for statements in MIGRATIONS[:10]:
            for statement in statements:
                assert isinstance(statement, str)  # the early versions are SQL only
                connection.execute(statement)
        connection.execute("PRAGMA user_version = 10")
        connection.commit()
    assert cli("remember", "Deploys go to eu-west-1").code == 0  # migrates first
    with closing(sqlite3.connect(db)) as connection:
        assert connection.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION >= 11
        assert connection.execute("SELECT id, content FROM memory").fetchall() == [
            (1, "Deploys go to eu-west-1")
        ]
        # the triggers of version 11: a changed text or a deleted item drops its vectors
        for item in (1, 2):
            connection.execute(
                "INSERT INTO vector (kind, item_id, model, data) VALUES (1, :item, 'm', x'00')",
                {"item": item},
            )
        connection.execute("UPDATE memory SET pinned = 1 WHERE id = 1")
        assert connection.execute("SELECT count(*) FROM vector").fetchone()[0] == 2
        connection.execute("UPDATE memory SET summary = 'Deploys' WHERE id = 1")
        assert connection.execute("SELECT item_id FROM vector").fetchall() == [(2,)]


# --- version 12 -> 13: each prefilter key carries its learning's tool matcher ---------------------

V12_LEARNINGS = [  # (tool, regex, target, auto_block, archived_at)
    ("Bash", r"git\s+push\s+--force", "content", 1, None),
    ("Edit|Write", r"datetime\.now\(\)", "content", 0, None),
    ("mcp__jira__.*", r"[A-Z]{2,}-\d+", "input", 1, None),
    ("*", r"\.env$", "path", 1, None),
    ("Bash", r"sudo pip", "content", 1, "2026-05-01T00:00:00Z"),
]


def _version_12(path: Path) -> None:
    """A database at schema 12 as that code left it: learnings and their keys without the tool."""
    from cortex_hooks.store import schema

    with closing(sqlite3.connect(path, isolation_level=None)) as connection:
        connection.execute("BEGIN")
        for statements in schema.MIGRATIONS[:12]:
            for statement in statements:
                assert isinstance(statement, str)  # the early versions are SQL only
                connection.execute(statement)
        for number, (tool, regex, target, auto_block, archived_at) in enumerate(V12_LEARNINGS, 1):
            connection.execute(
                """INSERT INTO learning (id, anti_pattern, correct_pattern, regex, tool, target, auto_block,
                       created_at, updated_at, archived_at, literals)
                   VALUES (:id, :anti, 'do not', :regex, :tool, :target, :auto_block, :now, :now,
                       :archived_at, :literals)""",
                {"id": number, "anti": f"anti {number}", "regex": regex, "tool": tool, "target": target,
                 "auto_block": auto_block, "now": NOW, "archived_at": archived_at,
                 "literals": prefilter.literals(regex)},
            )  # fmt: skip
            connection.execute("INSERT INTO learning_confidence VALUES (:id, 80)", {"id": number})
            connection.executemany(
                "INSERT INTO learning_key (key, learning_id) VALUES (:key, :id)",
                [{"key": key, "id": number} for key in prefilter.keys(regex, target)],
            )
        connection.execute("PRAGMA user_version = 12")
        connection.execute("COMMIT")


def test_version_12_keys_gain_their_learnings_tool_and_nothing_is_lost(db: Path) -> None:
    _version_12(db)
    every = "SELECT * FROM learning ORDER BY id"
    with closing(sqlite3.connect(db)) as connection:
        connection.row_factory = sqlite3.Row
        learnings_before = [dict(row) for row in connection.execute(every)]
        connection.row_factory = None
        keys_before = connection.execute("SELECT key, learning_id FROM learning_key ORDER BY 1, 2").fetchall()
        confidence_before = connection.execute("SELECT * FROM learning_confidence").fetchall()
    assert len(keys_before) >= len(V12_LEARNINGS)

    quiet = run("cortex-pre-tool-use", stdin=payload("pre_tool_use.bash"), env={"CORTEX_NOW": NOW})
    assert (quiet.code, quiet.stdout, quiet.stderr) == (0, "", "")  # the hook migrated, matched nothing

    with closing(sqlite3.connect(db)) as connection:
        assert connection.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
        # later versions add columns (slug, pack, muted; action, whose `auto_block` is computed
        # from it): what was there is unchanged, column by column
        connection.row_factory = sqlite3.Row
        after = [dict(row) for row in connection.execute(every)]
        connection.row_factory = None
        assert [{name: row[name] for name in learnings_before[0]} for row in after] == learnings_before
        assert connection.execute("SELECT * FROM learning_confidence").fetchall() == confidence_before
        keys_after = connection.execute("SELECT key, learning_id FROM learning_key ORDER BY 1, 2").fetchall()
        tools = dict(connection.execute("SELECT DISTINCT learning_id, tool FROM learning_key").fetchall())
    assert keys_after == keys_before
    assert tools == {number: learning[0] for number, learning in enumerate(V12_LEARNINGS, 1)}
    assert keys_with_another_tool(db) == []
    # each learning decides the calls its matcher accepts, and only those
    edit = {"file_path": "/p/t.py", "old_string": "x", "new_string": "t = datetime.now()"}
    calls = [
        ("mcp__jira__get_issue", {"issue": "OPS-12"}, "learning #3 "),
        ("mcp__slack__post", {"issue": "OPS-12"}, None),
        ("Bash", {"command": "git push --force origin main"}, "learning #1 "),
        ("Edit", edit, "learning #2 "),
        ("Bash", {"command": "python -c 't = datetime.now()'"}, None),
    ]
    for tool_name, tool_input, named in calls:
        call = payload("pre_tool_use.bash", tool_name=tool_name, tool_input=tool_input)
        result = run("cortex-pre-tool-use", stdin=call)
        assert result.code == 0, result.stderr
        assert (named in result.stdout) if named else result.stdout == "", (tool_name, result.stdout)
