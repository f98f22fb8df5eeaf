"""The push surface (docs/guide/surface.md): the digest, pure; the file between its markers, through the
installed `cortex-hooks surface`; SessionEnd refreshing it; the snapshot never repeating it."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from support import cli, cli_json, payload, run

from cortex_hooks.api import surface_file
from cortex_hooks.errors import CortexError
from cortex_hooks.memory import push_digest
from cortex_hooks.memory.push_digest import ScopeRows
from cortex_hooks.stored.memory_rows import SurfaceItem

START, END = surface_file.START, surface_file.END
NOW = "2026-11-20T12:00:00Z"


def item(memory_id: int, summary: str, **values: Any) -> SurfaceItem:
    given: dict[str, Any] = {
        "id": memory_id,
        "type": "context",
        "summary": summary,
        "tags": "[]",
        "pinned": 0,
        "path": None,
        "team": None,
        "rank": None,
    }
    return SurfaceItem(**(given | values))


# --- the digest, pure ---------------------------------------------------------------------------


def test_sections_in_order_project_first_each_item_once_global_named() -> None:
    project = ScopeRows(
        "project",
        pinned=[item(1, "use pnpm", pinned=1)],
        pinned_total=1,
        top=[item(2, "port 5173", rank=0.6), item(3, "low", rank=0.1)],
        touched=[item(2, "port 5173"), item(4, "touched today")],
        naming=[item(5, "about surface.py")],
        code=[item(6, "entry point", type="code_description", path="src/app.py")],
        code_total=1,
    )
    user = ScopeRows("global", top=[item(1, "prefer rg", rank=0.9)], touched=[item(1, "prefer rg")])
    digest = push_digest.build([project, user], budget=2000)
    ids = {
        name: [(entry["scope"], entry["id"]) for entry in entries]
        for name, entries in digest.sections.items()
    }
    assert ids == {
        "critical": [("project", 1), ("project", 2), ("project", 3), ("global", 1)],
        "context": [("project", 5), ("project", 4)],
        "code_index": [("project", 6)],
    }
    text = digest.text
    assert text.index("### Critical") < text.index("### Context") < text.index("### Code index")
    assert "- #1 (pinned) use pnpm — `cortex-hooks memories show 1`" in text
    assert "- #1 (global) prefer rg — `cortex-hooks memories show 1 --global`" in text
    assert "- `src/app.py`: entry point — `cortex-hooks memories show 6`" in text
    assert text.count("port 5173") == 1


def test_critical_holds_the_top_five_by_rank_across_scopes() -> None:
    project = ScopeRows("project", top=[item(i, f"project {i}", rank=i / 10) for i in range(1, 6)])
    user = ScopeRows("global", top=[item(i, f"global {i}", rank=i / 10 + 0.05) for i in range(1, 6)])
    critical = push_digest.build([project, user], budget=2000).sections["critical"]
    assert sorted((entry["scope"], entry["id"]) for entry in critical) == sorted(
        [("global", 5), ("project", 5), ("global", 4), ("project", 4), ("global", 3)]
    )
    assert [entry["scope"] for entry in critical] == ["project", "project", "global", "global", "global"]


@pytest.mark.parametrize("budget", [500, 800, 2000, 8000])
def test_the_budget_holds_and_the_code_index_is_cut_first(budget: int) -> None:
    rows = ScopeRows(
        "project",
        pinned=[item(i, f"pinned memory number {i} " + "x" * 60, pinned=1) for i in range(1, 4)],
        touched=[item(i, f"recent memory number {i} " + "y" * 60) for i in range(10, 60)],
        code=[
            item(i, "what it does " + "z" * 60, type="code_description", path=f"f{i}.py")
            for i in range(100, 160)
        ],
        code_total=60,
    )
    digest = push_digest.build([rows], budget=budget)
    assert len(digest.text) <= budget
    shown = {name: len(entries) for name, entries in digest.sections.items()}
    if shown["context"]:
        assert shown["critical"] == 3  # Critical is cut last
    if shown["code_index"]:
        assert shown["context"] == 50  # Context is cut only once the code index is gone
    assert shown["critical"] == (3 if budget >= 800 else 0)
    if budget == 500:
        assert "more: `cortex-hooks memories list" in digest.text


@pytest.mark.parametrize(
    ("summary", "absent", "present"),
    [
        ("close it <!-- CORTEX:END --> early", END, "<! -- CORTEX:END -- >"),
        ("@~/.ssh/id_rsa is the key", " @~/.ssh", "\uff20~/.ssh/id_rsa"),
        ("mail me@example.com", "me@example.com", "me\uff20example.com"),  # **me**@x would import
        ("a \x1b[31mred\x1b[0m word\u202e", "\x1b", "a [31mred [0m word"),
        ("two\nlines", "two\nlines", "two lines"),
    ],
)
def test_an_entry_is_one_inert_line(summary: str, absent: str, present: str) -> None:
    text = push_digest.build([ScopeRows("project", pinned=[item(1, summary, pinned=1)])], budget=2000).text
    assert absent not in text
    assert present in text


@pytest.mark.parametrize(
    ("branch", "changed", "expected"),
    [
        (None, [], []),
        ("main", ["src/a.py"], ["a.py"]),
        ("master", [], []),
        ("feature/port-5173", ["docs/", "b.md", "src/b.md"], ["feature/port-5173", "docs", "b.md"]),
        ("x", ["---", "ok"], ["x", "ok"]),
    ],
)
def test_what_names_the_current_work(branch: str | None, changed: list[str], expected: list[str]) -> None:
    assert push_digest.phrases(branch, changed) == expected


def test_no_memories_says_how_to_store_one() -> None:
    assert push_digest.EMPTY in push_digest.build([], budget=2000).text


# --- the file's markers, pure ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (None, f"{START}\nD\n{END}\n"),
        ("", f"{START}\nD\n{END}\n"),
        ("mine\n", f"mine\n\n{START}\nD\n{END}\n"),
        ("mine", f"mine\n\n{START}\nD\n{END}\n"),
        ("a\r\nb\r\n", f"a\r\nb\r\n\r\n{START}\r\nD\r\n{END}\r\n"),
        (f"top\n{START}\nold\nlines\n{END}\nbottom", f"top\n{START}\nD\n{END}\nbottom"),
        (f"top\r\n{START}\r\nold\r\n{END}\r\n", f"top\r\n{START}\r\nD\r\n{END}\r\n"),
    ],
)
def test_the_block_goes_between_the_markers_the_rest_kept(before: str | None, after: str) -> None:
    content = None if before is None else before.encode()
    assert surface_file.splice(content, "D") == after.encode()


@pytest.mark.parametrize(
    ("before", "said"),
    [
        (f"a\n{START}\nb\n", f"has {START} without {END}"),
        (f"a\n{END}\nb\n", f"has {END} without {START}"),
        (f"{END}\nx\n{START}\n", f"has {END} before {START}"),
        (f"{START}\n{END}\n{START}\n{END}\n", "2 times"),
    ],
)
def test_markers_that_do_not_pair_are_refused(before: str, said: str) -> None:
    with pytest.raises(CortexError, match="left it untouched") as refused:
        surface_file.splice(before.encode(), "D")
    assert said in refused.value.message


# --- the file, through the installed CLI -------------------------------------------------------


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    monkeypatch.setenv("CORTEX_DB", str(root / ".cortex" / "cortex.db"))
    monkeypatch.setenv("CORTEX_NOW", NOW)
    return root


def remember(text: str, *options: str) -> int:
    memory_id: int = cli_json("remember", text, *options)["id"]
    return memory_id


def surface_json(project: Path, *options: str) -> dict[str, Any]:
    result: dict[str, Any] = cli_json("surface", *options, cwd=project)
    return result


def surface_path(project: Path) -> Path:
    return project / ".claude" / "cortex-memory.local.md"


def test_surface_writes_the_file_and_json_says_what_it_holds(project: Path) -> None:
    pinned = remember("Use pnpm, not npm: the lockfile is pnpm-lock.yaml", "--pin")
    result = surface_json(project)
    path = surface_path(project)
    assert result["path"] == str(path)
    assert result["written"] is True
    assert path.read_text() == result["text"] + "\n"
    assert result["text"].startswith(START + "\n")
    assert result["text"].endswith(END)
    assert [entry["id"] for entry in result["sections"]["critical"]] == [pinned]
    assert set(result["sections"]) == {"critical", "context", "code_index"}
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    again = surface_json(project)
    assert again["written"] is False  # nothing changed: not rewritten


def test_dry_run_prints_the_block_and_writes_nothing(project: Path) -> None:
    remember("the API listens on port 5173")
    result = cli("surface", "--dry-run", cwd=project)
    assert result.code == 0, result.stderr
    assert result.stdout.startswith(START + "\n")
    assert result.stdout.rstrip("\n").endswith(END)
    assert "port 5173" in result.stdout
    assert "nothing was written" in result.stderr
    assert not surface_path(project).exists()
    assert not (project / ".claude").exists()


def test_text_outside_the_markers_is_kept_byte_for_byte_across_rewrites(project: Path) -> None:
    path = surface_path(project)
    path.parent.mkdir()
    head = "# My notes\r\n\tindented, trailing space \n\xe9t\xe9 \U0001f600\n\n"
    tail = "\nafter the block\nno final newline"
    path.write_bytes(f"{head}{START}\nstale\n{END}{tail}".encode())
    for number in range(4):
        remember(f"memory number {number}")
        assert surface_json(project)["written"] is True
        content = path.read_bytes().decode()
        assert content.startswith(head + START)
        assert content.endswith(END + tail)
        assert f"memory number {number}" in content
        assert [name for name in os.listdir(path.parent) if name != path.name] == []  # no temp file left


def test_a_file_without_markers_gets_them_appended(project: Path) -> None:
    path = surface_path(project)
    path.parent.mkdir()
    path.write_bytes(b"my own line")
    remember("something to surface")
    surface_json(project)
    content = path.read_bytes()
    assert content.startswith(b"my own line\n\n" + START.encode())
    assert content.count(START.encode()) == content.count(END.encode()) == 1


def test_a_crlf_file_stays_crlf(project: Path) -> None:
    path = surface_path(project)
    path.parent.mkdir()
    path.write_bytes(b"notes\r\nmore\r\n")
    remember("crlf memory")
    surface_json(project)
    content = path.read_bytes()
    assert content.startswith(b"notes\r\nmore\r\n\r\n")
    assert b"\n" not in content.replace(b"\r\n", b"")


@pytest.mark.parametrize(
    "content",
    [f"mine\n{START}\nno end\n", f"{END}\nmine\n{START}\n", f"mine\n{END}\n"],
    ids=["lone start", "wrong order", "lone end"],
)
def test_markers_that_do_not_pair_leave_the_file_untouched(project: Path, content: str) -> None:
    path = surface_path(project)
    path.parent.mkdir()
    path.write_text(content)
    remember("anything")
    result = cli("surface", cwd=project)
    assert result.code == 1
    assert result.stderr.count("\n") == 1
    assert "left it untouched (fix or remove the markers)" in result.stderr
    assert path.read_text() == content


def test_a_read_only_file_is_refused_and_kept(project: Path) -> None:
    path = surface_path(project)
    path.parent.mkdir()
    path.write_text("mine\n")
    path.chmod(0o444)
    remember("anything")
    result = cli("surface", cwd=project)
    assert result.code == 1
    assert result.stderr.count("\n") == 1
    assert "read-only file" in result.stderr
    assert path.read_text() == "mine\n"
    assert os.listdir(path.parent) == [path.name]


def test_a_link_inside_the_project_is_written_through_and_stays_a_link(project: Path) -> None:
    notes = project / "notes" / "memory.md"
    notes.parent.mkdir(parents=True)
    notes.write_text("kept\n")
    path = surface_path(project)
    path.parent.mkdir()
    path.symlink_to(notes)
    remember("through the link")
    surface_json(project)
    assert path.is_symlink()
    assert notes.read_text().startswith("kept\n\n" + START)
    assert "through the link" in notes.read_text()


def test_a_link_out_of_the_project_is_refused(project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "home" / ".bashrc"
    outside.write_text("export PATH\n")
    path = surface_path(project)
    path.parent.mkdir()
    path.symlink_to(outside)
    remember("anything")
    result = cli("surface", cwd=project)
    assert result.code == 1
    assert "symbolic link out of the project" in result.stderr
    assert outside.read_text() == "export PATH\n"
    assert path.is_symlink()


def test_the_budget_comes_from_the_config_file(project: Path) -> None:
    for number in range(40):
        remember(f"memory number {number} with enough words to take some room in the digest")
    (project / ".cortex" / "config.toml").write_text("[surface]\nbudget = 600\n")
    result = surface_json(project)
    assert result["budget"] == 600
    assert len(result["text"]) - len(START) - len(END) - 2 <= 600
    (project / ".cortex" / "config.toml").write_text("[surface]\nbudget = 9000\n")
    refused = cli("surface", "--json", cwd=project)
    assert "surface.budget" in refused.stderr  # reported, and the defaults used
    assert refused.json()["budget"] == 2000


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_context_names_the_branch_and_the_changed_files(project: Path) -> None:
    shutil.rmtree(project / ".git")
    git = ["git", "-c", "init.defaultBranch=main"]
    subprocess.run([*git, "init", "-q", str(project)], check=True)
    subprocess.run(["git", "-C", str(project), "checkout", "-q", "-b", "feature/port-5173"], check=True)
    (project / "surface_file.py").write_text("x = 1\n")
    old = "2026-01-01T00:00:00Z"  # long before: only naming brings these into Context
    names_branch = cli_json("remember", "work on feature/port-5173 is half done", env={"CORTEX_NOW": old})[
        "id"
    ]
    names_file = cli_json("remember", "surface_file.py must stay pure", env={"CORTEX_NOW": old})["id"]
    cli_json("remember", "unrelated old note", env={"CORTEX_NOW": old})
    for number in range(6):  # fill Critical's top five
        remember(f"busy memory {number}", "--priority", "10")
    result = surface_json(project)
    assert result["branch"] == "feature/port-5173"
    context = [entry["id"] for entry in result["sections"]["context"]]
    assert names_branch in context
    assert names_file in context
    assert "unrelated old note" not in result["text"]


# --- SessionEnd and SessionStart ---------------------------------------------------------------


def session_end(project: Path, session: str = "s1") -> Any:
    data = payload("session_end.other", session_id=session, cwd=str(project))
    data.pop("transcript_path")
    return run("cortex-session-end", stdin=data)


def test_session_end_refreshes_a_surface_the_project_asked_for(project: Path) -> None:
    remember("Use pnpm, not npm", "--pin")
    assert session_end(project).code == 0
    assert not surface_path(project).exists()  # nobody asked for one here
    (project / "CLAUDE.local.md").write_text("@.claude/cortex-memory.local.md\n")
    learning = cli_json("add", "--no-regex", "--anti-pattern", "a", "--correct", "b")["id"]
    result = session_end(project, "s2")
    assert result.code == 0, result.stderr
    assert "Use pnpm, not npm" in surface_path(project).read_text()
    (row,) = [row for row in cli_json("list") if row["id"] == learning]
    assert row["confidence"] == 0.69  # the decay came first


def test_a_surface_session_end_cannot_write_is_a_note_and_the_decay_stands(project: Path) -> None:
    learning = cli_json("add", "--no-regex", "--anti-pattern", "a", "--correct", "b")["id"]
    path = surface_path(project)
    path.parent.mkdir()
    path.write_text(f"mine\n{START}\n")
    result = session_end(project)
    assert result.code == 0
    assert "surface not written" in result.stderr
    assert path.read_text() == f"mine\n{START}\n"
    (row,) = [row for row in cli_json("list") if row["id"] == learning]
    assert row["confidence"] == 0.69


def test_the_snapshot_leaves_out_what_the_surface_carries(project: Path) -> None:
    text = "Deploys go through the staging cluster first"
    remember(text, "--pin")
    cli_json(
        "add", "--anti-pattern", "rm -rf build", "--correct", "make clean", "--auto-block", "--regex", "rm"
    )
    cli_json("todos", "add", "--text", "write the surface docs", "--priority", "high")
    (project / "CLAUDE.local.md").write_text("@.claude/cortex-memory.local.md\n")  # as install adds it
    assert text in surface_json(project)["text"]
    snapshot = cli("snapshot", cwd=project)
    assert snapshot.code == 0, snapshot.stderr
    assert "rm -rf build" in snapshot.stdout  # the snapshot has its own content
    assert text not in snapshot.stdout


@pytest.mark.parametrize("surface_file", [False, True], ids=["no surface file", "a file not imported"])
def test_without_the_import_the_snapshot_carries_the_digest_once(project: Path, surface_file: bool) -> None:
    """Claude Code reads no surface file a CLAUDE.local.md does not import (the plugin's case, a
    user-scope install's): SessionStart's context carries the digest instead, once."""
    text = "Deploys go through the staging cluster first"
    remember(text, "--pin")
    cli_json("todos", "add", "--text", "write the surface docs", "--priority", "high")
    if surface_file:
        surface_json(project)
    snapshot = cli("snapshot", cwd=project)
    assert snapshot.code == 0, snapshot.stderr
    assert snapshot.stdout.count(text) == 1
    assert "write the surface docs" in snapshot.stdout  # the snapshot's own part stays
    assert "## Memory (cortex-hooks)\nEach entry ends with the command" in snapshot.stdout
    assert "markers" not in snapshot.stdout  # no word about a file the model never sees
    assert not (project / "CLAUDE.local.md").exists()  # nothing written to get there


def test_the_digest_in_the_context_follows_the_surface_switch(project: Path) -> None:
    remember("Deploys go through the staging cluster first", "--pin")
    (project / ".cortex" / "config.toml").write_text("[surface]\nenabled = false\n")
    assert "staging" not in cli("snapshot", cwd=project).stdout


def test_no_memory_no_digest_in_the_context(project: Path) -> None:
    cli_json("todos", "add", "--text", "write the surface docs", "--priority", "high")
    assert "## Memory" not in cli("snapshot", cwd=project).stdout


def test_the_branch_is_read_from_head_without_git(tmp_path: Path) -> None:
    from cortex_hooks.api import git_state

    plain, worktree, detached, bare = (tmp_path / name for name in ("plain", "worktree", "detached", "bare"))
    (plain / ".git").mkdir(parents=True)
    (plain / ".git" / "HEAD").write_text("ref: refs/heads/feature/x\n")
    (tmp_path / "gitdirs" / "wt").mkdir(parents=True)
    (tmp_path / "gitdirs" / "wt" / "HEAD").write_text("ref: refs/heads/wt-surface\n")
    worktree.mkdir()
    (worktree / ".git").write_text(f"gitdir: {tmp_path / 'gitdirs' / 'wt'}\n")
    (detached / ".git").mkdir(parents=True)
    (detached / ".git" / "HEAD").write_text("0123456789abcdef0123456789abcdef01234567\n")
    bare.mkdir()
    branches = [git_state.branch(str(path)) for path in (plain, worktree, detached, bare)]
    assert branches == ["feature/x", "wt-surface", None, None]
    assert git_state.changed_files(str(bare)) == []  # not a repository: nothing, no error


def test_the_context_with_the_digest_stays_under_what_claude_code_keeps(project: Path) -> None:
    """The snapshot at its largest budget and the digest at its largest: together under 9,500
    characters (Claude Code replaces a longer hook text by a file reference, docs/internals/guarantees.md)."""
    for number in range(60):
        remember(f"Pinned fact number {number}: " + "the deploy pipeline runs in stages " * 4, "--pin")
        cli_json("todos", "add", "--text", f"todo {number} " + "x" * 150, "--priority", "high")
    (project / ".cortex" / "config.toml").write_text("[snapshot]\nbudget = 9000\n[surface]\nbudget = 8000\n")
    text = cli("snapshot", cwd=project).stdout
    assert "Open todos, high priority:" in text
    assert "## Memory (cortex-hooks)" in text  # the digest got what room was left
    assert 9_000 < len(text) <= 9_500
