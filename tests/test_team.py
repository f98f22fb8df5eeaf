"""The team file (docs/guide/team.md) end to end: read into the project database when its stat changes,
trusted by digest, its commands, its memories in recall, and every bad input the issue names
(huge, binary, FIFO, symlink out, CRLF, BOM, merge conflict, duplicate ids, a slow regex): bad
lines are named, the hook never hangs or fails, and the rest keeps working."""

from __future__ import annotations

import json
import os
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support import cli, cli_json, run

FORCE = {
    "action": "block",
    "anti_pattern": "force-pushing rewrites everyone's history",
    "correct_pattern": "push a branch and open a pull request",
    "id": "acme:force-push",
    "regex": r"^git push\s+(?:--force|-f)\b",
    "tool": "Bash",
}
DEPLOY = {"content": "We deploy with make deploy, never by hand", "id": "acme:deploy", "kind": "memory",
          "tags": ["deploy"]}  # fmt: skip
WARN_TODO = {
    "anti_pattern": "leaving TODO without an issue",
    "correct_pattern": "open an issue and link it",
    "id": "acme:todo",
    "regex": "TODO(?!\\(#\\d+\\))",
    "tool": "Write|Edit",
}


def line(entry: dict[str, Any]) -> str:
    return json.dumps(entry, sort_keys=True) + "\n"


def team_file(project: Path, *entries: dict[str, Any], text: str | None = None) -> Path:
    path = project / ".claude" / "cortex-team.jsonl"
    path.parent.mkdir(exist_ok=True)
    path.write_text(
        text if text is not None else "".join(line(e) for e in sorted(entries, key=lambda e: e["id"]))
    )
    return path


def hook(command: str, project: Path, **env: str) -> Any:
    payload = {"session_id": "s", "hook_event_name": "PreToolUse", "cwd": str(project), "tool_name": "Bash",
               "tool_input": {"command": command}}  # fmt: skip
    return run("cortex-pre-tool-use", stdin=json.dumps(payload), env=env, timeout=60)


def decision(result: Any) -> str | None:
    if not result.stdout.strip():
        return None
    output = result.json()["hookSpecificOutput"]
    return output.get("permissionDecision") or ("warn" if output.get("additionalContext") else None)


def start(project: Path) -> Any:
    payload = {"session_id": "s1", "hook_event_name": "SessionStart", "cwd": str(project),
               "source": "startup",
               "transcript_path": str(project / "none.jsonl")}  # fmt: skip
    return run("cortex-session-start", stdin=json.dumps(payload), timeout=60)


@pytest.fixture
def project(db: Path) -> Path:
    """The project (the tests' working directory) with its database created by the CLI."""
    cli("todos", "add", "--text", "a row, so the database exists")
    return Path.cwd()


def test_a_team_block_warns_until_trusted_then_denies_and_a_change_waits_again(project: Path) -> None:
    path = team_file(project, FORCE, DEPLOY)
    assert decision(hook("git push --force origin main", project)) == "warn"  # not trusted yet
    said = start(project).json()
    assert "team trust" in said["systemMessage"]
    assert "1 block" in said["systemMessage"]
    trusted = cli_json("team", "trust")
    assert trusted["block"] == 1
    assert trusted["entries"] == 2
    denied = hook("git push --force origin main", project)
    assert decision(denied) == "deny"
    assert "(team acme:force-push, " in denied.json()["hookSpecificOutput"]["permissionDecisionReason"]
    assert decision(hook("git push origin feature", project)) is None
    again = start(project)
    assert "systemMessage" not in (again.json() if again.stdout.strip() else {})
    path.write_text(path.read_text() + line({**WARN_TODO, "id": "acme:zz-todo"}))  # a teammate adds a line
    # A trusted file changed (by a teammate, or by the agent) is held: its trusted rules stay in force
    # as they were, its new text waits for the person's trust (docs/internals/integrity.md: an edit cannot
    # weaken it).
    assert decision(hook("git push --force origin main", project)) == "deny"
    listed = cli_json("team", "list")
    assert any("changed since it was trusted" in problem for problem in listed["problems"])
    assert "acme:zz-todo" not in [entry["id"] for entry in listed["entries"]]
    assert "changed since it was trusted" in start(project).json()["systemMessage"]
    cli_json("team", "trust")
    assert "acme:zz-todo" in [entry["id"] for entry in cli_json("team", "list")["entries"]]
    assert decision(hook("git push --force origin main", project)) == "deny"


