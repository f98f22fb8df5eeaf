"""End to end: the failure policy of the three hooks and where they find the database."""

from __future__ import annotations

import json
import os
import random
import shutil
import sqlite3
import stat
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from support import Result, cli, cli_json, payload, reminder_unless_regex, run

PRE, START, END = "cortex-pre-tool-use", "cortex-session-start", "cortex-session-end"
FIXTURE = {PRE: "pre_tool_use.bash", START: "session_start.startup", END: "session_end.other"}
HOOKS = list(FIXTURE)


# --- helpers -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real database made by the CLI: learnings the PreToolUse fixture matches, one at the review
    threshold, one pinned, an ended session. Tests copy it instead of paying for the CLI each time."""
    path = tmp_path_factory.mktemp("template") / "cortex.db"
    db = f"--db={path}"
    for options in (
        ["--regex", r"rm\s+-rf", "--auto-block", "--anti-pattern", "rm -rf", "--correct", "trash"],
        ["--regex", r"echo\s+REMOVED", "--anti-pattern", "echo", "--correct", "printf"],
        ["--confidence", "0.40", "--anti-pattern", "stale", "--correct", "fresh"],
        ["--pin", "--anti-pattern", "pinned", "--correct", "kept"],
    ):
        result = cli("add", db, *reminder_unless_regex(options))
        assert result.code == 0, result.stderr
    ended = run(END, stdin=payload("session_end.other"), env={"CORTEX_DB": str(path)})
    assert ended.code == 0, ended.stderr
    return path


@pytest.fixture
def seeded(template: Path, db: Path) -> Path:
    shutil.copyfile(template, db)
    return db


def dump(path: Path) -> list[str]:
    with closing(sqlite3.connect(path)) as connection:
        return list(connection.iterdump())


def assert_one_line_failure(result: Result) -> None:
    """docs/internals/guarantees.md: exit 1, one `cortex-hooks` line on stderr, no traceback, nothing on
    stdout."""
    assert "Traceback" not in result.stderr, result.stderr
    assert result.code == 1, (result.code, result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("cortex-hooks"), lines[0]
    assert result.stdout == ""


def assert_silent_success(result: Result) -> None:
    assert (result.code, result.stdout, result.stderr) == (0, "", "")


def fixture_bytes(hook: str) -> bytes:
    return json.dumps(payload(FIXTURE[hook])).encode()


def learnings(db: Path) -> dict[int, dict[str, Any]]:
    return {int(record["id"]): record for record in cli_json("list", "--all", f"--db={db}")}


# --- bad stdin -----------------------------------------------------------------------------------

BAD_STDIN: dict[str, bytes] = {
    "empty": b"",
    "blank": b"  \n\t\n",
    "not-json": b"this is not json",
    "truncated-json": b'{"session_id": "abc", "hook_event_name": ',
    "array": b"[]",
    "object-array": b'[{"session_id": "abc", "hook_event_name": "SessionEnd"}]',
    "string": b'"PreToolUse"',
    "number": b"42",
    "null": b"null",
    "true": b"true",
    "nested-open": b"[" * 100_000,
    "nested-closed": b"[" * 100_000 + b"]" * 100_000,
    "nested-object": b'{"a":' * 100_000 + b"1" + b"}" * 100_000,
    "nul-bytes": b"\x00\x00\x00",
    "two-objects": b'{"session_id": "a"}\n{"session_id": "b"}',
}


def invalid_utf8(hook: str) -> bytes:
    text = fixture_bytes(hook)
    return text.replace(b'"session_id": "', b'"session_id": "\xff\xfe\xc3', 1)


@pytest.mark.parametrize("hook", HOOKS)
@pytest.mark.parametrize("name", list(BAD_STDIN))
def test_bad_stdin_is_one_line_and_exit_1(seeded: Path, hook: str, name: str) -> None:
    before_rows, before_bytes = dump(seeded), seeded.read_bytes()
    assert_one_line_failure(run(hook, stdin=BAD_STDIN[name]))
    assert seeded.read_bytes() == before_bytes
    assert dump(seeded) == before_rows


@pytest.mark.parametrize("hook", HOOKS)
def test_invalid_utf8_is_one_line_and_exit_1(seeded: Path, hook: str) -> None:
    before_rows, before_bytes = dump(seeded), seeded.read_bytes()
    data = invalid_utf8(hook)
    assert b"\xff\xfe" in data
    assert_one_line_failure(run(hook, stdin=data))
    assert seeded.read_bytes() == before_bytes
    assert dump(seeded) == before_rows


def _without(name: str, field: str) -> dict[str, Any]:
    data = payload(name)
    del data[field]
    return data


FIELD_ERRORS: list[tuple[str, dict[str, Any]]] = [
    (PRE, _without("pre_tool_use.bash", "tool_name")),
    (PRE, payload("pre_tool_use.bash", tool_name=None)),
    (PRE, payload("pre_tool_use.bash", tool_name=5)),
    (PRE, payload("pre_tool_use.bash", tool_name="")),
    (PRE, payload("pre_tool_use.bash", tool_name=["Bash"])),
    (PRE, _without("pre_tool_use.bash", "tool_input")),
    (PRE, payload("pre_tool_use.bash", tool_input="rm -rf /home/dev/proj/build")),
    (PRE, payload("pre_tool_use.bash", tool_input=None)),
    (PRE, payload("pre_tool_use.bash", tool_input=[{"command": "rm -rf /"}])),
    (START, _without("session_start.startup", "session_id")),
    (START, payload("session_start.startup", session_id="")),
    (START, payload("session_start.startup", session_id=5)),
    (START, payload("session_start.startup", session_id=None)),
    (START, payload("session_start.startup", session_id={"id": "x"})),
    (START, payload("session_start.startup", source=5)),
    (END, _without("session_end.other", "session_id")),
    (END, payload("session_end.other", session_id="")),
    (END, payload("session_end.other", session_id=5)),
    (END, payload("session_end.other", session_id=None)),
    (END, payload("session_end.other", session_id=["x"])),
    (END, payload("session_end.other", reason=5)),
    (END, payload("session_end.other", transcript_path=5)),
]


@pytest.mark.parametrize(
    ("hook", "data"), FIELD_ERRORS, ids=[f"{hook}-{n}" for n, (hook, _) in enumerate(FIELD_ERRORS)]
)
def test_missing_or_mistyped_fields_are_one_line_and_exit_1(
    seeded: Path, hook: str, data: dict[str, Any]
) -> None:
    before_rows, before_bytes = dump(seeded), seeded.read_bytes()
    assert_one_line_failure(run(hook, stdin=data))
    assert seeded.read_bytes() == before_bytes
    assert dump(seeded) == before_rows


OTHER_EVENTS = [
    (PRE, "post_tool_use.bash"),
    (PRE, "session_start.startup"),
    (PRE, "session_end.other"),
    (START, "session_end.other"),
    (START, "pre_tool_use.bash"),
    (END, "session_start.startup"),
    (END, "pre_tool_use.bash"),
    (END, "post_tool_use.bash"),
]


@pytest.mark.parametrize(("hook", "fixture"), OTHER_EVENTS)
def test_payload_of_another_event_is_one_line_and_exit_1(seeded: Path, hook: str, fixture: str) -> None:
    before_rows, before_bytes = dump(seeded), seeded.read_bytes()
    result = run(hook, stdin=payload(fixture))
    assert_one_line_failure(result)
    assert seeded.read_bytes() == before_bytes
    assert dump(seeded) == before_rows


@pytest.mark.parametrize("hook", HOOKS)
def test_unknown_payload_fields_are_ignored(seeded: Path, hook: str) -> None:
    """Claude Code adds fields release by release: they never make a hook fail."""
    data = payload(FIXTURE[hook], future_field={"nested": [1, 2, 3]}, agent_id="a1", effort=None)
    result = run(hook, stdin=data)
    assert result.code == 0, result.stderr
    assert "Traceback" not in result.stderr


# --- no database: hooks never create one ---------------------------------------------------------


@pytest.mark.parametrize("hook", HOOKS)
def test_no_database_is_silent_and_creates_nothing(
    hook: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = tmp_path / "absent" / "cortex.db"
    monkeypatch.setenv("CORTEX_DB", str(missing))
    assert_silent_success(run(hook, stdin=payload(FIXTURE[hook])))
    assert not missing.exists()
    assert not missing.parent.exists()


@pytest.mark.parametrize("hook", HOOKS)
def test_no_database_in_claude_project_dir_creates_no_cortex_dir(
    hook: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    project.mkdir()
    elsewhere.mkdir()
    monkeypatch.delenv("CORTEX_DB")
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(project))
    data = payload(FIXTURE[hook], cwd=str(elsewhere))
    assert_silent_success(run(hook, stdin=data, cwd=elsewhere))
    assert list(project.iterdir()) == []
    assert list(elsewhere.iterdir()) == []


@pytest.mark.parametrize("hook", HOOKS)
def test_no_database_in_payload_cwd_creates_no_cortex_dir(
    hook: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    project.mkdir()
    elsewhere.mkdir()
    monkeypatch.delenv("CORTEX_DB")
    data = payload(FIXTURE[hook], cwd=str(project))
    assert_silent_success(run(hook, stdin=data, cwd=elsewhere))
    assert list(project.iterdir()) == []
    assert list(elsewhere.iterdir()) == []


@pytest.mark.parametrize("hook", HOOKS)
def test_empty_file_is_not_turned_into_a_database(hook: str, db: Path) -> None:
    db.write_bytes(b"")
    result = run(hook, stdin=payload(FIXTURE[hook]))
    # an empty file is no database yet (the CLI may be making it): the hook has nothing to do
    assert (result.code, result.stdout, result.stderr) == (0, "", "")
    assert db.read_bytes() == b""


# --- unusable databases: reported, never touched -------------------------------------------------


def _random_bytes() -> bytes:
    return random.Random(20261122).randbytes(64 * 1024)


def _truncated(template: Path, db: Path) -> None:
    """A real database with many pages, cut in the middle of a page."""
    shutil.copyfile(template, db)
    records = [
        {
            "anti_pattern": f"filler {n} " + "f" * 500,
            "correct_pattern": "c" * 500,
            "regex": rf"rm\s+-rf\s+filler{n}|REMOVED",
        }
        for n in range(300)
    ]
    source = db.parent / "filler.json"
    source.write_text(json.dumps(records))
    assert cli("import", str(source), f"--db={db}").code == 0
    data = db.read_bytes()
    assert len(data) > 100_000
    db.write_bytes(data[: len(data) // 2 + 123])


def _newer_schema(template: Path, db: Path) -> None:
    shutil.copyfile(template, db)
    with closing(sqlite3.connect(db)) as connection:
        connection.execute("PRAGMA user_version = 99")


def _foreign_database(template: Path, db: Path) -> None:
    """An SQLite file of some other program, at user_version 0."""
    with closing(sqlite3.connect(db)) as connection:
        connection.execute("CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT)")
        connection.execute("INSERT INTO photos (name) VALUES ('cat.jpg')")
        connection.commit()


def _random(template: Path, db: Path) -> None:
    db.write_bytes(_random_bytes())


def _text_file(template: Path, db: Path) -> None:
    db.write_text("SQLite format 3 is what I am not\n" * 100)


def _header_only(template: Path, db: Path) -> None:
    """The first page of a real database and nothing else."""
    db.write_bytes(template.read_bytes()[:100])


UNUSABLE = {
    "random-bytes": _random,
    "text-file": _text_file,
    "header-only": _header_only,
    "truncated": _truncated,
    "newer-schema": _newer_schema,
    "foreign-database": _foreign_database,
}


@pytest.mark.parametrize("hook", HOOKS)
@pytest.mark.parametrize("kind", list(UNUSABLE))
def test_unusable_database_is_reported_and_left_byte_for_byte(
    template: Path, db: Path, hook: str, kind: str
) -> None:
    UNUSABLE[kind](template, db)
    before = db.read_bytes()
    mode = stat.S_IMODE(db.stat().st_mode)
    result = run(hook, stdin=payload(FIXTURE[hook]))
    assert_one_line_failure(result)
    assert db.read_bytes() == before
    assert stat.S_IMODE(db.stat().st_mode) == mode


@pytest.mark.parametrize("hook", HOOKS)
def test_newer_schema_is_named_in_the_message(template: Path, db: Path, hook: str) -> None:
    _newer_schema(template, db)
    result = run(hook, stdin=payload(FIXTURE[hook]))
    assert_one_line_failure(result)
    assert "99" in result.stderr


@pytest.mark.parametrize("hook", HOOKS)
def test_database_path_is_a_directory(db: Path, hook: str) -> None:
    db.mkdir()
    (db / "keep").write_text("x")
    result = run(hook, stdin=payload(FIXTURE[hook]))
    assert_one_line_failure(result)
    assert db.is_dir()
    assert [path.name for path in db.iterdir()] == ["keep"]


# --- a broken regex in the database --------------------------------------------------------------


def _break_regex(db: Path, learning_id: int, pattern: str) -> None:
    """Store a regex the CLI would refuse, behind its back."""
    with closing(sqlite3.connect(db)) as connection:
        connection.execute(
            "UPDATE learning SET regex = :regex WHERE id = :id", {"regex": pattern, "id": learning_id}
        )
        connection.commit()


def test_invalid_regex_in_the_database_is_skipped_and_others_still_decide(seeded: Path) -> None:
    broken = int(
        cli_json("add", "--anti-pattern", "broken", "--correct", "x", "--regex", r"rm -rf /home")["id"]
    )
    _break_regex(seeded, broken, r"rm -rf /home(")
    result = run(PRE, stdin=payload("pre_tool_use.bash"))
    assert result.code == 0, result.stderr
    specific = result.json()["hookSpecificOutput"]
    assert specific["permissionDecision"] == "deny"
    assert "#1" in specific["permissionDecisionReason"]
    assert "#2" in specific["additionalContext"]
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("cortex-hooks")
    assert f"#{broken}" in lines[0]
    records = learnings(seeded)
    assert records[broken]["access_count"] == 0
    assert records[broken]["confidence"] == 0.7
    assert records[1]["access_count"] == records[2]["access_count"] == 1


def test_invalid_regex_alone_is_one_line_exit_1_and_writes_nothing(db: Path) -> None:
    broken = int(
        cli_json("add", "--anti-pattern", "broken", "--correct", "x", "--regex", r"rm -rf /home")["id"]
    )
    _break_regex(db, broken, r"rm -rf /home[")
    before_rows, before_bytes = dump(db), db.read_bytes()
    result = run(PRE, stdin=payload("pre_tool_use.bash"))
    assert_one_line_failure(result)
    assert f"#{broken}" in result.stderr
    assert db.read_bytes() == before_bytes
    assert dump(db) == before_rows


# --- the clock and the configuration -------------------------------------------------------------


@pytest.mark.parametrize("hook", HOOKS)
@pytest.mark.parametrize("value", ["yesterday", "2026-13-45T99:00:00Z", "1700000000"])
def test_invalid_cortex_now_is_one_line_exit_1_and_writes_nothing(
    seeded: Path, hook: str, value: str
) -> None:
    """Exit 1, not 2: exit 2 from PreToolUse would block the tool call (docs/internals/guarantees.md)."""
    before_rows, before_bytes = dump(seeded), seeded.read_bytes()
    result = run(hook, stdin=payload(FIXTURE[hook]), env={"CORTEX_NOW": value})
    assert_one_line_failure(result)
    assert "CORTEX_NOW" in result.stderr
    assert seeded.read_bytes() == before_bytes
    assert dump(seeded) == before_rows


def test_invalid_config_is_reported_once_and_the_defaults_decide(seeded: Path) -> None:
    before = learnings(seeded)[1]["confidence"]
    (seeded.parent / "config.toml").write_text("[confidence]\nboost = 'a lot'\n[nonsense\n")
    result = run(PRE, stdin=payload("pre_tool_use.bash"))
    assert result.code == 0, result.stderr
    assert result.json()["hookSpecificOutput"]["permissionDecision"] == "deny"
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("cortex-hooks")
    assert "Traceback" not in result.stderr
    assert before == 0.69  # the template's session end decayed it once
    assert learnings(seeded)[1]["confidence"] == 0.79  # the default boost


# --- where the database is -------------------------------------------------------------


def _add_in(env: dict[str, str], *extra: str, cwd: Path | None = None) -> int:
    result = cli(
        "add",
        "--anti-pattern",
        "rm -rf",
        "--correct",
        "trash",
        "--regex",
        r"rm\s+-rf",
        "--auto-block",
        "--json",
        *extra,
        env=env,
        cwd=cwd,
    )
    assert result.code == 0, result.stderr
    return int(result.json()["id"])


def test_default_database_is_in_claude_project_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    project.mkdir()
    elsewhere.mkdir()
    monkeypatch.delenv("CORTEX_DB")
    env = {"CLAUDE_PROJECT_DIR": str(project)}
    lid = _add_in(env, cwd=elsewhere)
    database = project / ".cortex" / "cortex.db"
    assert database.is_file()
    assert (project / ".cortex" / ".gitignore").read_text().strip() == "*"
    assert stat.S_IMODE(database.stat().st_mode) == 0o600
    assert stat.S_IMODE((project / ".cortex").stat().st_mode) == 0o700

    data = payload("pre_tool_use.bash", cwd=str(elsewhere))
    result = run(PRE, stdin=data, env=env, cwd=elsewhere)
    assert result.code == 0, result.stderr
    assert result.json()["hookSpecificOutput"]["permissionDecision"] == "deny"
    ended = run(END, stdin=payload("session_end.other", cwd=str(elsewhere)), env=env, cwd=elsewhere)
    assert ended.code == 0, ended.stderr
    record = learnings(database)[lid]
    assert record["access_count"] == 1
    assert record["confidence"] == 0.79
    assert list(elsewhere.iterdir()) == []


def test_without_claude_project_dir_the_payload_cwd_is_the_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    project.mkdir()
    elsewhere.mkdir()
    monkeypatch.delenv("CORTEX_DB")
    database = project / ".cortex" / "cortex.db"
    lid = _add_in({}, f"--db={database}")
    data = payload("pre_tool_use.bash", cwd=str(project))
    result = run(PRE, stdin=data, cwd=elsewhere)
    assert result.code == 0, result.stderr
    assert result.json()["hookSpecificOutput"]["permissionDecision"] == "deny"
    start = run(START, stdin=payload("session_start.startup", cwd=str(project)), cwd=elsewhere)
    assert start.code == 0, start.stderr
    ended = run(END, stdin=payload("session_end.other", cwd=str(project)), cwd=elsewhere)
    assert ended.code == 0, ended.stderr
    record = learnings(database)[lid]
    assert record["access_count"] == 1
    assert record["confidence"] == 0.79
    assert list(elsewhere.iterdir()) == []


def test_claude_project_dir_wins_over_payload_cwd_and_cortex_db_over_both(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CORTEX_DB")
    named, cwd = tmp_path / "named", tmp_path / "cwd"
    explicit = tmp_path / "explicit.db"
    paths = {
        "named": named / ".cortex" / "cortex.db",
        "cwd": cwd / ".cortex" / "cortex.db",
        "explicit": explicit,
    }
    named.mkdir()  # a project: its .cortex/ is made, never the folders above it (cwd is there)
    ids = {name: _add_in({}, f"--db={path}") for name, path in paths.items()}
    data = payload("pre_tool_use.bash", cwd=str(cwd))

    assert run(PRE, stdin=data, env={"CLAUDE_PROJECT_DIR": str(named)}, cwd=tmp_path).code == 0
    counts = {name: learnings(path)[ids[name]]["access_count"] for name, path in paths.items()}
    assert counts == {"named": 1, "cwd": 0, "explicit": 0}

    both = {"CLAUDE_PROJECT_DIR": str(named), "CORTEX_DB": str(explicit)}
    assert run(PRE, stdin=data, env=both, cwd=tmp_path).code == 0
    counts = {name: learnings(path)[ids[name]]["access_count"] for name, path in paths.items()}
    assert counts == {"named": 1, "cwd": 0, "explicit": 1}

    assert run(PRE, stdin=data, cwd=tmp_path).code == 0
    counts = {name: learnings(path)[ids[name]]["access_count"] for name, path in paths.items()}
    assert counts == {"named": 1, "cwd": 1, "explicit": 1}


def test_database_created_by_the_cli_is_private(db: Path) -> None:
    cli_json("add", "--no-regex", "--anti-pattern", "a", "--correct", "b")
    assert stat.S_IMODE(db.stat().st_mode) == 0o600
    assert os.access(db, os.R_OK)
