"""reflect (docs/guide/graph.md): decay of unused memories, and similar pairs found through prefix
filtering (every pair at or above the threshold, none compared needlessly)."""

from __future__ import annotations

import hashlib
import itertools
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from support import cli, cli_json

from cortex_hooks.memory import pairs, similarity

DECAY_KEYS = {"affected", "dry_run", "entities"}
ENTITY_KEYS = {"id", "name", "old_confidence", "new_confidence"}
PAIR_KEYS = {
    "kind",
    "entity1_id",
    "entity1_name",
    "entity2_id",
    "entity2_name",
    "similarity",
    "scope1",
    "scope2",
}


def now(day: str) -> dict[str, str]:
    return {"CORTEX_NOW": f"{day}T09:00:00Z"}


def remember(text: str, *extra: str, day: str = "2026-01-01") -> int:
    memory_id: int = cli_json("remember", text, *extra, env=now(day))["id"]
    return memory_id


# --- the pure pair finder --------------------------------------------------------------------------

GREEK = ("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa")
texts = st.lists(st.lists(st.sampled_from(GREEK), max_size=7), max_size=25)


@given(texts, st.sampled_from([0.2, 0.34, 0.5, 0.6, 0.85, 1.0]))
def test_prefix_filtering_finds_exactly_the_pairs_all_pairs_would(
    words: list[list[str]], threshold: float
) -> None:
    items = [(number, frozenset(text)) for number, text in enumerate(words)]
    expected = {
        (a[0], b[0]): similarity.jaccard(a[1], b[1])
        for a, b in itertools.combinations(items, 2)
        if similarity.jaccard(a[1], b[1]) >= threshold - 1e-9
    }
    found = pairs.similar(items, threshold)
    assert {(first, second): value for first, second, value in found} == expected
    assert [value for _, _, value in found] == sorted((value for _, _, value in found), reverse=True)
    assert all(first < second for first, second, _ in found)


def test_similarity_is_symmetric_and_one_for_identical_texts() -> None:
    first, second = "Deploys go through staging", "staging: deploys go through"
    assert similarity.similarity(first, second) == 1.0
    assert similarity.similarity(first, "deploys go") == similarity.similarity("deploys go", first)


# --- reflect similar -------------------------------------------------------------------------------


def test_similar_pairs_most_similar_first_each_once_smaller_id_first() -> None:
    a = remember("The billing retries go through the orders queue with three attempts")
    b = remember("The billing retries go through the orders queue with three attempts!")
    c = remember("The billing retries go through the orders queue with five attempts")
    remember("Something else entirely about avatars and thumbnails")
    result = cli_json("reflect", "similar", "--threshold", "0.8")
    assert set(result) == {"pairs", "count", "dry_run"}
    assert result["dry_run"] is True
    assert result["count"] == len(result["pairs"]) == 3
    assert all(set(pair) == PAIR_KEYS for pair in result["pairs"])
    ids = [(pair["entity1_id"], pair["entity2_id"]) for pair in result["pairs"]]
    assert ids[0] == (a, b)
    assert set(ids[1:]) == {(a, c), (b, c)}
    top = result["pairs"][0]
    assert top["similarity"] == 1.0
    assert (top["kind"], top["scope1"], top["scope2"]) == ("memory", "project", "project")
    assert top["entity1_name"].startswith("The billing retries")
    assert result["pairs"][1]["similarity"] == round(9 / 11, 4)
    assert cli_json("reflect", "similar", "--threshold", "0.8", "--limit", "1")["count"] == 1
    assert cli_json("reflect", "similar")["count"] == 1  # default threshold 0.85


def test_similar_writes_nothing(tmp_path: Path) -> None:
    remember("The billing retries go through the orders queue")
    remember("The billing retries go through the orders queue.")
    db = tmp_path / "cortex.db"
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    assert cli_json("reflect", "similar")["count"] == 1
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before


def test_learnings_are_compared_with_learnings_on_all_three_texts() -> None:
    for _ in range(2):
        cli("add", "--anti-pattern", "force push", "--correct", "use a lease", "--regex", r"git push -f")
    cli("add", "--anti-pattern", "force push", "--correct", "something else", "--regex", "other")
    remember("force push use a lease git push f")  # a memory like them: never paired with one
    result = cli_json("reflect", "similar")
    assert [(p["kind"], p["entity1_id"], p["entity2_id"]) for p in result["pairs"]] == [("learning", 1, 2)]
    assert result["pairs"][0]["entity1_name"] == "force push"