def test_the_file_is_read_only_when_its_stat_changes(project: Path, db: Path) -> None:
    team_file(project, FORCE)
    hook("ls", project)
    with closing(sqlite3.connect(db)) as connection:
        first = connection.execute("SELECT read_at, stat FROM team_file").fetchone()
        connection.execute("UPDATE team_file SET read_at = 'untouched'")
        connection.commit()
    hook("ls", project)  # the same stat: not read again
    with closing(sqlite3.connect(db)) as connection:
        assert connection.execute("SELECT read_at FROM team_file").fetchone()[0] == "untouched"
    assert first[1] != "absent"


def test_team_learnings_keep_the_persons_state_by_id_and_a_removed_line_is_archived(
    project: Path, db: Path
) -> None:
    path = team_file(project, FORCE)
    cli_json("team", "trust")
    hook("git push -f origin main", project)
    before = {entry["id"]: entry for entry in cli_json("team", "list")["entries"]}
    assert before["acme:force-push"]["hits"] == 1
    team_file(project, {**FORCE, "correct_pattern": "open a pull request instead"})
    cli_json("team", "trust")  # a trusted file's change is read in once trusted (docs/internals/integrity.md)
    after = {entry["id"]: entry for entry in cli_json("team", "list")["entries"]}
    assert after["acme:force-push"]["hits"] == 1  # the declaration changed, the person's state did not
    path.write_text("")
    assert decision(hook("git push -f origin main", project)) == "deny"  # held: emptied, not trusted yet
    cli_json("team", "trust")
    assert cli_json("team", "list")["entries"] == []
    assert decision(hook("git push -f origin main", project)) is None
    team_file(project, FORCE)
    cli_json("team", "trust")
    assert cli_json("team", "list")["entries"][0]["hits"] == 2  # back, with its state (one more catch)


def test_mute_is_personal_and_the_file_is_not_touched(project: Path) -> None:
    path = team_file(project, FORCE)
    cli_json("team", "trust")
    text = path.read_text()
    assert cli_json("team", "mute", "acme:force-push")["muted"]
    assert decision(hook("git push -f origin main", project)) is None
    assert path.read_text() == text
    cli_json("team", "unmute", "acme:force-push")
    assert decision(hook("git push -f origin main", project)) == "deny"
    assert cli("team", "mute", "acme:nothing").code == 2


def test_team_memories_are_recalled_and_surfaced_marked_team(project: Path) -> None:
    team_file(project, FORCE, DEPLOY)
    cli("remember", "We deploy the docs site from the docs branch")
    found = cli_json("recall", "deploy")
    marks = {item["content"]: (item["team"], item["source"]) for item in found}
    assert marks == {
        DEPLOY["content"]: (True, "team"),
        "We deploy the docs site from the docs branch": (False, "cortex"),
    }
    surfaced = cli_json("surface", "--dry-run")
    assert any(entry["team"] for entry in surfaced["sections"]["critical"])
    assert "(team)" in surfaced["text"]


def test_team_add_writes_a_canonical_line_and_the_author_stays_trusted(project: Path) -> None:
    added = cli_json("add", "--anti-pattern", "git push --force", "--correct", "open a pull request",
                     "--regex", r"^git push\s+--force", "--tool", "Bash", "--auto-block")  # fmt: skip
    result = cli_json("team", "add", "acme:no-force", "--from", str(added["id"]))
    assert result["trusted"]
    assert result["action"] == "block"
    path = project / ".claude" / "cortex-team.jsonl"
    (entry,) = [json.loads(text) for text in path.read_text().splitlines()]
    assert (entry["id"], entry["action"]) == ("acme:no-force", "block")
    assert list(entry) == sorted(entry)
    assert not {"confidence", "access_count", "created_at"} & set(entry)  # no counters, no times
    assert cli_json("team", "check")["ok"]
    assert cli("team", "add", "acme:no-force", "--from", str(added["id"])).code == 2  # the id is taken
    assert cli("team", "add", "Not A Slug", "--from", str(added["id"])).code == 2
    assert cli("team", "add", "acme:x", "--from", "999").code == 2
    assert decision(hook("git push --force", project)) == "deny"


