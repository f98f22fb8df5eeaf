"""The memory graph: edge types, the automatic `relates_to` edge and its
direction, centrality as `--json` shows it, edges in `memories show --json`, and edges going with
a deleted memory whatever deletes it."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from support import cli, cli_json

from cortex_hooks.memory import vocabulary


def remember(text: str) -> int:
    memory_id: int = cli_json("remember", text)["id"]
    return memory_id


def centralities(*options: str) -> dict[int, float]:
    return {m["id"]: m["centrality"] for m in cli_json("memories", "list", *options)}


def test_the_edge_types_are_the_specs() -> None:
    assert vocabulary.EDGE_TYPES == (
        "relates_to", "derived_from", "contradicts", "exemplifies", "refines", "supersedes", "source_of",
    )  # fmt: skip
    assert set(vocabulary.LINKABLE) == set(vocabulary.EDGE_TYPES) - {"supersedes"}  # consolidate's own


@pytest.mark.parametrize("edge_type", vocabulary.LINKABLE)
def test_link_stores_every_type_with_its_strength(edge_type: str) -> None:
    a, b = remember("alpha one"), remember("beta two")
    linked = cli_json("link", str(a), str(b), "--type", edge_type, "--strength", "0.4")
    assert linked == {"type": edge_type, "from": a, "to": b, "strength": 0.4}
    assert cli_json("memories", "show", str(b))["edges"] == [linked]


def test_an_unknown_edge_type_is_refused_by_the_cli_and_the_schema(db: Path) -> None:
    a, b = remember("alpha one"), remember("beta two")
    assert cli("link", str(a), str(b), "--type", "likes").code == 2
    with closing(sqlite3.connect(db)) as connection, pytest.raises(sqlite3.IntegrityError):
        connection.execute("INSERT INTO edge VALUES (1, 2, 'likes', 1.0, 'now')")


def test_the_automatic_edge_points_from_the_new_memory_to_the_older_one() -> None:
    old = remember("the build runs on python three twelve")
    new = remember("the build runs on python three twelve here")  # 7/8 = 0.88
    edge = {"type": "relates_to", "from": new, "to": old, "strength": 0.88}
    assert cli_json("memories", "show", str(old))["edges"] == [edge]
    assert cli_json("memories", "show", str(new))["edges"] == [edge]
    assert centralities() == {old: 1.0, new: 0.0}
    remember("nothing in common with them")
    assert len(cli_json("memories", "show", "3")["edges"]) == 0  # below 0.60: no edge


def test_centrality_is_in_degree_over_the_largest() -> None:
    a, b, c, d = (remember(text) for text in ("alpha", "beta", "gamma", "delta"))
    assert centralities() == {a: 0.0, b: 0.0, c: 0.0, d: 0.0}  # no edges: 0
    for source, target in ((a, c), (b, c), (d, c), (a, b)):
        cli_json("link", str(source), str(target), "--type", "refines")
    assert centralities() == {a: 0.0, b: 0.33, c: 1.0, d: 0.0}
    assert cli_json("memories", "show", str(b))["centrality"] == 0.33
    shown = cli_json("memories", "show", str(c))
    assert sorted((e["from"], e["to"]) for e in shown["edges"]) == [(a, c), (b, c), (d, c)]


def test_a_deleted_memory_takes_its_edges_and_its_in_degree_with_it(db: Path) -> None:
    a, b, c = remember("alpha"), remember("beta"), remember("gamma")
    cli_json("link", str(a), str(b), "--type", "refines")
    cli_json("link", str(b), str(c), "--type", "refines")
    cli_json("link", str(a), str(c), "--type", "refines")
    with closing(sqlite3.connect(db)) as connection:  # as any deletion does (a prune, a move)
        connection.execute("DELETE FROM memory WHERE id = ?", (a,))
        connection.commit()
        assert connection.execute(
            "SELECT count(*) FROM edge WHERE ? IN (from_id, to_id)", (a,)
        ).fetchone() == (0,)
    assert centralities() == {b: 0.0, c: 1.0}
    assert [(e["from"], e["to"]) for e in cli_json("memories", "show", str(c))["edges"]] == [(b, c)]
    cli_json("move", str(b), "--to", "global", "--memory")
    assert cli_json("memories", "show", str(c))["edges"] == []
    assert centralities() == {c: 0.0}
