"""install / uninstall through the installed `cortex-hooks` script, on real settings files."""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support import cli

from cortex_hooks.install import guarding, wiring

ROOT = Path(__file__).parent.parent
OUR_SCRIPTS = {
    "PreToolUse": "cortex-pre-tool-use",
    "SessionStart": "cortex-session-start",
    "SessionEnd": "cortex-session-end",
}

FOREIGN: dict[str, Any] = {
    "model": "opus",
    "permissions": {"allow": ["Bash(npm test:*)"], "deny": []},
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [{"type": "command", "command": "./lint.sh", "timeout": 5}],
            }
        ],
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
    },
    "env": {"FOO": "1"},
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    return root


def settings_file(project: Path) -> Path:
    return project / ".claude" / "settings.json"


def load(path: Path) -> Any:
    return json.loads(path.read_text())


def backups(directory: Path) -> list[Path]:
    return sorted(directory.glob("*.bak")) if directory.exists() else []


def commands_of(settings: dict[str, Any]) -> list[str]:
    return [
        handler["command"]
        for groups in settings.get("hooks", {}).values()
        for group in groups
        for handler in group.get("hooks", [])
    ]


def without_paths(settings: Any) -> Any:
    """The settings with each of our commands reduced to its script name, as the example has it."""
    text = json.dumps(settings)
    for command in {c for c in commands_of(settings) if wiring.script_of(c)}:
        text = text.replace(json.dumps(command), json.dumps(wiring.script_of(command)))
    return json.loads(text)


def test_fresh_install_writes_the_example_block_with_absolute_paths(project: Path) -> None:
    result = cli("install", cwd=project)
    assert result.code == 0, result.stderr
    written = load(settings_file(project))
    assert without_paths(written) == load(ROOT / "settings.example.json")
    assert str(settings_file(project)) in result.stdout
    assert "nothing to back up" in result.stdout
    assert backups(project / ".claude") == []
    for event in OUR_SCRIPTS:
        (group,) = written["hooks"][event]
        (handler,) = group["hooks"]
        assert handler["timeout"] == 30
        assert ("matcher" in group) == (event == "PreToolUse")
        assert f"added    {event}" in result.stdout


def test_commands_are_absolute_executables_even_without_the_venv_on_path(project: Path) -> None:
    result = cli("install", cwd=project, env={"PATH": "/usr/bin:/bin"}, process=True)
    assert result.code == 0, result.stderr
    for event, script in OUR_SCRIPTS.items():
        (command,) = commands_of({"hooks": {event: load(settings_file(project))["hooks"][event]}})
        (word,) = shlex.split(command)
        assert os.path.isabs(word)
        assert os.path.basename(word) == script
        assert os.path.isfile(word)
        assert os.access(word, os.X_OK)


def test_a_second_install_changes_nothing(project: Path) -> None:
    assert cli("install", "--with-learn-command", cwd=project).code == 0
    first = settings_file(project).read_bytes()
    learn = (project / ".claude/commands/learn.md").read_bytes()
    again = cli("install", "--with-learn-command", cwd=project)
    assert again.code == 0, again.stderr
    assert "nothing changed" in again.stdout
    assert settings_file(project).read_bytes() == first
    assert (project / ".claude/commands/learn.md").read_bytes() == learn
    assert backups(project / ".claude") == []


