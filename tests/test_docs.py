"""The CLI documents itself and the docs document the CLI, in the manner of sqlite-utils'
tests/test_docs.py: the list of commands comes from the parser itself, never from a hand-kept
list, so a command added without help, without its line in the synopsis of docs/reference/
commands.md or without its --help in docs/reference/cli.md fails here. And the docs stand on
their own: a short README that links every page, nothing cited from outside the repository."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest
from cli_reference import PAGE, commands, render
from docs_examples import ROOT, pages

from cortex_hooks import cli

README = ROOT / "README.md"
SYNOPSIS = ROOT / "docs" / "reference" / "commands.md"
README_LINES = 200

COMMANDS = {" ".join(words): (help_text, sub) for words, help_text, sub in commands(cli.parser())}


def cli_section() -> list[str]:
    """The lines of the CLI synopsis: the first text block of docs/reference/commands.md."""
    block = SYNOPSIS.read_text(encoding="utf-8").split("```text\n", 1)[1].split("```", 1)[0]
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
def test_every_command_is_in_the_synopsis(command: str) -> None:
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
    assert documented, f"`cortex-hooks {command}` is not in the synopsis of {SYNOPSIS.name}"


def test_the_synopsis_names_no_command_that_is_gone() -> None:
    top = {command for command in COMMANDS if " " not in command}
    assert {name for line in cli_section() for name in named(line)} - top == set()


def test_the_cli_reference_is_what_the_parser_says() -> None:
    """docs/reference/cli.md is every command's --help: `python tests/cli_reference.py` rewrites it."""
    rendered = render()  # once: rendering every command's --help per command took ~18 s at load
    assert PAGE.read_text(encoding="utf-8") == rendered, "run: python tests/cli_reference.py"
    for command in COMMANDS:
        assert f"## `cortex-hooks {command}`" in rendered


def test_the_readme_is_short() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_LINES, f"README.md: {len(lines)} lines; move the new part to a page of docs/"


def test_the_readme_links_every_page() -> None:
    readme = README.read_text(encoding="utf-8")
    linked = set(re.findall(r"\]\((docs/[^)#]+\.md)\)", readme))
    every = {str(page.relative_to(ROOT)) for page in pages() if page != README and page.name != "index.md"}
    assert every - linked == set(), "README.md's Documentation list lacks these pages"
    assert linked - every == set(), "README.md links pages that do not exist"


# What a reader of the repository cannot open: the specification, the plan's requirement numbers
# and the folder beside the checkout are documents of the team that wrote it, not of this project.
OUTSIDE = re.compile(r"\bSPEC\b|§\s*\d|\bFR-\d|\.\./shared|/work/|\bissue \d+")


@pytest.mark.parametrize("page", pages(), ids=lambda page: str(page.relative_to(ROOT)))
def test_no_page_cites_a_document_outside_the_repository(page: Path) -> None:
    cited = [
        f"{number}: {line.strip()}"
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1)
        if OUTSIDE.search(line)
    ]
    assert cited == []


@pytest.mark.parametrize(
    ("line", "cites"),
    [
        ("lifts Claude Code's 1.5 s budget (docs/internals/guarantees.md)", True),
        ("the plan's FR-022 score", True),
        ("look in ../shared/corpora", True),
        ("(issue 28)", True),
        ("the rank score of Memories", False),
        ("a speculative read", False),
    ],
)
def test_what_counts_as_citing_outside(line: str, cites: bool) -> None:
    assert bool(OUTSIDE.search(line)) is cites
