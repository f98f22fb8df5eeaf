"""Recall's ranking: the words a query is searched by, the score of a found row,
the keyword weight of semantic recall, the words a row holds, and `recall --peek` — the pure core
table-driven, the rest through the command."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support import cli, cli_json

from cortex_hooks.embeddings.hybrid import LEAST, MOST, keyword_weight
from cortex_hooks.embeddings.vector_math import MINILM, VOYAGE, thresholds
from cortex_hooks.memory.query import (
    KEYWORD_CAP,
    QUESTION,
    RANK_TIEBREAK,
    query_words,
    ranked,
    relevance,
    shown,
)
from cortex_hooks.store import recall as recall_store
from cortex_hooks.store.connection import open_database


def remember(text: str) -> int:
    memory_id: int = cli_json("remember", text)["id"]
    return memory_id


def recalled(query: str, *args: str) -> list[int]:
    return [result["id"] for result in cli_json("recall", query, *args)]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("which port", ["which", "port"]),
        ("orders.v2", ["orders", "v2", "orders v2"]),
        ("is eu-west-1 up?", ["is", "eu", "west", "1", "up", "eu west 1"]),
        ("Use UTC, use utc", ["use", "utc"]),  # distinct words, case-folded; no phrase of one word
        ("test_checkout_flow fails", ["test", "checkout", "flow", "fails", "test checkout flow"]),
        ("Caroline's self-portrait", ["caroline", "s", "self", "portrait"]),  # no identifier
        ("HBR-1423 and CS:GO", ["hbr", "1423", "and", "cs", "go", "hbr 1423", "cs go"]),
        ("!!!", []),
    ],
)
def test_the_words_and_phrases_of_a_query(query: str, expected: list[str]) -> None:
    assert query_words(query) == expected


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        ({"relevance": 0.8}, 0.8),  # keyword recall: the bm25 share of the query the row holds
        ({"relevance": 0.3, "coverage": 0.8, "cosine": 0.5, "keyword_weight": 1.0}, 1.3),  # words held
        ({"relevance": 3.0, "coverage": 3.0, "cosine": 0.5, "keyword_weight": 1.0}, 0.5 + KEYWORD_CAP),
        ({"relevance": 0.8, "coverage": 0.8, "cosine": 0.5, "keyword_weight": 0.25}, 0.7),
        ({"relevance": 0.0, "cosine": 0.3, "keyword_weight": 1.0}, 0.3),  # found by meaning only
        ({"relevance": 0.8, "coverage": 0.8, "cosine": 0.5, "keyword_weight": 0.25, "exact": True}, 1.3),
        ({"relevance": 0.8, "coverage": 0.8, "cosine": 0.5, "keyword_weight": 1.2, "exact": True}, 1.46),
        (
            {"relevance": 0.5, "coverage": 0.5, "cosine": 0.6, "keyword_weight": 1.0, "content": "X: why?"},
            0.95,
        ),
        ({"relevance": 0.5, "coverage": 0.5, "content": "X: why?"}, 0.5),  # keyword recall: no question rule
    ],
)
def test_the_relevance_of_a_found_row(row: dict[str, object], expected: float) -> None:
    assert relevance(row) == pytest.approx(expected)


def test_a_question_loses_what_the_rule_says() -> None:
    told = {
        "relevance": 0.5,
        "coverage": 0.5,
        "cosine": 0.6,
        "keyword_weight": 1.0,
        "content": "We use pnpm.",
    }
    asked = {**told, "content": "Do we use pnpm?  \n"}
    assert relevance(told) - relevance(asked) == pytest.approx(QUESTION)


@pytest.mark.parametrize(
    ("mean", "expected"),
    [
        (-0.1, LEAST),
        (0.0, LEAST),
        (0.12, LEAST),  # MiniLM's `distinct`: notes on many subjects
        (0.18, (LEAST + MOST) / 2),
        (0.24, MOST),  # MiniLM's `alike`: a conversation's turns
        (0.6, MOST),
    ],
)
def test_keywords_count_more_as_the_database_is_alike_to_the_query(mean: float, expected: float) -> None:
    assert keyword_weight(mean, thresholds(MINILM)) == pytest.approx(expected)


@given(st.floats(min_value=-1, max_value=1), st.sampled_from([MINILM, VOYAGE, "another-model"]))
def test_the_keyword_weight_lies_between_its_bounds_and_never_falls_as_the_mean_grows(
    mean: float, model: str
) -> None:
    weight = keyword_weight(mean, thresholds(model))
    assert LEAST <= weight <= MOST
    assert keyword_weight(mean + 0.01, thresholds(model)) >= weight


def _held(path: Path, texts: list[str], query: str) -> tuple[list[float], list[float], bool]:
    """The coverage and the bm25 share of each text for a query (0 when not found), and whether
    keyword recall's rows carry a coverage."""
    connection = open_database(str(path), create=True)
    with closing(connection):
        for text in texts:
            connection.execute(
                """INSERT INTO memory (type, content, summary, priority, confidence, pinned, tags, source,
                       access_count, created_at, updated_at, confirmed_at)
                   VALUES ('context', :text, :text, 5, 70, 0, '[]', 'explicit', 0, :at, :at, :at)""",
                {"text": text, "at": "2026-01-01T00:00:00Z"},
            )
        asked = recall_store.query(connection, query_words(query), held=True)
        found = {int(str(row["id"])): row for row in recall_store.found(connection, asked, {"memory"})}
        plain = recall_store.found(connection, recall_store.query(connection, query_words(query)), {"memory"})
    coverage = [float(str(found[n]["coverage"])) if n in found else 0.0 for n in range(1, len(texts) + 1)]
    share = [float(str(found[n]["relevance"])) if n in found else 0.0 for n in range(1, len(texts) + 1)]
    return coverage, share, any("coverage" in row for row in plain)


