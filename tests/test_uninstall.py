"""uninstall leaves what it found: the original bytes of every file, no file it created, no `{}`, no
backup of a file that did not exist; it says what it keeps (the memory) and `--purge` removes that
too, after asking on a terminal (or with `--yes`), never without either."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import cli, payload, run, script

from cortex_hooks.api import purge
from cortex_hooks.install import surface_import

PROJECT_DB = {"CORTEX_DB": ""}  # the project's own .cortex/cortex.db, as a person's install has it


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A git project without .claude/ (nor CLAUDE.local.md, nor .mcp.json)."""
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    return root


def files(root: Path) -> list[str]:
    """Every file and folder under root, .git aside, relative."""
    return sorted(
        str(path.relative_to(root)) for path in root.rglob("*") if ".git" not in path.relative_to(root).parts
    )


def session(project: Path) -> None:
    """A session in the project, through the installed hooks: SessionEnd writes the surface."""
    env = {**PROJECT_DB, "CLAUDE_PROJECT_DIR": str(project)}
    for name, fixture in (
        ("cortex-session-start", "session_start.startup"),
        ("cortex-pre-tool-use", "pre_tool_use.bash"),
        ("cortex-session-end", "session_end.other"),
    ):
        ran = run(name, stdin=payload(fixture, cwd=str(project)), env=env)
        assert ran.code == 0, ran.stderr


def test_install_then_uninstall_leaves_the_database_alone_and_purge_nothing(project: Path) -> None:
    installed = cli("install", "--with-commands", "--with-mcp", cwd=project, env=PROJECT_DB)
    assert installed.code == 0, installed.stderr
    assert cli("remember", "Deploys go out on Thursdays", "--pin", cwd=project, env=PROJECT_DB).code == 0
    session(project)
    assert (project / surface_import.SURFACE).exists()  # the session wrote the surface

    removed = cli("uninstall", cwd=project, env=PROJECT_DB)
    assert removed.code == 0, removed.stderr
    left = files(project)
    assert left[0] == ".cortex"
    assert all(name.startswith(".cortex/") for name in left[1:]), left
    assert ".cortex/cortex.db" in left
    said = removed.stdout
    assert f"Kept the project's memory: {project / '.cortex'}" in said
    assert "`cortex-hooks uninstall --purge` removes it too." in said
    assert f"Removed the folder {project / '.claude'}: nothing was left in it." in said
    assert f"{project / '.claude' / 'settings.json'} held nothing else: removed it." in said

    purged = cli("uninstall", "--purge", "--yes", cwd=project, env=PROJECT_DB)
    assert purged.code == 0, purged.stderr
    assert files(project) == []
    assert f"Removed the project's memory: {project / '.cortex'}" in purged.stdout


def test_the_json_of_an_uninstall_says_what_it_removed_and_kept(project: Path) -> None:
    assert cli("install", cwd=project, env=PROJECT_DB).code == 0
    done = cli("uninstall", "--json", cwd=project, env=PROJECT_DB).json()
    assert done["removed_folders"] == [str(project / ".claude")]
    assert done["memory"] == {"removed": [], "kept": [str(project / ".cortex")]}
    (settings_entry, user_settings, claude_local, surface) = done["files"]
    assert (settings_entry["action"], settings_entry["backup"]) == ("removed", None)
    assert user_settings["path"] == str(Path(os.environ["HOME"]) / ".claude" / "settings.json")  # the anchor
    assert user_settings["action"] == "removed"
    assert claude_local["action"] == "removed"
    assert (surface["path"], surface["action"]) == (
        str(project / ".claude" / "cortex-memory.local.md"),
        "removed",
    )


