"""The built-in protection end to end (docs/guide/selfguard.md item 1): real payloads piped into the
installed PreToolUse hook deny the agent's calls that would switch its guard off — with no
learning, no database, a locked or a corrupt one — write nothing, and let everything else through;
the person's own terminal is never affected; `explain` shows the same deny."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from locking import held_exclusively
from support import cli, cli_json, payload, run

PRE = "cortex-pre-tool-use"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git project with cortex-hooks installed and an auto-block learning in its database."""
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    monkeypatch.setenv("CORTEX_DB", str(root / ".cortex" / "cortex.db"))
    assert cli("install", "--no-packs", cwd=root).code == 0  # this file's guard: the built-in one
    learned = cli_json(
        "add",
        *("--anti-pattern", "force push", "--correct", "push --force-with-lease"),
        *("--regex", r"git\s+push\s+--force\b", "--tool", "Bash", "--auto-block"),
    )
    assert learned["id"] == 1
    return root


def call(where: Path, tool: str, tool_input: dict[str, Any], **env: str) -> Any:
    sent = payload("pre_tool_use.bash", cwd=str(where), tool_name=tool, tool_input=tool_input)
    return run(PRE, stdin=sent, cwd=where, env=env)


def bash(where: Path, command: str, **env: str) -> Any:
    return call(where, "Bash", {"command": command, "description": "x"}, **env)


def denied(result: Any) -> str:
    """The deny reason of a hook run (asserting it is one)."""
    assert result.code == 0, result.stderr
    output = result.json()["hookSpecificOutput"]
    assert output["permissionDecision"] == "deny", output
    reason: str = output["permissionDecisionReason"]
    assert reason.startswith("cortex-hooks blocked this tool call (built-in protection)")
    return reason


def state(database: Path) -> list[tuple[Any, ...]]:
    """Each learning as `list` shows it (not an access): id, confidence, accesses, auto-block, archived."""
    rows = cli_json("list", "--all", env={"CORTEX_DB": str(database)})
    return [
        (row["id"], row["confidence"], row["access_count"], row["auto_block"], row["archived_at"])
        for row in rows
    ]


WEAKENING = [
    "cortex-hooks update 1 --no-auto-block",
    "cortex-hooks archive 1",
    "sudo cortex-hooks packs disable core",
    "rm -rf .cortex",
    "cd .cortex && rm -f cortex.db*",
    'sqlite3 .cortex/cortex.db "delete from learning"',
    "echo 'block_gate = 0.89' > .cortex/config.toml",
    "jq 'del(.hooks)' .claude/settings.json > /tmp/s && mv /tmp/s .claude/settings.json",
    # each names none of its places as written, yet deletes them
    "git clean -fdx",
    "rm -rf .",
    "cd .. && rm -rf proj",
    "find . -type f -delete",
    "r''m -rf .co''rtex",
    # text known only at run time, programs that delete what they archive
    "printf '%s' 'rm -rf .cortex' | bash",
    "echo cm0gLXJmIC5jb3J0ZXg= | base64 -d | sh",
    "rm -rf $'\\x2ecortex'",
    "tar -czf /tmp/all.tgz . --remove-files",
    "git -c core.pager='rm -rf .' log",
    "python3 -c \"import shutil; shutil.rmtree('.cor' + 'tex')\"",
]


@pytest.mark.parametrize("command", WEAKENING)
def test_the_hook_denies_a_weakening_command_and_writes_nothing(project: Path, command: str) -> None:
    database = project / ".cortex" / "cortex.db"
    before = state(database)
    reason = denied(bash(project, command))
    assert command in reason
    if "the whole project" in reason:  # the harm is told first, and the person not told to run it
        assert reason.index("the whole project") < reason.index("the guard's")
        assert "outside this session" in reason
    else:
        assert "own terminal" in reason  # the exact command the person can run themselves
    assert state(database) == before  # no learning matched, nothing boosted or recorded
    assert bash(project, "git push --force").json()["hookSpecificOutput"]["permissionDecision"] == "deny"


@pytest.mark.parametrize(
    "command",
    [
        "cortex-hooks list",
        "cortex-hooks update 1 --auto-block --pin",
        "echo 'cortex-hooks archive 1'",
        "git commit -m 'rm -rf .cortex is refused now'",
        "cat .cortex/config.toml",
        "sqlite3 -readonly .cortex/cortex.db 'select count(*) from learning'",
        "rm -rf build",
        "git checkout -- .",
        "find . -name '*.pyc' -delete",
        # everyday commands the static check denied
        "mv build/app.js .",
        'for f in *.html; do mv "$f" "${f%.html}.txt"; done',
        "ls *.txt | xargs -I{} mv {} archive/",
        "find . -exec chmod g+w {} ';'",
    ],
)
def test_the_hook_lets_reads_strengthening_and_quotations_through(project: Path, command: str) -> None:
    result = bash(project, command)
    assert (result.code, result.stdout, result.stderr) == (0, "", "")