def test_install_merges_into_existing_settings_and_keeps_a_backup(project: Path) -> None:
    path = settings_file(project)
    path.parent.mkdir()
    original = json.dumps(FOREIGN, indent=4) + "\n"
    path.write_text(original)
    result = cli("install", cwd=project)
    assert result.code == 0, result.stderr
    merged = load(path)
    assert list(merged) == list(FOREIGN)  # key order kept
    assert list(merged["hooks"]) == [*FOREIGN["hooks"], "SessionStart", "SessionEnd"]
    assert {k: v for k, v in merged.items() if k not in ("hooks", "permissions")} == {
        k: v for k, v in FOREIGN.items() if k not in ("hooks", "permissions")
    }
    # the deny rules install adds (docs/internals/integrity.md: the client guards the guard's files), the
    # rest kept
    assert merged["permissions"] == {"allow": ["Bash(npm test:*)"], "deny": list(guarding.PROJECT_RULES)}
    assert merged["hooks"]["Stop"] == FOREIGN["hooks"]["Stop"]
    assert merged["hooks"]["PreToolUse"][0] == FOREIGN["hooks"]["PreToolUse"][0]
    assert len(merged["hooks"]["PreToolUse"]) == 2
    assert path.read_text().startswith('{\n    "model"')  # the file's own indentation
    (backup,) = backups(path.parent)
    assert backup.read_text() == original
    assert str(backup) in result.stdout


def test_install_updates_our_entry_in_place_when_the_path_moved(project: Path) -> None:
    path = settings_file(project)
    path.parent.mkdir()
    old = "'/old venv/bin/cortex-pre-tool-use'"
    path.write_text(
        json.dumps(
            {
                "hooks": {
                    "PreToolUse": [
                        {
                            "matcher": "Bash|Edit",
                            "hooks": [
                                {"type": "command", "command": "./mine.sh"},
                                {"type": "command", "command": old, "timeout": 10},
                            ],
                        }
                    ]
                }
            }
        )
    )
    result = cli("install", cwd=project)
    assert result.code == 0, result.stderr
    (group,) = load(path)["hooks"]["PreToolUse"]
    assert group["matcher"] == "Bash|Edit"  # the user's choices stay
    mine, ours = group["hooks"]
    assert mine == {"type": "command", "command": "./mine.sh"}
    assert ours["timeout"] == 10
    assert ours["command"] != old
    assert wiring.script_of(ours["command"]) == "cortex-pre-tool-use"
    assert "updated  PreToolUse" in result.stdout
    assert "(was '/old venv/bin/cortex-pre-tool-use')" in result.stdout


def test_uninstall_returns_to_the_original_settings(project: Path) -> None:
    path = settings_file(project)
    path.parent.mkdir()
    path.write_text(json.dumps(FOREIGN, indent=2))
    assert cli("install", cwd=project).code == 0
    assert load(path) != FOREIGN
    result = cli("uninstall", cwd=project)
    assert result.code == 0, result.stderr
    restored = load(path)
    assert restored == FOREIGN
    assert list(restored) == list(FOREIGN)
    assert list(restored["hooks"]) == list(FOREIGN["hooks"])
    assert "removed  SessionEnd" in result.stdout
    # install's backup only: what uninstall replaced was the original and our hooks, nothing else
    assert len(backups(path.parent)) == 1
    again = cli("uninstall", cwd=project)
    assert again.code == 0
    assert "nothing changed" in again.stdout
    assert load(path) == FOREIGN


