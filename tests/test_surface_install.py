"""install / uninstall of what the memory needs beside the hooks: the import of the push surface
in the project's CLAUDE.local.md, and the /learn, /remember and /recall commands."""

from __future__ import annotations

import os
import shlex
from pathlib import Path

import pytest
from support import cli, script

from cortex_hooks.install import slash_commands, surface_import

LINE = "@.claude/cortex-memory.local.md"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    return root


def install(project: Path, *options: str) -> str:
    result = cli("install", *options, cwd=project)
    assert result.code == 0, result.stderr
    return result.stdout


def uninstall(project: Path, *options: str) -> str:
    result = cli("uninstall", *options, cwd=project)
    assert result.code == 0, result.stderr
    return result.stdout


@pytest.mark.parametrize(
    "before",
    [b"my notes\n", b"my notes", b"a\r\nb\r\n", b"a\r\nno end", b"\n", b"top\n@other.md\n"],
    ids=["newline", "no final newline", "crlf", "crlf without end", "blank", "other import"],
)
def test_the_import_is_added_once_and_removed_byte_for_byte(project: Path, before: bytes) -> None:
    path = project / "CLAUDE.local.md"
    path.write_bytes(before)
    said = install(project)
    assert f"Added the memory surface import ({LINE}): {path}" in said
    after = path.read_bytes()
    assert after.startswith(before)
    assert after.decode().splitlines().count(LINE) == 1
    assert f"is already in {path}" in install(project)
    assert path.read_bytes() == after
    uninstall(project)
    assert path.read_bytes() == before
    assert not list(project.glob("CLAUDE.local.md.*"))  # a one-line change needs no backup


def test_a_created_file_is_removed_again_and_an_edited_one_kept(project: Path) -> None:
    path = project / "CLAUDE.local.md"
    install(project)
    assert path.read_text() == LINE + "\n"
    uninstall(project)
    assert not path.exists()
    install(project)
    with path.open("a") as handle:
        handle.write("my own line\n")
    uninstall(project)
    assert path.read_text() == "my own line\n"


def test_install_json_and_dry_run_report_the_import(project: Path) -> None:
    dry = cli("install", "--dry-run", "--json", cwd=project).json()
    (planned,) = [entry for entry in dry["files"] if entry["path"].endswith("CLAUDE.local.md")]
    assert planned["action"] == "created"
    assert f"+{LINE}" in planned["diff"]
    assert not (project / "CLAUDE.local.md").exists()
    done = cli("install", "--json", cwd=project).json()
    (entry,) = [entry for entry in done["files"] if entry["path"].endswith("CLAUDE.local.md")]
    assert entry["changes"] == [{"where": "import", "action": "added", "command": LINE, "previous": None}]
    assert done["notes"] == []


def test_a_user_scope_install_says_the_import_does_not_apply(project: Path, tmp_path: Path) -> None:
    said = install(project, "--scope", "user")
    assert "CLAUDE.local.md: not changed. The memory surface is per project" in said
    assert not (project / "CLAUDE.local.md").exists()
    assert cli("install", "--scope", "user", "--json", cwd=project).json()["notes"] != []


def test_with_commands_writes_three_commands_calling_the_installed_cli(project: Path) -> None:
    said = install(project, "--with-commands")
    cortex = shlex.quote(script("cortex-hooks"))
    commands = project / ".claude" / "commands"
    for name, needed in (
        ("learn", " add --anti-pattern "),
        ("remember", " remember '"),
        ("recall", " recall '"),
    ):
        text = (commands / f"{name}.md").read_text()
        assert text.startswith("---\ndescription: ")
        assert slash_commands.MARKER in text
        assert "$ARGUMENTS" in text
        assert f"       {cortex}{needed}" in text
        assert f"Added the /{name} command: {commands / (name + '.md')}" in said
    (word,) = {shlex.split(line)[0] for line in text.splitlines() if " recall '" in line}
    assert os.path.isabs(word)
    assert os.access(word, os.X_OK)
    uninstall(project)
    assert not commands.exists()  # the files carried our marker: removed, no backup, then the folder


def test_with_learn_command_writes_learn_only(project: Path) -> None:
    install(project, "--with-learn-command")
    assert sorted(path.name for path in (project / ".claude/commands").iterdir()) == ["learn.md"]


def test_uninstall_removes_only_command_files_carrying_our_marker(project: Path) -> None:
    commands = project / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "recall.md").write_text("my own /recall\n")
    refused = cli("install", "--with-commands", cwd=project)
    assert refused.code == 2
    assert "recall.md exists and was not written by cortex-hooks" in refused.stderr
    assert sorted(path.name for path in commands.iterdir()) == ["recall.md"]  # nothing written
    legacy = slash_commands.LEGACY[0]
    (commands / "learn.md").write_text(f"---\n---\n{legacy}\nan old /learn\n")
    uninstall(project)
    assert sorted(path.name for path in commands.iterdir() if not path.name.endswith(".bak")) == ["recall.md"]
    assert (commands / "recall.md").read_text() == "my own /recall\n"


@pytest.mark.parametrize(
    ("before", "expected"),
    [
        (b"", None),
        (b"x\n" + LINE.encode() + b"\n", "x\n"),
        (b"x\n" + LINE.encode(), "x"),
        (b"x\r\n" + LINE.encode() + b"\r\ny\r\n", "x\r\ny\r\n"),
        (LINE.encode() + b"\n", None),
        (b"  " + LINE.encode() + b"  \n", None),
    ],
)
def test_removing_the_import_line(before: bytes, expected: str | None) -> None:
    assert surface_import.removed(before) == expected
