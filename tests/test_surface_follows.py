"""The push surface is current when Claude Code reads it (it reads it while SessionStart runs, so no
hook of that session can rewrite it in time): `install` writes it, every command or MCP tool that
changes a memory rewrites it, and SessionStart says only what the file lacks (memory.surface_delta),
never an entry twice."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import cli, cli_process

from cortex_hooks.mcp import tools
from cortex_hooks.memory.surface_delta import CHANGED, GONE, HEADER, delta, entries

SURFACE = Path(".claude") / "cortex-memory.local.md"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    monkeypatch.chdir(root)
    monkeypatch.delenv("CORTEX_DB")  # the project's own database, as a person's install uses
    monkeypatch.setenv("CORTEX_GLOBAL_DB", str(tmp_path / "global.db"))
    assert cli("install").code == 0
    return root


def surface(project: Path) -> str:
    return (project / SURFACE).read_text()


def test_install_writes_the_surface_its_import_names(project: Path) -> None:
    text = surface(project)
    assert "<!-- CORTEX:START -->" in text
    assert "No memories yet" in text
    said = cli("install").stdout
    assert f"Memory surface {project / SURFACE}: up to date (Claude Code reads it at session start)." in said


def test_install_no_surface_where_it_is_off_or_for_the_user(tmp_path: Path) -> None:
    other = tmp_path / "other"
    (other / ".cortex").mkdir(parents=True)
    (other / ".cortex" / "config.toml").write_text("[surface]\nenabled = false\n")
    assert cli("install", cwd=other, env={"CORTEX_DB": str(other / ".cortex" / "cortex.db")}).code == 0
    assert not (other / SURFACE).exists()


@pytest.mark.parametrize(
    ("before", "change", "shown"),
    [
        ([], ["remember", "Deploys need the VPN", "--pin"], "#1 (pinned) Deploys need the VPN"),
        (
            [["remember", "Deploys need the VPN"]],
            ["memories", "pin", "1"],
            "#1 (pinned) Deploys need the VPN",
        ),
        (
            [["remember", "Tabs, never spaces", "--pin"]],
            ["memories", "unpin", "1"],
            "#1 Tabs, never spaces —",
        ),
        ([], ["remember", "Global habit", "--global", "--pin"], "#1 (global, pinned) Global habit"),
        ([["remember", "Old name"]], ["memories", "update", "1", "--content", "New name"], "#1 New name"),
        ([], ["index-code", "README.md", "--prose", "the front page"], "`README.md`: the front page"),
    ],
)
def test_a_command_that_changes_a_memory_rewrites_the_surface(
    project: Path, before: list[list[str]], change: list[str], shown: str
) -> None:
    (project / "README.md").write_text("hello\n")
    for args in before:
        assert cli(*args).code == 0
    assert cli_process(*change).code == 0
    assert shown in surface(project)


@pytest.mark.parametrize(
    "gone", [["forget", "1"], ["memories", "archive", "1"], ["move", "1", "--memory", "--to", "global"]]
)
def test_a_memory_forgotten_or_moved_leaves_the_surface_at_once(project: Path, gone: list[str]) -> None:
    assert cli("remember", "The staging host is orders-old").code == 0
    assert "orders-old" in surface(project)
    assert cli_process(*gone).code == 0
    assert ("orders-old" in surface(project)) == (gone[0] == "move")  # moved: there, as global
    if gone[0] == "move":
        assert "(global) The staging host is orders-old" in surface(project)


def test_a_dry_run_or_another_database_leaves_the_surface(project: Path, tmp_path: Path) -> None:
    before = surface(project)
    assert cli("remember", "elsewhere", "--db", str(tmp_path / "scratch.db")).code == 0
    assert cli("lifecycle", "--dry-run").code == 0
    assert surface(project) == before


def test_an_mcp_tool_that_changes_a_memory_rewrites_the_surface(project: Path) -> None:
    text, is_error = tools.call("cortex_remember", {"content": "Builds run on Node 22", "pinned": True})
    assert not is_error, text
    assert "#1 (pinned) Builds run on Node 22" in surface(project)
    text, is_error = tools.call("cortex_forget", {"id": 1})
    assert not is_error, text
    assert "Node 22" not in surface(project)


def test_a_surface_that_cannot_be_written_is_a_note_and_the_memory_is_stored(project: Path) -> None:
    (project / SURFACE).write_text("<!-- CORTEX:START -->\nmine\n")  # a START without END
    done = cli_process("remember", "kept anyway")
    assert done.code == 0
    assert "cortex-hooks: surface not refreshed:" in done.stderr
    assert cli("recall", "kept").stdout.startswith("#1 ")


def test_session_start_carries_what_the_file_lacks_and_nothing_it_holds(
    project: Path, tmp_path: Path
) -> None:
    assert cli("remember", "Project fact", "--pin").code == 0
    assert cli("snapshot").stdout == ""  # the file is current: nothing to add, nothing twice
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert cli("remember", "Global fact", "--global", "--pin", cwd=elsewhere).code == 0  # not this surface
    said = cli("snapshot").stdout
    assert HEADER in said
    assert "#1 (global, pinned) Global fact" in said
    assert "Project fact" not in said


@pytest.mark.parametrize(
    ("read", "current", "said"),
    [
        ("- #1 a — `cortex-hooks memories show 1`", "- #1 a — `cortex-hooks memories show 1`", None),
        (
            None,
            "- #1 a — `cortex-hooks memories show 1`",
            [CHANGED, "- #1 a — `cortex-hooks memories show 1`"],
        ),
        (
            "- #1 a — `cortex-hooks memories show 1`",
            "- #1 (pinned) a — `cortex-hooks memories show 1`",
            [CHANGED, "- #1 (pinned) a — `cortex-hooks memories show 1`"],
        ),
        (
            "- #1 a — `cortex-hooks memories show 1`\n"
            "- #1 (global) b — `cortex-hooks memories show 1 --global`",
            "- #1 (global) b — `cortex-hooks memories show 1 --global`",
            [GONE, "- #1 a — `cortex-hooks memories show 1`"],
        ),
    ],
)
def test_the_delta_is_keyed_by_the_memory_each_entry_shows(
    read: str | None, current: str, said: list[str] | None
) -> None:
    found = delta(read, current, 2000)
    assert found == (None if said is None else "\n".join([HEADER, *said]))


def test_the_delta_keeps_whole_lines_within_its_budget() -> None:
    current = "\n".join(f"- #{n} {'x' * 50} — `cortex-hooks memories show {n}`" for n in range(1, 40))
    found = delta(None, current, 600)
    assert found is not None
    assert len(found) <= 600
    assert all(line in current.split("\n") for line in found.split("\n")[2:])
    assert delta(None, current, 80) is None  # no room for one entry: nothing rather than a title
    assert len(entries(current)) == 39
