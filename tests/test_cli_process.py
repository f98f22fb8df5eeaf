"""The installed `cortex-hooks` script end to end, where only a real process shows the contract:
exit statuses as the shell sees them, one stderr line, --help and --version, the locale.

Most CLI tests run `cortex_hooks.cli.main` in-process (support.cli); these, the hooks, the
concurrency, crash-safety and load tests, and a few per file (process=True) go through the script.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from support import Result, cli_process

from cortex_hooks import __version__


def one_line_failure(result: Result, code: int) -> str:
    """docs/reference/commands.md: exit `code`, nothing on stdout, one `cortex-hooks:` line on stderr, no
    traceback."""
    assert result.code == code, (result.code, result.stdout, result.stderr)
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("cortex-hooks: "), result.stderr
    return lines[0]


def test_help_names_every_command() -> None:
    result = cli_process("--help")
    assert (result.code, result.stderr) == (0, "")
    assert result.stdout.startswith("usage: cortex-hooks")
    for command in ("add", "list", "show", "prune", "export", "import", "install", "explain", "doctor"):
        assert command in result.stdout, command


@pytest.mark.parametrize("command", [["add"], ["import"], ["decisions", "add"]])
def test_help_of_a_command(command: list[str]) -> None:
    result = cli_process(*command, "--help")
    assert (result.code, result.stderr) == (0, "")
    assert result.stdout.startswith(f"usage: cortex-hooks {' '.join(command)}")


def test_version() -> None:
    result = cli_process("--version")
    assert (result.code, result.stdout, result.stderr) == (0, f"cortex-hooks {__version__}\n", "")


def test_the_version_loads_no_command() -> None:
    """`--version` builds no command's parser: none of their modules, nor pydantic (it took 180 ms)."""
    program = (
        "import sys\n"
        "from cortex_hooks.cli import main\n"
        "try:\n    main(['--version'])\n"
        "except SystemExit:\n    pass\n"
        "print(sorted(name for name in sys.modules if name.startswith(('cortex_hooks.cli.', 'pydantic'))))\n"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines() == [f"cortex-hooks {__version__}", "[]"]


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (("frobnicate",), "frobnicate"),
        (("list", "--frobnicate"), "--frobnicate"),
        (
            ("add", "--no-regex", "--anti-pattern", "a", "--correct", "b", "--confidence", "0.95"),
            "confidence",
        ),
        (("add", "--anti-pattern", "a", "--correct", "b", "--regex", "("), "regex"),
    ],
)
def test_invalid_input_exits_2_with_one_line(args: tuple[str, ...], named: str, db: Path) -> None:
    assert named in one_line_failure(cli_process(*args), 2)
    assert not db.exists()


def test_an_unknown_id_exits_2(db: Path) -> None:
    assert cli_process("add", "--no-regex", "--anti-pattern", "a", "--correct", "b").code == 0
    assert "99" in one_line_failure(cli_process("show", "99"), 2)


def test_an_unusable_database_exits_1(db: Path) -> None:
    db.write_bytes(b"not a database, " * 512)
    assert "not a usable cortex database" in one_line_failure(cli_process("list"), 1)
    assert db.read_bytes() == b"not a database, " * 512


def test_doctor_exits_1_on_a_problem_and_says_so_in_both_forms(db: Path) -> None:
    human, machine = cli_process("doctor"), cli_process("doctor", "--json")
    assert (human.code, machine.code) == (1, 1), (human.stderr, machine.stderr)
    assert machine.json()["ok"] is False
    assert human.stdout


@pytest.mark.parametrize("locale", [{"LC_ALL": "C"}, {"LC_ALL": "C.UTF-8"}, {"LANG": "", "LC_ALL": ""}])
def test_non_ascii_text_round_trips_whatever_the_locale(locale: dict[str, str]) -> None:
    text = "naïve café → ✓ 日本"
    added = cli_process("add", "--no-regex", "--anti-pattern", text, "--correct", "c", "--json", env=locale)
    assert added.code == 0, added.stderr
    assert added.json()["anti_pattern"] == text
    shown = cli_process("list", env=locale)
    assert (shown.code, shown.stderr) == (0, "")
    assert text in shown.stdout
    exported = cli_process("export", env=locale)
    assert json.loads(exported.stdout)["learnings"][0]["anti_pattern"] == text
