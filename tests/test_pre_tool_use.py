"""End to end: the installed `cortex-pre-tool-use`, real payloads, a real database."""

from __future__ import annotations

import json
import os
import sqlite3
import time
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from support import Result, add, cli, cli_json, payload, run, stored_as_of_old

HOOK = "cortex-pre-tool-use"
TEXT_LIMIT = 9500  # docs/internals/guarantees.md: every text a hook emits stays under this many characters


# --- helpers -------------------------------------------------------------------------------------


def learnings() -> dict[int, dict[str, Any]]:
    """Every learning as `list --all --json` shows it, by id (a list is not an access)."""
    return {int(record["id"]): record for record in cli_json("list", "--all")}


def learning(learning_id: int) -> dict[str, Any]:
    return learnings()[learning_id]


def call(tool_name: str, tool_input: dict[str, Any], **env: str) -> Result:
    """The hook run with the captured PreToolUse payload, for another tool call."""
    data = payload("pre_tool_use.bash", tool_name=tool_name, tool_input=tool_input)
    return run(HOOK, stdin=data, env=env or None)


def bash(command: str, **env: str) -> Result:
    return call("Bash", {"command": command, "description": "x"}, **env)


def output(result: Result) -> dict[str, Any]:
    """hookSpecificOutput of a successful run; the only top-level key Claude Code gets."""
    assert result.code == 0, result.stderr
    assert "Traceback" not in result.stderr
    data = result.json()
    assert isinstance(data, dict)
    assert list(data) == ["hookSpecificOutput"], data
    specific: dict[str, Any] = data["hookSpecificOutput"]
    assert specific["hookEventName"] == "PreToolUse"
    return specific


def assert_silent(result: Result) -> None:
    """No match: exit 0, nothing at all on stdout or stderr."""
    assert result.code == 0, result.stderr
    assert result.stdout == ""
    assert result.stderr == ""


def dump(path: Path) -> list[str]:
    """Every row of the database, as SQL text."""
    with closing(sqlite3.connect(path)) as connection:
        return list(connection.iterdump())


# --- deny, warn, both, nothing -------------------------------------------------------------------


def test_deny_is_exactly_the_hook_specific_output_naming_the_learning() -> None:
    lid = add(
        "--auto-block",
        "--confidence",
        "0.55",
        regex=r"rm\s+-rf",
        anti="rm -rf on a build directory",
        correct="use trash-put so it can be undone",
    )
    result = run(HOOK, stdin=payload("pre_tool_use.bash"))
    specific = output(result)
    assert set(specific) == {"hookEventName", "permissionDecision", "permissionDecisionReason"}
    assert specific["permissionDecision"] == "deny"
    reason = specific["permissionDecisionReason"]
    assert isinstance(reason, str)
    assert f"#{lid}" in reason
    assert "rm -rf on a build directory" in reason
    assert "use trash-put so it can be undone" in reason
    assert "0.55" in reason or "0.65" in reason  # the confidence, before or after this boost
    assert result.stderr == ""
    assert learning(lid)["confidence"] == 0.65


def test_warn_is_additional_context_without_a_permission_decision() -> None:
    lid = add(regex=r"rm\s+-rf", anti="rm -rf without a look first", correct="ls the directory first")
    specific = output(run(HOOK, stdin=payload("pre_tool_use.bash")))
    assert set(specific) == {"hookEventName", "additionalContext"}
    context = specific["additionalContext"]
    assert f"#{lid}" in context
    assert "rm -rf without a look first" in context
    assert "ls the directory first" in context
    assert learning(lid)["confidence"] == 0.8


def test_deny_and_warn_come_in_one_output() -> None:
    blocker = add("--auto-block", regex=r"rm\s+-rf", anti="BLOCKED-ANTI", correct="BLOCKED-DO")
    warner = add(regex=r"echo\s+REMOVED", anti="WARNED-ANTI", correct="WARNED-DO")
    specific = output(run(HOOK, stdin=payload("pre_tool_use.bash")))
    assert set(specific) == {
        "hookEventName",
        "permissionDecision",
        "permissionDecisionReason",
        "additionalContext",
    }
    assert specific["permissionDecision"] == "deny"
    reason, context = specific["permissionDecisionReason"], specific["additionalContext"]
    for text in (f"#{blocker}", "BLOCKED-ANTI", "BLOCKED-DO"):
        assert text in reason
    for text in (f"#{warner}", "WARNED-ANTI", "WARNED-DO"):
        assert text in context
    assert "WARNED-ANTI" not in reason
    assert "BLOCKED-ANTI" not in context
    assert learning(blocker)["access_count"] == learning(warner)["access_count"] == 1


