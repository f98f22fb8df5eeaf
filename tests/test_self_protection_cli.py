"""The built-in protection's allow-list of `cortex-hooks` commands is the CLI's own parser, judged
(guard.selfguard.own_cli): every command and action is either safe for the agent or weakening,
and the options the list reads are the parser's, so a command or option added later is judged
here before the agent may run it."""

from __future__ import annotations

import argparse

from cortex_hooks import cli
from cortex_hooks.guard.selfguard import own_cli


def commands() -> dict[str, argparse.ArgumentParser]:
    """Each command (`packs disable` for an action of a group) and its parser."""
    found: dict[str, argparse.ArgumentParser] = {}

    def walk(parser: argparse.ArgumentParser, path: list[str]) -> None:
        groups = [action for action in parser._actions if isinstance(action, argparse._SubParsersAction)]
        if path and not groups:
            found[" ".join(path)] = parser
        for group in groups:
            for name, sub in group.choices.items():
                walk(sub, [*path, name])

    walk(cli.parser(), [])
    return found


def options(parser: argparse.ArgumentParser) -> dict[str, bool]:
    """Each option string and whether it takes a value."""
    return {
        string: action.nargs != 0
        for action in parser._actions
        for string in action.option_strings
        if not isinstance(action, argparse._SubParsersAction)
    }


def test_every_command_is_judged_and_every_judged_command_exists() -> None:
    names = set(commands())
    assert names == own_cli.SAFE | set(own_cli.WEAKENING)
    assert not own_cli.SAFE & set(own_cli.WEAKENING)
    groups = {name.split()[0] for name in names if " " in name}
    assert groups == set(own_cli.GROUPS)


def test_the_options_read_are_the_parsers() -> None:
    parsers = commands()
    top = cli.parser()
    assert options(top) == own_cli._TOP
    group = next(
        parser for action in top._actions if isinstance(action, argparse._SubParsersAction)
        for name, parser in action.choices.items() if name == "packs"
    )  # fmt: skip
    assert options(group) == own_cli._GROUP
    assert options(parsers["update"]) == own_cli._UPDATE
    for name in own_cli.DRY_RUN:
        assert "--dry-run" in options(parsers[name]), name
    for name, (option, _) in own_cli.RISKY.items():
        assert options(parsers[name])[option] is True, (name, option)
    for name, option in own_cli.WRITES.items():
        assert options(parsers[name])[option] is True, (name, option)
    for name, parser in parsers.items():  # the options every group shares are those _GROUP reads
        if name.split()[0] in own_cli.GROUPS:
            assert {"--db", "--global-db"} <= set(options(parser)), name