def test_a_file_that_existed_gets_its_bytes_back_and_no_backup_of_ours(project: Path) -> None:
    settings_file = project / ".claude" / "settings.json"
    settings_file.parent.mkdir()
    original = b'{\n   "model": "opus"\n}'
    settings_file.write_bytes(original)
    assert cli("install", "--with-mcp", cwd=project, env=PROJECT_DB).code == 0
    (install_backup,) = settings_file.parent.glob("*.bak")
    assert cli("uninstall", cwd=project, env=PROJECT_DB).code == 0
    assert settings_file.read_bytes() == original
    assert list(settings_file.parent.glob("*.bak")) == [install_backup]  # install's, and no other


def test_a_reinstall_from_elsewhere_leaves_no_backup_once_uninstalled(project: Path) -> None:
    """A second install from another environment backs up the file the first one wrote; that
    backup holds nothing of the person's, and goes with the file."""
    assert cli("install", cwd=project, env=PROJECT_DB).code == 0
    settings_file = project / ".claude" / "settings.json"
    moved = settings_file.read_text().replace(str(Path(script("cortex-hooks")).parent), "/old-venv/bin")
    settings_file.write_text(moved)
    assert cli("install", cwd=project, env=PROJECT_DB).code == 0
    assert len(list(settings_file.parent.glob("*.bak"))) == 1
    removed = cli("uninstall", cwd=project, env=PROJECT_DB)
    assert removed.code == 0, removed.stderr
    assert "and our backup of it that held nothing else either" in removed.stdout
    assert [name for name in files(project) if not name.startswith(".cortex")] == []


def test_what_is_left_after_removing_ours_is_kept(project: Path) -> None:
    """An edit since install: the file stays with the person's part, backed up; .claude/ stays."""
    settings_file = project / ".claude" / "settings.json"
    assert cli("install", cwd=project, env=PROJECT_DB).code == 0
    settings_file.write_text(json.dumps({**json.loads(settings_file.read_text()), "model": "opus"}))
    assert cli("uninstall", cwd=project, env=PROJECT_DB).code == 0
    assert json.loads(settings_file.read_text()) == {"model": "opus"}


@settings(max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.one_of(
        st.none(),
        st.dictionaries(
            st.sampled_from(["model", "env", "permissions", "hooks"]),
            st.one_of(st.just({}), st.just([]), st.text(max_size=4), st.just({"allow": ["Bash(ls)"]})),
            max_size=3,
        ).map(lambda value: json.dumps(value, indent=2)),
    ),
    st.booleans(),
)
def test_install_then_uninstall_gives_back_exactly_what_was_there(
    tmp_path_factory: pytest.TempPathFactory, before: str | None, with_mcp: bool
) -> None:
    root = tmp_path_factory.mktemp("project")
    (root / ".git").mkdir()
    settings_file = root / ".claude" / "settings.json"
    if before is not None:
        settings_file.parent.mkdir()
        settings_file.write_text(before)
    options = ["--with-mcp"] if with_mcp else []
    installed = cli("install", *options, cwd=root, env={"CORTEX_DB": str(root / "db")})
    if installed.code == 2:  # a settings file Claude Code would reject: refused, untouched
        assert settings_file.read_text() == before
        return
    assert installed.code == 0, installed.stderr
    assert cli("uninstall", cwd=root, env={"CORTEX_DB": str(root / "db")}).code == 0
    if before is None:
        assert not (root / ".claude").exists()
    else:
        assert settings_file.read_text() == before
        assert [path.name for path in settings_file.parent.iterdir() if path.name.endswith(".bak")] == [
            next(settings_file.parent.glob("*.bak")).name
        ]  # install's backup; none of uninstall's
    assert not (root / "CLAUDE.local.md").exists()
    assert not (root / ".mcp.json").exists()


# --purge: the person's act, on a terminal or with --yes