def test_no_match_prints_nothing_and_writes_nothing(db: Path) -> None:
    lid = add("--auto-block", regex=r"git\s+push\s+--force")
    add(regex=r"DROP TABLE")
    add(regex=None, anti="a learning without a regex")
    before_rows, before_bytes = dump(db), db.read_bytes()
    before = learning(lid)
    assert_silent(run(HOOK, stdin=payload("pre_tool_use.bash")))
    assert dump(db) == before_rows
    assert db.read_bytes() == before_bytes
    after = learning(lid)
    assert after["confidence"] == before["confidence"] == 0.7
    assert after["access_count"] == before["access_count"] == 0
    assert after["last_accessed"] is None


def test_no_match_with_candidates_that_fail_their_regex_writes_nothing(db: Path) -> None:
    """The prefilter may let a learning through; only the regex decides, and still nothing is written."""
    add(regex=r"rm\s+-rf\s+/etc")  # shares literals with the payload's command, but does not match
    before_rows, before_bytes = dump(db), db.read_bytes()
    assert_silent(run(HOOK, stdin=payload("pre_tool_use.bash")))
    assert dump(db) == before_rows
    assert db.read_bytes() == before_bytes


# --- the confidence model on a match --------------------------------------------------------------


def test_gate_is_judged_before_the_boost_at_040() -> None:
    lid = add("--auto-block", "--confidence", "0.40", regex=r"rm\s+-rf")
    first = output(run(HOOK, stdin=payload("pre_tool_use.bash")))
    assert "permissionDecision" not in first
    assert f"#{lid}" in first["additionalContext"]
    assert learning(lid)["confidence"] == 0.5
    second = output(run(HOOK, stdin=payload("pre_tool_use.bash")))
    assert second["permissionDecision"] == "deny"
    assert f"#{lid}" in second["permissionDecisionReason"]
    assert "additionalContext" not in second
    assert learning(lid)["confidence"] == 0.6


def test_gate_passes_at_041() -> None:
    lid = add("--auto-block", "--confidence", "0.41", regex=r"rm\s+-rf")
    specific = output(run(HOOK, stdin=payload("pre_tool_use.bash")))
    assert specific["permissionDecision"] == "deny"
    assert learning(lid)["confidence"] == 0.51


def test_gate_below_040_warns_from_the_floor() -> None:
    lid = add("--auto-block", "--confidence", "0.30", regex=r"rm\s+-rf")
    specific = output(run(HOOK, stdin=payload("pre_tool_use.bash")))
    assert "permissionDecision" not in specific
    assert f"#{lid}" in specific["additionalContext"]
    assert learning(lid)["confidence"] == 0.4


@pytest.mark.parametrize(
    ("start", "after"),
    [("0.79", 0.89), ("0.80", 0.9), ("0.85", 0.9), ("0.89", 0.9), ("0.90", 0.9)],
)
def test_boost_is_capped_at_the_ceiling(start: str, after: float) -> None:
    lid = add("--confidence", start, regex=r"rm\s+-rf")
    output(run(HOOK, stdin=payload("pre_tool_use.bash")))
    assert learning(lid)["confidence"] == after


def test_boost_steps_are_exact_hundredths() -> None:
    lid = add("--confidence", "0.33", regex=r"rm\s+-rf")
    seen = []
    for _ in range(7):
        output(run(HOOK, stdin=payload("pre_tool_use.bash")))
        seen.append(learning(lid)["confidence"])
    assert seen == [0.43, 0.53, 0.63, 0.73, 0.83, 0.9, 0.9]


def test_match_counts_an_access_at_the_fixed_clock() -> None:
    lid = add(regex=r"rm\s+-rf")
    unrelated = add(regex=r"DROP TABLE")
    output(run(HOOK, stdin=payload("pre_tool_use.bash"), env={"CORTEX_NOW": "2026-03-04T05:06:07Z"}))
    record = learning(lid)
    assert record["access_count"] == 1
    assert record["last_accessed"] == "2026-03-04T05:06:07Z"
    output(run(HOOK, stdin=payload("pre_tool_use.bash"), env={"CORTEX_NOW": "2026-03-05T00:00:00+02:00"}))
    record = learning(lid)
    assert record["access_count"] == 2
    assert record["last_accessed"] == "2026-03-04T22:00:00Z"  # stored in UTC
    other = learning(unrelated)
    assert other["access_count"] == 0
    assert other["last_accessed"] is None


