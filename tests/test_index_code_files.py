"""index-code reads only the project's own files (docs/guide/selfguard.md item 6): inside the
project,
not ignored by git, never `.env*` or a private key, never a file Claude Code's Read deny rules
refuse. Through the CLI and the MCP tool alike; nothing is stored for a refused file."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from support import cli, cli_json

from cortex_hooks.guard import read_rules
from cortex_hooks.mcp import tools

KEY = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n"


@pytest.fixture
def project(tmp_path: Path, db: Path) -> Path:
    """A git project, the working directory of the commands."""
    root = tmp_path / "project"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "deploy.sh").write_text("fly deploy --remote-only\n")
    return root


def refused(path: str, project: Path) -> str:
    """The refusal of the CLI, which must be the MCP tool's too; nothing is stored."""
    result = cli("index-code", path, "--prose", "what it does", cwd=project)
    assert result.code == 2, result.stdout
    assert result.stderr.count("\n") == 1
    text, is_error = tools_call(project, path)
    assert is_error
    assert f"cortex-hooks: {text}\n" == result.stderr
    assert cli_json("memories", "list", "--all", cwd=project) == []
    return text


def tools_call(project: Path, path: str) -> tuple[str, bool]:
    import os

    here = os.getcwd()
    os.chdir(project)
    try:
        return tools.call("cortex_index_code", {"path": path, "prose": "what it does"})
    finally:
        os.chdir(here)


def test_a_file_of_the_project_is_indexed(project: Path) -> None:
    indexed = cli_json("index-code", "deploy.sh", "--prose", "how we deploy", cwd=project)
    assert indexed["path"] == "deploy.sh"


@pytest.mark.parametrize("name", [".env", ".env.local", ".envrc"])
def test_an_environment_file_is_never_read(project: Path, name: str) -> None:
    (project / name).write_text("AWS_SECRET_ACCESS_KEY=abc\n")
    assert "an environment file (.env*) holds secrets" in refused(name, project)


def test_a_file_outside_the_project_is_never_read(project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.txt"
    outside.write_text("not the project's\n")
    assert f"it lies outside {project}" in refused(str(outside), project)
    (project / "link.txt").symlink_to(outside)  # a link inside pointing out is out
    assert "lies outside" in refused("link.txt", project)
    assert "lies outside" in refused("../elsewhere.txt", project)


def test_a_private_key_is_never_read(project: Path) -> None:
    (project / "id_ed25519").write_text(KEY)
    assert "a key file" in refused("id_ed25519", project)
    (project / "notes.txt").write_text("the deploy key:\n" + KEY)
    assert "it holds a private key" in refused("notes.txt", project)


def test_a_file_git_ignores_is_never_read(project: Path) -> None:
    (project / ".gitignore").write_text("secrets/\n*.log\n")
    (project / "secrets").mkdir()
    (project / "secrets" / "prod.yaml").write_text("password: x\n")
    (project / "build.log").write_text("log\n")
    assert "git ignores it" in refused("secrets/prod.yaml", project)
    assert "git ignores it" in refused("build.log", project)


@pytest.mark.parametrize(
    ("where", "rule"),
    [
        ("project", "Read(./config/*.yaml)"),
        ("local", "Read(config/**)"),
        ("user", "Read(//**/config/db.yaml)"),
    ],
)
def test_a_file_claude_codes_read_rules_deny_is_never_read(project: Path, where: str, rule: str) -> None:
    (project / "config").mkdir()
    (project / "config" / "db.yaml").write_text("password: x\n")
    settings = {
        "project": project / ".claude" / "settings.json",
        "local": project / ".claude" / "settings.local.json",
        "user": Path.home() / ".claude" / "settings.json",
    }[where]
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"permissions": {"deny": ["Bash(rm:*)", rule]}}))
    text = refused("config/db.yaml", project)
    assert f"Claude Code's Read tool may not read it ({rule} in {settings})" in text
    assert cli("index-code", "deploy.sh", "--prose", "how we deploy", cwd=project).code == 0


@pytest.mark.parametrize(
    ("pattern", "path", "denied"),
    [
        ("./.env", "/p/.env", True),
        ("./secrets/**", "/p/secrets/a/b.txt", True),
        ("secrets", "/p/x/secrets/k", True),  # a name alone: in any folder below
        ("~/.aws/**", "/h/.aws/credentials", True),
        ("//etc/**", "/etc/shadow", True),
        ("/src/*.py", "/p/src/a.py", True),
        ("/src/*.py", "/p/src/x/a.py", False),  # * stays within a folder
        ("src/**/*.ts", "/p/src/a/b.ts", True),
        ("*.pem", "/p/a/b/key.pem", True),
        ("./.env", "/p/.envrc", False),
        ("", "/p/anything", True),  # a bare Read: every file
        ("./docs/", "/p/docs/a.md", True),  # a folder covers what is in it
    ],
)
def test_read_rule_patterns(pattern: str, path: str, denied: bool) -> None:
    assert read_rules.denies(pattern, path, base="/p", project="/p", home="/h") is denied


def test_only_read_rules_count() -> None:
    assert read_rules.patterns(["Read(./.env)", "Bash(rm:*)", "Read", "Edit(x)", 5]) == ["./.env", ""]
    assert read_rules.patterns("Read(x)") == []
