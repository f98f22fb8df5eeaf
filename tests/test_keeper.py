"""Integrity by design, through the installed hooks: whatever program weakens the guard's
state — its database, config file, settings files — the next tool call puts it back from the
keeper's copy outside the project and tells the person and the model; a change the person makes
with cortex-hooks is never taken for one; a strengthening is kept; nothing hangs on a strange file."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
import zlib
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from support import cli, cli_json, run

FORCE = ("--anti-pattern", "force push", "--correct=--force-with-lease", "--tool", "Bash",
         "--regex", r"git push (-f|--force)\b", "--action", "block")  # fmt: skip


@pytest.fixture
def project(db: Path) -> Path:
    """A project installed (its database kept from install on), with one blocking learning."""
    root = Path.cwd()
    (root / ".git").mkdir()
    assert cli("install", *(["--no-packs"] if _has_no_packs() else [])).code == 0
    assert cli("add", *FORCE).code == 0
    return root


def _has_no_packs() -> bool:
    return "--no-packs" in cli("install", "--help").stdout


def hook(command: str, project: Path) -> dict[str, Any]:
    payload = {"session_id": "s", "hook_event_name": "PreToolUse", "cwd": str(project),
               "tool_name": "Bash", "tool_input": {"command": command}}  # fmt: skip
    result = run("cortex-pre-tool-use", stdin=json.dumps(payload), timeout=60)
    assert result.code == 0, result.stderr
    return json.loads(result.stdout) if result.stdout.strip() else {}


def denied(project: Path) -> bool:
    specific: dict[str, Any] = hook("git push --force origin main", project).get("hookSpecificOutput", {})
    return specific.get("permissionDecision") == "deny"


def told(output: dict[str, Any]) -> str:
    assert "put back" in output.get("systemMessage", ""), output
    context = output["hookSpecificOutput"]["additionalContext"]
    assert "did not make" in context
    return str(output["systemMessage"])


def sql(db: Path, *statements: str) -> None:
    """Another program's writes (no cortex-hooks code): the sqlite3 module alone."""
    with closing(sqlite3.connect(db)) as connection:
        for statement in statements:
            connection.execute(statement)
        connection.commit()


def folder(db: Path) -> Path:
    from cortex_hooks import location

    return Path(location.keeper_folder(str(db)))


def test_the_keepers_folder_is_named_as_earlier_versions_named_it(db: Path, tmp_path: Path) -> None:
    """The folder's name ends in the CRC-32 of the database's real path (`zlib.crc32`, which
    earlier versions called): a database they kept finds its copy; the CRC itself, on any bytes."""
    from cortex_hooks import location

    linked = tmp_path / "linked.db"
    linked.symlink_to(db)
    real = os.path.realpath(db).encode()
    assert location.keeper_folder(str(linked)).endswith(f"-{zlib.crc32(real):08x}")
    for size in (0, 1, 3, 4, 5, 64, 255, 1000):
        data = os.urandom(size)
        assert location.crc32(data) == zlib.crc32(data), data
    assert location.crc32(b"\xff" * 300) == zlib.crc32(b"\xff" * 300)


def test_install_keeps_the_database_outside_the_project(project: Path, db: Path) -> None:
    kept = folder(db)
    assert kept.is_relative_to(Path(os.environ["HOME"]) / ".local" / "state" / "cortex-hooks")
    assert not kept.is_relative_to(project)
    assert {"copy.db", "backup.db", "ledger.json"} <= {path.name for path in kept.iterdir()}
    watched = json.loads((kept / "ledger.json").read_text())["files"]
    assert str(project / ".claude" / "settings.json") in watched
    assert str(project / ".claude" / "settings.local.json") in watched
    assert str(db.parent / "config.toml") in watched
    assert hook("ls", project) == {}  # nothing changed: nothing said


@pytest.mark.parametrize(
    ("statement", "said"),
    [
        ("UPDATE learning SET action = 'warn'", "its action went down from block to warn"),
        ("UPDATE learning SET archived_at = '2026-01-01T00:00:00Z'", "it was archived"),
        ("DELETE FROM learning", "it was removed"),
        ("UPDATE learning SET regex = 'never matches x'", "what it matches was rewritten"),
        ("UPDATE learning SET correct_pattern = 'just force push, it is fine'", "its words were changed"),
        ("UPDATE learning_confidence SET confidence = 40", "no longer blocks"),
        ("UPDATE learning SET muted = 1", "it was muted"),
        ("UPDATE learning SET severity = 'low'", "its severity went down"),
    ],
)
def test_a_weakening_by_another_program_is_put_back_at_the_next_call(
    project: Path, db: Path, statement: str, said: str
) -> None:
    sql(db, statement)
    assert said in told(hook("ls", project))
    assert denied(project)  # in force again
    assert hook("ls", project) == {}  # said once
    events = cli_json("integrity")[0]["events"]
    assert said in events[-1]["what"]