def test_archived_learning_never_matches(db: Path) -> None:
    lid = add("--auto-block", regex=r"rm\s+-rf")
    assert cli("archive", str(lid)).code == 0
    before = dump(db)
    assert_silent(run(HOOK, stdin=payload("pre_tool_use.bash")))
    assert dump(db) == before
    assert learning(lid)["access_count"] == 0
    assert cli("restore", str(lid)).code == 0
    assert output(run(HOOK, stdin=payload("pre_tool_use.bash")))["permissionDecision"] == "deny"


def test_learning_without_regex_never_matches(db: Path) -> None:
    lid = add("--auto-block", "--tool", "*", regex=None, anti="rm -rf", correct="trash")
    before = dump(db)
    assert_silent(run(HOOK, stdin=payload("pre_tool_use.bash")))
    assert dump(db) == before
    assert learning(lid)["access_count"] == 0


# --- what text is matched -------------------------------------------------------------------------

MULTI_EDIT = {
    "file_path": "/home/dev/proj/app.py",
    "edits": [
        {"old_string": "alpha_old", "new_string": "alpha_new"},
        {"old_string": "beta_old", "new_string": "print(secret_token)", "replace_all": False},
    ],
}
NOTEBOOK = {
    "notebook_path": "/home/dev/proj/analysis.ipynb",
    "new_source": "import pdb; pdb.set_trace()",
    "cell_id": "c1",
}
WRITE = {"file_path": "/home/dev/proj/.env.local", "content": "API_KEY=sk-live-123\n"}
EDIT = {
    "file_path": "/home/dev/proj/hello.py",
    "old_string": "legacy_call()",
    "new_string": "modern_call()",
}
GREP = {"pattern": "TODO", "path": "/home/dev/proj/src", "output_mode": "content"}
MCP = {"query": "repo:acme/app secret", "per_page": 5}


@pytest.mark.parametrize(
    ("tool_name", "tool_input", "regex", "target", "matches"),
    [
        # content: Bash command only
        ("Bash", {"command": "git push --force", "description": "x"}, r"push --force", "content", True),
        ("Bash", {"command": "ls", "description": "push --force"}, r"push --force", "content", False),
        # content: Write content, not the path
        ("Write", WRITE, r"sk-live-\d+", "content", True),
        ("Write", WRITE, r"\.env\.local", "content", False),
        # content: Edit new_string, not old_string
        ("Edit", EDIT, r"modern_call\(\)", "content", True),
        ("Edit", EDIT, r"legacy_call\(\)", "content", False),
        # content: MultiEdit every edits[].new_string (the match is in the second edit)
        ("MultiEdit", MULTI_EDIT, r"print\(secret_token\)", "content", True),
        ("MultiEdit", MULTI_EDIT, r"alpha_new", "content", True),
        ("MultiEdit", MULTI_EDIT, r"beta_old", "content", False),
        ("MultiEdit", MULTI_EDIT, r"app\.py", "content", False),
        # content: NotebookEdit new_source
        ("NotebookEdit", NOTEBOOK, r"pdb\.set_trace", "content", True),
        ("NotebookEdit", NOTEBOOK, r"analysis\.ipynb", "content", False),
        # content of any other tool: the compact JSON of tool_input
        ("Grep", GREP, r'\{"pattern":"TODO","path":"/home/dev/proj/src"', "content", True),
        ("Grep", GREP, r'"pattern": "TODO"', "content", False),  # not the spaced JSON
        ("mcp__github__search", MCP, r'"query":"repo:acme/app secret","per_page":5\}', "content", True),
        # path: file_path / notebook_path / path
        ("Write", WRITE, r"/\.env(\.\w+)?$", "path", True),
        ("Write", WRITE, r"sk-live", "path", False),
        ("Edit", EDIT, r"^/home/dev/proj/hello\.py$", "path", True),
        ("NotebookEdit", NOTEBOOK, r"\.ipynb$", "path", True),
        ("Grep", GREP, r"^/home/dev/proj/src$", "path", True),
        ("Bash", {"command": "cat /etc/passwd", "description": "x"}, r"/etc/passwd", "path", False),
        # input: the compact JSON of tool_input, whatever the tool
        (
            "Bash",
            {"command": "ls", "description": "danger zone"},
            r'"description":"danger zone"',
            "input",
            True,
        ),
        ("Write", WRITE, r'"file_path":"/home/dev/proj/\.env\.local","content"', "input", True),
        ("Edit", EDIT, r'"old_string":"legacy_call\(\)"', "input", True),
        ("Bash", {"command": "ls", "description": "x"}, r'"command": "ls"', "input", False),
    ],
)
def test_target_text_of_each_tool_shape(
    tool_name: str, tool_input: dict[str, Any], regex: str, target: str, matches: bool
) -> None:
    lid = add("--target", target, regex=regex)
    result = call(tool_name, tool_input)
    if matches:
        assert f"#{lid}" in output(result)["additionalContext"]
        assert learning(lid)["access_count"] == 1
    else:
        assert_silent(result)
        assert learning(lid)["access_count"] == 0


