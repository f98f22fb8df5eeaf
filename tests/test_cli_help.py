"""The first screen of the CLI, through the installed script: `--help` fits a terminal (at most 40
lines of at most 80 characters), says where to start and names every command once in its group;
bare `cortex-hooks` shows it; the groups' actions a newcomer types first (`sessions`, `packs list`,
`packs show core`) work."""

from __future__ import annotations

import json
from pathlib import Path

from cli_reference import commands
from support import cli_json, cli_process

from cortex_hooks import cli
from cortex_hooks.cli import overview

TOP = {words[0] for words, _, _ in commands(cli.parser()) if len(words) == 1}


def test_help_fits_a_screen_and_says_where_to_start() -> None:
    result = cli_process("--help")
    assert (result.code, result.stderr) == (0, "")
    lines = result.stdout.splitlines()
    assert len(lines) <= 40, len(lines)
    assert max(len(line) for line in lines) <= 80
    assert lines[0].startswith("usage: cortex-hooks")
    assert "Start here" in result.stdout
    assert "  cortex-hooks install " in result.stdout
    assert "cortex-hooks COMMAND --help" in result.stdout


def test_every_command_is_in_one_group_of_the_help() -> None:
    grouped = [name for _, names in overview.GROUPS for name in names]
    assert sorted(grouped) == sorted(set(grouped)), "a command in two groups"
    assert set(grouped) == TOP
    text = cli_process("-h").stdout
    for name in TOP:
        assert f"  {name}  " in text or text.count(f"  {name}\n"), name


def test_bare_cortex_hooks_shows_the_help(db: Path) -> None:
    bare, helped = cli_process(), cli_process("--help")
    assert (bare.code, bare.stderr, bare.stdout) == (0, "", helped.stdout)
    assert cli_process("--db", str(db)).stdout == helped.stdout
    assert not db.exists()


def test_sessions_alone_lists_them(db: Path) -> None:
    cli_process("add", "--no-regex", "--anti-pattern", "a", "--correct", "b")
    for args in (("sessions",), ("sessions", "list")):
        result = cli_process(*args)
        assert (result.code, result.stdout, result.stderr) == (0, "No sessions.\n", "")
    assert cli_json("sessions", "--json") == cli_json("sessions", "list", "--json") == []


def test_packs_list_is_packs() -> None:
    listed, bare = cli_process("packs", "list"), cli_process("packs")
    assert (listed.code, listed.stderr) == (0, "")
    assert listed.stdout == bare.stdout
    assert "core.git" in listed.stdout


def test_packs_show_takes_a_group_as_enable_does() -> None:
    group = cli_process("packs", "show", "core")
    assert (group.code, group.stderr) == (0, "")
    one = cli_process("packs", "show", "core.git").stdout
    assert one in group.stdout
    assert "core.filesystem:rm-recursive-force" in group.stdout
    as_json = json.loads(cli_process("packs", "show", "core", "--json").stdout)
    assert [pack["name"] for pack in as_json] == ["core.filesystem", "core.git"]
    assert cli_json("packs", "show", "core.git")["name"] == "core.git"  # a pack named: the pack
    assert cli_process("packs", "show", "nope").code == 2
