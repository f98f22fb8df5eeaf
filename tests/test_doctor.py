"""`cortex-hooks doctor` (issue 5 item 7): every problem found, with a fix that works.

Each test starts from a healthy project (hooks wired by `cortex-hooks install`, a database with
sound learnings), breaks one thing the way a user would meet it, and checks that doctor exits 1,
names the problem with a fix, and writes nothing.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import sqlite3
import stat
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from support import Result, cli, payload, reminder_unless_regex, run, script

from cortex_hooks.store.connection import SCHEMA_VERSION

HOOK_EVENTS = ("PreToolUse", "SessionStart", "SessionEnd")


class Project:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.env = {"CLAUDE_PROJECT_DIR": str(root), "CORTEX_DB": ""}
        self.cortex = root / ".cortex"
        self.db = self.cortex / "cortex.db"
        self.settings = root / ".claude" / "settings.json"

    def cli(self, *args: str, timeout: float | None = None) -> Result:
        """In this process; with a timeout, as a process that it bounds (a read that may hang)."""
        if timeout is None:
            return cli(*args, env=self.env, cwd=self.root)
        return cli(*args, env=self.env, cwd=self.root, timeout=timeout)

    def add(self, *args: str) -> int:
        result = self.cli(
            "add", "--anti-pattern", "anti", "--correct", "correct", *reminder_unless_regex(args), "--json"
        )
        assert result.code == 0, result.stderr
        learning: int = result.json()["id"]
        return learning

    def sql(self, statement: str, *parameters: Any) -> None:
        with closing(sqlite3.connect(self.db)) as connection:
            connection.execute(statement, parameters)
            connection.commit()


def tree(root: Path) -> dict[str, tuple[int, str]]:
    """Every file and directory under root: its mode and content.

    SQLite's shared-memory index (-shm) and an empty -wal hold no data: two readers closing at
    the same moment may both leave them behind, which is SQLite's doing, not a write.
    """
    found: dict[str, tuple[int, str]] = {}
    for directory, _, names in os.walk(root):
        found[directory] = (os.stat(directory).st_mode, "")
        for name in names:
            path = os.path.join(directory, name)
            info = os.stat(path)  # through a link, as the open below
            if not stat.S_ISREG(info.st_mode):  # a FIFO or a link to /dev/zero: never read
                found[path] = (info.st_mode, "")
                continue
            with open(path, "rb") as handle:
                content = handle.read()
            if name.endswith("-shm") or (name.endswith("-wal") and not content):
                continue
            found[path] = (os.stat(path).st_mode, hashlib.sha256(content).hexdigest())
    return found


class Diagnosis:
    def __init__(self, human: Result, machine: Result) -> None:
        self.human, self.machine = human, machine
        self.code = machine.code
        assert human.code == machine.code, (human.stderr, machine.stderr)
        self.report: dict[str, Any] = machine.json()
        self.checks: list[dict[str, str]] = self.report["checks"]
        self.problems = [check for check in self.checks if check["status"] == "problem"]

    def problem(self, name: str) -> dict[str, str]:
        found: list[dict[str, str]] = [check for check in self.problems if check["check"] == name]
        assert found, f"no problem {name!r} in {json.dumps(self.checks, indent=1)}"
        return found[0]


def diagnose(project: Project, timeout: float | None = None) -> Diagnosis:
    """doctor and doctor --json side by side; each check shaped as documented; nothing written.
    With a timeout, both run as processes that it bounds (a read that never ends fails there)."""
    before = tree(project.root)
    with ThreadPoolExecutor(max_workers=2) as pool:
        human, machine = pool.map(
            lambda extra: project.cli("doctor", *extra, timeout=timeout), [(), ("--json",)]
        )
    return examine(project, before, human, machine)


def healthy(project: Project) -> bool:
    """After a fix: doctor --json alone finds nothing wrong."""
    result = project.cli("doctor", "--json")
    assert result.code == (0 if result.json()["ok"] else 1), result.stdout
    return result.code == 0 and result.json()["ok"] is True


def examine(project: Project, before: Any, human: Result, machine: Result) -> Diagnosis:
    assert tree(project.root) == before, "doctor wrote something"
    for stream in (human.stderr, machine.stderr):  # an invalid config is also reported there
        assert "Traceback" not in stream, stream
    assert machine.stdout.strip(), f"doctor gave no report (exit {machine.code}): {machine.stderr}"
    diagnosis = Diagnosis(human, machine)
    assert set(diagnosis.report) == {"ok", "database", "checks"}
    assert diagnosis.report["database"] == str(project.db)
    assert diagnosis.checks
    for check in diagnosis.checks:
        assert check["status"] in ("ok", "problem"), check
        expected = {"check", "status", "detail"} | ({"fix"} if check["status"] == "problem" else set())
        assert set(check) == expected, check
        assert all(isinstance(value, str) and value for value in check.values()), check
    assert diagnosis.report["ok"] is (not diagnosis.problems)
    assert diagnosis.code == (1 if diagnosis.problems else 0)
    if diagnosis.problems:
        # the human report: each problem on a line, its fix on the next
        lines = human.stdout.splitlines()
        for problem in diagnosis.problems:
            at = next(i for i, line in enumerate(lines) if problem["check"] in line and "PROBLEM" in line)
            assert "fix" in lines[at + 1], lines[at : at + 2]
            assert problem["fix"] in lines[at + 1]
        assert "All good" not in human.stdout
    else:
        assert "All good" in human.stdout
        assert "PROBLEM" not in human.stdout
    return diagnosis


@pytest.fixture(scope="module")
def healthy_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("doctor") / "project"
    (root / ".git").mkdir(parents=True)
    project = Project(root)
    project.env["HOME"] = str(root.parent)
    installed = project.cli("install", "--no-packs")  # this file's learnings only
    assert installed.code == 0, installed.stderr
    project.add("--regex=git\\s+push\\s+--force", "--tool", "Bash", "--auto-block")
    project.add("--regex=(?i)drop\\s+table", "--target", "input")
    project.add("--tool", "Write")  # no regex: nothing to check, still sound
    return root


@pytest.fixture
def project(healthy_template: Path, tmp_path: Path) -> Project:
    root = tmp_path / "project"
    shutil.copytree(healthy_template, root, symlinks=True)
    return Project(root)


def test_a_healthy_setup_is_all_good(project: Project) -> None:
    assert stat.S_IMODE(project.db.stat().st_mode) == 0o600
    diagnosis = diagnose(project)
    assert diagnosis.code == 0
    assert diagnosis.report["ok"] is True
    wired = [check for check in diagnosis.checks if check["check"].startswith("hook")]
    assert len(wired) == len(HOOK_EVENTS)


def test_hooks_not_wired(project: Project) -> None:
    project.settings.unlink()
    diagnosis = diagnose(project)
    for event in HOOK_EVENTS:
        problem = diagnosis.problem(f"hook {event}")
        assert "cortex-hooks install" in problem["fix"]
    # and the fix works
    assert project.cli("install").code == 0
    assert healthy(project)


def test_a_wired_command_that_is_not_executable(project: Project) -> None:
    stale = project.root / "old-venv" / "bin" / "cortex-pre-tool-use"
    stale.parent.mkdir(parents=True)
    stale.write_text("#!/bin/sh\n")
    stale.chmod(0o644)
    settings = json.loads(project.settings.read_text())
    settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"] = shlex.quote(str(stale))
    project.settings.write_text(json.dumps(settings))
    diagnosis = diagnose(project)
    problem = diagnosis.problem("hook PreToolUse")
    assert str(stale) in problem["detail"]
    assert "install" in problem["fix"]
    assert [p["check"] for p in diagnosis.problems] == ["hook PreToolUse"]
    assert project.cli("install").code == 0  # the fix: install again from this environment
    assert healthy(project)


def test_no_database(project: Project) -> None:
    project.db.unlink()
    diagnosis = diagnose(project)  # (and it creates none: diagnose checks the tree)
    problem = diagnosis.problem("database")
    assert str(project.db) in problem["detail"]
    assert not project.db.exists()


def test_a_corrupt_database_is_reported_and_left_untouched(project: Project) -> None:
    project.db.write_bytes(os.urandom(8192))
    os.chmod(project.db, 0o600)
    diagnosis = diagnose(project)
    assert diagnosis.problem("database")["fix"]


def test_a_database_of_a_newer_schema_is_reported_and_left_untouched(project: Project) -> None:
    project.sql(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    diagnosis = diagnose(project)
    problem = diagnosis.problem("database")
    said = problem["detail"] + problem["fix"]
    assert str(SCHEMA_VERSION + 1) in said
    assert "upgrade" in said


def test_a_database_readable_by_others(project: Project) -> None:
    project.db.chmod(0o644)
    problem = diagnose(project).problem("permissions")
    assert problem["fix"] == f"chmod 600 {shlex.quote(str(project.db))}"
    project.db.chmod(0o600)
    assert healthy(project)


def test_a_cortex_directory_readable_by_others(project: Project) -> None:
    project.cortex.chmod(0o755)
    problem = diagnose(project).problem("permissions")
    assert problem["fix"] == f"chmod 700 {shlex.quote(str(project.cortex))}"


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ('[regex]\ntimeout = "fast"\n', "timeout"),
        ("[confidence]\nstart = 0.70\nbogus = 1\n", "bogus"),
        ("[snapshot\nbudget = 100\n", ""),  # not TOML at all
    ],
)
def test_an_invalid_config_file(project: Project, text: str, named: str) -> None:
    config = project.cortex / "config.toml"
    config.write_text(text)
    problem = diagnose(project).problem("config")
    assert str(config) in problem["detail"]
    assert named in problem["detail"]


def _config(path: Path, kind: str) -> None:
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero":
        path.symlink_to("/dev/zero")
    elif kind == "large":
        path.write_text("# a comment\n" * 6000)  # valid TOML, 72 kB
    else:
        path.write_text(kind)


@pytest.mark.parametrize(
    ("kind", "named"),
    [
        ("[pruning]\nunused_days = 1000000\n", "unused_days"),  # failed every SessionStart
        ("[pruning]\nrarely_used_accesses = 100000000000000000000\n", "rarely_used_accesses"),
        ("[confidence]\nblock_gate = 0.95\n", "block_gate"),  # switched auto-block off
        ('[confidence]\nstart = "1e999999999"\n', "start"),  # crashed doctor
        ("fifo", "not a regular file"),  # hung doctor and every hook
        ("dev-zero", "not a regular file"),  # ate memory
        ("large", "larger than"),
    ],
)
def test_a_config_file_that_would_break_the_hooks_is_reported_as_the_hooks_report_it(
    project: Project, kind: str, named: str
) -> None:
    config = project.cortex / "config.toml"
    _config(config, kind)
    diagnosis = diagnose(project, timeout=10)  # a read that never ends fails here
    assert diagnosis.code == 1, diagnosis.machine.stderr
    problem = diagnosis.problem("config")
    assert problem["detail"].startswith(f"{config}: ")
    assert named in problem["detail"]
    # the hooks read the file with the very same function, and say the very same
    start = run("cortex-session-start", stdin=payload("session_start.startup"), env=project.env, timeout=10)
    assert start.code == 0, start.stderr
    reported = problem["detail"].removeprefix(f"{config}: ")
    assert start.stderr == f"cortex-hooks: ignoring invalid {config} ({reported}); using the defaults\n"


def test_a_config_file_with_a_byte_order_mark_is_fine(project: Project) -> None:
    (project.cortex / "config.toml").write_bytes(b"\xef\xbb\xbf[regex]\ntimeout = 0.1\n")
    diagnosis = diagnose(project)
    assert diagnosis.code == 0
    assert any(check["check"] == "config" and check["status"] == "ok" for check in diagnosis.checks)


def test_a_valid_config_file_is_fine(project: Project) -> None:
    (project.cortex / "config.toml").write_text("[regex]\ntimeout = 0.1\n")
    diagnosis = diagnose(project)
    assert diagnosis.code == 0
    assert any(check["check"] == "config" for check in diagnosis.checks)


def _doctor_loads_pydantic(project: Project) -> tuple[bool, list[tuple[str, str]]]:
    """Whether `doctor --json` in a fresh interpreter imported pydantic, and its checks' statuses."""
    program = (
        "import json, sys\n"
        "from cortex_hooks.cli import main\n"
        "main(['doctor', '--json'])\n"
        "print(json.dumps('pydantic' in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program],
        capture_output=True,
        text=True,
        env={**os.environ, **project.env},
        cwd=project.root,
        timeout=60,
        check=False,
    )
    report, loaded = done.stdout.strip().rsplit("\n", 1)
    return json.loads(loaded), [(check["check"], check["status"]) for check in json.loads(report)["checks"]]