def test_compact_json_keeps_non_ascii_literal() -> None:
    lid = add("--tool", "mcp__.*", regex=r'"query":"naïve café"')
    result = call("mcp__search__find", {"query": "naïve café"})
    assert f"#{lid}" in output(result)["additionalContext"]


# --- tool matchers (Claude Code syntax) ----------------------------------------------------------

EVERYWHERE = {
    "command": "MARKER",
    "content": "MARKER",
    "new_string": "MARKER",
    "new_source": "MARKER",
    "query": "MARKER",
}


@pytest.mark.parametrize(
    ("matcher", "tool_name", "matches"),
    [
        ("Bash", "Bash", True),
        ("Bash", "PowerShell", False),
        ("Bash", "BashOutput", False),  # an exact name is not a prefix
        ("bash", "Bash", False),  # case-sensitive
        ("Bash|PowerShell", "PowerShell", True),
        ("Bash|PowerShell", "Write", False),
        ("Write,Edit", "Edit", True),
        ("Write,Edit", "Write", True),
        ("Write,Edit", "MultiEdit", False),
        ("mcp__.*", "mcp__github__search", True),
        ("mcp__.*", "Bash", False),
        ("mcp__github__.*", "mcp__gitlab__search", False),
        ("mcp__memory", "mcp__memory__create_entities", False),  # exact name, not a prefix
        ("*", "Bash", True),
        ("*", "mcp__github__search", True),
        ("", "Write", True),
        ("Edit", "NotebookEdit", False),
        ("Edit", "Edit", True),
        ("Edit.*", "NotebookEdit", True),  # a regex is unanchored
        ("Edit.*", "Edit", True),
        ("^Edit$", "NotebookEdit", False),
        ("^Edit$", "Edit", True),
        ("Notebook.*|Write", "NotebookEdit", True),
    ],
)
def test_tool_matcher(matcher: str, tool_name: str, matches: bool, db: Path) -> None:
    lid = add("--target", "input", regex="MARKER")
    stored_as_of_old(db, lid, tool=matcher)  # as stored: `bash` is refused at add now
    result = call(tool_name, EVERYWHERE)
    if matches:
        assert f"#{lid}" in output(result)["additionalContext"]
    else:
        assert_silent(result)
    assert learning(lid)["access_count"] == (1 if matches else 0)


# --- regex flavours ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("regex", "command", "matches"),
    [
        (r"(?i)drop\s+table", "psql -c 'DROP TABLE users'", True),
        (r"drop\s+table", "psql -c 'DROP TABLE users'", False),
        (r"(?i:DROP) TABLE", "psql -c 'drop TABLE users'", True),
        (r"(?i:DROP) TABLE", "psql -c 'drop table users'", False),
        (r"(?i)kelvin", "echo \u212aELVIN", True),  # KELVIN SIGN folds to k
        (r"(?i)secret", "echo \u017fECRET", True),  # LONG S folds to s
        (r"(?i)ÉCOLE", "echo école", True),
    ],
)
def test_case_insensitive_patterns(regex: str, command: str, matches: bool) -> None:
    # target raw: the SQL is a quoted word, which the command reader never matches
    lid = add("--target", "raw", regex=regex)
    result = bash(command)
    if matches:
        assert f"#{lid}" in output(result)["additionalContext"]
    else:
        assert_silent(result)


@pytest.mark.parametrize("padding", [10, 10_000])
def test_case_insensitive_pattern_in_short_and_long_text(padding: int) -> None:
    # target raw: the pattern spans a pipe, past one simple command (docs/guide/command-reader.md)
    lid = add("--target", "raw", regex=r"(?i)curl [^|]*\| *SUDO BASH")
    command = "x" * padding + " Curl https://get.example.com | sudo bash"
    assert f"#{lid}" in output(bash(command))["additionalContext"]