def on_a_terminal(project: Path, answer: str, *args: str) -> tuple[int, str]:
    """`cortex-hooks uninstall --purge ARGS` with a terminal for stdin and stdout; `answer` is
    typed once the question is asked. The exit status and what the terminal showed."""
    primary, secondary = pty.openpty()
    process = subprocess.Popen(
        [script("cortex-hooks"), "uninstall", "--purge", *args],
        stdin=secondary,
        stdout=secondary,
        stderr=subprocess.PIPE,
        cwd=project,
        env={**os.environ, **PROJECT_DB},
    )
    os.close(secondary)
    shown = b""
    deadline = time.monotonic() + 60
    answered = False
    while time.monotonic() < deadline:
        ready, _, _ = select.select([primary], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(primary, 4096)
            except OSError:  # the other end closed: the process is done
                break
            if not chunk:
                break
            shown += chunk
        if not answered and b"[y/N] " in shown:
            os.write(primary, answer.encode() + b"\n")
            answered = True
        if process.poll() is not None and not ready:
            break
    os.close(primary)
    return process.wait(timeout=60), shown.decode(errors="replace")


@pytest.mark.parametrize(("answer", "gone"), [("y", True), ("yes", True), ("n", False), ("", False)])
def test_purge_asks_on_a_terminal(project: Path, answer: str, gone: bool) -> None:
    assert cli("install", cwd=project, env=PROJECT_DB).code == 0
    code, shown = on_a_terminal(project, answer)
    assert code == 0, shown
    assert f"Remove the project's memory ({project / '.cortex'}) for good" in shown
    assert "cortex-hooks export --output FILE" in shown
    if gone:
        assert files(project) == []
    else:
        assert "Nothing was changed." in shown
        assert (project / ".claude" / "settings.json").exists()  # a "no" leaves even the hooks
        assert (project / ".cortex" / "cortex.db").exists()


def test_purge_without_a_terminal_or_yes_is_refused_and_changes_nothing(project: Path) -> None:
    assert cli("install", cwd=project, env=PROJECT_DB).code == 0
    before = files(project)
    refused = cli("uninstall", "--purge", process=True, cwd=project, env=PROJECT_DB)
    assert refused.code == 2
    assert refused.stderr == (
        "cortex-hooks: uninstall --purge removes the memory for good and asks first, but there is no "
        "terminal to ask on: give --yes to remove it without asking\n"
    )
    assert files(project) == before


def test_a_dry_run_purge_says_what_it_would_remove(project: Path) -> None:
    assert cli("install", cwd=project, env=PROJECT_DB).code == 0
    before = files(project)
    dry = cli("uninstall", "--purge", "--dry-run", cwd=project, env=PROJECT_DB)
    assert dry.code == 0, dry.stderr
    assert f"Would remove the project's memory: {project / '.cortex'}" in dry.stdout
    assert files(project) == before


def test_a_database_named_outside_the_project_is_kept_and_said(project: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "shared" / "cortex.db"
    elsewhere.parent.mkdir()
    env = {"CORTEX_DB": str(elsewhere)}
    assert cli("install", cwd=project, env=env).code == 0
    done = cli("uninstall", "--purge", "--yes", cwd=project, env=env)
    assert done.code == 0, done.stderr
    assert elsewhere.exists()
    assert f"Kept the database {elsewhere}: named by --db or CORTEX_DB, it is yours to remove." in done.stdout


def global_memory(home: Path) -> Path:
    return home / ".claude" / "memory" / "cortex-global.db"


def test_a_user_scope_purge_removes_the_global_memory_and_what_we_keep_beside_it(project: Path) -> None:
    home = Path(os.environ["HOME"])
    assert cli("install", "--scope", "user", cwd=project).code == 0
    assert cli("remember", "I prefer tabs", "--global", cwd=project).code == 0
    folder = global_memory(home).parent
    (folder / "config.toml").write_text("[surface]\nbudget = 1000\n")
    (folder / "checkpoints").mkdir()
    (folder / "checkpoints" / "cortex-20261101T000000Z.db").write_bytes(b"x")
    kept = cli("uninstall", "--scope", "user", cwd=project)
    assert f"Kept the global memory: {global_memory(home)}" in kept.stdout
    assert "`cortex-hooks uninstall --scope user --purge` removes it too." in kept.stdout
    assert "Each project's memory (its .cortex/) stays" in kept.stdout
    assert global_memory(home).exists()

    done = cli("uninstall", "--scope", "user", "--purge", "--yes", cwd=project)
    assert done.code == 0, done.stderr
    assert not folder.exists()  # our default folder, emptied of ours
    assert not (home / ".claude" / "settings.json").exists()


def test_the_persons_own_file_beside_the_global_memory_stays(project: Path) -> None:
    home = Path(os.environ["HOME"])
    assert cli("remember", "I prefer tabs", "--global", cwd=project).code == 0
    mine = global_memory(home).parent / "my-notes.md"
    mine.write_text("mine\n")
    assert cli("uninstall", "--scope", "user", "--purge", "--yes", cwd=project).code == 0
    assert not global_memory(home).exists()
    assert sorted(path.name for path in mine.parent.iterdir()) == ["my-notes.md"]


def test_a_global_memory_elsewhere_goes_with_its_companions_only(project: Path, tmp_path: Path) -> None:
    where = tmp_path / "sync" / "global.db"
    where.parent.mkdir()
    env = {"CORTEX_GLOBAL_DB": str(where)}
    assert cli("remember", "I prefer tabs", "--global", cwd=project, env=env).code == 0
    (where.parent / "config.toml").write_text("")
    found = purge.user(str(where))
    assert found is not None
    assert str(where.parent / "config.toml") not in found.paths
    assert cli("uninstall", "--scope", "user", "--purge", "--yes", cwd=project, env=env).code == 0
    assert sorted(path.name for path in where.parent.iterdir()) == ["config.toml"]


def test_a_project_purge_leaves_the_global_memory(project: Path) -> None:
    home = Path(os.environ["HOME"])
    assert cli("remember", "I prefer tabs", "--global", cwd=project, env=PROJECT_DB).code == 0
    assert cli("install", cwd=project, env=PROJECT_DB).code == 0
    done = cli("uninstall", "--purge", "--yes", cwd=project, env=PROJECT_DB)
    assert done.code == 0, done.stderr
    assert global_memory(home).exists()
    assert (
        f"The global memory ({global_memory(home)}) serves every project: "
        "`cortex-hooks uninstall --scope user --purge` removes it."
    ) in done.stdout


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (b"<!-- CORTEX:START -->\nx\n<!-- CORTEX:END -->\n", None),
        (b"mine\n\n<!-- CORTEX:START -->\nx\n<!-- CORTEX:END -->\n", "mine\n"),
        (b"mine\r\n\r\n<!-- CORTEX:START -->\r\nx\r\n<!-- CORTEX:END -->\r\n", "mine\r\n"),
        (b"<!-- CORTEX:START -->\nx\n<!-- CORTEX:END -->\nafter\n", "after\n"),
        (b"mine\n<!-- CORTEX:END -->\n", "mine\n<!-- CORTEX:END -->\n"),  # not ours to cut
    ],
)
def test_the_surface_file_loses_our_block_only(before: bytes, after: str | None) -> None:
    assert surface_import.without_block(before) == after


def test_the_surface_block_spliced_in_comes_out_again() -> None:
    from cortex_hooks.api import surface_file

    for mine in (b"", b"notes\n", b"a\r\nb\r\n"):  # (a last line without its end gets one)
        spliced = surface_file.splice(mine or None, "## Memory\n- x")
        assert surface_import.without_block(spliced) == (mine.decode() or None)


def test_an_empty_claude_folder_of_the_user_is_never_removed(project: Path) -> None:
    home = Path(os.environ["HOME"])
    assert cli("install", "--scope", "user", cwd=project).code == 0
    assert cli("uninstall", "--scope", "user", cwd=project).code == 0
    assert (home / ".claude").is_dir()
