"""Consolidation (docs/guide/aging.md): the merge plan, pure; flags written when a memory is stored; the
`consolidate` command end to end (survivor, tags, supersedes edges, what recall and the surface
then show, checkpoints kept, restore and its refusals)."""

from __future__ import annotations

import json
import os
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from support import cli, cli_json, cli_process

from cortex_hooks.memory import merge_plan
from cortex_hooks.memory.merge_plan import Candidate, Merge
from cortex_hooks.store import checkpoint
from cortex_hooks.store.version import SCHEMA_VERSION

NOW = "2026-11-23T12:00:00Z"


def candidate(memory_id: int, **values: Any) -> Candidate:
    fields: dict[str, Any] = {
        "id": memory_id,
        "confidence": 70,
        "priority": 5,
        "in_degree": 0,
        "access_count": 0,
        "pinned": False,
        "tags": (),
        "content": f"memory {memory_id}",
        "summary": f"memory {memory_id}",
    }
    return Candidate(**{**fields, **values})


# --- the plan, pure -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pairs", "expected"),
    [
        ([], []),
        ([(1, 2)], [(1, 2)]),
        ([(1, 2), (2, 3), (5, 4)], [(1, 2, 3), (4, 5)]),
        ([(3, 9), (1, 2), (9, 1)], [(1, 2, 3, 9)]),
        ([(7, 7)], []),  # a memory with itself is no pair
    ],
)
def test_groups_are_the_connected_components_of_the_pairs(
    pairs: list[tuple[int, int]], expected: list[tuple[int, ...]]
) -> None:
    assert merge_plan.groups(pairs) == expected


@pytest.mark.parametrize(
    ("members", "survivor"),
    [
        ([candidate(1), candidate(2)], 1),  # equal ranks: the oldest
        ([candidate(1), candidate(2, confidence=90)], 2),  # confidence weighs 0.5
        ([candidate(1), candidate(2, priority=9)], 2),  # priority 0.2
        ([candidate(1), candidate(2, in_degree=3)], 2),  # centrality 0.15
        ([candidate(1), candidate(2, access_count=4)], 2),  # usage 0.15
        # 0.05 of confidence (0.025) outweighs a priority point (0.02)
        ([candidate(1, confidence=75), candidate(2, priority=6)], 1),
    ],
)
def test_the_survivor_is_the_highest_ranked_member(members: list[Candidate], survivor: int) -> None:
    assert merge_plan.survivor(members, max_in_degree=3).id == survivor


def test_a_plan_unites_tags_and_pins_and_skips_pairs_outside_the_candidates() -> None:
    members = [
        candidate(1, tags=("a", "b")),
        candidate(2, tags=("c", "a"), confidence=95, pinned=True),
        candidate(3, tags=("d",)),
        candidate(5),
    ]
    plan = merge_plan.plan(members, [(1, 2), (2, 3), (5, 6)], max_in_degree=0)
    assert plan == [Merge(survivor=2, superseded=(1, 3), tags=("c", "a", "b", "d"), pinned=True)]


def test_a_merge_function_gives_the_survivor_its_content() -> None:
    """The seam for an LLM's merge (docs/guide/capture.md): given the group, survivor first."""
    seen: list[list[int]] = []

    def merge(group: Any) -> str:
        seen.append([member.id for member in group])
        return "merged text\nsecond line"

    (planned,) = merge_plan.plan([candidate(1), candidate(2, priority=8)], [(1, 2)], 0, merge)
    assert seen == [[2, 1]]
    assert (planned.content, planned.summary) == ("merged text\nsecond line", "merged text")


@pytest.mark.parametrize(
    ("extractions", "active", "runs"),
    [(0, 0, False), (9, 500, False), (10, 0, True), (0, 501, True)],
)
def test_the_auto_triggers(extractions: int, active: int, runs: bool) -> None:
    assert (merge_plan.trigger(extractions, active) is not None) == runs


# --- flags, written when a memory is stored -------------------------------------------------------


def remember(text: str, *options: str) -> int:
    memory_id: int = cli_json("remember", text, *options)["id"]
    return memory_id


def flags(db: Path) -> list[tuple[int, int, float]]:
    with closing(sqlite3.connect(db)) as connection:
        return connection.execute(
            "SELECT first_id, second_id, similarity FROM consolidation_flag ORDER BY 1, 2"
        ).fetchall()


