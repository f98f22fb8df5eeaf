"""`install --with-mcp`: the `cortex` server in the project's .mcp.json or the user's ~/.claude.json
(as `claude mcp add` writes it) and the allow rule; merged, idempotent, backed up, only ours removed."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from support import cli, script

from cortex_hooks.install.mcp_registration import entry

OTHER = {"type": "stdio", "command": "/usr/bin/other-server", "args": [], "env": {}}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    return project


def read(path: Path) -> Any:
    return json.loads(path.read_text())


def backups(path: Path) -> list[Path]:
    return sorted(path.parent.glob(path.name + ".*.bak"))


def test_with_mcp_merges_the_server_into_the_projects_mcp_json(root: Path) -> None:
    servers = root / ".mcp.json"
    servers.write_text(json.dumps({"mcpServers": {"other": OTHER}}, indent=2))
    result = cli("install", "--with-mcp", cwd=root)
    assert result.code == 0, result.stderr
    assert f"Added the MCP server cortex: {servers}" in result.stdout
    assert read(servers) == {"mcpServers": {"other": OTHER, "cortex": entry(script("cortex-hooks"))}}
    assert os.path.isabs(read(servers)["mcpServers"]["cortex"]["command"])
    assert read(root / ".claude" / "settings.json")["permissions"]["allow"] == ["mcp__cortex"]
    (backup,) = backups(servers)
    assert read(backup) == {"mcpServers": {"other": OTHER}}

    again = cli("install", "--with-mcp", cwd=root)
    assert "The MCP server cortex is already in" in again.stdout
    assert len(backups(servers)) == 1  # nothing changed, nothing backed up

    removed = cli("uninstall", cwd=root)
    assert removed.code == 0, removed.stderr
    assert read(servers) == {"mcpServers": {"other": OTHER}}
    assert not (root / ".claude" / "settings.json").exists()  # our hooks and rule were all it held


def test_an_mcp_json_install_created_is_removed_by_uninstall(root: Path) -> None:
    assert cli("install", "--with-mcp", cwd=root).code == 0
    assert list(read(root / ".mcp.json")["mcpServers"]) == ["cortex"]
    assert cli("uninstall", cwd=root).code == 0
    assert not (root / ".mcp.json").exists()


def test_without_with_mcp_no_server_is_written(root: Path) -> None:
    assert cli("install", cwd=root).code == 0
    assert not (root / ".mcp.json").exists()
    assert "allow" not in read(root / ".claude" / "settings.json")["permissions"]  # the deny rules only


def test_a_moved_installation_updates_the_command(root: Path) -> None:
    servers = root / ".mcp.json"
    servers.write_text(json.dumps({"mcpServers": {"cortex": entry("/old/venv/bin/cortex-hooks")}}))
    result = cli("install", "--with-mcp", cwd=root)
    assert "Updated the MCP server cortex" in result.stdout
    assert read(servers)["mcpServers"]["cortex"]["command"] == script("cortex-hooks")


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (json.dumps({"mcpServers": {"cortex": OTHER}}), "not cortex-hooks'"),
        ("{not json", "is not valid JSON"),
        (json.dumps({"mcpServers": []}), "mcpServers object"),
    ],
)
def test_a_file_we_cannot_merge_is_left_untouched(root: Path, text: str, reason: str) -> None:
    servers = root / ".mcp.json"
    servers.write_text(text)
    result = cli("install", "--with-mcp", cwd=root)
    assert result.code != 0
    assert reason in result.stderr
    assert servers.read_text() == text
    assert not (root / ".claude").exists()  # nothing else written either


def test_uninstall_leaves_a_server_not_ours(root: Path) -> None:
    text = json.dumps({"mcpServers": {"cortex": OTHER}})
    (root / ".mcp.json").write_text(text)
    assert cli("uninstall", cwd=root).code == 0
    assert (root / ".mcp.json").read_text() == text


def test_dry_run_writes_nothing(root: Path) -> None:
    result = cli("install", "--with-mcp", "--dry-run", cwd=root)
    assert result.code == 0, result.stderr
    assert '"mcpServers"' in result.stdout
    assert not (root / ".mcp.json").exists()


def test_user_scope_registers_the_server_in_claude_json_and_allows_it(root: Path) -> None:
    home = Path(os.environ["HOME"])
    state = home / ".claude.json"
    kept = {"firstStartTime": "2026-11-23T20:11:58.336Z", "projects": {"/x": {"allowedTools": []}}}
    state.write_text(json.dumps(kept, indent=2))
    result = cli("install", "--scope", "user", "--with-mcp", cwd=root)
    assert result.code == 0, result.stderr
    assert read(state) == {**kept, "mcpServers": {"cortex": entry(script("cortex-hooks"))}}
    assert read(home / ".claude" / "settings.json")["permissions"]["allow"] == ["mcp__cortex"]
    assert not (root / ".mcp.json").exists()
    assert cli("uninstall", "--scope", "user", cwd=root).code == 0
    assert read(state) == {**kept, "mcpServers": {}}


@pytest.mark.claude_cli
def test_the_entry_is_what_claude_mcp_add_writes(claude: str, tmp_path: Path) -> None:
    home = tmp_path / "claude-home"
    home.mkdir()
    environment = {
        **os.environ,
        "HOME": str(home),
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
    }
    command = script("cortex-hooks")
    subprocess.run(
        [claude, "mcp", "add", "--scope", "user", "cortex", "--", command, "mcp"],
        env=environment,
        cwd=tmp_path,
        capture_output=True,
        timeout=120,
        check=True,
    )
    assert read(home / ".claude.json")["mcpServers"] == {"cortex": entry(command)}
