"""Packs (docs/guide/packs.md) end to end: `cortex-hooks packs` and its actions, install --packs, what a new
package version changes (by slug, the user's state kept), muting, and the hook's use of them."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from support import cli, cli_json, run

from cortex_hooks.guard.packs import shipped


def hook(command: str, cwd: Path) -> Any:
    payload = {"session_id": "s", "hook_event_name": "PreToolUse", "cwd": str(cwd), "tool_name": "Bash",
               "tool_input": {"command": command}}  # fmt: skip
    return run("cortex-pre-tool-use", stdin=json.dumps(payload))


def denies(command: str, cwd: Path) -> bool:
    result = hook(command, cwd)
    assert result.code == 0, result.stderr
    return '"permissionDecision": "deny"' in result.stdout


def pack_rows(db: Path) -> dict[str, sqlite3.Row]:
    with closing(sqlite3.connect(db)) as connection:
        connection.row_factory = sqlite3.Row
        rows = connection.execute(
            "SELECT l.*, c.confidence FROM learning l LEFT JOIN learning_confidence c ON c.learning_id = l.id"
            " WHERE slug IS NOT NULL"
        ).fetchall()
    return {row["slug"]: row for row in rows}


def test_packs_lists_what_ships_and_nothing_is_enabled_by_itself(db: Path) -> None:
    listed = cli_json("packs")
    assert [item["name"] for item in listed] == shipped.names()
    assert {"core.filesystem", "core.git", "containers", "kubernetes", "infrastructure"} <= set(
        shipped.names()
    )
    assert {"databases", "cloud", "publishing"} <= set(shipped.names())
    assert all(not item["project"] and not item["global"] for item in listed)
    assert not db.exists()  # listing never creates a database
    text = cli("packs").stdout
    assert "cortex-hooks packs enable" in text


def test_enable_writes_pinned_blocking_learnings_keyed_by_slug(db: Path) -> None:
    dry = cli_json("packs", "enable", "core", "--dry-run")
    assert [item["added"] for item in dry] == [
        len(shipped.load("core.filesystem")),
        len(shipped.load("core.git")),
    ]
    assert not db.exists()
    cli_json("packs", "enable", "core")
    rows = pack_rows(db)
    assert set(rows) == {record.id for name in shipped.expand("core") for record in shipped.load(name)}
    assert all(
        row["pinned"] == 1 and row["auto_block"] == 1 and row["confidence"] == 70 for row in rows.values()
    )
    assert rows["core.git:reset-hard"]["pack"] == "core.git"
    assert denies("cd repo && git reset --hard", db.parent)  # blocks from the start
    assert not denies("git commit -m 'never git reset --hard'", db.parent)
    again = cli_json("packs", "enable", "core.git")
    assert again == [
        {"pack": "core.git", "scope": "project", "dry_run": False, "added": 0, "updated": 0, "archived": 0}
    ]
    listed = {item["name"]: item for item in cli_json("packs")}
    assert listed["core.git"]["project"] is True
    cli("add", "--anti-pattern", "my own rule", "--correct", "x", "--regex", "y", "--auto-block")
    snapshot = cli("snapshot").stdout
    assert "blocked: my own rule" in snapshot
    assert "git reset --hard" not in snapshot  # a pack's rules explain themselves when they deny


def test_a_new_pack_version_updates_by_slug_and_keeps_the_users_state(db: Path) -> None:
    cli_json("packs", "enable", "core.git")
    assert denies("git reset --hard", db.parent)  # one hit: access counted, confidence boosted
    cli_json("packs", "mute", "core.git:stash-drop")
    with closing(sqlite3.connect(db)) as connection, connection:  # as an older version wrote them
        connection.execute("UPDATE pack SET digest = 'older'")
        connection.execute(
            "UPDATE learning SET regex = 'never-matches', anti_pattern = 'old'"
            " WHERE slug = 'core.git:reset-hard'"
        )
        connection.execute("UPDATE learning SET regex = 'never' WHERE slug = 'core.git:stash-drop'")
        connection.execute(
            "INSERT INTO learning (anti_pattern, correct_pattern, regex, tool, target, severity, action,"
            " pinned, access_count, created_at, updated_at, slug, pack) VALUES ('gone', 'x', 'gone', 'Bash',"
            " 'content', 'high', 'block', 1, 0, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z',"
            " 'core.git:retired', 'core.git')"
        )
    before = pack_rows(db)
    start = run(
        "cortex-session-start",
        stdin={
            "session_id": "s2",
            "hook_event_name": "SessionStart",
            "source": "startup",
            "cwd": str(db.parent),
        },
    )
    assert start.code == 0, start.stderr
    after = pack_rows(db)
    reset = after["core.git:reset-hard"]
    assert reset["regex"] == next(r.regex for r in shipped.load("core.git") if r.id == "core.git:reset-hard")
    assert (reset["access_count"], reset["confidence"]) == (before["core.git:reset-hard"]["access_count"], 80)
    assert after["core.git:stash-drop"]["muted"] == 1  # muted stays muted
    assert after["core.git:retired"]["archived_at"] is not None  # gone from the pack: archived
    with closing(sqlite3.connect(db)) as connection:
        assert connection.execute("SELECT digest FROM pack").fetchone()[0] == shipped.digest(
            shipped.text("core.git")
        )
    assert denies("git reset --hard", db.parent)


def test_muting_is_per_scope_and_unmute_gives_it_back(db: Path, tmp_path: Path) -> None:
    cli_json("packs", "enable", "core.git")
    cli_json("packs", "enable", "core.git", "--global")
    assert cli("packs", "mute", "core.git:stash-clear").code == 0
    assert cli_json("packs", "show", "core.git")["learnings"][-1]["muted"] in (True, False)
    with closing(sqlite3.connect(db)) as connection:
        assert connection.execute(
            "SELECT muted FROM learning WHERE slug = 'core.git:stash-clear'"
        ).fetchone() == (1,)
    assert denies("git stash clear", db.parent)  # the global scope's copy still blocks
    cli_json("packs", "mute", "core.git:stash-clear", "--global")
    assert not denies("git stash clear", db.parent)
    explained = cli_json("explain", "--tool", "Bash", "--command", "git stash clear")
    assert any("muted" in item["result"] for item in explained["learnings"])
    cli_json("packs", "unmute", "core.git:stash-clear")
    assert denies("git stash clear", db.parent)
    missing = cli("packs", "mute", "core.git:no-such")
    assert missing.code == 2
    assert missing.stderr.startswith("cortex-hooks:")


def test_disable_archives_and_enable_restores_with_state(db: Path) -> None:
    cli_json("packs", "enable", "core.filesystem")
    assert denies("rm -rf build", db.parent)
    disabled = cli_json("packs", "disable", "core.filesystem")
    assert disabled == [{"pack": "core.filesystem", "scope": "project", "archived": 2}]
    assert not denies("rm -rf build", db.parent)
    assert cli_json("list", "--archived")  # archived, never deleted
    cli_json("packs", "enable", "core.filesystem")
    rows = pack_rows(db)
    assert rows["core.filesystem:rm-recursive-force"]["archived_at"] is None
    assert rows["core.filesystem:rm-recursive-force"]["access_count"] == 1
    assert denies("rm -rf build", db.parent)


@pytest.mark.parametrize("name", ["nope", "core.nope"])
def test_an_unknown_pack_is_refused_with_the_names(name: str) -> None:
    result = cli("packs", "enable", name)
    assert result.code == 2
    assert "core.git" in result.stderr


def test_install_no_packs_enables_none_and_says_how_and_install_packs_enables_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(project))
    monkeypatch.delenv("CORTEX_DB", raising=False)
    plain = cli("install", "--no-packs")
    assert plain.code == 0, plain.stderr
    assert plain.stdout.splitlines()[-1] == (
        "No pack protects in this project: the guard holds your learnings only "
        "(cortex-hooks packs enable core)."
    )
    database = project / ".cortex" / "cortex.db"
    assert pack_rows(database) == {}
    enabled = cli("install", "--packs", "core.git", "--json")
    assert enabled.code == 0, enabled.stderr
    assert [item["pack"] for item in enabled.json()["packs"]] == ["core.git"]
    assert enabled.json()["protected"] == {"core.git": len(shipped.load("core.git"))}
    assert "core.git:reset-hard" in pack_rows(database)
    assert not any(slug.startswith("core.filesystem") for slug in pack_rows(database))
    assert cli("install", "--packs", "core", "--no-packs").code == 2  # one or the other


def test_export_and_import_carry_the_slug(db: Path, tmp_path: Path) -> None:
    cli_json("packs", "enable", "core.filesystem")
    exported = cli("export").json()
    assert {item["slug"] for item in exported["learnings"]} == {r.id for r in shipped.load("core.filesystem")}
    other = tmp_path / "other.db"
    source = tmp_path / "export.json"
    source.write_text(json.dumps(exported))
    assert cli("import", str(source), "--db", str(other)).code == 0
    assert set(pack_rows(other)) == {r.id for r in shipped.load("core.filesystem")}
    again = cli("import", str(source), "--db", str(other))  # a slug already there is not doubled
    assert again.code == 0, again.stderr
    assert len(pack_rows(other)) == len(shipped.load("core.filesystem"))