def test_uninstall_keeps_foreign_hooks_that_share_a_group_with_ours(project: Path) -> None:
    path = settings_file(project)
    path.parent.mkdir()
    group = {
        "matcher": "*",
        "hooks": [
            {"type": "command", "command": "/somewhere/bin/cortex-pre-tool-use"},
            {"type": "command", "command": "audit.sh"},
        ],
    }
    path.write_text(json.dumps({"hooks": {"PreToolUse": [group]}}))
    assert cli("uninstall", cwd=project).code == 0
    assert load(path) == {"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [group["hooks"][1]]}]}}


def test_uninstall_drops_the_empty_containers_it_leaves(project: Path) -> None:
    """Of a file edited since install: an event list that held only our group goes; one that was
    empty before install goes too (Claude Code reads an empty list and an absent key alike)."""
    path = settings_file(project)
    path.parent.mkdir()
    path.write_text(json.dumps({"hooks": {"SessionStart": [], "Stop": []}, "model": "x"}))
    assert cli("install", cwd=project).code == 0
    path.write_text(json.dumps({**load(path), "model": "y"}))
    assert cli("uninstall", cwd=project).code == 0
    assert load(path) == {"hooks": {"Stop": []}, "model": "y"}


def styled_settings(indent: str) -> str:
    """A hand-written settings file: its own indentation, escapes and number spellings, other
    hooks, no final newline."""
    lines = [
        "{",
        '1"model": "caf\\u00e9",',
        '1"ratio": 1.50,',
        '1"budget": 1e3,',
        '1"hooks": {',
        '2"PreToolUse": [',
        "3{",
        '4"matcher": "Bash",',
        '4"hooks": [',
        '5{"type": "command", "command": "./lint.sh", "timeout": 5}',
        "4]",
        "3}",
        "2],",
        '2"Stop": []',
        "1}",
        "}",
    ]
    return "\n".join(indent * int(line[0]) + line[1:] if line[0].isdigit() else line for line in lines)


@pytest.mark.parametrize("indent", ["    ", "\t"], ids=["4-spaces", "tab"])
def test_uninstall_right_after_install_gives_back_the_original_bytes(project: Path, indent: str) -> None:
    path = settings_file(project)
    path.parent.mkdir()
    original = styled_settings(indent).encode()
    path.write_bytes(original)
    assert cli("install", cwd=project).code == 0
    result = cli("uninstall", cwd=project)
    assert result.code == 0, result.stderr
    assert "removed  PreToolUse" in result.stdout
    assert path.read_bytes() == original


@pytest.mark.parametrize("indent", ["    ", "\t"], ids=["4-spaces", "tab"])
def test_install_keeps_the_files_own_style(project: Path, indent: str) -> None:
    path = settings_file(project)
    path.parent.mkdir()
    original = styled_settings(indent)
    path.write_text(original)
    assert cli("install", cwd=project).code == 0
    text = path.read_text()
    head = original[: original.index('"hooks"')]
    assert text.startswith(head)  # indentation, the \u00e9 escape, 1.50 and 1e3 as written
    assert f'\n{indent * 2}"SessionEnd": [\n{indent * 3}{{' in text
    assert text.endswith("\n}")  # no final newline, as before
    assert text.isascii()
    assert load(path)["model"] == "caf\u00e9"


def test_uninstall_of_a_file_edited_since_install_removes_only_our_hooks(project: Path) -> None:
    path = settings_file(project)
    path.parent.mkdir()
    path.write_text(styled_settings("  "))
    assert cli("install", cwd=project).code == 0
    path.write_text(path.read_text().replace('"ratio": 1.50', '"ratio": 2.50'))
    assert cli("uninstall", cwd=project).code == 0
    text = path.read_text()
    assert json.loads(text) == json.loads(styled_settings("  ").replace("1.50", "2.50"))
    assert text.startswith(styled_settings("  ")[:60].replace("1.50", "2.50"))  # the edit, as edited


def test_dry_run_prints_a_diff_and_writes_nothing(project: Path) -> None:
    result = cli("install", "--dry-run", "--with-learn-command", cwd=project)
    assert result.code == 0, result.stderr
    assert not (project / ".claude").exists()
    assert f"+++ {settings_file(project)}" in result.stdout
    assert '+            "timeout": 30' in result.stdout
    assert "$ARGUMENTS" in result.stdout

    path = settings_file(project)
    path.parent.mkdir()
    path.write_text(json.dumps(FOREIGN))
    before = path.read_bytes()
    result = cli("install", "--dry-run", cwd=project)
    assert result.code == 0, result.stderr
    assert f"--- {path}" in result.stdout
    assert "cortex-session-end" in result.stdout
    assert path.read_bytes() == before
    assert backups(path.parent) == []

    assert cli("install", cwd=project).code == 0
    installed = path.read_bytes()
    result = cli("uninstall", "--dry-run", cwd=project)
    assert result.code == 0
    assert "-" in result.stdout
    assert path.read_bytes() == installed


# hook groups Claude Code would reject (it then ignores the whole file), and where they go wrong
MALFORMED_GROUPS = {
    '{"hooks": {"PreToolUse": ["./lint.sh"]}}': "hooks.PreToolUse[0]",
    '{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": {"type": "command"}}]}}': (
        "hooks.PreToolUse[0].hooks"
    ),
    '{"hooks": {"SessionStart": [{"matcher": "*"}]}}': "hooks.SessionStart[0].hooks",
    '{"hooks": {"PreToolUse": [{"matcher": ["Bash"], "hooks": []}]}}': "hooks.PreToolUse[0].matcher",
    '{"hooks": {"Stop": [{"hooks": [{"command": "notify"}]}]}}': "hooks.Stop[0].hooks[0].type",
    '{"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": 5}]}]}}': (
        "hooks.SessionEnd[0].hooks[0].command"
    ),
    '{"hooks": {"PostToolUse": [{"hooks": ["notify"]}]}}': "hooks.PostToolUse[0].hooks[0]",
    '{"hooks": {"Stop": {"hooks": []}}}': "hooks.Stop",
}
MALFORMED_HOOKS = list(MALFORMED_GROUPS)


@pytest.mark.parametrize("action", ["install", "uninstall"])
@pytest.mark.parametrize(
    "content",
    [
        '{"model": "opus",',  # truncated
        "",
        "[1, 2]",
        '"text"',
        '{"hooks": []}',
        '{"hooks": {"PreToolUse": {"matcher": "*"}}}',
        b'{"model": "\xff"}',
        *MALFORMED_HOOKS,
    ],
)
def test_a_settings_file_we_cannot_merge_into_is_refused_untouched(
    project: Path, action: str, content: str | bytes
) -> None:
    path = settings_file(project)
    path.parent.mkdir()
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    before = path.read_bytes()
    result = cli(action, cwd=project)
    assert result.code == 2
    assert result.stderr.startswith("cortex-hooks: ")
    assert result.stderr.count("\n") == 1
    assert str(path) in result.stderr
    assert "untouched" in result.stderr
    assert result.stdout == ""
    assert path.read_bytes() == before
    assert backups(path.parent) == []


def test_user_scope_writes_under_home(project: Path) -> None:
    home = Path(os.environ["HOME"])
    result = cli("install", "--scope", "user", cwd=project)
    assert result.code == 0, result.stderr
    assert "user scope" in result.stdout
    assert {wiring.script_of(c) for c in commands_of(load(home / ".claude/settings.json"))} == set(
        OUR_SCRIPTS.values()
    )
    assert not (project / ".claude").exists()
    assert cli("uninstall", "--scope", "user", cwd=project).code == 0
    assert not (home / ".claude/settings.json").exists()  # it held nothing but ours: no `{}` left
    assert (home / ".claude").is_dir()  # the user's own folder stays, empty or not


@pytest.mark.parametrize("marker", [".git", ".cortex", ".claude"])
@pytest.mark.parametrize("scope", ["project", "local"])
def test_install_inside_another_project_is_refused_naming_both(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, marker: str, scope: str
) -> None:
    """Claude Code reads .claude/ of the folder it starts in and names it CLAUDE_PROJECT_DIR: a
    folder inside a git repository (or another project) would get the parent wired."""
    monkeypatch.delenv("CORTEX_DB")  # the database is the project's own, as for a person
    parent = tmp_path / "code"
    (parent / marker).mkdir(parents=True)
    if marker == ".cortex":
        assert cli("install", cwd=parent).code == 0
    here = parent / "my-app"
    here.mkdir()
    before = sorted(str(path) for path in tmp_path.rglob("*"))
    for dry in ([], ["--dry-run"]):
        result = cli("install", "--scope", scope, *dry, cwd=here)
        assert result.code == 2, result.stderr
        assert result.stderr.count("\n") == 1
        assert f"{here} lies inside the project {parent} (it holds {marker})" in result.stderr
        assert f"cd {parent} && cortex-hooks install" in result.stderr
        assert f"CLAUDE_PROJECT_DIR={here} cortex-hooks install" in result.stderr
    assert sorted(str(path) for path in tmp_path.rglob("*")) == before  # nothing written

    done = cli("install", "--scope", scope, cwd=here, env={"CLAUDE_PROJECT_DIR": str(here)})
    assert done.code == 0, done.stderr
    assert (here / ".claude").is_dir()
    assert (here / ".cortex" / "cortex.db").exists()
    assert cli("install", "--scope", scope, cwd=here).code == 0  # now a project of its own
    assert cli("install", "--scope", "user", cwd=parent / marker).code == 0  # user scope: any folder


def test_local_scope_writes_settings_local_json(project: Path) -> None:
    assert cli("install", "--scope", "local", cwd=project).code == 0
    assert (project / ".claude/settings.local.json").exists()
    assert not settings_file(project).exists()


def test_the_project_is_claude_project_dir_then_the_nearest_marker(tmp_path: Path) -> None:
    explicit = tmp_path / "explicit"
    explicit.mkdir()
    assert cli("install", env={"CLAUDE_PROJECT_DIR": str(explicit)}, cwd=tmp_path).code == 0
    assert settings_file(explicit).exists()

    marked = tmp_path / "marked"
    (marked / ".claude").mkdir(parents=True)
    (marked / "src/deep").mkdir(parents=True)
    assert cli("install", cwd=marked).code == 0
    assert settings_file(marked).exists()

    # HOME's .claude is the user's configuration, not a project marker (install wrote the user's
    # settings above: the same hooks, out of the projects' reach, docs/internals/integrity.md).
    home = Path(os.environ["HOME"])
    (home / "work").mkdir()
    assert cli("install", cwd=home / "work").code == 0
    assert settings_file(home / "work").exists()
    assert "hooks" in json.loads((home / ".claude/settings.json").read_text())


def test_the_learn_command_is_written_refused_over_a_foreign_one_and_uninstalled(
    project: Path,
) -> None:
    result = cli("install", "--with-learn-command", cwd=project)
    assert result.code == 0, result.stderr
    learn = project / ".claude/commands/learn.md"
    text = learn.read_text()
    assert text.startswith("---\ndescription: ")
    assert "$ARGUMENTS" in text
    for needed in (
        " add --anti-pattern ",
        "--correct",
        "--regex",
        "--auto-block",
        " explain --tool ",
    ):
        assert needed in text
    (cli_path,) = {line.split()[0] for line in text.splitlines() if " add --anti-pattern " in line}
    assert os.path.isabs(cli_path)
    assert os.access(cli_path, os.X_OK)
    assert str(learn) in result.stdout

    assert cli("uninstall", cwd=project).code == 0
    assert not learn.exists()
    assert not (project / ".claude").exists()  # emptied by uninstall, so removed

    learn.parent.mkdir(parents=True)
    learn.write_text("my own /learn\n")
    refused = cli("install", "--with-learn-command", cwd=project)
    assert refused.code == 2
    assert "not written by cortex-hooks" in refused.stderr
    assert learn.read_text() == "my own /learn\n"
    assert not settings_file(project).exists() or "cortex" not in settings_file(project).read_text()
    assert cli("uninstall", cwd=project).code == 0
    assert learn.read_text() == "my own /learn\n"


def test_a_symlinked_settings_file_stays_a_link(project: Path, tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles" / "settings.json"
    dotfiles.parent.mkdir()
    dotfiles.write_text('{"model": "opus"}')
    settings_file(project).parent.mkdir()
    settings_file(project).symlink_to(dotfiles)
    assert cli("install", cwd=project).code == 0
    assert settings_file(project).is_symlink()
    assert wiring.script_of(commands_of(load(dotfiles))[0]) == "cortex-pre-tool-use"
    assert load(dotfiles)["model"] == "opus"


def test_json_output_names_the_file_and_the_backup(project: Path) -> None:
    path = settings_file(project)
    path.parent.mkdir()
    path.write_text("{}")
    result = cli("install", "--json", cwd=project)
    assert result.code == 0, result.stderr
    entry, user, surface_import = result.json()["files"][:3]  # the settings (the project's, the user's), …
    assert user["path"] == str(Path(os.environ["HOME"]) / ".claude" / "settings.json")
    assert entry["path"] == str(path)
    assert entry["action"] == "updated"
    assert surface_import["path"] == str(project / "CLAUDE.local.md")
    assert surface_import["action"] == "created"
    assert Path(entry["backup"]).read_text() == "{}"
    assert [change["where"] for change in entry["changes"]] == [*OUR_SCRIPTS, *["permission"] * 4]


@pytest.mark.parametrize(
    ("command", "script"),
    [
        ("cortex-pre-tool-use", "cortex-pre-tool-use"),
        ("/a b/bin/cortex-session-end", None),  # unquoted: the first word is /a
        ("'/a b/bin/cortex-session-end'", "cortex-session-end"),
        ('"$CLAUDE_PROJECT_DIR"/bin/cortex-session-start --x', "cortex-session-start"),
        ("/venv/Scripts/cortex-pre-tool-use.exe", "cortex-pre-tool-use"),
        ("python -m cortex_hooks", None),
        ("echo cortex-pre-tool-use", None),
        ("cortex-hooks", None),
        ("'unbalanced", None),
        ("", None),
        (None, None),
    ],
)
def test_our_hooks_are_known_by_script_name(command: object, script: str | None) -> None:
    assert wiring.script_of(command) == script


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
_HANDLER = st.fixed_dictionaries(
    {"type": st.just("command"), "command": st.sampled_from(["a.sh", "b --x", "notify"])}
)
_GROUP = st.fixed_dictionaries({"hooks": st.lists(_HANDLER, max_size=3)}) | st.fixed_dictionaries(
    {"matcher": st.sampled_from(["*", "Bash", ""]), "hooks": st.lists(_HANDLER, max_size=2)}
)
_EVENTS = st.sampled_from(["PreToolUse", "SessionStart", "SessionEnd", "Stop", "PostToolUse"])
_FOREIGN = st.dictionaries(st.sampled_from(["model", "env", "permissions"]), _JSON, max_size=3).flatmap(
    lambda rest: st.one_of(
        st.just(rest),
        st.dictionaries(_EVENTS, st.lists(_GROUP, min_size=1, max_size=2), min_size=1).map(
            lambda hooks: {**rest, "hooks": hooks}
        ),
    )
)
_PATHS = {event: f"/venv/bin/{script}" for event, script in OUR_SCRIPTS.items()}


@given(_FOREIGN)
def test_install_is_idempotent_and_uninstall_lossless(settings: dict[str, Any]) -> None:
    once, changes = wiring.installed(settings, _PATHS)
    assert len(changes) == 3
    twice, again = wiring.installed(once, _PATHS)
    assert (twice, again) == (once, [])
    assert sorted(commands_of(once)) == sorted([*commands_of(settings), *_PATHS.values()])
    back, removed = wiring.uninstalled(once)
    assert back == settings
    assert len(removed) == 3
    assert wiring.check(back, "x") == settings


def test_the_example_settings_file_is_what_install_writes() -> None:
    example = load(ROOT / "settings.example.json")
    assert {
        **wiring.hooks_block(OUR_SCRIPTS),
        "permissions": {"deny": list(guarding.PROJECT_RULES)},
    } == example
    written, _ = wiring.installed({}, _PATHS)
    guarding.denied(written, guarding.PROJECT_RULES, "settings.json")
    assert without_paths(written) == example


@pytest.mark.parametrize("action", ["install", "uninstall"])
@pytest.mark.parametrize(("content", "where"), MALFORMED_GROUPS.items())
def test_a_malformed_hook_group_is_named_by_its_path(
    project: Path, action: str, content: str, where: str
) -> None:
    path = settings_file(project)
    path.parent.mkdir()
    path.write_text(content)
    result = cli(action, cwd=project)
    assert result.code == 2
    assert f"{path}: {where} is " in result.stderr
    assert result.stderr.count("\n") == 1
    assert path.read_text() == content


def test_a_handler_of_another_type_needs_no_command(project: Path) -> None:
    """A Stop handler of type `prompt` has no `command`: install merges ours beside it, keeps it
    as it was, and uninstall leaves it alone too."""
    path = settings_file(project)
    path.parent.mkdir()
    theirs = {"Stop": [{"hooks": [{"type": "prompt", "prompt": "done?"}]}]}
    path.write_text(json.dumps({"hooks": theirs}))
    assert cli("install", cwd=project).code == 0
    merged = load(path)
    assert merged["hooks"]["Stop"] == theirs["Stop"]
    assert set(merged["hooks"]) == {"Stop", *OUR_SCRIPTS}
    for event, script in OUR_SCRIPTS.items():
        (group,) = merged["hooks"][event]
        assert os.path.basename(shlex.split(group["hooks"][0]["command"])[0]) == script
    assert cli("uninstall", cwd=project).code == 0
    assert load(path) == {"hooks": theirs}


def test_backups_are_named_and_only_the_newest_three_kept(project: Path) -> None:
    path = settings_file(project)
    path.parent.mkdir()
    theirs = [path.parent / "settings.json.bak", path.parent / "settings.json.mine.bak"]
    for other in theirs:
        other.write_text("kept")
    made = []
    for number, action in enumerate(("install", "uninstall", "install", "uninstall", "install")):
        # an edit of theirs before each: no uninstall merely gives back what install backed up
        path.write_text(json.dumps({**(load(path) if path.exists() else {}), "model": f"m{number}"}))
        result = cli(action, "--json", cwd=project)
        assert result.code == 0, result.stderr
        entry = result.json()["files"][0]  # the settings (CLAUDE.local.md's import is not backed up)
        assert Path(entry["backup"]).parent == path.parent
        made.append(entry["backup"])
        assert entry["removed_backups"] == made[:-3][-1:]  # the oldest goes once three are kept
    assert sorted(str(p) for p in backups(path.parent) if p not in theirs) == sorted(made[-3:])
    assert all(other.read_text() == "kept" for other in theirs)
    path.write_text(json.dumps({**load(path), "model": "last"}))
    human = cli("uninstall", cwd=project)
    assert f"Backup of the previous settings.json: {path.parent}/settings.json." in human.stdout
    assert "the 3 newest are kept" in human.stdout
    assert f"removed {made[-3]}" in human.stdout


@pytest.mark.parametrize("action", ["install", "uninstall"])
@pytest.mark.parametrize("read_only", ["file", "directory"])
def test_a_read_only_settings_file_is_refused(project: Path, action: str, read_only: str) -> None:
    path = settings_file(project)
    path.parent.mkdir()
    path.write_text(json.dumps(FOREIGN))
    if action == "uninstall":
        assert cli("install", cwd=project).code == 0
        for backup in backups(path.parent):
            backup.unlink()
    before = path.read_bytes()
    locked = path if read_only == "file" else path.parent
    mode = locked.stat().st_mode
    locked.chmod(0o444 if read_only == "file" else 0o555)
    try:
        result = cli(action, cwd=project)
        listing = sorted(p.name for p in path.parent.iterdir())
    finally:
        locked.chmod(mode)
    assert result.code == 1
    assert (
        result.stderr
        == f"cortex-hooks: {locked} is a read-only {read_only}: left {path} untouched (make it writable)\n"
    )
    assert result.stdout == ""
    assert path.read_bytes() == before
    surfaced = ["cortex-memory.local.md"] if action == "uninstall" else []  # the install before it wrote it
    assert listing == [*surfaced, "settings.json"]
