"""The CLI reference page, docs/reference/cli.md, written from the parser's own `--help` texts:
`python tests/cli_reference.py` writes it, tests/test_docs.py fails when it differs."""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator
from pathlib import Path

from cortex_hooks import cli

PAGE = Path(__file__).resolve().parent.parent / "docs" / "reference" / "cli.md"
WIDTH = "100"  # argparse wraps to the terminal: a fixed width, so the page is the same everywhere

HEADER = """\
# CLI reference

Every command's `--help`, as `cortex-hooks` prints it. This page is generated from the parser
(`python tests/cli_reference.py` writes it; `tests/test_docs.py` fails when it differs), so it is
never out of date. The [commands page](commands.md) gives the synopsis of them all on one screen
and what they share (options, exit codes, JSON output).
"""


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


def render() -> str:
    """The page: the top-level help, then each command's, in the parser's order."""
    before = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = WIDTH
    try:
        top = cli.parser()
        sections = [HEADER, _section("cortex-hooks", top)]
        sections += [_section(f"cortex-hooks {' '.join(words)}", sub) for words, _, sub in commands(top)]
    finally:
        if before is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = before
    return "\n".join(sections)


def _section(title: str, parser: argparse.ArgumentParser) -> str:
    return f"## `{title}`\n\n```text\n{parser.format_help().rstrip()}\n```\n"


if __name__ == "__main__":
    PAGE.write_text(render(), encoding="utf-8")
    print(f"wrote {PAGE}")