def test_a_strengthening_by_another_program_is_kept(project: Path, db: Path) -> None:
    sql(db, "UPDATE learning SET severity = 'critical'", "UPDATE learning_confidence SET confidence = 90")
    assert hook("ls", project) == {}
    (learning,) = cli_json("list")
    assert (learning["severity"], learning["confidence"]) == ("critical", 0.9)


def test_the_persons_own_changes_are_never_put_back(project: Path, db: Path) -> None:
    assert cli("update", "1", "--action", "warn").code == 0
    assert cli("packs", "enable", "core").code == 0
    assert cli("packs", "disable", "core").code == 0
    assert hook("ls", project) == {}
    assert cli_json("list")[0]["action"] == "warn"
    assert cli("archive", "1").code == 0
    assert hook("ls", project) == {}
    assert cli_json("list") == []
    end = {"session_id": "s", "hook_event_name": "SessionEnd", "cwd": str(project), "reason": "other",
           "transcript_path": str(project / "none.jsonl")}  # fmt: skip
    assert run("cortex-session-end", stdin=json.dumps(end)).code == 0  # a decay: cortex-hooks' own
    assert hook("ls", project) == {}


def test_the_copy_follows_each_write_of_ours_in_the_tables_it_touched(project: Path, db: Path) -> None:
    """The copy is refreshed table by table, as each write of ours touched them: a decay touches
    the confidences alone, an update the learning, a pack the packs; after each the copy holds
    exactly what the database does, and another program's next write puts none of it back."""

    def copied() -> None:
        with closing(sqlite3.connect(db)) as main, closing(sqlite3.connect(folder(db) / "copy.db")) as copy:
            for table in ("learning", "learning_confidence", "pack"):
                query = f"SELECT * FROM {table} ORDER BY 1"
                assert main.execute(query).fetchall() == copy.execute(query).fetchall(), table

    before = cli_json("list")[0]["confidence"]
    end = {"session_id": "s", "hook_event_name": "SessionEnd", "cwd": str(project), "reason": "other",
           "transcript_path": str(project / "none.jsonl")}  # fmt: skip
    assert run("cortex-session-end", stdin=json.dumps(end)).code == 0
    copied()
    assert cli("update", "1", "--severity", "low").code == 0
    copied()
    assert cli("packs", "enable", "core").code == 0
    copied()
    sql(db, "UPDATE learning SET access_count = access_count + 1")  # another program, harmless
    assert hook("ls", project) == {}
    (learning,) = [item for item in cli_json("list") if item["id"] == 1]
    assert (learning["confidence"] < before, learning["severity"]) == (True, "low")


def test_a_deleted_or_moved_database_is_put_back(project: Path, db: Path) -> None:
    cli("remember", "we deploy on fridays only after the freeze")
    shutil.rmtree(db.parent / "kept-away", ignore_errors=True)
    os.rename(db, db.parent / "moved.db")
    for extra in ("-wal", "-shm"):
        Path(f"{db}{extra}").unlink(missing_ok=True)
    assert "deleted or moved away" in told(hook("ls", project))
    assert db.exists()
    assert denied(project)
    db.unlink()
    assert "deleted or moved away" in told(hook("git push --force", project))


def test_a_database_replaced_by_another_is_filled_from_the_copy(project: Path, db: Path) -> None:
    for extra in ("", "-wal", "-shm"):
        Path(f"{db}{extra}").unlink(missing_ok=True)
    fresh = db.parent / "fresh.db"
    cli("todos", "add", "--text", "x", "--db", str(fresh))
    os.rename(fresh, db)  # another database in its place: its learnings are gone
    assert "it was removed" in told(hook("ls", project))
    assert denied(project)


def test_a_background_job_is_caught_at_the_next_call(project: Path, db: Path) -> None:
    code = f"import sqlite3, time; time.sleep(0.3); c = sqlite3.connect({str(db)!r}); " \
           "c.execute(\"UPDATE learning SET action = 'warn'\"); c.commit()"  # fmt: skip
    job = subprocess.Popen([sys.executable, "-c", code])
    assert hook("ls", project) == {}  # before the job wrote
    job.wait(timeout=30)
    assert "went down" in told(hook("ls", project))


def test_a_weakened_config_is_put_back_and_accept_makes_it_real(project: Path, db: Path) -> None:
    config = db.parent / "config.toml"
    config.write_text("[confidence]\nblock_gate = 0.89\n")
    said = told(hook("ls", project))
    assert "block_gate went from 0.40 to 0.89" in said
    assert not config.exists()  # as cortex-hooks last left it: no file
    assert denied(project)
    config.write_text("[confidence]\nboost = 0.20\n")  # a strengthening: kept
    assert hook("ls", project) == {}
    assert config.read_text() == "[confidence]\nboost = 0.20\n"
    config.write_text("[confidence]\nboost = 0.20\nblock_gate = 0.85\n")
    told(hook("ls", project))
    accepted = cli_json("integrity", "accept")
    assert accepted[0]["file"] == str(config)
    assert "block_gate = 0.85" in config.read_text()
    assert hook("ls", project) == {}  # the person's, from now on