def test_a_fresh_clone_without_a_database_lists_the_file_and_creates_nothing(db: Path) -> None:
    team_file(Path.cwd(), FORCE, DEPLOY)
    listed = cli_json("team", "list")
    assert [entry["in_force"] for entry in listed["entries"]] == [None, "warn"]
    assert not listed["trusted"]
    assert not db.exists()
    assert decision(hook("git push -f x", Path.cwd())) is None  # hooks never create a database
    cli_json("team", "trust")
    assert decision(hook("git push -f x", Path.cwd())) == "deny"


def test_team_check_names_every_problem_with_exit_1(project: Path) -> None:
    bad = {**FORCE, "id": "acme:slow", "regex": "(a+)+$"}
    broad = {**FORCE, "id": "acme:broad", "regex": "ls"}
    text = (
        "\ufeff" + line(FORCE).replace("\n", "\r\n") + line(FORCE) + line(bad) + line(broad)
        + '{"id": "acme:x", "hits": 3}\n' + "<<<<<<< HEAD\n" + "not json"
    )  # fmt: skip
    team_file(project, text=text)
    result = cli("team", "check")
    assert result.code == 1
    out = result.stdout
    for said in ("byte-order mark", "CR LF", "appears again", "nested unbounded", "benign command",
                 "hits", "merge-conflict marker", "not JSON", "final newline", "not sorted"):  # fmt: skip
        assert said in out, said
    assert len(out.splitlines()) >= 10
    checked = cli_json_status("team", "check")
    assert not checked["ok"]
    assert checked["entries"] == 2


def cli_json_status(*args: str) -> Any:
    result = cli(*args, "--json")
    return result.json()


def test_team_check_passes_a_good_file_and_needs_no_database(db: Path) -> None:
    team_file(Path.cwd(), FORCE, DEPLOY, WARN_TODO)
    assert cli("team", "check").code == 0
    assert not db.exists()


# --- Bad input and faults: named, bounded, never a hang or a failure of the hook ----------------


def assert_hook_works(project: Path) -> Any:
    """The hook answers within its timeout, exit 0 with a decision or exit 1 without one, and the
    good line still denies once trusted."""
    result = hook("git push --force origin main", project)
    assert result.code in (0, 1), result.stderr
    assert "Traceback" not in result.stderr
    return result


def test_bad_lines_are_named_and_the_rest_keeps_working(project: Path) -> None:
    good = line(FORCE)
    text = (
        "\ufeff" + good.replace("\n", "\r\n")  # a BOM and CRLF: read past
        + "<<<<<<< HEAD\n" + line({**FORCE, "regex": "x"}) + "=======\n" + ">>>>>>> theirs\n"
        + "\x00\xff binary\n" + '{"id": "acme:bad", "regex": "("}\n'
        + line({**WARN_TODO, "id": "acme:unknown", "owner": "me"})
    )  # fmt: skip
    team_file(project, text=text)
    result = assert_hook_works(project)
    for said in ("merge-conflict marker", "appears again", "regex", "owner"):
        assert said in result.stderr, said
    problems = cli_json("team", "list")["problems"]
    assert any("line 2" in problem and "merge-conflict" in problem for problem in problems)
    cli_json("team", "trust")
    assert decision(assert_hook_works(project)) == "deny"
    doctor = cli("doctor")
    assert "team file" in doctor.stdout
    assert "merge-conflict" in doctor.stdout