def test_pydantic_is_imported_only_for_a_config_or_team_file_to_validate(project: Project) -> None:
    """pydantic and its models are ~11 MiB of a doctor's memory: paid only for a file it checks."""
    assert _doctor_loads_pydantic(project)[0] is False
    (project.cortex / "config.toml").write_text('[regex]\ntimeout = "fast"\n')
    loaded, checks = _doctor_loads_pydantic(project)
    assert loaded
    assert ("config", "problem") in checks
    (project.cortex / "config.toml").unlink()
    (project.root / ".claude" / "cortex-team.jsonl").write_text("not a line of the team file\n")
    loaded, checks = _doctor_loads_pydantic(project)
    assert loaded
    assert ("team file", "problem") in checks


def test_a_regex_that_does_not_compile_and_its_fix(project: Project) -> None:
    project.sql(
        "INSERT INTO learning (id, anti_pattern, correct_pattern, regex, created_at, updated_at)"
        " VALUES (40, 'broken', 'fixed', '(unclosed', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')"
    )
    project.sql("INSERT INTO learning_confidence VALUES (40, 70)")
    problem = diagnose(project).problem("learning #40")
    assert "(unclosed" in problem["detail"]
    assert "cortex-hooks update 40 --regex=" in problem["fix"]
    assert project.cli("update", "40", "--regex=closed").code == 0
    assert healthy(project)


