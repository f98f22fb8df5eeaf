"""A write never silently picks a database (issue 23 item 10): one that creates a database it was
not told the path of says where, in one line; a path named with --db whose folder does not
exist is refused, nothing made; reading never creates anything."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import cli, cli_json

from cortex_hooks.mcp import tools


@pytest.fixture
def nowhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder with no project marker above it, as /tmp is; no CORTEX_DB."""
    folder = tmp_path / "scratch"
    folder.mkdir()
    monkeypatch.delenv("CORTEX_DB")
    return folder


def test_a_write_that_creates_the_database_says_where(nowhere: Path) -> None:
    made = nowhere / ".cortex" / "cortex.db"
    first = cli("remember", "the deploy key lives in the vault", cwd=nowhere)
    assert (first.code, first.stdout) == (0, "Remembered memory #1 (context, project).\n")
    assert first.stderr == f"cortex-hooks: created the project database {made}\n"
    second = cli("remember", "a second one", cwd=nowhere)
    assert second.stderr == ""  # it exists now: nothing more to say
    added = cli("add", "--anti-pattern", "x", "--correct", "y", "--regex", "x", "--global", cwd=nowhere)
    assert (
        added.stderr
        == f"cortex-hooks: created the global database {Path.home()}/.claude/memory/cortex-global.db\n"
    )


def test_the_mcp_tool_says_it_too(nowhere: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(nowhere)
    text, is_error = tools.call("cortex_remember", {"content": "deploys go through fly.io"})
    assert not is_error
    assert text == (
        "Remembered memory #1 (context, project).\n"
        f"created the project database {nowhere / '.cortex' / 'cortex.db'}"
    )


def test_a_named_path_in_a_folder_that_is_not_there_is_refused(tmp_path: Path) -> None:
    missing = tmp_path / "no" / "such" / "folder"
    result = cli("--db", str(missing / "x.db"), "remember", "x", process=True)
    assert result.code == 2
    assert result.stderr == (
        f"cortex-hooks: cannot create the database {missing / 'x.db'}: its folder {missing} does not exist "
        "(create the folder first, or name another path)\n"
    )
    assert not (tmp_path / "no").exists()


def test_a_named_path_says_nothing_more(db: Path) -> None:
    assert cli("remember", "x").stderr == ""  # CORTEX_DB named it: the person knows where it goes


@pytest.mark.parametrize(
    "argv",
    [
        ["list"],
        ["recall", "anything"],
        ["export"],
        ["memories", "list"],
        ["stats"],
        ["snapshot"],
        ["surface", "--dry-run"],
    ],
)
def test_reading_never_creates(nowhere: Path, argv: list[str]) -> None:
    result = cli(*argv, cwd=nowhere)
    assert result.code == 0, result.stderr
    assert list(nowhere.iterdir()) == []
    assert not (Path.home() / ".claude" / "memory").exists()


def test_listing_in_json_creates_nothing_either(nowhere: Path) -> None:
    assert cli_json("list", cwd=nowhere) == []
    assert list(nowhere.iterdir()) == []
