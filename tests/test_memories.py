"""Memories end to end (docs/guide/memories.md-9.3): remember, memories, forget, index-code, link, recall —
and the full-text index in step with its rows under every write path."""

from __future__ import annotations

import json
import os
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from support import cli, cli_json


def remember(*args: str) -> dict[str, Any]:
    memory: dict[str, Any] = cli_json("remember", *args)
    return memory


def recalled(query: str, *args: str) -> list[tuple[str, str, int]]:
    return [(r["scope"], r["kind"], r["id"]) for r in cli_json("recall", query, *args)]


def test_a_memory_as_json_has_every_field_of_the_model() -> None:
    memory = remember(
        "Use pnpm, not npm\nsecond line", "--type", "gotcha", "--tag", "tooling", "--priority", "7"
    )
    assert set(memory) >= {
        "id", "scope", "type", "content", "summary", "priority", "confidence", "pinned", "tags", "source",
        "source_session", "status", "access_count", "last_accessed", "created_at", "updated_at", "centrality",
    }  # fmt: skip
    assert (memory["scope"], memory["type"], memory["summary"]) == ("project", "gotcha", "Use pnpm, not npm")
    assert (memory["priority"], memory["confidence"], memory["tags"]) == (7, 0.7, ["tooling"])
    assert (memory["source"], memory["status"], memory["pinned"]) == ("explicit", "active", False)
    assert remember("plain")["type"] == "context"  # the default type


def test_the_same_text_twice_is_two_memories_linked_and_flagged() -> None:
    first, second = remember("the api listens on port 8080"), remember("the api listens on port 8080")
    assert first["id"] != second["id"]
    edges = cli_json("memories", "show", str(second["id"]))["edges"]
    assert edges == [{"type": "relates_to", "from": second["id"], "to": first["id"], "strength": 1.0}]
    assert "flagged for consolidation" in cli("remember", "the api listens on port 8080").stdout


def test_a_changed_text_is_found_by_its_new_words_and_not_its_old_ones() -> None:
    memory = remember("the cache lives in redis")
    assert recalled("redis") == [("project", "memory", memory["id"])]
    updated = cli_json("memories", "update", str(memory["id"]), "--content", "the cache lives in memcached")
    assert updated["summary"] == "the cache lives in memcached"  # derived again
    assert recalled("redis") == []
    assert recalled("memcached") == [("project", "memory", memory["id"])]


def test_archived_rows_are_not_recalled_and_restored_ones_are() -> None:
    memory = remember("deploy with blue green switches")
    cli_json("forget", str(memory["id"]))
    assert recalled("green") == []
    assert cli_json("memories", "list", "--archived")[0]["status"] == "archived"
    cli_json("memories", "restore", str(memory["id"]))
    assert recalled("green") == [("project", "memory", memory["id"])]


def test_recall_finds_every_kind_and_counts_accesses() -> None:
    cli_json("add", "--anti-pattern", "grep recursive slow", "--correct", "use ripgrep", "--regex", "grep -r")
    cli_json("decisions", "add", "--title", "ripgrep everywhere", "--reasoning", "it is fast")
    cli_json("errors", "add", "--message", "ripgrep missing on CI", "--fix", "apt install ripgrep")
    cli_json("todos", "add", "--text", "document ripgrep usage", "--priority", "high")
    memory = remember("ripgrep respects .gitignore")
    kinds = {kind for _, kind, _ in recalled("ripgrep")}
    assert kinds == {"memory", "learning", "decision", "error", "todo"}
    assert cli_json("memories", "list")[0]["access_count"] == 1
    assert cli_json("list")[0]["access_count"] == 1
    assert cli_json("decisions", "list")[0]["access_count"] == 1
    assert recalled("ripgrep", "--kind", "decision") == [("project", "decision", 1)]
    assert recalled("ripgrep", "--type", "context") == [("project", "memory", memory["id"])]


@pytest.mark.parametrize(
    "query",
    [
        '"unbalanced',
        "AND OR NOT",
        "NEAR(a b)",
        "a* -b c:d",
        "col:value",
        "🚀 pnpm",
        "x" * 10_000,
        "a' OR 1=1 --",
    ],
)
def test_hostile_queries_are_words_never_syntax(query: str) -> None:
    remember("pnpm is the package manager")
    result = cli("recall", query, "--json")
    assert result.code == 0, result.stderr
    assert isinstance(result.json(), list)


@pytest.mark.parametrize("query", ["", "   ", "!!! ??? ..."])  # emoji are searched (test_rough_edges)
def test_an_empty_or_punctuation_query_is_refused(query: str) -> None:
    result = cli("recall", query)
    assert result.code == 2
    assert result.stderr.startswith("cortex-hooks: nothing to recall")