def test_archived_and_superseded_items_are_left_out(tmp_path: Path) -> None:
    first = remember("The billing retries go through the orders queue")
    remember("The billing retries go through the orders queue.")
    cli("memories", "archive", str(first))
    assert cli_json("reflect", "similar")["count"] == 0


def test_global_compares_across_both_scopes_project_item_first() -> None:
    project = remember("Staging deploys need the VPN on")
    glob = cli_json("remember", "Staging deploys need the VPN on", "--global")["id"]
    cli_json("remember", "Staging deploys need the VPN on!", "--global")
    assert cli_json("reflect", "similar")["count"] == 0  # the project alone: one memory
    result = cli_json("reflect", "similar", "--global")
    scopes = [(p["scope1"], p["scope2"]) for p in result["pairs"]]
    assert scopes.count(("project", "global")) == 2
    assert ("global", "global") in scopes
    assert ("global", "project") not in scopes
    first = result["pairs"][0]
    assert (first["entity1_id"], first["scope1"]) == (project, "project")
    assert first["entity2_id"] in {glob, glob + 1}


def test_similar_refuses_a_threshold_or_limit_out_of_range() -> None:
    for option in (("--threshold", "0"), ("--threshold", "1.5"), ("--limit", "0")):
        result = cli("reflect", "similar", *option)
        assert result.code == 2
        assert len(result.stderr.strip().splitlines()) == 1


def test_human_output_of_similar() -> None:
    remember("The billing retries go through the orders queue")
    remember("The billing retries go through the orders queue.")
    shown = cli("reflect", "similar").stdout
    assert shown.startswith("1.00  memory #1 (project) ~ #2 (project)\n")
    assert cli("reflect", "similar", "--db", "nothing.db").stdout == "No pairs at or above 0.85.\n"


# --- reflect decay ---------------------------------------------------------------------------------


def stored(db: Path) -> list[tuple[Any, ...]]:
    with closing(sqlite3.connect(db)) as connection:
        return connection.execute(
            "SELECT id, confidence, base_confidence, confirmed_at, updated_at FROM memory ORDER BY id"
        ).fetchall()


def test_decay_scales_unused_memories_and_a_dry_run_names_the_same(tmp_path: Path) -> None:
    db = tmp_path / "cortex.db"
    old = remember("An old note nobody reads", "--type", "architecture")
    fresh = remember("A note read lately", "--type", "architecture")
    pinned = remember("A pinned old note", "--type", "architecture", "--pin")
    cli_json("memories", "show", str(fresh), env=now("2026-03-01"))
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    dry = cli_json("reflect", "decay", "--dry-run", env=now("2026-03-10"))
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before
    assert set(dry) == DECAY_KEYS
    assert dry["dry_run"] is True
    assert dry["entities"] == [
        {"id": old, "name": "An old note nobody reads", "old_confidence": 0.7, "new_confidence": 0.63}
    ]
    assert all(set(entity) == ENTITY_KEYS for entity in dry["entities"])
    real = cli_json("reflect", "decay", env=now("2026-03-10"))
    assert real["entities"] == dry["entities"]
    assert real["affected"] == 1
    assert real["dry_run"] is False
    rows = {row[0]: row for row in stored(db)}
    assert rows[old][1:4] == (63, 63, "2026-01-01T09:00:00Z")  # not a confirmation
    assert rows[pinned][1] == 70
    assert cli_json("reflect", "decay", "--days", "5", env=now("2026-03-10"))["affected"] == 2


def test_decay_stops_at_the_floor(tmp_path: Path) -> None:
    remember("An old note nobody reads", "--type", "architecture")
    values = []
    for _ in range(25):
        result = cli_json("reflect", "decay", env=now("2026-06-01"))
        values += [entity["new_confidence"] for entity in result["entities"]]
    assert values[-1] == 0.1
    assert values == sorted(values, reverse=True)
    assert cli_json("reflect", "decay", env=now("2026-06-01"))["affected"] == 0  # at the floor: left alone


def test_decay_human_output_and_bad_days() -> None:
    remember("An old note nobody reads", "--type", "architecture")
    result = cli("reflect", "decay", "--dry-run", env=now("2026-06-01"))
    assert result.stdout == (
        "#1 0.70 -> 0.63  An old note nobody reads\n"
        "Would decay 1 memory not accessed for 30 days (project).\n"
    )
    assert cli("reflect", "decay", "--days", "-1").code == 2