def test_catastrophic_regex_is_skipped_and_other_learnings_still_decide() -> None:
    evil = add(regex=r"(a|aa)+$", anti="EVIL")
    also_evil = add(regex="placeholder", anti="ALSO-EVIL")  # the classic, refused at add now, stored before:
    stored_as_of_old(os.environ["CORTEX_DB"], also_evil, regex=r"(a+)+$")  # must not hang either
    blocker = add("--auto-block", regex=r"^echo ", anti="BLOCKED-ANTI")
    warner = add(regex=r"a{20}b", anti="WARNED-ANTI")
    command = "echo " + "a" * 5000 + "b"
    started = time.monotonic()
    result = bash(command)
    elapsed = time.monotonic() - started
    assert elapsed < 10
    specific = output(result)
    assert specific["permissionDecision"] == "deny"
    assert f"#{blocker}" in specific["permissionDecisionReason"]
    assert f"#{warner}" in specific["additionalContext"]
    assert "EVIL" not in specific["permissionDecisionReason"]
    assert "EVIL" not in specific.get("additionalContext", "")
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("cortex-hooks")
    assert f"#{evil}" in lines[0]
    assert "Traceback" not in result.stderr
    assert learning(evil)["access_count"] == 0
    assert learning(evil)["confidence"] == 0.7
    assert learning(also_evil)["access_count"] == 0  # `$` never matches before the final b
    assert learning(blocker)["access_count"] == 1
    assert learning(warner)["access_count"] == 1


def test_plain_pattern_over_ten_megabytes_is_evaluated_to_the_end() -> None:
    """Honest work over a large Write takes longer than the base timeout and still finishes."""
    lid = add("--auto-block", "--tool", "Write", regex=r"[a-z]+ = [a-z]+\d")
    content = "lorem ipsum dolor sit amet " * 400_000 + "\npassword = hunter2\n"
    assert len(content) > 10_000_000
    started = time.monotonic()
    result = call("Write", {"file_path": "/home/dev/proj/big.txt", "content": content})
    assert time.monotonic() - started < 60
    specific = output(result)
    assert specific["permissionDecision"] == "deny"
    assert f"#{lid}" in specific["permissionDecisionReason"]
    assert result.stderr == ""
    assert learning(lid)["access_count"] == 1


# --- output size ---------------------------------------------------------------------


def test_huge_learning_texts_keep_each_output_under_the_limit() -> None:
    blocker = add("--auto-block", regex=r"rm\s+-rf", anti="B" * 20_000, correct="C" * 20_000)
    warner = add(regex=r"echo", anti="W" * 20_000, correct="D" * 20_000)
    specific = output(run(HOOK, stdin=payload("pre_tool_use.bash")))
    assert specific["permissionDecision"] == "deny"
    assert 0 < len(specific["permissionDecisionReason"]) < TEXT_LIMIT
    assert 0 < len(specific["additionalContext"]) < TEXT_LIMIT
    assert f"#{blocker}" in specific["permissionDecisionReason"]
    assert f"#{warner}" in specific["additionalContext"]


def test_many_matches_keep_each_output_under_the_limit(db: Path) -> None:
    records: list[dict[str, Any]] = [
        {"anti_pattern": f"warning number {n} " + "w" * 200, "regex": r"echo\s+REMOVED"} for n in range(60)
    ] + [
        {"anti_pattern": f"block number {n} " + "b" * 200, "regex": r"rm\s+-rf", "auto_block": True}
        for n in range(60)
    ]
    source = db.parent / "many.json"
    source.write_text(json.dumps([{**record, "correct_pattern": "do it right"} for record in records]))
    assert cli("import", str(source)).code == 0
    by_text = {record["anti_pattern"]: lid for lid, record in learnings().items()}
    ids = [by_text[record["anti_pattern"]] for record in records[:60]]
    blockers = [by_text[record["anti_pattern"]] for record in records[60:]]
    specific = output(run(HOOK, stdin=payload("pre_tool_use.bash")))
    assert specific["permissionDecision"] == "deny"
    assert len(specific["permissionDecisionReason"]) < TEXT_LIMIT
    assert len(specific["additionalContext"]) < TEXT_LIMIT
    assert f"#{blockers[0]}" in specific["permissionDecisionReason"]
    assert f"#{ids[0]}" in specific["additionalContext"]
    # every match is still recorded, whether or not its text fitted
    after = learnings()
    assert [after[lid]["access_count"] for lid in (*ids, *blockers)] == [1] * 120
