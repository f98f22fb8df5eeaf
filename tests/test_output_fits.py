"""What a person reads fits: `list`, `memories list` and `explain` cut each line to the terminal's
width (COLUMNS when set, else the terminal's; whole lines in a pipe or a file, for grep); explain
cuts a regex and says ALLOW when nothing stops a call; recall says when an archived memory holds
the words although nothing active does. Through the installed script, on a real terminal (a pty)
where the terminal is the point."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import termios
from pathlib import Path

import pytest
from support import cli, cli_json, cli_process, script

from cortex_hooks.mcp import tools

LONG = "a very long anti-pattern that goes on " * 8


def on_a_terminal(*args: str, columns: int) -> str:
    """`cortex-hooks ARGS` with its stdout on a pseudo-terminal of this many columns."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    attributes = termios.tcgetattr(follower)
    attributes[1] &= ~termios.ONLCR  # the lines as written: no \r added
    termios.tcsetattr(follower, termios.TCSANOW, attributes)
    env = {key: value for key, value in os.environ.items() if key != "COLUMNS"}
    process = subprocess.Popen(
        [script("cortex-hooks"), *args], stdout=follower, stderr=subprocess.PIPE, env=env
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal is gone with the process
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    assert process.wait(timeout=60) == 0, process.stderr.read() if process.stderr else ""
    return b"".join(chunks).decode("utf-8")


@pytest.fixture
def long_learning(db: Path) -> None:
    cli_json("add", "--anti-pattern", LONG, "--correct", "the short way", "--regex", "x", "--tool", "Bash")


@pytest.mark.usefixtures("long_learning")
@pytest.mark.parametrize("columns", [60, 100, 200])
def test_list_fits_the_terminal(columns: int) -> None:
    lines = on_a_terminal("list", columns=columns).splitlines()
    assert len(lines) == 2
    assert all(len(line) <= columns for line in lines), [len(line) for line in lines]
    assert lines[1].endswith("…")
    assert lines[1].startswith("   1  0.70       -       -  -")


@pytest.mark.usefixtures("long_learning")
def test_list_takes_columns_when_set_and_is_whole_in_a_pipe() -> None:
    narrow = cli_process("list", env={"COLUMNS": "70"}).stdout.splitlines()
    assert [len(line) for line in narrow] == [min(len(narrow[0]), 70), 70]
    whole = cli_process("list").stdout.splitlines()[1]
    assert whole.endswith(f"{LONG.strip()} -> the short way")  # grep sees every word


def test_memories_list_fits_the_terminal(db: Path) -> None:
    summary = LONG[:150].strip()  # a summary is at most 200 characters
    cli_json("remember", summary)
    lines = on_a_terminal("memories", "list", columns=72).splitlines()
    assert max(len(line) for line in lines) == 72
    assert cli_process("memories", "list").stdout.splitlines()[1].endswith(summary)


@pytest.fixture
def packs(db: Path) -> None:
    assert cli("packs", "enable", "core").code == 0


@pytest.mark.usefixtures("packs")
def test_explain_says_allow_and_cuts_every_regex() -> None:
    result = cli_process("explain", "--tool", "Bash", "--command", "ls -la")
    assert result.code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "Tool call: Bash — the hook would: ALLOW (nothing stops this call)"
    assert "NONE" not in result.stdout
    assert max(len(line) for line in lines) < 160  # a pack's regex runs past 1,000 characters
    assert "(A regex is cut at 60 characters here: --json gives each whole.)" in lines
    regexes = [
        learning["regex"]
        for learning in cli_json("explain", "--tool", "Bash", "--command", "ls")["learnings"]
    ]
    assert max(len(regex) for regex in regexes) > 1000
    assert cli_json("explain", "--tool", "Bash", "--command", "ls")["decision"] == "none"  # JSON as it was


@pytest.mark.usefixtures("packs")
def test_explain_fits_the_terminal_and_keeps_the_match_in_full() -> None:
    text = on_a_terminal("explain", "--tool", "Bash", "--command", "git reset --hard", columns=80)
    lines = text.splitlines()
    assert lines[0] == "Tool call: Bash — the hook would: DENY"
    assert max(len(line) for line in lines) <= 80
    matched = lines.index(next(line for line in lines if line.startswith("#10 git reset --hard")))
    assert matched == 3  # what decides first, right after the command as it was read
    assert lines[matched + 2].startswith("    match in `git reset --hard` -> deny")
    assert lines[matched + 3].startswith("#1 ")  # the candidates that do not match: two lines each
    assert lines[matched + 4].startswith("    no match: regex ")


@pytest.mark.usefixtures("packs")
def test_explain_of_a_whole_input_is_not_taken_for_no_command() -> None:
    result = cli_process("explain", "--tool", "Write", "--input", '{"file_path": "a.py", "content": "x"}')
    assert (result.code, result.stderr) == (0, "")
    assert result.stdout.startswith("Tool call: Write — the hook would: ALLOW")


def test_recall_names_an_archived_memory_when_nothing_active_matches(db: Path) -> None:
    cli_json("remember", "We use yarn for the frontend build", "--type", "decision")
    cli_json("remember", "The database is PostgreSQL 16")
    assert cli("forget", "1").code == 0
    said = cli_process("recall", "yarn frontend")
    assert said.code == 0
    assert said.stdout == (
        "Nothing active found; an archived memory matches (recall leaves archived ones out):\n"
        "#1 (project) We use yarn for the frontend build\n"
        "  show: cortex-hooks memories show 1\n"
        "  bring it back: cortex-hooks memories restore 1\n"
    )
    assert cli_process("recall", "yarn", "--json").stdout == "[]\n"  # the JSON is the results, as it was
    assert cli_process("recall", "yarn", "--type", "gotcha").stdout == "Nothing found.\n"
    assert cli_process("recall", "yarn", "--kind", "learning").stdout == "Nothing found.\n"
    assert cli_process("recall", "kubernetes").stdout == "Nothing found.\n"
    text, is_error = tools.call("cortex_recall", {"query": "yarn"})
    assert not is_error
    assert text.startswith("Nothing active found; an archived memory matches")
    assert "cortex-hooks memories restore 1" in text
    assert cli_json("memories", "show", "1")["status"] == "archived"  # named, not restored


def test_recall_counts_many_archived_memories_and_names_a_few(db: Path) -> None:
    for number in range(5):
        cli_json("remember", f"deploy step {number} uses terraform", "--global")
    for number in range(1, 6):
        assert cli("forget", str(number), "--global").code == 0
    said = cli_process("recall", "terraform").stdout
    assert said.startswith("Nothing active found; 5 archived memories match")
    assert said.count("bring it back: cortex-hooks memories restore") == 3
    assert "--global" in said
    assert said.rstrip().endswith(
        "All of them: cortex-hooks memories list --archived (--global for the user's)"
    )