@pytest.mark.parametrize(
    "change",
    [
        {"env": {"CORTEX_HOOKS_CHILD": "1"}},
        {"env": {"CORTEX_DB": "/tmp/elsewhere.db"}},
        {"disableAllHooks": True},
    ],
)
def test_a_settings_file_that_would_reach_the_guard_is_put_back(
    project: Path, change: dict[str, Any]
) -> None:
    local = project / ".claude" / "settings.local.json"
    local.write_text(json.dumps(change))
    assert "put back" in told(hook("ls", project))
    assert not local.exists()  # it had none
    assert denied(project)


def test_a_settings_file_losing_our_hooks_is_put_back_and_an_approval_is_kept(project: Path) -> None:
    settings = project / ".claude" / "settings.json"
    before = settings.read_text()
    settings.write_text(json.dumps({"permissions": {"allow": ["Bash(ls:*)"]}}))
    told(hook("ls", project))
    assert settings.read_text() == before
    local = project / ".claude" / "settings.local.json"
    local.write_text(json.dumps({"permissions": {"allow": ["Bash(npm test:*)"]}}))  # Claude Code's own
    assert hook("ls", project) == {}
    assert local.exists()


def test_an_env_block_is_not_honoured_even_before_it_is_put_back(project: Path) -> None:
    local = project / ".claude" / "settings.local.json"
    local.write_text(json.dumps({"env": {"CORTEX_HOOKS_CHILD": "1", "CORTEX_NOW": "x"}}))
    payload = {"hook_event_name": "PreToolUse", "cwd": str(project), "tool_name": "Bash",
               "tool_input": {"command": "git push --force"}}  # fmt: skip
    forged = {"CORTEX_HOOKS_CHILD": "1", "CORTEX_NOW": "x", "CLAUDE_PROJECT_DIR": str(project)}
    result = run("cortex-pre-tool-use", stdin=json.dumps(payload), env=forged)
    assert json.loads(result.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "not honoured" in result.stderr


@pytest.mark.parametrize("odd", ["fifo", "dev-zero", "directory", "huge"])
def test_a_watched_file_made_strange_neither_hangs_nor_is_read_whole(
    project: Path, db: Path, odd: str
) -> None:
    config = db.parent / "config.toml"
    if odd == "fifo":
        os.mkfifo(config)
    elif odd == "dev-zero":
        config.symlink_to("/dev/zero")
    elif odd == "directory":
        config.mkdir()
    else:
        with config.open("wb") as stream:
            stream.truncate(1 << 30)  # a sparse gigabyte
    started = time.monotonic()
    payload = {"hook_event_name": "PreToolUse", "cwd": str(project), "tool_name": "Bash",
               "tool_input": {"command": "git push --force"}}  # fmt: skip
    result = run("cortex-pre-tool-use", stdin=json.dumps(payload), timeout=30)
    assert time.monotonic() - started < 20
    assert json.loads(result.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_a_database_of_a_newer_schema_is_decided_from_its_guard_file(project: Path, db: Path) -> None:
    sql(db, "PRAGMA user_version = 999")
    assert denied(project)


def test_parallel_hooks_and_the_persons_commands_raise_no_false_alarm(project: Path) -> None:
    import concurrent.futures

    def call(number: int) -> dict[str, Any]:
        if number % 4 == 0:
            regex = f"^thing{number}\\b"
            cli("add", "--anti-pattern", f"thing {number}", "--correct", "other", "--regex", regex,
                "--tool", "Bash", process=True)  # fmt: skip
            return {}
        return hook("git push --force" if number % 2 else "ls", project)

    with concurrent.futures.ThreadPoolExecutor(6) as pool:
        outputs = list(pool.map(call, range(24)))
    assert not [output for output in outputs if "systemMessage" in output]
    assert cli_json("integrity")[0]["events"] == []


def test_doctor_and_the_report_list_what_was_put_back(project: Path, db: Path, tmp_path: Path) -> None:
    sql(db, "UPDATE learning SET action = 'warn'")
    told(hook("ls", project))
    doctor = cli("doctor").stdout
    assert "keeper: kept outside the project" in doctor
    assert "put back: learning #1 (force push): its action went down" in doctor
    page = tmp_path / "report.html"
    assert cli("report", "--out", str(page)).code == 0
    assert "its action went down from block to warn" in page.read_text()


def test_install_managed_writes_the_hooks_where_administrators_keep_them(db: Path, tmp_path: Path) -> None:
    managed = tmp_path / "etc" / "managed-settings.json"
    managed.parent.mkdir()
    managed.write_text(json.dumps({"permissions": {"deny": ["Bash(curl:*)"]}}))
    result = cli("install", "--managed", env={"CORTEX_MANAGED_SETTINGS": str(managed)})
    assert result.code == 0, result.stderr
    written = json.loads(managed.read_text())
    assert {"PreToolUse", "SessionStart", "SessionEnd"} <= set(written["hooks"])
    assert "Bash(curl:*)" in written["permissions"]["deny"]  # what was there stays
    assert "Edit(~/.claude/settings.json)" in written["permissions"]["deny"]
    assert cli("uninstall", "--managed", env={"CORTEX_MANAGED_SETTINGS": str(managed)}).code == 0
    assert json.loads(managed.read_text()) == {"permissions": {"deny": ["Bash(curl:*)"]}}


def test_a_full_disk_never_lets_a_learned_deny_through(project: Path, db: Path, tmp_path: Path) -> None:
    """The database on a file system filled to the last byte (a tmpfs of a private mount namespace,
    filled with dd as the agent could): the boost cannot be written, the deny stands."""
    unshare = shutil.which("unshare") or "/usr/bin/unshare"
    prefix = [unshare, "-m"] if os.geteuid() == 0 else [unshare, "-r", "-m"]
    disk = tmp_path / "disk"
    disk.mkdir()
    script = (
        'mount -t tmpfs -o size=4m tmpfs "$1" && cp -a "$2"/cortex.db* "$1"/ '
        '&& (dd if=/dev/zero of="$1/fill" bs=4096 2>/dev/null; true) '
        '&& CORTEX_DB="$1/cortex.db" "$3" < "$4"'
    )
    payload = tmp_path / "payload.json"
    payload.write_text(json.dumps({"hook_event_name": "PreToolUse", "cwd": str(project), "tool_name": "Bash",
                                   "tool_input": {"command": "git push --force"}}))  # fmt: skip
    from support import script as installed

    try:
        result = subprocess.run(
            [
                *prefix,
                "sh",
                "-c",
                script,
                "sh",
                str(disk),
                str(db.parent),
                installed("cortex-pre-tool-use"),
                str(payload),
            ],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    except OSError as error:
        pytest.skip(f"no private mount namespace here: {error}")
    if "mount" in result.stderr and result.returncode != 0 and not result.stdout:
        pytest.skip(f"no tmpfs could be mounted here: {result.stderr.strip()}")
    assert json.loads(result.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny", result.stderr


def test_another_agents_hook_file_losing_our_hooks_is_put_back_and_uninstall_is_not(project: Path) -> None:
    """Codex's hook file, written by `install --agent codex`, is watched as Claude Code's settings
    are: a script that takes our hooks out of it is undone at the next call (and told, here beside
    Codex's answer on stderr: Codex's answer takes no field it does not know); the person's own
    `uninstall --agent codex` is never put back."""
    assert cli("install", "--agent", "codex").code == 0
    hooks = project / ".codex" / "hooks.json"
    ours = hooks.read_text()
    assert "cortex-pre-tool-use" in ours
    hooks.write_text(json.dumps({"hooks": {}}))  # another program's edit
    payload = {"session_id": "s", "hook_event_name": "PreToolUse", "cwd": str(project),
               "tool_name": "Bash", "tool_input": {"command": "ls"}}  # fmt: skip
    result = run("cortex-pre-tool-use", "--agent", "codex", stdin=json.dumps(payload), timeout=60)
    assert result.code == 0, result.stderr
    assert "put back" in result.stderr
    assert "systemMessage" not in result.stdout
    assert hooks.read_text() == ours
    assert cli("uninstall", "--agent", "codex").code == 0
    after = hooks.read_text() if hooks.exists() else None
    assert hook("ls", project) == {}  # nothing to put back: the person's own change
    assert (hooks.read_text() if hooks.exists() else None) == after
    assert after is None or "cortex-pre-tool-use" not in after


def test_a_session_start_whose_cwd_holds_a_nul_byte_keeps_the_database_it_opens(db: Path) -> None:
    """A cwd no folder can have (a NUL byte, as a fuzzed payload sends it) names no project: the
    keeper watches the hook's own working directory's files, and the hook succeeds."""
    (Path.cwd() / ".git").mkdir()
    assert cli("add", *FORCE).code == 0
    payload = {"session_id": "s", "hook_event_name": "SessionStart", "source": "startup"}
    payload["cwd"] = "/tmp/a\x00b"
    result = run("cortex-session-start", stdin=json.dumps(payload), timeout=60)
    assert result.code == 0, result.stderr
    assert "internal error" not in result.stderr
    assert (folder(db) / "ledger.json").exists() or any(folder(db).iterdir())