def test_the_words_a_row_holds_count_whatever_its_length(tmp_path: Path) -> None:
    texts = [
        "Nate: the gaming party was a great success, we played chess and stayed up until dawn",
        "Joanna: a party!",
        "Nate: I bought a new keyboard",
        *(f"filler note number {n}" for n in range(20)),  # IDF needs rows that hold neither word
    ]
    coverage, share, plain_has_coverage = _held(tmp_path / "one.db", texts, "party")
    assert coverage[:3] == pytest.approx([1.0, 1.0, 0.0])  # the whole query, however long the row
    assert share[1] > share[0]  # bm25 puts the short row first: its length normalisation
    assert not plain_has_coverage  # keyword recall reads no rows per word
    coverage, _, _ = _held(tmp_path / "two.db", texts, "gaming party")
    gaming, party = recall_store.idf(len(texts), 1), recall_store.idf(len(texts), 2)
    assert coverage[:3] == pytest.approx([1.0, party / (gaming + party), 0.0])


def test_an_identifier_held_counts_beyond_the_whole_query(tmp_path: Path) -> None:
    texts = [
        "Order events go to the orders.v2 topic",
        "v2 of the orders page",
        *(f"filler {n}" for n in range(20)),
    ]
    coverage, _, _ = _held(tmp_path / "id.db", texts, "orders.v2")
    assert coverage[0] > 1.0 >= coverage[1]  # the phrase's IDF is added, the query's weight is its words'


def _found(row_id: int, relevance_value: float, access_count: int, confidence: int = 70) -> Any:
    from cortex_hooks.memory.query import Found

    row = {
        "kind": "memory", "id": row_id, "type": "context", "summary": "s", "content": "c", "tags": "[]",
        "path": None, "relevance": relevance_value, "confidence": confidence, "priority": 5,
        "in_degree": 0, "access_count": access_count,
    }  # fmt: skip
    return Found("project", row, 0)


@given(
    st.floats(min_value=0, max_value=3),
    st.floats(min_value=RANK_TIEBREAK * 1.01, max_value=1),
    st.integers(min_value=0, max_value=10_000),
)
def test_the_rank_score_never_outweighs_a_clear_difference_in_relevance(
    base: float, lead: float, accesses: int
) -> None:
    # The better answer is never used and of low confidence; the other is used a lot and trusted.
    better, other = _found(1, base + lead, 0, confidence=0), _found(2, base, accesses, confidence=100)
    assert [result["id"] for result in ranked([other, better], 2)] == [1, 2]


@pytest.mark.parametrize(("score", "expected"), [(-0.2, 0.0), (0.0, 0.0), (1.0, 0.5), (3.0, 0.75)])
def test_a_score_is_shown_in_0_1(score: float, expected: float) -> None:
    assert shown(score) == pytest.approx(expected)


def test_the_rank_score_breaks_a_tie() -> None:
    used, unused = _found(1, 0.5, 9), _found(2, 0.5, 0)
    assert [result["id"] for result in ranked([unused, used], 2)] == [1, 2]


def test_every_word_of_a_long_query_is_searched() -> None:
    # Nine words, each in one row: a query once kept its 8 rarest words and lost the ninth.
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india"]
    ids = [remember(f"note about {word}") for word in words]
    assert ids[-1] in recalled(" ".join(words), "--limit", "20")


def test_words_are_found_by_their_stem() -> None:
    painting = remember("Melanie paints sunsets by the lake")
    deploys = remember("The deploy runs on every merge to main")
    assert recalled("painted sunset") == [painting]
    assert recalled("deploying") == [deploys]


def test_an_identifier_is_found_first_before_notes_sharing_its_parts() -> None:
    remember("orders are archived after v2 of the retention policy; orders older than that go")
    topic = remember("Order events go to the orders.v2 topic")
    remember("v2 of the orders page lists orders by date")
    assert recalled("orders.v2")[0] == topic


def test_peek_counts_no_access_and_writes_nothing(db: Path) -> None:
    memory = remember("the staging database is reset every sunday")
    with closing(sqlite3.connect(db)) as connection:
        before = connection.execute("SELECT * FROM memory").fetchall()
    assert recalled("staging", "--peek") == [memory]
    with closing(sqlite3.connect(db)) as connection:
        assert connection.execute("SELECT * FROM memory").fetchall() == before
    assert cli_json("memories", "list")[0]["access_count"] == 0
    assert recalled("staging") == [memory]
    assert cli_json("memories", "list")[0]["access_count"] == 1


def test_peek_still_lists_what_a_code_description_links_to(tmp_path: Path) -> None:
    source = tmp_path / "cwd" / "retry.py"  # a file of the project (the working directory)
    source.write_text("def retry(): ...\n")
    assert cli("index-code", str(source), "--prose", "retry wraps flaky network calls").code == 0
    (result,) = [r for r in cli_json("recall", "flaky network", "--peek") if r["type"] == "code_description"]
    assert [link["type"] for link in result["linked"]] == ["code"]
