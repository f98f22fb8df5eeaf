"""Claude Code's own memory with the real CLI, offline (issue 26, docs/guide/claude-memory.md): where the
client keeps
a project's auto memory and transcripts (install.claude_paths names the same folders: a subfolder
of a repository reached through a symlink, a path of non-ASCII characters, a long path, a linked
worktree, no repository, CLAUDE_CONFIG_DIR, the settings that move or turn it off), which
CLAUDE.md files it loads (recall reads the project's), and a rule the model writes into its
memory becoming a proposal that, once accepted, denies the command in the next session. The
harness is tests/claude_client.py."""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from claude_client import (
    after_tool_use,
    bash,
    run_claude,
    text_of,
    tool_result,
)
from support import cli_json

from cortex_hooks.api import claude_files as claude_memory
from cortex_hooks.capture.regex_synthesis import COMMAND_POSITION
from cortex_hooks.install import claude_paths

pytestmark = pytest.mark.claude_cli

MEMORY_SECTION = re.compile(r"persistent file-based memory at `([^`]+)`")


def system_prompt(request: dict[str, Any]) -> str:
    return text_of(request.get("system"))


def git(*args: str) -> None:
    subprocess.run(["git", *args], check=True, capture_output=True)


def repository(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git("init", "-q", str(path))
    return path


def _symlinked_non_ascii(tmp: Path) -> tuple[Path, dict[str, str]]:
    real = repository(tmp / "répo 😀 e\u0301")  # a precomposed é, an emoji, a decomposed é
    (real / "sub" / "dir").mkdir(parents=True)
    (tmp / "link").symlink_to(real)
    return tmp / "link" / "sub" / "dir", {}


def _long(tmp: Path) -> tuple[Path, dict[str, str]]:
    return repository(tmp / ("l" * 120) / ("m" * 120)), {}


def _worktree(tmp: Path) -> tuple[Path, dict[str, str]]:
    main = repository(tmp / "main")
    git(
        "-C",
        str(main),
        "-c",
        "user.email=a@b",
        "-c",
        "user.name=a",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "x",
    )
    git("-C", str(main), "worktree", "add", "-q", str(tmp / "tree"))
    (tmp / "tree" / "inner").mkdir()
    return tmp / "tree" / "inner", {}


def _no_repository(tmp: Path) -> tuple[Path, dict[str, str]]:
    start = tmp / "plain" / "deep"
    start.mkdir(parents=True)
    return start, {}


def _config_dir(tmp: Path) -> tuple[Path, dict[str, str]]:
    (tmp / "config").mkdir()
    return repository(tmp / "repo"), {"CLAUDE_CONFIG_DIR": str(tmp / "config")}


def _user_setting(tmp: Path) -> tuple[Path, dict[str, str]]:
    settings = tmp / "claude-home" / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"autoMemoryDirectory": "~/notes/memory"}))
    return repository(tmp / "repo"), {}


def _local_setting(tmp: Path) -> tuple[Path, dict[str, str]]:
    start = repository(tmp / "repo")
    (start / ".claude").mkdir()
    (start / ".claude" / "settings.local.json").write_text(
        json.dumps({"autoMemoryDirectory": str(tmp / "mem")})
    )
    return start, {}


def _off_by_setting(tmp: Path) -> tuple[Path, dict[str, str]]:
    start = repository(tmp / "repo")
    (start / ".claude").mkdir()
    (start / ".claude" / "settings.json").write_text(json.dumps({"autoMemoryEnabled": False}))
    return start, {}


def _off_by_environment(tmp: Path) -> tuple[Path, dict[str, str]]:
    return repository(tmp / "repo"), {"CLAUDE_CODE_DISABLE_AUTO_MEMORY": "1"}


CASES: dict[str, Callable[[Path], tuple[Path, dict[str, str]]]] = {
    "symlinked subfolder, non-ASCII": _symlinked_non_ascii,
    "long path": _long,
    "linked worktree": _worktree,
    "no repository": _no_repository,
    "CLAUDE_CONFIG_DIR": _config_dir,
    "user autoMemoryDirectory": _user_setting,
    "local autoMemoryDirectory": _local_setting,
    "autoMemoryEnabled false": _off_by_setting,
    "CLAUDE_CODE_DISABLE_AUTO_MEMORY": _off_by_environment,
}


