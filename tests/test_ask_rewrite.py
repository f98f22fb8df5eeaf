"""Ask and auto-correct through the installed hook (docs/guide/actions.md): `action` block, ask or warn behind
one gate, block > ask > warn; a Bash learning's rewrite answered as `updatedInput`, the corrected
command checked again; the history counts asks and rewrites; `auto_block` stays an alias."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from locking import write_lock
from support import add, cli, cli_json, payload, run

PRE = "cortex-pre-tool-use"
NOW = "2026-11-20T10:00:00Z"


def hook(command: str, **tool_input: Any) -> dict[str, Any]:
    """The hookSpecificOutput PreToolUse prints for a Bash call ({} when it prints nothing)."""
    data = payload("pre_tool_use.bash", tool_input={"command": command, **tool_input})
    result = run(PRE, stdin=data, env={"CORTEX_NOW": NOW})
    assert result.code == 0, result.stderr
    if not result.stdout.strip():
        return {}
    output: dict[str, Any] = json.loads(result.stdout)
    assert set(output) == {"hookSpecificOutput"}
    specific: dict[str, Any] = output["hookSpecificOutput"]
    assert specific["hookEventName"] == "PreToolUse"
    return specific


def history(db: Path) -> list[tuple[Any, ...]]:
    """(learning, matches, denies, asks, warnings, rewrites) of every day row."""
    with closing(sqlite3.connect(db)) as connection:
        return connection.execute(
            "SELECT learning_id, matches, denies, asks, warnings, rewrites FROM learning_day ORDER BY 1"
        ).fetchall()


def kept_verdicts(db: Path) -> list[tuple[int, str]]:
    with closing(sqlite3.connect(db)) as connection:
        return connection.execute("SELECT learning_id, verdict FROM verdict_call ORDER BY id").fetchall()


def test_ask_answers_ask_with_its_reason_and_the_history_counts_it(db: Path) -> None:
    asked = add(
        "--tool", "Bash", "--action", "ask", anti="force push", regex=r"^git push\b.*--force(?![\w-])"
    )
    specific = hook("git push --force origin main")
    assert specific["permissionDecision"] == "ask"
    assert f"#{asked}" in specific["permissionDecisionReason"]
    assert "force push" in specific["permissionDecisionReason"]
    assert "updatedInput" not in specific
    assert history(db) == [(asked, 1, 0, 1, 0, 0)]
    assert kept_verdicts(db) == [(asked, "ask")]


def test_ask_passes_the_same_gate_as_block(db: Path) -> None:
    add(
        "--tool",
        "Bash",
        "--action",
        "ask",
        "--confidence",
        "0.40",
        anti="force push",
        regex=r"--force(?![\w-])",
    )
    first = hook("git push --force")
    assert "permissionDecision" not in first  # at the gate: warned, not asked
    assert "additionalContext" in first
    assert hook("git push --force")["permissionDecision"] == "ask"  # 0.50 now: trusted


@pytest.mark.parametrize(
    ("actions", "answer"),
    [
        (("block", "ask", "warn"), "deny"),
        (("ask", "warn"), "ask"),
        (("warn", "ask"), "ask"),
        (("warn", "warn"), None),
    ],
)
def test_block_beats_ask_beats_warn(db: Path, actions: tuple[str, ...], answer: str | None) -> None:
    ids = [
        add("--action", action, anti=f"rule {n}", regex=rf"marker{n}\b") for n, action in enumerate(actions)
    ]
    specific = hook(" && ".join(f"echo x; true marker{n}" for n in range(len(actions))))
    assert specific.get("permissionDecision") == answer
    refused = specific.get("permissionDecisionReason", "")
    for learning_id, action in zip(ids, actions, strict=True):
        named_in_reason = f"#{learning_id}" in refused
        assert named_in_reason == (action == "block" if answer == "deny" else action == answer == "ask")
        assert f"#{learning_id}" in refused + specific.get("additionalContext", "")  # every match is told


def test_auto_block_stays_the_alias_of_block(db: Path) -> None:
    blocked = cli_json("add", "--anti-pattern", "a", "--correct", "b", "--regex", "zz", "--auto-block")
    assert (blocked["action"], blocked["auto_block"]) == ("block", True)
    asked = cli_json("update", str(blocked["id"]), "--action", "ask")
    assert (asked["action"], asked["auto_block"]) == ("ask", False)
    back = cli_json("update", str(blocked["id"]), "--auto-block")
    assert back["action"] == "block"
    warned = cli_json("update", str(blocked["id"]), "--no-auto-block")
    assert (warned["action"], warned["auto_block"]) == ("warn", False)
    refused = cli("update", str(blocked["id"]), "--auto-block", "--action", "ask")
    assert refused.code == 2
    assert "disagrees" in refused.stderr
    assert cli("add", "--anti-pattern", "a", "--correct", "b", "--action", "deny").code == 2


def test_a_rewrite_answers_the_whole_corrected_input_and_tells_the_agent(db: Path) -> None:
    fixed = add("--tool", "Bash", "--rewrite", "python3 -m pip", anti="pip is not on PATH", regex=r"^pip\b")
    specific = hook("cd app && pip install requests", description="install", timeout=60000)
    assert specific["updatedInput"] == {
        "command": "cd app && python3 -m pip install requests",
        "description": "install",
        "timeout": 60000,
    }
    assert "permissionDecision" not in specific  # the corrected command meets the normal permissions
    context = specific["additionalContext"]
    assert f"#{fixed}" in context
    assert "cd app && pip install requests" in context
    assert "cd app && python3 -m pip install requests" in context
    assert history(db) == [(fixed, 1, 0, 0, 0, 1)]
    assert kept_verdicts(db) == [(fixed, "rewrite")]


def test_a_corrected_command_that_would_be_denied_is_denied(db: Path) -> None:
    add("--tool", "Bash", "--rewrite", "python3 -m pip", anti="pip is not on PATH", regex=r"^pip\b")
    guard = add(
        "--tool", "Bash", "--action", "block", anti="no global installs", regex=r"^python3 -m pip install\b"
    )
    specific = hook("pip install requests")
    assert specific["permissionDecision"] == "deny"
    assert "python3 -m pip install requests" in specific["permissionDecisionReason"]
    assert f"#{guard}" in specific["permissionDecisionReason"]
    assert "updatedInput" not in specific
    assert hook("pip list")["updatedInput"]["command"] == "python3 -m pip list"


def test_a_corrected_command_that_asks_is_asked_about_as_corrected(db: Path) -> None:
    add("--tool", "Bash", "--rewrite", "python3 -m pip", anti="pip is not on PATH", regex=r"^pip\b")
    asked = add("--tool", "Bash", "--action", "ask", anti="installs need approval", regex=r"-m pip install\b")
    specific = hook("pip install requests")
    assert specific["permissionDecision"] == "ask"
    assert f"#{asked}" in specific["permissionDecisionReason"]
    assert specific["updatedInput"]["command"] == "python3 -m pip install requests"


@pytest.mark.parametrize(
    ("command", "action", "answer"),
    [
        ("bash -c 'pip install x'", "block", "deny"),  # inside a string run again: not rewritten
        ("bash -c 'pip install x'", "warn", None),
        ("pip install x", "ask", "rewrite"),
    ],
)
def test_a_rewrite_that_cannot_apply_acts_as_its_action(
    db: Path, command: str, action: str, answer: str | None
) -> None:
    add(
        "--tool",
        "Bash",
        "--rewrite",
        "python3 -m pip",
        "--action",
        action,
        anti="pip is not on PATH",
        regex=r"^pip\b",
    )
    specific = hook(command)
    if answer == "rewrite":
        assert specific["updatedInput"]["command"] == "python3 -m pip install x"
        return
    assert specific.get("permissionDecision") == answer
    assert "updatedInput" not in specific


def test_a_rewrite_that_would_loop_is_not_applied(db: Path) -> None:
    # the regex is changed behind add's check (a hand edit, an older rule): the hook still refuses
    learning = add("--tool", "Bash", "--rewrite", "pip3", "--action", "block", anti="pip", regex=r"^pip\b")
    with closing(sqlite3.connect(db)) as connection, connection:
        connection.execute("UPDATE learning SET rewrite = 'pip --quiet' WHERE id = ?", (learning,))
    specific = hook("pip install x")
    assert specific["permissionDecision"] == "deny"  # the loop is not applied: its action holds
    assert "updatedInput" not in specific


def test_one_rewrite_per_call(db: Path) -> None:
    first = add("--tool", "Bash", "--rewrite", "python3 -m pip", anti="pip", regex=r"^pip\b")
    second = add("--tool", "Bash", "--rewrite", "pnpm", anti="npm", regex=r"^npm\b")
    specific = hook("pip install x && npm install y")
    assert specific["updatedInput"]["command"] == "python3 -m pip install x && npm install y"
    context = specific["additionalContext"]
    assert f"#{first}" in context
    assert f"#{second}" in context  # the other still matches the corrected command: a warning


def test_a_rewrite_under_the_gate_only_warns(db: Path) -> None:
    add("--tool", "Bash", "--rewrite", "python3 -m pip", "--confidence", "0.40", anti="pip", regex=r"^pip\b")
    specific = hook("pip install x")
    assert "updatedInput" not in specific
    assert "AVOID: pip" in specific["additionalContext"]


def test_the_rewrite_is_checked_where_it_is_given(db: Path) -> None:
    for options, message in (
        (("--tool", "Write"), "shell learnings only"),
        ((), "shell learnings only"),  # tool * by default
        (("--tool", "Bash", "--target", "path"), "shell learnings only"),
        (("--tool", "Bash", "--regex", "pip install"), "makes its own match"),
    ):
        result = cli(
            "add",
            "--anti-pattern",
            "a",
            "--correct",
            "b",
            "--regex",
            "^pip",
            *options,
            "--rewrite",
            "python3 -m pip install",
        )
        assert result.code == 2, options
        assert message in result.stderr
    learning = add("--tool", "Bash", "--rewrite", "python3 -m pip", anti="pip", regex=r"^pip\b")
    assert cli("update", str(learning), "--tool", "Write").code == 2  # the rewrite would be on a Write
    assert cli("update", str(learning), "--regex", "pip").code == 2  # would make its own match
    assert cli_json("update", str(learning), "--no-rewrite")["rewrite"] is None
    shown = cli("show", str(learning)).stdout
    assert "rewrite" not in shown


def test_explain_shows_the_action_and_the_corrected_command(db: Path) -> None:
    add("--tool", "Bash", "--rewrite", "python3 -m pip", anti="pip", regex=r"^pip\b")
    asked = add("--tool", "Bash", "--action", "ask", anti="push", regex=r"^git push\b")
    explained = cli_json("explain", "--tool", "Bash", "--command", "pip list")
    assert explained["decision"] == "rewrite"
    assert explained["output"]["hookSpecificOutput"]["updatedInput"] == {"command": "python3 -m pip list"}
    (report,) = [item for item in explained["learnings"] if item["result"] == "match"]
    assert (report["action"], report["effect"], report["corrected"]) == (
        "warn",
        "rewrite",
        "python3 -m pip list",
    )
    text = cli("explain", "--tool", "Bash", "--command", "pip list && git push").stdout
    assert "the hook would: ASK" in text
    assert "action ask" in text
    assert "python3 -m pip list" in text
    assert cli_json("explain", "--tool", "Bash", "--command", "git push")["decision"] == "ask"
    assert asked


def test_an_ask_under_the_write_lock_is_kept_and_counted_later(db: Path) -> None:
    asked = add("--tool", "Bash", "--action", "ask", anti="push", regex=r"^git push\b")
    with write_lock(db):
        assert hook("git push")["permissionDecision"] == "ask"
    hook("ls")  # a call that matches nothing writes nothing: the next match applies what was kept
    hook("git push")
    assert history(db) == [(asked, 2, 0, 2, 0, 0)]


def test_a_blocking_or_asking_learning_is_not_pruned(db: Path) -> None:
    ids = [
        add("--action", action, anti=f"rule {action}", regex=f"m{action}")
        for action in ("block", "ask", "warn")
    ]
    pruned = cli_json("prune", env={"CORTEX_NOW": "2027-06-01T00:00:00Z"})
    assert pruned["learnings"] == 1
    active = [row["id"] for row in cli_json("list")]
    assert active == ids[:2]


def test_mcp_takes_the_action_and_keeps_auto_block(db: Path) -> None:
    from cortex_hooks.mcp import tools

    text, is_error = tools.call(
        "cortex_add_learning",
        {"anti_pattern": "a", "correct_pattern": "b", "regex": "^zz", "tool": "Bash", "action": "ask"},
    )
    assert not is_error, text
    (learning,) = cli_json("list")
    assert (learning["action"], learning["auto_block"]) == ("ask", False)
    text, is_error = tools.call(
        "cortex_add_learning",
        {"anti_pattern": "c", "correct_pattern": "d", "regex": "^yy", "auto_block": True},
    )
    assert not is_error, text
    assert [row["action"] for row in cli_json("list")] == ["ask", "block"]
    text, is_error = tools.call(
        "cortex_add_learning", {"anti_pattern": "e", "correct_pattern": "f", "action": "deny"}
    )
    assert is_error
    assert len(cli_json("list")) == 2


def test_export_and_import_carry_the_action_and_the_rewrite(db: Path, tmp_path: Path) -> None:
    add("--tool", "Bash", "--rewrite", "python3 -m pip", "--action", "block", anti="pip", regex=r"^pip\b")
    add("--tool", "Bash", "--action", "ask", anti="push", regex=r"^git push\b")
    exported = cli_json("export")
    assert [(row["action"], row["auto_block"], row["rewrite"]) for row in exported["learnings"]] == [
        ("block", True, "python3 -m pip"),
        ("ask", False, None),
    ]
    other = tmp_path / "other.db"
    source = tmp_path / "export.json"
    source.write_text(json.dumps(exported))
    assert cli("import", str(source), "--db", str(other)).code == 0
    again = cli_json("list", "--db", str(other))
    assert [(row["action"], row["rewrite"]) for row in again] == [("block", "python3 -m pip"), ("ask", None)]
    # an older file says only auto_block; a file whose two words disagree is refused whole
    older = [{"anti_pattern": "x", "correct_pattern": "y", "regex": "x", "auto_block": True}]
    source.write_text(json.dumps(older))
    cli("import", str(source), "--db", str(other))
    assert cli_json("list", "--db", str(other))[-1]["action"] == "block"
    source.write_text(json.dumps([{**older[0], "action": "ask"}]))
    refused = cli("import", str(source), "--db", str(other))
    assert refused.code == 2
    assert "learnings.0" in refused.stderr or "disagrees" in refused.stderr
    bad_rewrite = [{"anti_pattern": "x", "correct_pattern": "y", "regex": "x", "rewrite": "y"}]
    source.write_text(json.dumps(bad_rewrite))
    refused = cli("import", str(source), "--db", str(other))
    assert refused.code == 2
    assert "rewrite" in refused.stderr


def test_a_shared_files_action_and_rewrite_apply() -> None:
    from cortex_hooks.errors import CortexError
    from cortex_hooks.guard.packs import shared_format, shipped

    line = {
        "action": "ask",
        "anti_pattern": "pip",
        "correct_pattern": "python3 -m pip",
        "id": "team:pip",
        "regex": "^pip\\b",
        "rewrite": "python3 -m pip",
        "tool": "Bash",
    }
    (record,) = shared_format.read(json.dumps(line, sort_keys=True) + "\n", "team file")
    declared = shipped.declared(record)
    assert (declared["action"], declared["rewrite"]) == ("ask", "python3 -m pip")
    for broken, message in (({"tool": "*"}, "shell learnings only"), ({"rewrite": "pip3 x"}, None)):
        text = json.dumps({**line, **broken}, sort_keys=True) + "\n"
        if message is None:
            shared_format.read(text, "team file")  # pip3 does not match ^pip\b: fine
            continue
        with pytest.raises(CortexError, match=message):
            shared_format.read(text, "team file")
    looping = json.dumps({**line, "regex": "pip"}, sort_keys=True) + "\n"
    with pytest.raises(CortexError, match="makes its own match"):
        shared_format.read(looping, "team file")


def test_the_snapshot_and_the_review_prompt_show_the_action(db: Path) -> None:
    add("--action", "ask", anti="asked one", regex=r"^zz\b")
    add("--action", "block", anti="blocked one", regex=r"^yy\b")
    add("--action", "block", "--confidence", "0.40", anti="weak blocker", regex=r"^xx\b")
    text = cli("snapshot").stdout
    assert "asks first: asked one" in text
    assert "blocked: blocked one" in text
    start = run(
        "cortex-session-start",
        stdin={"session_id": "s", "hook_event_name": "SessionStart", "source": "startup"},
    )
    context = json.loads(start.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "weak blocker (confidence 0.40, action block)" in context


def test_the_report_shows_an_ask_learning_as_asking(db: Path, tmp_path: Path) -> None:
    """Trusted, an ask learning's row says ask; below the gate it warns, and says it will ask."""
    add("--tool", "Bash", "--action", "ask", anti="push", regex=r"^git push\b")
    add("--tool", "Bash", "--action", "ask", "--confidence", "0.40", anti="pull", regex=r"^git pull\b")
    add("--tool", "Bash", "--auto-block", "--confidence", "0.40", anti="fetch", regex=r"^git fetch\b")
    hook("git push")
    out = tmp_path / "report.html"
    assert cli("report", "--out", str(out)).code == 0
    page = out.read_text()
    assert '<span class="badge ask">ask</span>' in page
    assert 'title="ask: asks the person once above the gate">ask</span>' in page
    assert 'title="auto-block: denies once above the gate">auto-block</span>' in page
    assert '<span class="badge deny">' not in page  # nothing here denies yet
