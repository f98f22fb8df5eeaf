"""The CLI documents itself and the README documents the CLI, in the manner of sqlite-utils'
tests/test_docs.py: the list of commands comes from the parser itself, never from a hand-kept
list, so a command added without help or without its line in the README fails here."""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from cortex_hooks import cli

README = Path(__file__).resolve().parent.parent / "README.md"


def commands(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], str | None, argparse.ArgumentParser]]:
    """Every command and sub-command of the parser, depth first: its words, its help, its parser."""
    for action in parser._actions:  # argparse keeps its subcommands nowhere public
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help for choice in action._choices_actions}
            for name, sub in action.choices.items():
                yield (*path, name), helps.get(name), sub
                yield from commands(sub, (*path, name))


COMMANDS = {" ".join(words): (help_text, sub) for words, help_text, sub in commands(cli.parser())}


def cli_section() -> list[str]:
    """The lines of the README's CLI synopsis: the first code block of "## The CLI"."""
    section = README.read_text(encoding="utf-8").split("\n## The CLI\n", 1)[1]
    block = section.split("```text\n", 1)[1].split("```", 1)[0]
    return [line for line in block.splitlines() if line.startswith("cortex-hooks ")]


def test_the_parser_walk_sees_every_level() -> None:
    assert {"add", "recall", "memories", "memories update", "reflect similar", "todos done"} <= set(COMMANDS)
    assert len(COMMANDS) == len(set(cli.MODULES)) + sum(" " in name for name in COMMANDS)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_has_help(command: str) -> None:
    help_text, _ = COMMANDS[command]
    assert help_text, f"`cortex-hooks {command}` has no help text"


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_option_and_argument_has_help(command: str) -> None:
    _, parser = COMMANDS[command]
    silent = [
        action.option_strings[0] if action.option_strings else action.metavar or action.dest
        for action in parser._actions
        if not isinstance(action, (argparse._SubParsersAction, argparse._HelpAction)) and not action.help
    ]
    assert silent == [], f"`cortex-hooks {command}`: no help for {silent}"


def named(line: str) -> set[str]:
    """The commands a synopsis line names: its first word, and each alternative after ` | `
    (`cortex-hooks pin ID | unpin ID`, `export [--output FILE] | import FILE`)."""
    body = line.removeprefix("cortex-hooks ")
    return {*body.split()[0].split("|"), *re.findall(r" \| ([a-z][\w-]*)(?=\s|$)", body)}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_is_in_the_readme(command: str) -> None:
    """A command is named by a line of the synopsis; a sub-command is on a line naming its group
    (`decisions|errors|todos list|show|…`), each as a whole word."""
    *group, name = command.split()
    lines = cli_section()
    if not group:
        documented = any(name in named(line) for line in lines)
    else:
        documented = any(
            re.match(rf"cortex-hooks ([\w-]+\|)*{re.escape(group[0])}(\|[\w-]+)*\s", line)
            and re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", line)
            for line in lines
        )
    assert documented, f"`cortex-hooks {command}` is not in the README's CLI section"


def test_the_readme_names_no_command_that_is_gone() -> None:
    top = {command for command in COMMANDS if " " not in command}
    assert {name for line in cli_section() for name in named(line)} - top == set()