def test_a_regex_that_times_out_on_a_probe_and_its_fix(project: Project) -> None:
    learning = project.add("--regex=(a|aa)+$")
    problem = diagnose(project).problem(f"learning #{learning}")
    assert "(a|aa)+$" in problem["detail"]
    assert f"cortex-hooks update {learning} --regex=" in problem["fix"]
    assert project.cli("update", str(learning), "--regex=a+$").code == 0
    assert healthy(project)


@pytest.mark.parametrize(
    "damage",
    [
        "DELETE FROM learning_key WHERE learning_id = :id",
        """UPDATE learning SET literals = '[["git push --force", false]]' WHERE id = :id""",
        "UPDATE learning SET literals = NULL WHERE id = :id",
    ],
)
def test_stale_prefilter_data_and_the_suggested_fix_repairs_it(project: Project, damage: str) -> None:
    with closing(sqlite3.connect(project.db)) as connection:
        connection.execute(damage, {"id": 1})
        connection.commit()
    problem = diagnose(project).problem("learning #1")
    fix = shlex.split(problem["fix"])
    assert fix[:3] == ["cortex-hooks", "update", "1"], problem["fix"]
    repaired = cli(*fix[1:], env=project.env, cwd=project.root, process=True)  # the fix exactly as printed
    assert repaired.code == 0, repaired.stderr
    assert healthy(project)
    # and the learning works again: its regex is unchanged
    shown = project.cli("show", "1", "--json").json()
    assert shown["regex"] == "git\\s+push\\s+--force"


