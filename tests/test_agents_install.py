"""`install --agent NAME` / `uninstall --agent NAME`: each agent's own hook file at the
scope asked, merged with what was there; uninstall gives the file's bytes back (or removes the
file it made); plain `install` names the other agents it finds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import cli, script

FILES = {
    "codex": ".codex/hooks.json",
    "gemini": ".gemini/settings.json",
    "copilot": ".github/hooks/cortex-hooks.json",
    "cursor": ".cursor/hooks.json",
}
AGENTS = tuple(FILES)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    return root


def tree(root: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(root)): path.read_bytes() for path in sorted(root.rglob("*")) if path.is_file()
    }


@pytest.mark.parametrize("agent", AGENTS)
def test_install_writes_the_agents_own_file_and_uninstall_leaves_the_project_as_it_was(
    agent: str, project: Path
) -> None:
    before = tree(project)
    done = cli("install", "--agent", agent, cwd=project)
    assert done.code == 0, done.stderr
    written = json.loads((project / FILES[agent]).read_text())
    commands = json.dumps(written)
    for name in ("cortex-pre-tool-use", "cortex-session-start"):
        assert f"{script(name)} --agent {agent}" in commands
    again = cli("install", "--agent", agent, cwd=project)
    assert "nothing changed" in again.stdout
    done = cli("uninstall", "--agent", agent, cwd=project)
    assert done.code == 0, done.stderr
    assert "nothing but cortex-hooks' hooks was in it" in done.stdout
    after = {name: data for name, data in tree(project).items() if not name.startswith(".cortex/")}
    assert after == before


@pytest.mark.parametrize("agent", AGENTS)
def test_a_file_that_was_there_keeps_its_entries_and_gets_its_bytes_back(agent: str, project: Path) -> None:
    path = project / FILES[agent]
    path.parent.mkdir(parents=True)
    theirs = {
        "codex": {
            "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "audit"}]}]}
        },
        "gemini": {
            "theme": "dark",
            "hooks": {
                "BeforeTool": [{"matcher": "write_file", "hooks": [{"type": "command", "command": "lint"}]}]
            },
        },
        "copilot": {
            "version": 1,
            "hooks": {"preToolUse": [{"type": "command", "bash": "audit", "timeoutSec": 5}]},
        },
        "cursor": {
            "version": 1,
            "hooks": {"preToolUse": [{"command": "./audit.sh"}], "stop": [{"command": "x"}]},
        },
    }[agent]
    original = json.dumps(theirs, indent=4) + "\n"
    path.write_text(original)
    done = cli("install", "--agent", agent, cwd=project)
    assert done.code == 0, done.stderr
    merged = path.read_text()
    assert "audit" in merged or "lint" in merged
    assert "cortex-pre-tool-use" in merged
    assert merged.startswith('{\n    "')  # written in the file's own style
    done = cli("uninstall", "--agent", agent, cwd=project)
    assert done.code == 0, done.stderr
    assert path.read_text() == original
    assert "back as it was before install" in done.stdout
    assert not list(path.parent.glob(f"{path.name}.*.bak"))


def test_a_file_changed_since_install_loses_only_ours(project: Path) -> None:
    path = project / FILES["gemini"]
    done = cli("install", "--agent", "gemini", cwd=project)
    assert done.code == 0, done.stderr
    settings = json.loads(path.read_text())
    settings["theme"] = "light"
    path.write_text(json.dumps(settings, indent=2) + "\n")
    done = cli("uninstall", "--agent", "gemini", cwd=project)
    assert done.code == 0, done.stderr
    assert json.loads(path.read_text()) == {"theme": "light"}


@pytest.mark.parametrize(
    ("agent", "where"),
    [
        ("codex", "codex-home/hooks.json"),
        ("copilot", "copilot-home/hooks/cortex-hooks.json"),
        ("gemini", "home/.gemini/settings.json"),
        ("cursor", "home/.cursor/hooks.json"),
    ],
)
def test_the_user_scope_is_the_agents_own_folder(
    agent: str, where: str, project: Path, tmp_path: Path
) -> None:
    env = {"CODEX_HOME": str(tmp_path / "codex-home"), "COPILOT_HOME": str(tmp_path / "copilot-home")}
    done = cli("install", "--agent", agent, "--scope", "user", cwd=project, env=env)
    assert done.code == 0, done.stderr
    assert (tmp_path / where).exists()
    assert not (project / FILES[agent]).exists()


def test_no_local_scope_and_no_file_of_another_shape(project: Path) -> None:
    done = cli("install", "--agent", "codex", "--scope", "local", cwd=project)
    assert done.code == 2
    assert "Codex CLI has no local scope" in done.stderr
    (project / ".cursor").mkdir()
    (project / ".cursor" / "hooks.json").write_text('{"hooks": []}')
    done = cli("install", "--agent", "cursor", cwd=project)
    assert done.code == 2
    assert '"hooks" is not an object; left untouched' in done.stderr
    (project / ".gemini").mkdir()
    (project / ".gemini" / "settings.json").write_text('{\n  // a comment\n  "theme": "dark"\n}\n')
    done = cli("install", "--agent", "gemini", cwd=project)
    assert done.code == 2
    assert "is not valid JSON" in done.stderr


def test_a_dry_run_shows_the_diff_and_writes_nothing(project: Path) -> None:
    done = cli("install", "--agent", "copilot", "--dry-run", cwd=project)
    assert done.code == 0, done.stderr
    assert '+    "preToolUse": [' in done.stdout
    assert "Dry run: nothing was written." in done.stdout
    assert not (project / ".github").exists()
    shown = json.loads(cli("install", "--agent", "copilot", "--json", cwd=project).stdout)
    assert shown["agent"] == "copilot"
    assert shown["files"][0]["events"] == ["preToolUse", "sessionStart", "sessionEnd"]


def test_install_names_the_other_agents_it_finds(project: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".codex").mkdir()
    (home / ".gemini").mkdir()
    done = cli("install", cwd=project)
    assert done.code == 0, done.stderr
    assert (
        "Also found here: Codex CLI, Gemini CLI. The same guard and memory in each: "
        "cortex-hooks install --agent codex ; cortex-hooks install --agent gemini"
    ) in done.stdout


@pytest.mark.parametrize("option", ["--with-mcp", "--with-commands", "--packs=core"])
def test_claude_codes_options_are_refused_beside_another_agent(option: str, project: Path) -> None:
    done = cli("install", "--agent", "gemini", option, cwd=project)
    assert done.code == 2
    assert f"{option.partition('=')[0]} is for Claude Code's install, not --agent gemini" in done.stderr
    assert not (project / ".gemini").exists()