def test_storing_flags_pairs_of_similarity_085_and_above(db: Path, tmp_path: Path) -> None:
    first = remember("one two three four five six seven eight nine ten")
    close = remember("one two three four five six seven eight nine ten eleven")  # 10/11 = 0.91
    related = remember("one two three four five six seven eight alpha beta")  # 8/12 = 0.67: linked only
    assert flags(db) == [(first, close, 0.91)]
    source = tmp_path / "cwd" / "code.py"  # a file of the project (the working directory)
    source.write_text("print('hello world')\n")
    cli_json("index-code", str(source), "--prose", "greets the world")
    cli_json("index-code", str(source), "--prose", "greets the world")  # the same file again
    assert [(a, b) for a, b, _ in flags(db)] == [(first, close), (4, 6), (5, 7)]
    # A content update is compared again: it may flag, it adds no edge.
    edges = cli_json("memories", "show", str(related))["edges"]
    assert [(e["from"], e["to"]) for e in edges] == [(related, first), (related, close)]
    cli_json("memories", "update", str(related), "--content", "one two three four five six seven eight nine")
    assert (first, related, 0.9) in flags(db)
    assert cli_json("memories", "show", str(related))["edges"] == edges


def test_a_flag_goes_with_a_deleted_memory(db: Path) -> None:
    remember("the same words exactly")
    remember("the same words exactly")
    assert len(flags(db)) == 1
    cli_json("move", "2", "--to", "global", "--memory")
    assert flags(db) == []


# --- consolidate, end to end ----------------------------------------------------------------------


