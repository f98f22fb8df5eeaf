"""Each MCP tool against a real database: it does what its CLI command does, says it in text the
model can act on, and refuses bad arguments with `isError`, writing nothing."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from support import cli, cli_json, script

from cortex_hooks.mcp import tools


def call(name: str, **arguments: Any) -> str:
    text, is_error = tools.call(name, arguments)
    assert not is_error, text
    return text


def refused(name: str, **arguments: Any) -> str:
    text, is_error = tools.call(name, arguments)
    assert is_error, text
    assert "\n" not in text  # one line
    return text


def npm_learning(**changes: Any) -> str:
    arguments = {
        "anti_pattern": "npm install",
        "correct_pattern": "use pnpm install",
        "regex": r"\bnpm\s+install\b",
        "tool": "Bash",
        **changes,
    }
    return call("cortex_add_learning", **arguments)


def test_add_learning_names_the_new_id_and_stores_what_add_stores(db: Path) -> None:
    assert npm_learning(auto_block=True, confidence=0.8, severity="high", context="pnpm lockfile") == (
        "Added learning #1."
    )
    (row,) = cli_json("list")
    assert row["regex"] == r"\bnpm\s+install\b"
    assert (row["auto_block"], row["pinned"], row["confidence"], row["severity"]) == (
        True,
        False,
        0.8,
        "high",
    )
    assert row["context"] == "pnpm lockfile"
    made = Path.home() / ".claude" / "memory" / "cortex-global.db"  # found, not named: said
    assert npm_learning(**{"global": True}) == f"Added learning #1.\ncreated the global database {made}"
    assert len(cli_json("list", "--global")) == 1


def test_an_option_value_or_a_word_may_begin_with_a_dash(db: Path) -> None:
    npm_learning(regex="--force", anti_pattern="-f everything")
    (row,) = cli_json("list")
    assert (row["regex"], row["anti_pattern"]) == ("--force", "-f everything")
    assert "#1" in call("cortex_recall", query="-f everything")


@pytest.mark.parametrize(
    ("arguments", "reason"),
    [
        ({"regex": "("}, "regex: invalid regex '('"),
        ({"confidence": 0.95}, "confidence: must lie in [0.30, 0.90], got 0.95"),
        ({"confidence": 0.555}, "confidence"),
        ({"severity": "urgent"}, "invalid arguments: severity"),
        ({"auto_block": "very"}, "invalid arguments: auto_block"),
        ({"colour": "red"}, "invalid arguments: colour: Extra inputs are not permitted"),
        ({"anti_pattern": None}, "invalid arguments: anti_pattern"),
    ],
)
def test_bad_learning_arguments_are_an_error_and_write_nothing(
    db: Path, arguments: dict[str, Any], reason: str
) -> None:
    given = {"anti_pattern": "npm install", "correct_pattern": "pnpm", **arguments}
    assert reason in refused("cortex_add_learning", **given)
    assert not db.exists()


def test_update_learning_changes_the_fields_given(db: Path) -> None:
    npm_learning()
    assert call("cortex_update_learning", id=1, confidence=0.85, auto_block=True, pinned=True) == (
        "Updated learning #1."
    )
    (row,) = cli_json("list")
    assert (row["confidence"], row["auto_block"], row["pinned"], row["tool"]) == (0.85, True, True, "Bash")
    assert "refused through MCP" in refused("cortex_update_learning", id=1, auto_block=False)  # weakening
    assert cli_json("list")[0]["auto_block"] is True
    assert "no learning with id 9" in refused("cortex_update_learning", id=9, context="x")
    assert "confidence" in refused("cortex_update_learning", id=1, confidence=0.2)
    assert "pinned" in refused("cortex_update_learning", id=1, pinned=False)
    assert "nothing to update" in refused("cortex_update_learning", id=1)
    assert cli_json("list")[0]["confidence"] == 0.85


def test_list_learnings_is_the_list_command(db: Path) -> None:
    npm_learning(confidence=0.7)
    npm_learning(anti_pattern="yarn add", regex="yarn")
    cli("archive", "2")
    assert call("cortex_list_learnings") == cli("list").stdout.rstrip("\n")
    assert " 0.70 " in call("cortex_list_learnings")  # each line shows the confidence
    assert call("cortex_list_learnings", archived=True) == cli("list", "--archived").stdout.rstrip("\n")
    assert call("cortex_list_learnings", review=True) == "No learnings."
    assert "not allowed with argument" in refused("cortex_list_learnings", archived=True, all=True)


def test_run_pruning(db: Path) -> None:
    npm_learning()
    assert call("cortex_run_pruning", dry_run=True) == "Would archive 0 learnings, 0 decisions, 0 errors."
    assert call("cortex_run_pruning") == "Archived 0 learnings, 0 decisions, 0 errors."


def test_remember_recall_forget(db: Path) -> None:
    assert call("cortex_remember", content="We deploy with fly.io from the main branch", tags=["deploy"]) == (
        "Remembered memory #1 (context, project)."
    )
    text = call("cortex_remember", content="Deploy with fly.io from the main branch only", type="decision")
    assert text.startswith("Remembered memory #2 (decision, project). Related to #1 (0.")
    found = call("cortex_recall", query="fly.io deploy", limit=1)
    assert "from the main branch" in found  # the content itself
    assert found.count("show: ") == 1
    assert "score 0." in found
    assert call("cortex_recall", query="fly.io", kind="learning") == "Nothing found."
    forgot = call("cortex_forget", id=1)
    assert forgot == (
        "Forgot memory #1 (archived, never deleted): We deploy with fly.io from the main branch\n"
        "Undo: cortex-hooks memories restore 1"
    )
    assert [m["id"] for m in cli_json("memories", "list")] == [2]
    assert call("cortex_forget", match="deploy fly.io only").startswith("Forgot memory #2")
    assert "no memory matches" in refused("cortex_forget", match="kubernetes")
    assert "one of the arguments ID --match is required" in refused("cortex_forget")
    assert "no memory with id 7" in refused("cortex_forget", id=7)


def test_forget_in_the_global_scope_says_how_to_undo_there(db: Path) -> None:
    call("cortex_remember", content="I prefer ripgrep", **{"global": True})
    assert call("cortex_forget", id=1, **{"global": True}).endswith(
        "Undo: cortex-hooks memories restore 1 --global"
    )


@pytest.mark.parametrize(
    ("arguments", "reason"),
    [
        # The values are checked by the CLI's rules (memory.given), in its words.
        ({"content": "x", "priority": 11}, "invalid memory: priority: must lie in [1, 10], got 11"),
        ({"content": "x", "type": "rumour"}, "invalid arguments: type"),
        ({"content": "x", "tags": "one"}, "invalid arguments: tags"),
        ({"content": ""}, "invalid memory: content: String should have at least 1 character"),
        ({"content": "x", "tags": ["ok", ""]}, "invalid memory: tags.1: must be 1 to 100 characters long"),
    ],
)
def test_bad_memory_arguments_write_nothing(db: Path, arguments: dict[str, Any], reason: str) -> None:
    assert reason in refused("cortex_remember", **arguments)
    assert not db.exists()


def test_recall_refuses_an_empty_query_and_a_bad_limit(db: Path) -> None:
    assert "no words" in refused("cortex_recall", query="?!")
    assert "--limit must be at least 1" in refused("cortex_recall", query="x", limit=0)
    assert "invalid arguments: query" in refused("cortex_recall")


def test_recall_scopes(db: Path) -> None:
    call("cortex_remember", content="project fact about caching")
    call("cortex_remember", content="global fact about caching", **{"global": True})
    both = call("cortex_recall", query="caching")
    assert "project fact" in both
    assert "global fact" in both
    assert "global fact" not in call("cortex_recall", query="caching", scope="project")
    assert "project fact" not in call("cortex_recall", query="caching", scope="global")


def test_index_code(db: Path, tmp_path: Path) -> None:
    source = tmp_path / "cwd" / "deploy.sh"
    source.write_text("fly deploy --remote-only\n")
    text = call("cortex_index_code", path=str(source), prose="How we deploy")
    assert text == "Indexed deploy.sh: code description #1, code #2."
    assert "cannot read" in refused("cortex_index_code", path=str(tmp_path / "nope.sh"), prose="x")


def test_snapshot_and_access_stats_are_their_commands(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", [script("cortex-hooks"), "mcp"])  # as the server runs
    npm_learning(auto_block=True)
    assert call("cortex_snapshot") == cli("snapshot").stdout
    assert "npm install" in call("cortex_snapshot")
    cli("show", "1")
    assert call("cortex_get_access_stats") == cli("stats").stdout.rstrip("\n")
    assert "#1         1 x  npm install" in call("cortex_get_access_stats")


def test_an_empty_snapshot_says_so(db: Path) -> None:
    assert call("cortex_snapshot").startswith("(nothing to show)")


def test_reading_tools_say_when_there_is_no_database(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CORTEX_GLOBAL_DB", str(db.with_name("global.db")))
    missing = f"No database at {db} yet: nothing is stored there."
    assert call("cortex_get_access_stats").endswith(missing)
    assert call("cortex_recall", query="x").endswith(
        f"No database at {db.with_name('global.db')} yet: nothing is stored there."
    )
    call("cortex_remember", content="something", **{"global": True})
    assert "No database" not in call("cortex_recall", query="x")  # one scope of two: the usual case
    assert not db.exists()


def test_consolidate_merges_what_the_command_merges_and_says_how_to_undo(db: Path) -> None:
    text = "the billing retries go through the payments queue with exponential backoff"
    call("cortex_remember", content=text)
    call("cortex_remember", content=text + " always")
    preview = call("cortex_consolidate", dry_run=True)
    assert "#1" in preview
    assert "#2" in preview
    assert [row["status"] for row in cli("memories", "list", "--all", "--json").json()] == ["active"] * 2
    merged = call("cortex_consolidate")
    assert "--restore" in merged
    statuses = sorted(row["status"] for row in cli("memories", "list", "--all", "--json").json())
    assert statuses == ["active", "superseded"]
    assert "nothing" in call("cortex_consolidate").lower()  # no flag is left


def test_reflect_decay_and_similar_are_their_commands(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = "deploys go through fly.io from the main branch only, never from a feature branch"
    call("cortex_remember", content=text)
    call("cortex_remember", content=text + " please")
    similar = call("cortex_reflect", action="similar", threshold=0.5)
    assert similar == cli("reflect", "similar", "--threshold", "0.5").stdout.rstrip("\n")
    assert "#1" in similar
    assert "#2" in similar
    assert call("cortex_reflect", action="similar", dry_run=True) == call("cortex_reflect", action="similar")
    monkeypatch.setenv("CORTEX_NOW", "2027-06-01T00:00:00Z")
    preview = call("cortex_reflect", action="decay", days=30, dry_run=True)
    assert "0.70" in preview
    assert "0.63" in preview
    before = [row["confidence"] for row in cli("memories", "list", "--json").json()]
    assert call("cortex_reflect", action="decay", days=30).startswith(preview.split("\n")[0][:10])
    after = [row["confidence"] for row in cli("memories", "list", "--json").json()]
    assert (before, after) == ([0.7, 0.7], [0.63, 0.63])


@pytest.mark.parametrize(
    ("arguments", "reason"),
    [
        ({"action": "decay", "threshold": 0.5}, "threshold does not apply to action decay"),
        ({"action": "similar", "days": 3}, "days does not apply to action similar"),
        ({"action": "forget"}, "invalid arguments: action"),
        ({}, "invalid arguments: action"),
    ],
)
def test_reflect_refuses_arguments_of_the_other_action(
    db: Path, arguments: dict[str, Any], reason: str
) -> None:
    assert reason in refused("cortex_reflect", **arguments)
