"""Files: private creation, read-only and full file systems, wrong kinds of file, links.

Read-only and full file systems are real: a small tmpfs mounted for the test (root ignores
permission bits, so a chmod would prove nothing), remounted read-only or filled to the last
byte. Where mounting is not permitted the test is skipped and says why.
"""

from __future__ import annotations

import errno
import json
import os
import sqlite3
import stat
import subprocess
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from support import FIXTURES, Result, cli, cli_json, payload, reminder_unless_regex, run

PRE, START, END = "cortex-pre-tool-use", "cortex-session-start", "cortex-session-end"
TRANSCRIPT = str(FIXTURES / "transcript.jsonl")
FIXTURE = {PRE: "pre_tool_use.bash", START: "session_start.startup", END: "session_end.other"}


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def dump(db: Path) -> list[str]:
    with closing(sqlite3.connect(db)) as connection:
        return list(connection.iterdump())


def integrity(db: Path) -> str:
    with closing(sqlite3.connect(db)) as connection:
        result: str = connection.execute("PRAGMA integrity_check").fetchone()[0]
        return result


def assert_one_line_error(result: Result, *, hook: bool) -> None:
    """docs/internals/guarantees.md and docs/reference/commands.md: one `cortex-hooks` line, no traceback,
    exit 1: a hook's failure, and for
    the CLI a file it cannot use is no invalid input (2) but "anything else"."""
    assert "Traceback" not in result.stderr, result.stderr
    assert result.code == 1, (result.code, result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("cortex-hooks"), result.stderr
    assert "internal error" not in result.stderr, result.stderr
    if hook:
        assert result.stdout == ""


def assert_says(result: Result, db: Path, *causes: str) -> None:
    """The line names the real cause, and never calls an intact database unusable (a user told
    that might delete it)."""
    line = result.stderr.replace(str(db.parent), "DIR").lower()
    assert any(cause in line for cause in causes), result.stderr
    assert "not a usable" not in line, result.stderr
    assert "corrupt" not in line, result.stderr


def add(*options: str, anti: str = "anti", env: dict[str, str] | None = None) -> Result:
    return cli(
        "add",
        "--anti-pattern",
        anti,
        "--correct",
        "c",
        "--json",
        *reminder_unless_regex(options),
        env=env,
        process=True,
    )


def with_umask(mask: int, work: Any) -> Any:
    old = os.umask(mask)
    try:
        return work()
    finally:
        os.umask(old)


# --- privacy --------------------------------------------------------------------------------------


@pytest.mark.parametrize("mask", [0o000, 0o022, 0o077], ids=["umask-000", "umask-022", "umask-077"])
def test_database_and_cortex_dir_are_private_whatever_the_umask(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mask: int
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.delenv("CORTEX_DB")
    env = {"CLAUDE_PROJECT_DIR": str(project)}
    result = with_umask(mask, lambda: add("--regex=rm", env=env))
    assert result.code == 0, result.stderr
    directory, database = project / ".cortex", project / ".cortex" / "cortex.db"
    assert (mode(directory), mode(database)) == (0o700, 0o600)
    assert (directory / ".gitignore").read_text().strip() == "*"
    # Later writes by the hooks (a WAL, a checkpoint) leave it private.
    ended = with_umask(mask, lambda: run(END, stdin=payload(FIXTURE[END]), env=env))
    assert ended.code == 0, ended.stderr
    assert (mode(directory), mode(database)) == (0o700, 0o600)
    for extra in directory.glob("cortex.db-*"):
        assert mode(extra) & 0o077 == 0, extra


@pytest.mark.parametrize("mask", [0o000, 0o077], ids=["umask-000", "umask-077"])
def test_cortex_db_in_a_missing_directory_hooks_do_nothing_and_the_cli_refuses_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mask: int
) -> None:
    """A folder named for a database is not made (a typo would leave a tree of folders):
    hooks do nothing, the CLI says which folder is missing; once it is there, the database is
    created private whatever the umask."""
    database = tmp_path / "missing" / "deeper" / "cortex.db"
    monkeypatch.setenv("CORTEX_DB", str(database))
    for hook, fixture in FIXTURE.items():
        result = with_umask(mask, lambda hook=hook, fixture=fixture: run(hook, stdin=payload(fixture)))
        assert (result.code, result.stdout, result.stderr) == (0, "", ""), hook
    assert not (tmp_path / "missing").exists()
    result = with_umask(mask, add)
    assert result.code == 2
    assert f"its folder {database.parent} does not exist" in result.stderr
    assert not (tmp_path / "missing").exists()
    database.parent.mkdir(parents=True)
    result = with_umask(mask, add)
    assert result.code == 0, result.stderr
    assert mode(database) == 0o600
    assert [r["anti_pattern"] for r in cli_json("list")] == ["anti"]


# --- read-only and full file systems --------------------------------------------------------------


@pytest.fixture
def tmpfs(tmp_path: Path) -> Iterator[Path]:
    """A fresh 4 MiB tmpfs, unmounted afterwards."""
    point = tmp_path / "mnt"
    point.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=4m,mode=0700", "tmpfs", str(point)],
        capture_output=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        yield point
    finally:
        subprocess.run(["umount", "-l", str(point)], check=False)


def remount(point: Path, option: str) -> None:
    subprocess.run(["mount", "-o", f"remount,{option}", str(point)], check=True)


def seed(db: Path, count: int) -> None:
    source = db.parent.parent / "seed.json"
    learnings = [
        {
            "anti_pattern": f"seed {n}",
            "correct_pattern": "c" * 100,
            "regex": rf"rm\s+-rf\s+seed{n}\b|rm\s+-rf",
        }
        for n in range(count)
    ]
    source.write_text(json.dumps(learnings))
    result = cli("import", str(source), f"--db={db}", process=True)
    assert result.code == 0, result.stderr


def test_a_database_on_a_read_only_file_system(tmpfs: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmpfs / "cortex.db"
    monkeypatch.setenv("CORTEX_DB", str(db))
    seed(db, 20)
    assert run(END, stdin=payload(FIXTURE[END], session_id="before")).code == 0
    before = dump(db)
    remount(tmpfs, "ro")
    try:
        writes = [
            (add(anti="new"), False),
            (run(END, stdin=payload(FIXTURE[END])), True),
            (run(START, stdin=payload(FIXTURE[START])), True),
            (run(PRE, stdin=payload(FIXTURE[PRE])), True),  # a match must be recorded
        ]
        miss = run(PRE, stdin=payload(FIXTURE[PRE], tool_input={"command": "ls"}))
        listed = cli("list", "--json", process=True)
    finally:
        remount(tmpfs, "rw")
    assert integrity(db) == "ok"
    assert dump(db) == before
    # Even reading needs the -shm beside a WAL database, which a read-only directory cannot hold.
    # PreToolUse still answers, from the guard file (fail closed where it can: exit 0, one line
    # saying why), whether the call matches or not; the other hooks and the CLI fail, saying why.
    for result in (writes[-1][0], miss):
        assert result.code == 0, result.stderr
        assert result.stderr.count("\n") == 1, result.stderr
        assert "guard file" in result.stderr, result.stderr
    for result, hook in (*writes[:-1], (listed, False)):
        assert_one_line_error(result, hook=hook)
    for result, _ in (*writes, (miss, True), (listed, False)):
        assert_says(result, db, "read-only", "readonly")


def fill(point: Path, room: int) -> Path:
    """Fill the file system to the last byte, then free `room` bytes; the filler file, to delete
    to make room again."""
    filler = point / "filler"
    with open(filler, "wb", buffering=0) as out:
        for size in (1 << 16, 1 << 12, 1 << 9, 1):
            try:
                while True:
                    out.write(b"\0" * size)
            except OSError as error:
                if error.errno != errno.ENOSPC:
                    raise
    assert os.statvfs(point).f_bavail == 0
    os.truncate(filler, filler.stat().st_size - room)
    return filler


# 40 KiB: room for the 32 KiB shared-memory file of WAL mode, not for a session end's pages
@pytest.mark.parametrize("room", [0, 40 * 1024], ids=["no-room-to-open", "room-to-open-not-to-write"])
def test_a_full_disk_during_an_add_and_a_session_end(
    tmpfs: Path, monkeypatch: pytest.MonkeyPatch, room: int
) -> None:
    db = tmpfs / "cortex.db"
    monkeypatch.setenv("CORTEX_DB", str(db))
    seed(db, 2_000)
    before = dump(db)
    filler = fill(tmpfs, room)
    try:
        added = add("--context", "x" * 100_000, anti="does not fit")
        ended = run(END, stdin=payload(FIXTURE[END], session_id="on-a-full-disk", transcript_path=TRANSCRIPT))
    finally:
        filler.unlink()
    assert integrity(db) == "ok"
    assert dump(db) == before  # nothing lost, nothing half-written: no decay, no session, no add
    assert_one_line_error(added, hook=False)
    assert_one_line_error(ended, hook=True)
    again = run(END, stdin=payload(FIXTURE[END], session_id="with-room-again"))
    assert again.code == 0, again.stderr
    confidences = {r["confidence"] for r in cli_json("list")}
    assert confidences == {0.69}  # decayed exactly once, by the session end that had room
    assert_says(added, db, "full", "no space")
    assert_says(ended, db, "full", "no space")


# --- the wrong kind of file -----------------------------------------------------------------------


def test_cli_refuses_a_directory_where_the_database_should_be(db: Path) -> None:
    db.mkdir()
    (db / "keep").write_text("x")
    for args in (
        ["add", "--no-regex", "--anti-pattern", "a", "--correct", "c"],
        ["list"],
        ["show", "1"],
        ["prune"],
    ):
        assert_one_line_error(cli(*args, process=True), hook=False)
    assert [path.name for path in db.iterdir()] == ["keep"]


def test_a_file_where_the_cortex_directory_should_be(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "project"
    project.mkdir()
    blocker = project / ".cortex"
    blocker.write_text("not a directory\n")
    monkeypatch.delenv("CORTEX_DB")
    env = {"CLAUDE_PROJECT_DIR": str(project)}
    assert_one_line_error(add(env=env), hook=False)
    for hook, fixture in FIXTURE.items():
        result = run(hook, stdin=payload(fixture), env=env)
        assert (result.code, result.stdout, result.stderr) == (0, "", ""), hook  # no database: silent
    assert blocker.read_text() == "not a directory\n"
    assert sorted(path.name for path in project.iterdir()) == [".cortex"]


# --- symbolic links -------------------------------------------------------------------------------


def test_a_symlinked_database_works_and_stays_a_link(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = tmp_path / "real" / "cortex.db"
    real.parent.mkdir()
    assert add("--regex", r"rm\s+-rf", "--auto-block", env={"CORTEX_DB": str(real)}).code == 0
    link = tmp_path / "link.db"
    link.symlink_to(real)
    monkeypatch.setenv("CORTEX_DB", str(link))

    assert add("--regex", "echo", anti="through the link").code == 0
    denied = run(PRE, stdin=payload(FIXTURE[PRE]))
    assert denied.code == 0, denied.stderr
    assert denied.json()["hookSpecificOutput"]["permissionDecision"] == "deny"
    for hook in (START, END):
        result = run(hook, stdin=payload(FIXTURE[hook]))
        assert result.code == 0, result.stderr
    assert cli("show", "1").code == 0

    assert link.is_symlink()
    assert os.readlink(link) == str(real)
    assert not (tmp_path / "link.db-wal").exists()
    assert not (tmp_path / "link.db-journal").exists()
    monkeypatch.setenv("CORTEX_DB", str(real))
    records = {r["id"]: r for r in cli_json("list")}
    assert records[1]["access_count"] == 2  # the match and the show, both through the link
    assert records[1]["confidence"] == 0.79  # boosted once, decayed once
    assert records[2]["anti_pattern"] == "through the link"
    assert integrity(real) == "ok"


def test_a_dangling_symlink_hooks_do_nothing_and_the_cli_creates_a_private_target(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "elsewhere" / "cortex.db"
    target.parent.mkdir()
    link = tmp_path / "link.db"
    link.symlink_to(target)
    monkeypatch.setenv("CORTEX_DB", str(link))
    for hook, fixture in FIXTURE.items():
        result = run(hook, stdin=payload(fixture))
        assert (result.code, result.stdout, result.stderr) == (0, "", ""), hook
    assert not target.exists()
    result = with_umask(0o022, add)
    assert result.code == 0, result.stderr
    assert link.is_symlink()
    assert os.readlink(link) == str(target)
    assert target.is_file()
    assert mode(target) == 0o600