@pytest.mark.parametrize("case", list(CASES))
def test_the_folders_are_where_the_client_keeps_them(
    claude: str, namespace: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    start, env = CASES[case](tmp_path)
    home = tmp_path / "claude-home"  # run_claude's HOME for a start folder in tmp_path/…
    home.mkdir(exist_ok=True)
    monkeypatch.setenv("HOME", str(home))
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    run = run_claude(claude, namespace, start, [{"text": "Noted."}], HOME=str(home), **env)
    assert run.code == 0, run.explain()

    named = MEMORY_SECTION.search(system_prompt(run.requests[0]))
    ours = claude_paths.auto_memory(str(start))
    assert (named.group(1) if named else None) == (ours + "/" if ours else None)
    config = Path(env.get("CLAUDE_CONFIG_DIR") or home / ".claude")
    transcripts = list(config.glob("projects/*/*.jsonl"))
    assert [path.parent for path in transcripts] == [Path(claude_paths.transcripts_folder(str(start)))]


def test_a_checked_in_auto_memory_directory_is_followed_by_the_client_not_by_cortex(
    claude: str, namespace: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """2.1.197 follows `.claude/settings.json`'s autoMemoryDirectory in a `-p` run (its schema says
    it is ignored there); cortex does not let a cloned repository point its reader elsewhere."""
    start = repository(tmp_path / "repo")
    (start / ".claude").mkdir()
    (start / ".claude" / "settings.json").write_text(json.dumps({"autoMemoryDirectory": str(tmp_path / "x")}))
    home = tmp_path / "claude-home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    run = run_claude(claude, namespace, start, [{"text": "Noted."}], HOME=str(home))
    assert run.code == 0, run.explain()
    named = MEMORY_SECTION.search(system_prompt(run.requests[0]))
    assert named is not None
    assert named.group(1) == str(tmp_path / "x") + "/"
    ours = home / ".claude" / "projects" / claude_paths.folder_name(str(start)) / "memory"
    assert claude_paths.auto_memory(str(start)) == str(ours)


def test_recall_reads_the_claude_md_files_the_client_loads_for_the_project(
    claude: str, namespace: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outer = tmp_path / "outer"
    root = repository(outer / "repo")
    files = {
        outer / "CLAUDE.md": "above the repository",  # loaded, but not the project's
        root / "CLAUDE.md": "the project's",
        root / ".claude" / "CLAUDE.md": "in .claude",
        root / "CLAUDE.local.md": "the local one",
        root / ".claude" / "rules" / "style.md": "a rule",
        root / ".claude" / "rules" / "deep" / "more.md": "a deeper rule",
        root / "sub" / "CLAUDE.md": "the start folder's",
        root / "other" / "CLAUDE.md": "a folder the session does not start in",  # not loaded at start
        root / "AGENTS.md": "another tool's",  # not loaded
    }
    for path, words in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"Marker {len(str(path))}: {words}\n")
    home = tmp_path / "claude-home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    start = root / "sub"
    run = run_claude(claude, namespace, start, [{"text": "Noted."}], HOME=str(home))
    assert run.code == 0, run.explain()

    loaded = set(re.findall(r"Contents of (\S+) \(", text_of(run.requests[0]["messages"])))
    in_project = {path for path in loaded if Path(path).is_relative_to(root)}
    ours = {
        path
        for path, (origin, _stat) in claude_memory.sources(str(start)).files.items()
        if origin == "claude-md"
    }
    assert in_project == ours
    assert str(outer / "CLAUDE.md") in loaded  # read by the client, left out of the project's
    assert str(root / "other" / "CLAUDE.md") not in loaded | ours


def test_a_rule_the_model_remembers_is_proposed_accepted_and_then_denies(
    claude: str, namespace: list[str], project: Path, learn: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    learn("--anti-pattern", "unrelated", "--correct", "x")  # the memory exists: hooks never create one
    database = {"CORTEX_DB": str(project / ".cortex" / "cortex.db")}
    home = project.parent / "claude-home"
    monkeypatch.setenv("HOME", str(home))
    memory = Path(claude_paths.auto_memory(str(project)) or "")
    topic = {
        "file_path": str(memory / "feedback_pnpm.md"),
        "content": "---\nname: use-pnpm\ndescription: how packages are installed here\nmetadata:\n"
        "  type: feedback\n---\n\nnever run npm install; use pnpm install\n"
        "**Why:** the lockfile is pnpm-lock.yaml.\n",
    }
    index = {"file_path": str(memory / "MEMORY.md"), "content": "- [Use pnpm](feedback_pnpm.md) — installs\n"}
    turns: list[dict[str, Any]] = [
        {"tool_use": {"name": "Write", "input": topic}},
        {"tool_use": {"name": "Write", "input": index}},
        {"text": "Remembered."},
    ]
    first = run_claude(claude, namespace, project, turns)
    assert first.code == 0, first.explain()
    named = MEMORY_SECTION.search(system_prompt(first.requests[0]))
    assert named is not None
    assert named.group(1) == f"{memory}/"
    assert (memory / "feedback_pnpm.md").exists(), first.explain()

    [proposal] = cli_json("proposals", env=database)  # SessionEnd read the new memory for rules
    assert proposal["signal"] == "remembered"
    assert proposal["regex"] == COMMAND_POSITION + r"npm\s+install(?=[\s;&|)]|$)"
    assert "feedback_pnpm.md" in proposal["evidence"][0]["fixed"]
    found = cli_json("recall", "pnpm lockfile", env=database, cwd=project)
    assert next(result["path"] for result in found if result["source"] == "claude-code") == str(
        memory / "feedback_pnpm.md"
    )
    assert cli_json("accept", str(proposal["id"]), "--auto-block", env=database)["auto_block"] is True

    second = run_claude(claude, namespace, project, [bash("npm install"), {"text": "Noted."}])
    assert second.code == 0, second.explain()
    denied = tool_result(after_tool_use(second.requests[1], "toolu_mock_1"), "toolu_mock_1")
    assert denied["is_error"] is True
    reason = text_of(denied["content"])
    assert "cortex-hooks blocked this tool call" in reason
    assert "pnpm install" in reason
    assert cli_json("proposals", env=database) == []  # nothing proposed twice