def test_it_needs_no_learning_and_no_database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Built in, not a learning: in a project that never had a database it denies all the same,
    and creates none."""
    root = tmp_path / "bare"
    root.mkdir()
    monkeypatch.setenv("CORTEX_DB", str(root / ".cortex" / "cortex.db"))
    denied(bash(root, "cortex-hooks update 1 --no-auto-block"))
    denied(bash(root, "rm -rf ~/.claude/memory"))
    assert sorted(path.name for path in root.iterdir()) == []


def test_another_servers_shell_tool_is_read_as_bash(project: Path) -> None:
    """Issue 34 class 5: an MCP server's shell tool (`cmd` as a list of words), a path in a field
    named `filePath`, a tool that merely holds "cortex" in its name."""
    denied(call(project, "mcp__exec__spawn", {"cmd": ["rm", "-rf", ".cortex"]}))
    config = str(project / ".cortex" / "config.toml")
    denied(call(project, "mcp__fs__write_file", {"filePath": config, "content": "block_gate = 0.89"}))
    denied(call(project, "mcp__cortexish__write_file", {"path": config, "content": "x"}))
    reader = call(project, "mcp__fs__read_text_file", {"filePath": config})
    assert (reader.code, reader.stdout) == (0, "")
    assert (project / ".cortex").is_dir()


def test_a_locked_or_corrupt_database_never_disables_it(project: Path) -> None:
    database = project / ".cortex" / "cortex.db"
    with held_exclusively(database):
        denied(bash(project, "cortex-hooks archive 1"))
        denied(bash(project, "rm -rf .cortex"))
    database.write_bytes(b"this is not a database" * 100)
    for suffix in ("-wal", "-shm", ".guard"):
        Path(f"{database}{suffix}").unlink(missing_ok=True)
    denied(bash(project, "cortex-hooks archive 1"))
    assert database.read_bytes() == b"this is not a database" * 100  # never touched


def test_a_settings_edit_is_judged_by_the_file_it_leaves(project: Path) -> None:
    settings = project / ".claude" / "settings.json"
    text = settings.read_text()
    assert "cortex-pre-tool-use" in text
    written = json.loads(text)
    written["permissions"] = {"allow": ["Bash(ls:*)"]}
    allowed = call(project, "Write", {"file_path": str(settings), "content": json.dumps(written, indent=2)})
    assert (allowed.code, allowed.stdout) == (0, "")
    script = next(word for word in text.split('"') if word.endswith("cortex-pre-tool-use"))
    edit = {"file_path": str(settings), "old_string": script, "new_string": "true"}
    reason = denied(call(project, "Edit", edit))
    assert "PreToolUse hook would be removed or changed" in reason
    local = {
        "file_path": str(project / ".claude" / "settings.local.json"),
        "content": '{"disableAllHooks": true}',
    }
    assert "disableAllHooks" in denied(call(project, "Write", local))
    config = {
        "file_path": str(project / ".cortex" / "config.toml"),
        "content": "[policy]\nblock_gate = 0.89\n",
    }
    denied(call(project, "Write", config))
    assert settings.read_text() == text
    assert not (project / ".cortex" / "config.toml").exists()


def test_the_persons_terminal_is_never_affected(project: Path) -> None:
    """The CLI is unchanged: what the agent is refused, the person runs."""
    assert cli("update", "1", "--no-auto-block").code == 0
    assert cli("archive", "1").code == 0
    (_, _, _, auto_block, archived_at) = state(project / ".cortex" / "cortex.db")[0]
    assert auto_block is False
    assert archived_at is not None
    assert cli("uninstall", cwd=project).code == 0
    settings = project / ".claude" / "settings.json"  # removed when it held nothing but ours
    assert not settings.exists() or "cortex-pre-tool-use" not in settings.read_text()


def test_explain_shows_the_built_in_deny_as_the_hook_prints_it(project: Path) -> None:
    command = "cortex-hooks archive 1"
    shown = cli_json("explain", "--tool", "Bash", "--command", command, cwd=project)
    assert shown["decision"] == "deny"
    assert shown["output"] == bash(project, command).json()
    assert shown["built_in"] in shown["output"]["hookSpecificOutput"]["permissionDecisionReason"]
    text = cli("explain", "--tool", "Bash", "--command", command, cwd=project).stdout
    assert "Built-in protection (not a learning" in text
    quiet = cli_json("explain", "--tool", "Bash", "--command", "cortex-hooks list", cwd=project)
    assert (quiet["decision"], quiet["built_in"]) == ("none", None)


def imported(command: str, where: Path) -> list[str]:
    """Which of the protection's modules a PreToolUse process imported for this command."""
    watched = [
        "cortex_hooks.judging.protection",
        "cortex_hooks.guard.selfguard.tool_calls",
        "cortex_hooks.guard.selfguard.protected",
        "cortex_hooks.guard.shell.reader",
        "cortex_hooks.install.wiring",
    ]
    program = (
        "import atexit, os, sys\n"
        f"def report(): print([name for name in {watched!r} if name in sys.modules], file=sys.stderr)\n"
        "atexit.register(report)\n"
        "leave = os._exit\n"
        "os._exit = lambda status: (atexit.unregister(report), report(), leave(status))\n"
        "from cortex_hooks.hooks import pre_tool_use\n"
        "sys.exit(pre_tool_use.main())\n"
    )
    sent = payload("pre_tool_use.bash", cwd=str(where), tool_input={"command": command})
    done = subprocess.run(
        [sys.executable, "-c", program],
        input=json.dumps(sent),
        capture_output=True,
        text=True,
        env=dict(os.environ),
        cwd=where,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    found: list[str] = eval(done.stderr.strip().splitlines()[-1])
    return found


def test_a_call_that_names_none_of_its_places_never_loads_it(project: Path) -> None:
    assert imported("cd proj && python3 -m pytest -q 'tests/test x.py' 2>&1 | tail -n 20", project) == []
    assert "cortex_hooks.guard.selfguard.tool_calls" in imported("rm -rf .cortex", project)


def test_inside_the_memory_folder_its_files_are_named_bare(project: Path) -> None:
    """Claude Code keeps the Bash tool's working directory between calls: after `cd .cortex`,
    `config.toml` is the guard's, though the command names none of its places."""
    inside = project / ".cortex"
    reason = denied(bash(inside, "echo 'block_gate = 0.89' > config.toml"))
    assert "config file" in reason
    assert not (inside / "config.toml").exists()
    result = bash(inside, "cat config.toml")
    assert (result.code, result.stdout, result.stderr) == (0, "", "")
    outside = bash(project, "echo 'block_gate = 0.89' > config.toml")  # another file of that name
    assert (outside.code, outside.stdout) == (0, "")


def _replaced(path: Path, how: str) -> None:
    """A guarded file replaced by a FIFO, a link to /dev/zero, a folder or a 1 GB file."""
    path.unlink(missing_ok=True)
    if how == "fifo":
        os.mkfifo(path)
    elif how == "zero":
        path.symlink_to("/dev/zero")
    elif how == "folder":
        path.mkdir()
    else:
        with open(path, "wb") as stream:  # sparse: a gigabyte on paper, nothing on the disk
            stream.truncate(1 << 30)


@pytest.mark.parametrize("how", ["fifo", "zero", "folder", "huge"])
def test_a_settings_file_replaced_by_bad_input_neither_hangs_nor_is_read_whole(
    project: Path, how: str
) -> None:
    """Issue 34 bad input: the protection reads a settings file to judge an edit of it; in its
    place a FIFO (a read would hang), /dev/zero (a read never ends), a folder or a 1 GB file."""
    settings = project / ".claude" / "settings.local.json"
    _replaced(settings, how)
    edit = {"file_path": str(settings), "old_string": "a", "new_string": '{"disableAllHooks": true}'}
    result = call(project, "Edit", edit)
    assert "disableAllHooks" in denied(result) or "cannot tell" in denied(result)
    plain = call(project, "Edit", {"file_path": str(settings), "old_string": "a", "new_string": "b"})
    assert plain.code == 0, plain.stderr


@pytest.mark.parametrize("how", ["fifo", "zero", "folder", "huge"])
def test_a_guard_file_replaced_by_bad_input_neither_hangs_nor_is_read_whole(project: Path, how: str) -> None:
    """The guard file is read when the database is held: in its place bad input is no guard file."""
    database = project / ".cortex" / "cortex.db"
    guard = Path(f"{database}.guard")
    _replaced(guard, how)
    with held_exclusively(database):
        result = bash(project, "git push --force")
    assert result.code in (0, 1), result.stderr  # decided or failed in the documented way, not hung
