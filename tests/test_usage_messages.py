"""A usage error reads as a person would say it: the one meant for a typo, what is missing, the
values allowed — one `cortex-hooks:` line, exit 2, never argparse's own phrases."""

from __future__ import annotations

import pytest
from support import cli

ARGPARSE_WORDS = (
    "invalid choice",
    "the following arguments are required",
    "choose from",
    "expected one argument",
    "invalid int value",
    "argument ID:",
    "argument COMMAND",
)


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        # the examples
        (
            ["add", "--anti-patern", "x", "--correct", "y", "--regex", "x"],
            "unrecognized option --anti-patern: did you mean --anti-pattern? (see cortex-hooks add --help)",
        ),
        (["lsit"], "unknown command 'lsit': did you mean list? (see cortex-hooks --help)"),
        (["instal"], "unknown command 'instal': did you mean install?"),
        (
            ["add", "--anti-pattern", "x", "--correct", "y", "--regex", "x", "--severity", "urgent"],
            "severity: 'urgent' is not a severity: low, medium, high or critical",
        ),
        # a command far from every other: no list of forty commands
        (["zzz"], "unknown command 'zzz' (see cortex-hooks --help)"),
        (["memories", "lst"], "unknown action 'lst': did you mean list? (see cortex-hooks memories --help)"),
        (["reflect", "zz"], "unknown action 'zz' (one of decay or similar)"),
        (
            ["uninstall", "--scope", "usr"],
            "--scope: 'usr' is not one of project, local, user or managed: did you mean user?",
        ),
        (
            ["move", "1", "--to", "glbal"],
            "--to: 'glbal' is not one of global or project: did you mean global?",
        ),
        (["add", "--anti-pattern", "x"], "missing --correct (see cortex-hooks add --help)"),
        (["add"], "missing --anti-pattern and --correct"),
        (["recall"], "missing QUERY"),
        (["explain", "--tool", "Bash"], "missing --command or --input"),
        (["show", "abc"], "ID: 'abc' is not an id (a whole number, as 3 or #3)"),
        (["show", "0"], "ID: '0' is not an id (ids start at 1)"),
        (["recall", "x", "--limit", "many"], "--limit: 'many' is not a whole number"),
        (
            ["add", "--anti-pattern", "x", "--correct", "y", "--regex", "--force"],
            "--regex needs a value (one that begins with '-' is given as --regex=-…)",
        ),
        (["list", "--all", "--archived"], "--archived: not allowed with --all"),
        (
            ["--json", "list"],
            "--json is an option of list: put it after the command (cortex-hooks list … --json)",
        ),
        (["--jso", "list"], "unrecognized option --jso: did you mean --json?"),
        (["list", "--json", "extra"], "unexpected argument 'extra'"),
        (
            ["show", "1", "--jsn"],
            "unrecognized option --jsn: did you mean --json? (see cortex-hooks show --help)",
        ),
    ],
)
def test_a_usage_error_is_said_in_our_words(db: object, argv: list[str], said: str) -> None:
    result = cli(*argv)
    assert result.code == 2
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith("cortex-hooks: ")
    assert said in line
    assert not any(words in line for words in ARGPARSE_WORDS), line


def test_the_same_through_the_installed_script_and_python_m(db: object) -> None:
    """`python -m cortex_hooks` is the same command, errors included."""
    import subprocess
    import sys

    from support import script

    by_script = cli("lsit", process=True)
    by_module = subprocess.run(
        [sys.executable, "-m", "cortex_hooks", "lsit"], capture_output=True, text=True, check=False
    )
    assert (by_module.returncode, by_module.stderr) == (by_script.code, by_script.stderr)
    version = [
        subprocess.run([*command, "--version"], capture_output=True, text=True, check=True).stdout
        for command in ([sys.executable, "-m", "cortex_hooks"], [script("cortex-hooks")])
    ]
    assert version[0] == version[1] != ""