def test_invalid_utf8_on_the_command_line_is_no_traceback() -> None:
    remember("pnpm is the package manager")
    result = cli("recall", b"pnpm \xff\xfe".decode("utf-8", "surrogateescape"))
    assert result.code == 0, result.stderr
    assert "Traceback" not in result.stderr


def test_nothing_found_is_an_empty_list() -> None:
    remember("something")
    assert cli_json("recall", "unrelated") == []


def test_forget_match_archives_the_single_best_or_lists_near_ties() -> None:
    alone = remember("the staging database is postgres 16")
    result = cli("forget", "--match", "postgres staging")
    assert result.code == 0, result.stderr
    assert f"Forgot memory #{alone['id']}" in result.stdout
    assert "memories restore" in result.stdout  # how to undo
    twins = [remember("flaky test in the billing suite"), remember("flaky test in the billing suite")]
    listed = cli("forget", "--match", "flaky billing")
    assert "nothing archived" in listed.stdout
    assert len(cli_json("memories", "list")) == 2
    assert cli("forget", "--match", "flaky billing", "--yes").code == 0
    assert {m["id"] for m in cli_json("memories", "list")} < {t["id"] for t in twins}
    assert cli("forget", "--match", "nothing like this").code == 2


def test_index_code_links_the_description_to_the_code(tmp_path: Path) -> None:
    source = tmp_path / "cwd" / "big.py"  # a file of the project (the working directory)
    source.write_text("x = 1\n" * 20_000)  # 120 KB: cut at 64 KiB
    described = cli_json("index-code", str(source), "--prose", "sets x many times")
    assert described["type"] == "code_description"
    code = cli_json("memories", "list", "--type", "code")[0]
    assert code["content"].endswith("[cut: the file goes on past 64 KiB]")
    assert len(code["content"].encode()) < 64 * 1024 + 100
    (result,) = cli_json("recall", "sets many times")
    assert result["linked"] == [{"id": code["id"], "type": "code", "path": described["path"]}]


def test_link_and_centrality() -> None:
    a, b, c = (remember(text)["id"] for text in ("alpha one", "beta two", "gamma three"))
    cli_json("link", str(a), str(c), "--type", "refines")
    cli_json("link", str(b), str(c), "--type", "exemplifies", "--strength", "0.5")
    by_id = {m["id"]: m for m in cli_json("memories", "list")}
    assert (by_id[c]["centrality"], by_id[a]["centrality"]) == (1.0, 0.0)
    assert cli("link", str(a), "99", "--type", "refines").code == 2
    assert cli("link", str(a), str(b), "--type", "supersedes").code == 2
    assert cli("link", str(a), str(b), "--type", "refines", "--strength", "2").code == 2


def test_export_and_import_carry_memories_and_edges(tmp_path: Path) -> None:
    a, b = remember("first memory here")["id"], remember("second memory here")["id"]
    cli_json("link", str(a), str(b), "--type", "derived_from")
    exported = json.loads(cli("export").stdout)
    assert exported["version"] == 2
    assert [m["id"] for m in exported["memories"]] == [a, b]
    target = tmp_path / "other.db"
    file = tmp_path / "export.json"
    file.write_text(json.dumps(exported))
    assert cli("import", str(file), "--db", str(target)).code == 0
    imported = cli_json("memories", "list", "--db", str(target))
    assert [m["content"] for m in imported] == ["first memory here", "second memory here"]
    assert (
        cli_json("memories", "show", str(imported[0]["id"]), "--db", str(target))["edges"][0]["type"]
        == "derived_from"
    )
    assert (
        cli_json("recall", "second", "--db", str(target), "--project-only")[0]["content"]
        == "second memory here"
    )


def test_a_version_1_file_still_imports(tmp_path: Path) -> None:
    """A file of Part I's format (no memories, no edges) imports its records whole, and the
    learning given without a confidence starts as a new one does."""
    file = tmp_path / "v1.json"
    file.write_text(
        json.dumps(
            {
                "version": 1,
                "learnings": [{"anti_pattern": "a", "correct_pattern": "b", "regex": "git push -f"}],
                "decisions": [{"title": "SQLite", "reasoning": "one file"}],
            }
        )
    )
    imported = cli("import", str(file))
    assert (imported.code, imported.stdout) == (
        0,
        "Imported 1 learning, 1 decision, 0 errors, 0 todos, 0 memories.\n",
    )
    (learning,) = cli_json("list")
    assert (learning["anti_pattern"], learning["correct_pattern"], learning["regex"]) == (
        "a",
        "b",
        "git push -f",
    )
    assert (learning["confidence"], learning["auto_block"], learning["archived_at"]) == (0.7, False, None)
    assert [decision["title"] for decision in cli_json("decisions", "list")] == ["SQLite"]
    assert cli_json("memories", "list") == []