def test_every_problem_at_once(project: Project) -> None:
    """Several problems are all listed, each with its own fix (not only the first)."""
    project.settings.unlink()
    project.db.chmod(0o644)
    project.add("--regex=(a|aa)+$")
    diagnosis = diagnose(project)
    names = {problem["check"] for problem in diagnosis.problems}
    assert names >= {"hook PreToolUse", "hook SessionStart", "hook SessionEnd", "permissions", "learning #4"}
    assert script("cortex-hooks")  # installed: the fixes name a command that exists


def test_a_stored_permission_rule_as_tool_matcher_is_reported(project: Project) -> None:
    project.sql(
        "INSERT INTO learning (id, anti_pattern, correct_pattern, regex, tool, created_at, updated_at)"
        " VALUES (41, 'git', 'no', 'git', 'Bash(git:*)', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')"
    )
    project.sql("INSERT INTO learning_confidence VALUES (41, 70)")
    problem = diagnose(project).problem("learning #41")
    assert "permission rule" in problem["detail"]
    assert problem["fix"] == "cortex-hooks update 41 --tool Bash"
    assert project.cli("update", "41", "--tool", "Bash").code == 0
    assert healthy(project)


def test_repair_of_earlier_versions_runs_doctor_and_says_nothing_is_left_to_mend(db: Path) -> None:
    """A script's `doctor --repair` (hand-edited rows were mended by it before the tables refused
    them at write) still runs doctor: the same checks, the same status, one line on stderr."""
    cli("add", "--anti-pattern", "a", "--correct", "b", "--regex", r"\bnever\b")
    plain, repaired = cli("doctor"), cli("doctor", "--repair")
    assert (repaired.code, repaired.stdout) == (plain.code, plain.stdout)
    assert (
        repaired.stderr
        == "cortex-hooks: doctor --repair: nothing to mend; the tables refuse a value the code cannot read\n"
    )
