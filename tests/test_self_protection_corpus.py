"""The built-in protection on everyday one-liners (docs/internals/integrity.md item 6): a command
is denied
only when the hook can name a place of the guard's it would change (tests/corpora/
selfguard_everyday.toml, written for this repository); and every denial reaches the rule through
the hook's substring tests (location.names_own_place)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from test_self_protection import PROJECT, refused

from cortex_hooks import location
from cortex_hooks.guard.selfguard import own_cli

CASES = tomllib.loads((Path(__file__).parent / "corpora" / "selfguard_everyday.toml").read_text())["case"]


@pytest.mark.parametrize("case", CASES, ids=[case["command"][:60] for case in CASES])
def test_an_everyday_command_is_denied_only_when_it_would_change_the_guard(case: dict[str, str]) -> None:
    command = case["command"]
    refusal = refused(command)
    assert ("deny" if refusal is not None else "allow") == case["expected"], (command, refusal)
    if refusal is not None:
        assert location.names_own_place({"command": command}, PROJECT), command


def test_the_corpus_holds_both_kinds() -> None:
    kinds = [case["expected"] for case in CASES]
    assert kinds.count("allow") >= 80
    assert kinds.count("deny") >= 40


def test_the_hooks_word_list_for_a_hidden_program_is_the_clis() -> None:
    """`$C archive 1` reaches the rule: location's words are the first words of the CLI's
    weakening commands and its groups, as guard.selfguard.own_cli has them."""
    firsts = {key.split()[0] for key in own_cli.WEAKENING} | own_cli.GROUPS
    assert firsts <= location.HIDDEN_COMMANDS
    assert location.names_own_place({"command": '"$D" archive 1'})