def test_move_between_scopes_keeps_the_row_and_its_index(db: Path) -> None:
    memory = remember("the global truth about tabs")
    cli_json("add", "--no-regex", "--anti-pattern", "tabs in yaml", "--correct", "spaces")
    moved = cli_json("move", str(memory["id"]), "--to", "global", "--memory")
    assert cli_json("memories", "list") == []
    (shown,) = cli_json("memories", "list", "--global")
    assert (shown["content"], shown["id"]) == ("the global truth about tabs", moved["new_id"])
    assert recalled("truth") == [("global", "memory", moved["new_id"])]
    cli_json("move", "1", "--to", "global")
    assert recalled("yaml") == [("global", "learning", 1)]
    assert cli("move", "1", "--to", "global").code == 2  # gone from the project


def test_the_index_holds_exactly_the_rows_after_every_write_path(db: Path) -> None:
    remember("one two three")
    cli_json("add", "--no-regex", "--anti-pattern", "four", "--correct", "five", "--context", "six")
    cli_json("update", "1", "--anti-pattern", "seven")
    cli_json("decisions", "add", "--title", "eight", "--reasoning", "nine")
    with closing(sqlite3.connect(db)) as connection:
        connection.execute("INSERT INTO search (search) VALUES ('integrity-check')")
        indexed = {row[0] for row in connection.execute("SELECT rowid FROM search")}
    assert indexed == {1 * 8 + 1, 1 * 8 + 2, 1 * 8 + 3}
    assert recalled("four") == []
    assert recalled("seven") == [("project", "learning", 1)]


def test_blank_content_and_a_device_are_refused() -> None:
    blank = cli("remember", "   ")
    assert (blank.code, blank.stderr) == (
        2,
        "cortex-hooks: invalid memory: content: must hold more than white space\n",
    )
    os.mkfifo("pipe")  # in the project: a file it may read, were it a regular one
    device = cli("index-code", "pipe", "--prose", "zeros")
    assert device.code == 2
    assert "not a regular file" in device.stderr
    assert cli_json("memories", "list", "--all") == []


# bm25 reads every row a query's words are in: recall bounds that work (store.recall.BUDGET) and
# reads 5 hits per result asked for (at least store.recall.CANDIDATES). Made small here.


def test_a_rare_word_finds_its_row_however_many_rows_hold_the_others(monkeypatch: pytest.MonkeyPatch) -> None:
    from cortex_hooks.store import recall as recall_store

    monkeypatch.setattr(recall_store, "BUDGET", 5)
    zebra = remember("the oldest deploy note: the zebra cluster")["id"]
    for number in range(8):
        remember(f"deploy note number {number}")
    found = recalled("deploy zebra")
    assert found[0] == ("project", "memory", zebra)


def test_past_the_budget_the_newest_rows_of_a_common_word_are_scored(monkeypatch: pytest.MonkeyPatch) -> None:
    from cortex_hooks.store import recall as recall_store

    monkeypatch.setattr(recall_store, "BUDGET", 5)
    ids = [remember(f"deploy note number {number}")["id"] for number in range(8)]
    assert sorted(id_ for _, _, id_ in recalled("deploy")) == ids[-5:]


def test_a_kind_asked_for_is_found_behind_better_hits_of_other_kinds(monkeypatch: pytest.MonkeyPatch) -> None:
    from cortex_hooks.store import recall as recall_store

    monkeypatch.setattr(recall_store, "CANDIDATES", 3)
    for number in range(6):
        remember(f"deploy deploy deploy {number}")
    assert cli("todos", "add", "--text", "deploy the api to staging once the tests pass").code == 0
    assert recalled("deploy", "--kind", "todo", "--limit", "1") == [("project", "todo", 1)]


def test_a_limit_past_the_candidates_returns_that_many(monkeypatch: pytest.MonkeyPatch) -> None:
    from cortex_hooks.store import recall as recall_store

    monkeypatch.setattr(recall_store, "CANDIDATES", 3)
    for number in range(8):
        remember(f"deploy note number {number}")
    assert len(recalled("deploy", "--limit", "8")) == 8
    assert len(recalled("deploy", "--limit", "2")) == 2