def test_a_binary_file_is_named_not_fatal(project: Path) -> None:
    team_file(project, text="")
    (project / ".claude" / "cortex-team.jsonl").write_bytes(os.urandom(4096) + b"\n" + line(FORCE).encode())
    assert_hook_works(project)
    cli_json("team", "trust")
    assert decision(assert_hook_works(project)) == "deny"


def test_a_huge_file_is_read_within_bounds(project: Path) -> None:
    path = team_file(project, FORCE)
    with path.open("ab") as stream:  # 100 MB: its first lines read, the rest never
        stream.truncate(100 * 1024 * 1024)
    result = assert_hook_works(project)
    assert "larger than" in result.stderr
    cli_json("team", "trust")
    assert decision(assert_hook_works(project)) == "deny"


def test_a_fifo_is_never_opened(project: Path) -> None:
    (project / ".claude").mkdir()
    os.mkfifo(project / ".claude" / "cortex-team.jsonl")
    result = assert_hook_works(project)
    assert "cannot be read" in result.stderr
    assert cli("team", "check").code == 1


def test_a_symlink_out_of_the_project_is_not_followed(project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.jsonl"
    outside.write_text(line(FORCE))
    (project / ".claude").mkdir()
    (project / ".claude" / "cortex-team.jsonl").symlink_to(outside)
    result = assert_hook_works(project)
    assert "leads out of the project" in result.stderr
    assert cli_json("team", "list")["entries"] == []


def test_a_regex_that_never_ends_on_benign_text_never_hangs_the_hook(project: Path) -> None:
    nested = {**FORCE, "id": "acme:nested", "regex": "^(a+)+$"}  # refused when read: named
    slow = {**FORCE, "id": "acme:slow", "regex": "^(?:a|a)*$"}  # not caught by the shape: the timeout
    team_file(project, nested, slow)
    cli_json("team", "trust")
    result = hook("a" * 40 + "!", project)
    assert result.code in (0, 1)
    assert "acme:nested" not in {entry["id"] for entry in cli_json("team", "list")["entries"]}
    assert any("nested unbounded" in problem for problem in cli_json("team", "list")["problems"])


def test_the_team_file_never_weakens_a_learning_of_the_global_or_project_scope(
    project: Path, tmp_path: Path
) -> None:
    user = tmp_path / "global.db"
    env = {"CORTEX_GLOBAL_DB": str(user)}
    cli("packs", "enable", "core.git", "--global", env=env)
    cli("add", "--anti-pattern", "rm -rf build", "--correct", "make clean", "--regex", r"^rm -rf build",
        "--tool", "Bash", "--auto-block")  # fmt: skip
    weaker = [
        {**FORCE, "id": "core.git:push-force", "action": "warn", "regex": "^never-matches$"},
        {**FORCE, "id": "acme:rm", "action": "warn", "regex": "^rm -rf build"},
    ]
    team_file(project, *weaker)
    cli_json("team", "trust", env=env)
    assert decision(hook("git push --force origin main", project, **env)) == "deny"  # the global pack's
    assert decision(hook("rm -rf build", project, **env)) == "deny"  # the project's own


def learnings_named(result: Any) -> list[str]:
    """The learnings a hook's answer names, as `learning #N` or `global learning #N`."""
    import re

    output = result.json()["hookSpecificOutput"]
    text = (output.get("permissionDecisionReason") or "") + (output.get("additionalContext") or "")
    return re.findall(r"(?:global )?learning #\d+", text)


def test_one_id_in_several_places_is_taken_once_at_the_strictest_action(
    project: Path, tmp_path: Path
) -> None:
    user = tmp_path / "global.db"
    env = {"CORTEX_GLOBAL_DB": str(user)}
    cli("packs", "enable", "core.git", "--global", env=env)
    (slug,) = [
        e["id"]
        for e in cli_json("packs", "show", "core.git", env=env)["learnings"]
        if "push-force" in e["id"]
    ]
    (pack,) = [e for e in cli_json("packs", "show", "core.git", env=env)["learnings"] if e["id"] == slug]
    same = {key: pack[key] for key in ("anti_pattern", "correct_pattern", "id", "regex", "target", "tool")}
    team_file(project, {**same, "action": "warn", "correct_pattern": "the team's way: a pull request"})
    cli_json("team", "trust", env=env)
    result = hook("git push --force origin main", project, **env)
    assert decision(result) == "deny"  # the team's warn, the global block: the strictest holds
    assert learnings_named(result) == [
        "learning #1"
    ]  # the team's entry (the project's first learning), whole
    assert "the team's way" in result.stdout


def test_the_authors_own_learning_and_its_team_line_match_once(project: Path) -> None:
    added = cli_json("add", "--anti-pattern", "git push --force", "--correct", "open a pull request",
                     "--regex", r"^git push\s+--force", "--tool", "Bash")  # fmt: skip
    cli_json("team", "add", "acme:no-force", "--from", str(added["id"]))
    result = hook("git push --force", project)
    assert learnings_named(result) == [f"learning #{added['id']}"]  # the project's own entry, once
    assert decision(result) == "warn"
    path = project / ".claude" / "cortex-team.jsonl"
    path.write_text(
        path.read_text().replace('"action": "warn"', '"action": "block"')
    )  # a teammate tightens it
    assert decision(hook("git push --force", project)) == "warn"  # a changed file: not trusted yet
    cli_json("team", "trust")
    result = hook("git push --force", project)
    assert decision(result) == "deny"  # the strictest action holds on the project's own entry
    assert learnings_named(result) == [f"learning #{added['id']}"]


@pytest.mark.parametrize(
    "entry",
    [
        FORCE,
        DEPLOY,
        WARN_TODO,
        {**FORCE, "rewrite": "git push --force-with-lease", "context": None, "severity": "high"},
        {**DEPLOY, "tags": "one tag", "type": "gotcha"},
        {**FORCE, "id": "Not A Slug"},
        {**FORCE, "regex": "("},
        {**FORCE, "regex": "(a+)+$"},
        {**FORCE, "tool": "Bash(git:*)"},
        {**FORCE, "target": "everything"},
        {**FORCE, "action": "deny"},
        {**FORCE, "anti_pattern": ""},
        {**FORCE, "anti_pattern": 3},
        {**FORCE, "hits": 3},
        {key: value for key, value in FORCE.items() if key != "regex"},
        {**DEPLOY, "content": "   "},
        {**DEPLOY, "type": "poem"},
        {**DEPLOY, "tags": [1]},
        {**DEPLOY, "kind": "note"},
        {**DEPLOY, "pinned": True},
    ],
)
def test_the_hooks_stdlib_rules_and_the_model_agree(entry: dict[str, Any]) -> None:
    """The hook reads a changed file with guard.shared_rules (no pydantic); packs, check and add use
    guard.packs.shared_format's models, which wrap the same functions: both accept and refuse the
    same lines."""
    from cortex_hooks.guard import shared_rules
    from cortex_hooks.guard.packs import shared_format

    text = json.dumps(entry, sort_keys=True)
    try:
        model: Any = shared_format.entry(text, memories=True)
    except ValueError:
        model = None
    try:
        values: Any = shared_rules.entry_values(text, memories=True)
    except ValueError:
        values = None
    assert (model is None) == (values is None), (model, values)
    if model is not None:
        dumped = model.model_dump(mode="json")
        assert {key: values[key] for key in dumped} == dumped


WATCH_IMPORTS = """
import atexit, os, sys
watched = ("pydantic", "regex", "cortex_hooks.guard.packs.shared_format", "cortex_hooks.guard.shared_rules")
def report(): print(sorted(name for name in watched if name in sys.modules), file=sys.stderr, flush=True)
atexit.register(report)
leave = os._exit
os._exit = lambda status: (atexit.unregister(report), report(), leave(status))
from cortex_hooks.hooks import pre_tool_use
sys.exit(pre_tool_use.main())
"""


def imported_by_a_call(project: Path, command: str) -> list[str]:
    import subprocess
    import sys

    payload = {"session_id": "s", "hook_event_name": "PreToolUse", "cwd": str(project), "tool_name": "Bash",
               "tool_input": {"command": command}}  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-c", WATCH_IMPORTS],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    found: list[str] = json.loads(done.stderr.strip().splitlines()[-1].replace("'", '"'))
    return found


def test_the_no_match_path_never_parses_the_team_file(project: Path) -> None:
    path = team_file(project, FORCE, DEPLOY)  # not trusted: a change is read in at the next call
    assert imported_by_a_call(project, "ls") != []  # the first call reads it
    assert imported_by_a_call(project, "git status") == []  # read before: a stat and one query
    path.write_text(path.read_text().replace("open a pull request", "open a pull request first"))
    changed = imported_by_a_call(project, "git status")  # the first call after a change reads it
    assert "cortex_hooks.guard.shared_rules" in changed
    assert "pydantic" not in changed  # the shared rules, without the model
    assert imported_by_a_call(project, "git status") == []


def test_a_trusted_file_changed_is_held_without_parsing_it(project: Path) -> None:
    path = team_file(project, FORCE, DEPLOY)
    cli_json("team", "trust")
    path.write_text(path.read_text().replace("open a pull request", "open a pull request first"))
    changed = imported_by_a_call(project, "git status")  # its digest only: the trusted rules stay
    assert "cortex_hooks.guard.shared_rules" not in changed
    assert decision(hook("git push --force origin main", project)) == "deny"


def test_an_export_leaves_the_team_files_rows_to_the_file(project: Path) -> None:
    team_file(project, FORCE, DEPLOY)
    cli("remember", "my own note")
    cli_json("team", "list")  # read in
    exported = json.loads(cli("export").stdout)
    assert [memory["content"] for memory in exported["memories"]] == ["my own note"]
    assert exported["learnings"] == []


def test_a_database_that_cannot_be_written_still_decides_and_names_the_file(project: Path, db: Path) -> None:
    cli("add", "--anti-pattern", "rm -rf build", "--correct", "make clean", "--regex", r"^rm -rf build",
        "--tool", "Bash", "--auto-block")  # fmt: skip
    team_file(project, FORCE)
    with closing(sqlite3.connect(db)) as connection:  # a trigger that refuses the read's write
        connection.execute(
            "CREATE TRIGGER refuse BEFORE INSERT ON team_file BEGIN SELECT RAISE(ABORT, 'refused here'); END"
        )
    result = hook("rm -rf build", project)
    assert decision(result) == "deny"  # the project's own learning still denies
    assert "not read: refused here" in result.stderr


def test_explain_takes_one_id_as_the_hook_does(project: Path) -> None:
    added = cli_json("add", "--anti-pattern", "git push --force", "--correct", "open a pull request",
                     "--regex", r"^git push\s+--force", "--tool", "Bash")  # fmt: skip
    cli_json("team", "add", "acme:no-force", "--from", str(added["id"]))
    explained = cli_json("explain", "--tool", "Bash", "--command", "git push --force")
    hooked = hook("git push --force", project).json()
    assert explained["output"] == hooked
    assert learnings_named(hook("git push --force", project)) == [f"learning #{added['id']}"]


PIP = {
    "action": "warn",
    "anti_pattern": "pip is not on PATH here",
    "correct_pattern": "python3 -m pip",
    "id": "acme:pip",
    "regex": r"^pip\b",
    "rewrite": "python3 -m pip",
    "tool": "Bash",
}
PUBLISH = {**FORCE, "action": "ask", "id": "acme:publish", "regex": r"^npm\s+publish\b",
           "anti_pattern": "publishing by hand", "correct_pattern": "let CI publish a tag"}  # fmt: skip


def test_a_team_ask_and_rewrite_act_only_once_trusted(project: Path) -> None:
    team_file(project, PIP, PUBLISH)
    untrusted = hook("pip install requests", project).json()["hookSpecificOutput"]
    assert "updatedInput" not in untrusted  # a stranger's rewrite does nothing
    assert decision(hook("npm publish", project)) == "warn"
    listed = {entry["id"]: entry for entry in cli_json("team", "list")["entries"]}
    assert listed["acme:pip"]["rewrite_in_force"] is None
    assert listed["acme:publish"]["in_force"] == "warn"
    said = cli("team", "trust").stdout  # each rewrite it turns on is shown
    assert "rewrite turned on: acme:pip: what" in said
    assert "rewrite turned on: acme:pip: what `^pip\\b` matches becomes `python3 -m pip`" in said
    trusted = cli_json("team", "trust")
    assert (trusted["ask"], trusted["rewrite"]) == (1, 1)
    assert [entry["id"] for entry in trusted["rewrites"]] == ["acme:pip"]
    corrected = hook("pip install requests", project).json()["hookSpecificOutput"]
    assert corrected["updatedInput"]["command"] == "python3 -m pip install requests"
    assert decision(hook("npm publish", project)) == "ask"
    said = start(project)
    assert "team trust" not in said.stdout


def test_a_team_rewrite_the_format_refuses_is_named(project: Path) -> None:
    team_file(project, {**PIP, "tool": "Write", "id": "acme:pip-write"})  # a rewrite is for Bash
    problems = cli_json("team", "list")["problems"]
    assert any("rewrite" in problem for problem in problems)


def test_parallel_hooks_read_a_changed_file_once_and_all_decide(project: Path, db: Path) -> None:
    import concurrent.futures

    path = team_file(project, FORCE)
    cli_json("team", "trust")
    path.write_text(path.read_text().replace("open a pull request", "open a pull request, please"))
    cli_json("team", "trust")  # the new digest trusted; the hooks below race to nothing new
    path.write_text(path.read_text() + line({**WARN_TODO, "id": "acme:zz"}))  # changed again: held
    with concurrent.futures.ThreadPoolExecutor(6) as pool:
        results = list(pool.map(lambda _: hook("git push -f origin main", project), range(6)))
    assert all(result.code == 0 for result in results), [result.stderr for result in results]
    assert all(decision(result) == "deny" for result in results)  # the trusted rule, in force throughout
    assert [entry["id"] for entry in cli_json("team", "list")["entries"]] == ["acme:force-push"]
    cli_json("team", "trust")
    assert [entry["id"] for entry in cli_json("team", "list")["entries"]] == ["acme:force-push", "acme:zz"]
    with closing(sqlite3.connect(db)) as connection:
        assert connection.execute("SELECT count(*) FROM team_entry").fetchone()[0] == 2


ENTRY = st.tuples(
    st.sampled_from(["project", "team", "global"]),
    st.sampled_from(["warn", "ask", "block"]),
    st.sampled_from(["a", "b"]),
)


@given(st.lists(ENTRY, min_size=1, max_size=3, unique_by=lambda entry: entry[0]), st.data())
def test_precedence_never_weakens_and_takes_one_entry(entries: list[Any], data: Any) -> None:
    from cortex_hooks.guard import actions, precedence

    present = [precedence.Entry(place, action, regex, "Bash", "content") for place, action, regex in entries]
    matched = data.draw(st.lists(st.sampled_from(present), min_size=1, unique=True))
    decided = precedence.resolve(
        [precedence.Match(entry.place, "x:y") for entry in matched], {"x:y": present}
    )
    standing = [(entry, action) for entry, (stands, action) in zip(matched, decided, strict=True) if stands]
    strictest = actions.strictest(entry.action for entry in present)
    highest = min(present, key=lambda entry: precedence.ORDER.index(entry.place))
    for entry, action in standing:  # a standing match acts at least as strictly as it would alone
        assert actions.strictness(action or entry.action) >= actions.strictness(entry.action)
        if entry is highest:
            assert action == strictest  # the highest place's entry, at the strictest action
    globals_ = [entry for entry in matched if entry.place == "global"]
    team = next((entry for entry in present if entry.place == "team"), None)
    if (
        globals_
        and not any(entry.place == "project" for entry in present)
        and team
        and team.regex != globals_[0].regex
    ):
        assert any(entry.place == "global" for entry, _ in standing)  # a team entry never displaces it
    assert len(standing) <= 2