@pytest.fixture
def near(db: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Three nearly identical memories (one group: the second and third are flagged with the first,
    not with each other), a fourth unrelated, and an edge from it to the second. The second ranks
    highest: its priority; the first and second have the same centrality (two edges in each)."""
    monkeypatch.setenv("CORTEX_NOW", NOW)
    ids = {
        "old": remember("deploy the api with the blue green script", "--tag", "deploy"),
        "best": remember("deploy the api with the blue green script now", "--tag", "ops", "--priority", "9"),
        "third": remember("deploy the api with the blue green script today", "--tag", "deploy", "--tag", "x"),
        "other": remember("the cache lives in redis"),
    }
    cli_json("link", str(ids["other"]), str(ids["best"]), "--type", "refines")
    return ids


def test_dry_run_shows_the_merge_and_writes_nothing(near: dict[str, int], db: Path) -> None:
    before = db.read_bytes()
    result = cli_json("consolidate", "--dry-run", "--json")
    assert result["dry_run"] is True
    assert result["merges"] == [
        {
            "survivor": near["best"],
            "superseded": [near["old"], near["third"]],
            "tags": ["ops", "deploy", "x"],
            "pinned": False,
        }
    ]
    assert [(f["first"], f["second"], f["similarity"]) for f in result["flagged"]] == [
        (1, 2, 0.88),
        (1, 3, 0.88),
    ]
    assert (result["checkpoint"], result["undo"]) == (None, None)
    assert db.read_bytes() == before
    assert not (db.parent / "checkpoints").exists()
    text = cli("consolidate", "--dry-run").stdout
    assert "Would merge 1 group (2 memories superseded); dry run, nothing written:" in text
    assert f"#{near['best']} kept (tags: ops, deploy, x" in text


def test_consolidate_merges_checkpoints_and_says_how_to_undo(near: dict[str, int], db: Path) -> None:
    result = cli_process("consolidate")
    assert result.code == 0, result.stderr
    (made,) = (db.parent / "checkpoints").iterdir()
    assert made.name == "cortex-20261123T120000Z.db"
    lines = result.stdout.splitlines()
    assert lines[0] == f"Checkpoint: {made}"
    assert lines[1] == "Merged 1 group (2 memories superseded):"
    assert lines[-1] == f"Undo: cortex-hooks consolidate --restore {made}"
    shown = {m["id"]: m for m in cli_json("memories", "list", "--all")}
    assert [shown[i]["status"] for i in sorted(shown)] == ["superseded", "active", "superseded", "active"]
    assert shown[near["best"]]["tags"] == ["ops", "deploy", "x"]
    assert shown[near["best"]]["content"] == "deploy the api with the blue green script now"
    edges = cli_json("memories", "show", str(near["best"]))["edges"]
    supersedes = sorted((e["from"], e["to"]) for e in edges if e["type"] == "supersedes")
    assert supersedes == [(near["best"], near["old"]), (near["best"], near["third"])]
    # supersedes edges do not count for centrality: two edges to #old and to #best, as before
    assert (shown[near["old"]]["centrality"], shown[near["best"]]["centrality"]) == (1.0, 1.0)
    assert shown[near["third"]]["centrality"] == 0.0
    # superseded memories are neither recalled nor surfaced
    assert [r["id"] for r in cli_json("recall", "blue green deploy")] == [near["best"]]
    surfaced = cli_json("surface", "--dry-run", "--json")["text"]
    assert "script today" not in surfaced
    assert "script now" in surfaced
    # merged: nothing flagged any more, and a second run changes nothing
    again = cli_json("consolidate", "--json")
    assert (again["flagged"], again["merges"], again["checkpoint"]) == ([], [], None)
    assert len(list((db.parent / "checkpoints").iterdir())) == 1


def test_restore_puts_the_checkpoint_back_and_can_itself_be_undone(near: dict[str, int], db: Path) -> None:
    merged = cli_json("consolidate", "--json")
    assert merged["undo"] == f"cortex-hooks consolidate --restore {merged['checkpoint']}"
    restored = cli_json("consolidate", "--restore", merged["checkpoint"], "--json")
    assert restored["restored"] == merged["checkpoint"]
    statuses = [m["status"] for m in cli_json("memories", "list", "--all")]
    assert statuses == ["active"] * 4
    assert len(cli_json("consolidate", "--dry-run", "--json")["flagged"]) == 2  # flags are back
    with closing(sqlite3.connect(db)) as connection:
        assert connection.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    # the restore's own checkpoint holds the merged state: restoring it redoes the merge
    assert restored["undo"] == f"cortex-hooks consolidate --restore {restored['checkpoint']}"
    cli_json("consolidate", "--restore", restored["checkpoint"])
    assert [m["status"] for m in cli_json("memories", "list", "--all")].count("superseded") == 2


def test_checkpoints_keep_the_last_five(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CORTEX_NOW", NOW)
    made = []
    for n in range(7):
        remember(f"word{n} same text for the pair")
        remember(f"word{n} same text for the pair")
        made.append(cli_json("consolidate", "--json")["checkpoint"])
    assert len(set(made)) == 7
    left = sorted(str(path) for path in (db.parent / "checkpoints").iterdir())
    assert left == sorted(made[2:])
    assert checkpoint.existing(str(db)) == made[2:]  # oldest first


def test_auto_runs_only_when_a_trigger_is_met(near: dict[str, int], db: Path) -> None:
    skipped = cli_json("consolidate", "--auto", "--json")
    assert (skipped["ran"], skipped["merges"], skipped["checkpoint"]) == (False, [], None)
    assert "No consolidation trigger is met" in cli("consolidate", "--auto").stdout
    with closing(sqlite3.connect(db)) as connection:  # ten memories as capture writes them
        connection.executemany(
            """INSERT INTO memory (type, content, summary, priority, confidence, source, created_at,
                   updated_at, confirmed_at) VALUES ('context', :c, :c, 5, 70, 'conversation', :t, :t, :t)""",
            [{"c": f"extracted {n}", "t": NOW} for n in range(10)],
        )
        connection.commit()
    ran = cli_json("consolidate", "--auto", "--json")
    assert ran["ran"] is True
    assert ran["trigger"] == "10 extractions since the last consolidation (trigger: 10)"
    assert len(ran["merges"]) == 1
    assert cli_json("consolidate", "--auto", "--json")["ran"] is False  # counted from this one


def test_the_global_scope_consolidates_its_own_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CORTEX_GLOBAL_DB", str(tmp_path / "global" / "cortex-global.db"))
    (tmp_path / "global").mkdir()  # a folder named for a database must be there (it is not ours to make)
    cli_json("remember", "tabs are two spaces in yaml files", "--global")
    cli_json("remember", "tabs are two spaces in yaml files", "--global")
    result = cli_json("consolidate", "--global", "--json")
    assert result["scope"] == "global"
    assert Path(result["checkpoint"]).parent == tmp_path / "global" / "checkpoints"
    assert result["undo"].endswith(" --global")


def test_no_database_is_nothing_to_consolidate(db: Path) -> None:
    assert cli("consolidate").stdout.startswith("Nothing to consolidate")
    assert not db.exists()


# --- restore refusals ----------------------------------------------------------------------------


def _newer(path: Path, source: Path) -> None:
    path.write_bytes(source.read_bytes())
    with closing(sqlite3.connect(path)) as connection:
        connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
        connection.commit()


def _other_schema(path: Path, source: Path) -> None:
    with closing(sqlite3.connect(path)) as connection:
        connection.execute("CREATE TABLE notes (body TEXT)")
        connection.commit()


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda path, source: path.write_text("just text, not SQLite" * 100), "is not a cortex checkpoint"),
        (lambda path, source: path.write_bytes(b""), "is not a cortex checkpoint"),
        (_other_schema, "is not a cortex checkpoint (no cortex schema)"),
        (_newer, f"has schema version {SCHEMA_VERSION + 1}, newer than this cortex-hooks knows"),
        (lambda path, source: path.mkdir(), "is not a file"),
    ],
)
def test_restore_refuses_what_is_not_a_cortex_checkpoint(
    near: dict[str, int], db: Path, tmp_path: Path, make: Any, message: str
) -> None:
    cli_json("consolidate")
    live = db.read_bytes()
    bad = tmp_path / "bad.db"
    make(bad, db)
    result = cli_process("consolidate", "--restore", str(bad))
    assert result.code == 2
    assert message in result.stderr
    assert "nothing restored" in result.stderr
    assert "Traceback" not in result.stderr
    assert db.read_bytes() == live
    assert len(os.listdir(db.parent / "checkpoints")) == 1  # no checkpoint taken either


def test_restore_refuses_the_live_database_itself(near: dict[str, int], db: Path) -> None:
    result = cli("consolidate", "--restore", str(db))
    assert (result.code, "the live database itself" in result.stderr) == (2, True)


def test_restore_dry_run_checks_and_writes_nothing(near: dict[str, int], db: Path) -> None:
    made = cli_json("consolidate", "--json")["checkpoint"]
    result = cli_json("consolidate", "--restore", made, "--dry-run", "--json")
    assert (result["dry_run"], result["checkpoint"], result["schema_version"]) == (True, None, SCHEMA_VERSION)
    assert [m["status"] for m in cli_json("memories", "list", "--all")].count("superseded") == 2


def test_json_is_one_document(near: dict[str, int]) -> None:
    output = cli("consolidate", "--json").stdout
    assert set(json.loads(output)) == {
        "dry_run", "scope", "ran", "trigger", "flagged", "merges", "superseded", "checkpoint",
        "removed_checkpoints", "undo",
    }  # fmt: skip


def test_a_checkpoint_that_cannot_be_written_changes_nothing(near: dict[str, int], db: Path) -> None:
    (db.parent / "checkpoints").write_text("a file where the folder would be")
    before = cli_json("memories", "list", "--all")
    result = cli_process("consolidate")
    assert result.code == 1
    assert result.stderr.startswith(
        f"cortex-hooks: cannot write a checkpoint in {db.parent / 'checkpoints'}: "
    )
    assert result.stderr.rstrip().endswith("nothing was changed")
    assert [m["status"] for m in cli_json("memories", "list", "--all")] == [m["status"] for m in before]
    assert len(cli_json("consolidate", "--dry-run", "--json")["flagged"]) == 2


def test_a_copy_of_a_database_restores_and_is_read_without_files_beside_it(
    near: dict[str, int], db: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "copy.db"
    copy.write_bytes(db.read_bytes())  # a WAL-mode database, as a user would copy it
    assert copy.read_bytes()[18:20] == b"\x02\x02"
    cli_json("consolidate")
    cli_json("consolidate", "--restore", str(copy))
    assert sorted(path.name for path in tmp_path.iterdir() if path.name.startswith("copy")) == ["copy.db"]
    assert [m["status"] for m in cli_json("memories", "list", "--all")] == ["active"] * 4
