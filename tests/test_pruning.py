"""Access counter and Ebbinghaus pruning through the installed commands, the clock moved by CORTEX_NOW.

docs/guide/confidence.md: a row is archived when (age > 90 days and never accessed) or (age > 365 days and
accessed
fewer than 3 times); age counts from created_at (errors: first_seen); auto-block and pinned
learnings and superseded decisions are never pruned; nothing is ever deleted.
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import support
from support import Result, cli, cli_json, payload, run

T0 = datetime(2026, 1, 1, 8, 0, tzinfo=UTC)
NOTHING = {"learnings": 0, "decisions": 0, "errors": 0}


def iso(days: float) -> str:
    return (T0 + timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%SZ")


def at(days: float) -> dict[str, str]:
    """The environment that puts the clock `days` after T0."""
    return {"CORTEX_NOW": iso(days)}


def add(anti: str, *options: str, days: float = 0) -> int:
    """A learning added `days` after T0."""
    return support.add(*options, anti=anti, correct=f"not {anti}", env=at(days))


def prune(days: float, *options: str) -> dict[str, int]:
    counts: dict[str, int] = cli_json("prune", *options, env=at(days))
    return counts


def export() -> dict[str, Any]:
    result = cli("export")
    assert result.code == 0, result.stderr
    data: dict[str, Any] = result.json()
    return data


def by_id(records: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    return {int(record["id"]): record for record in records}


def archived_ids(kind: str = "learnings") -> set[int]:
    command = ("list", "--archived") if kind == "learnings" else (kind, "list", "--archived")
    return {int(row["id"]) for row in cli_json(*command)}


def dump(path: Path) -> list[str]:
    with closing(sqlite3.connect(path)) as connection:
        return list(connection.iterdump())


def import_file(tmp_path: Path, document: object) -> None:
    source = tmp_path / "import.json"
    source.write_text(json.dumps(document))
    result = cli("import", str(source))
    assert result.code == 0, result.stderr


def old_memory(created: str) -> dict[str, Any]:
    """An export file of never-accessed rows of every pruned kind, all born at `created`."""
    return {
        "version": 1,
        "learnings": [
            {"anti_pattern": "chmod 777", "correct_pattern": "chmod 750", "tool": "Bash",
             "created_at": created, "updated_at": created},
            {"anti_pattern": "sudo pip", "correct_pattern": "a venv", "tool": "Bash",
             "created_at": created, "updated_at": created},
        ],
        "decisions": [{"title": "Tabs", "reasoning": "taste", "created_at": created}],
        "errors": [{"message": "EADDRINUSE :8000", "first_seen": created}],
        "todos": [{"text": "old todo", "created_at": created}],
    }  # fmt: skip


# --- the two rules, at their boundaries -----------------------------------------------------------


def test_learning_ages_and_access_counts_at_the_boundaries() -> None:
    never = add("never read")
    once = add("read once")
    thrice = add("read three times")
    updated = add("updated later, never read")
    blocker = add("auto-block, never read", "--auto-block", "--regex", "zz-never-matches-zz")
    pinned = add("pinned, never read", "--pin")
    cli_json("show", str(once), env=at(1))
    for day in (1, 2, 3):
        cli_json("show", str(thrice), env=at(day))
    assert cli_json("update", str(updated), "--context", "edited", env=at(80))["updated_at"] == iso(80)

    assert prune(89, "--dry-run") == NOTHING
    assert prune(90, "--dry-run") == NOTHING  # age > 90 days: exactly 90 is not yet
    assert prune(91, "--dry-run") == {**NOTHING, "learnings": 2}
    assert prune(91) == {**NOTHING, "learnings": 2}
    archived = by_id(cli_json("list", "--archived"))
    assert set(archived) == {never, updated}  # age counts from created_at, not updated_at
    assert archived[never]["archived_at"] == iso(91)

    assert prune(364) == NOTHING
    assert prune(366) == {**NOTHING, "learnings": 1}
    assert archived_ids() == {never, updated, once}
    active = by_id(cli_json("list"))
    assert set(active) == {thrice, blocker, pinned}
    assert active[thrice]["access_count"] == 3
    assert prune(3650) == NOTHING  # auto-block and pinned: never, however old


def test_decisions_and_errors_prune_by_their_own_age_and_exemptions() -> None:
    plain = cli_json("decisions", "add", "--title", "Plain", "--reasoning", "r", env=at(0))["id"]
    replaced = cli_json("decisions", "add", "--title", "Old way", "--reasoning", "r", env=at(0))["id"]
    successor = cli_json(
        "decisions", "add", "--title", "New way", "--reasoning", "r",
        "--supersedes", str(replaced), env=at(2),
    )["id"]  # fmt: skip
    recurring = cli_json("errors", "add", "--message", "ENOSPC", env=at(0))["id"]
    assert cli_json("errors", "add", "--message", "ENOSPC", env=at(85))["last_seen"] == iso(85)
    later = cli_json("errors", "add", "--message", "EPIPE", env=at(5))["id"]

    # At 91 days: the plain decision and the error first seen at T0 (seen again at 85 or not).
    assert prune(91) == {"learnings": 0, "decisions": 1, "errors": 1}
    assert archived_ids("decisions") == {plain}
    assert archived_ids("errors") == {recurring}
    # At 400 days: the successor too, and the later error; the superseded decision never.
    assert prune(400) == {"learnings": 0, "decisions": 1, "errors": 1}
    assert archived_ids("decisions") == {plain, successor}
    assert archived_ids("errors") == {recurring, later}
    assert [row["id"] for row in cli_json("decisions", "list")] == [replaced]


# --- dry run, archive, restore -------------------------------------------------------------------


def test_dry_run_changes_nothing_and_prune_only_archives(db: Path, tmp_path: Path) -> None:
    import_file(tmp_path, old_memory(iso(0)))
    before_export, before_rows = export(), dump(db)
    expected = {"learnings": 2, "decisions": 1, "errors": 1}
    assert prune(200, "--dry-run") == expected
    assert export() == before_export
    assert dump(db) == before_rows

    human = cli("prune", "--dry-run", env=at(200))
    assert human.code == 0
    assert human.stdout.startswith("Would archive")
    assert export() == before_export

    assert prune(200) == expected
    after = export()
    for kind in ("learnings", "decisions", "errors"):
        assert len(after[kind]) == len(before_export[kind])  # nothing deleted
        assert [row["archived_at"] for row in after[kind]] == [iso(200)] * len(after[kind]), kind
    assert after["todos"] == before_export["todos"]  # todos are not pruned
    strip = ("archived_at",)
    for kind in ("learnings", "decisions", "errors"):
        assert [{k: v for k, v in row.items() if k not in strip} for row in after[kind]] == [
            {k: v for k, v in row.items() if k not in strip} for row in before_export[kind]
        ]
    assert prune(200) == NOTHING  # archived rows are not counted again

    first = int(after["learnings"][0]["id"])
    restored = cli_json("restore", str(first), env=at(201))
    assert restored["archived_at"] is None
    assert restored["anti_pattern"] == "chmod 777"
    assert [row["id"] for row in cli_json("list")] == [first]


# --- SessionStart and the config file -------------------------------------------------------------


def session_start(days: float, **changes: Any) -> Result:
    result = run("cortex-session-start", stdin=payload("session_start.startup", **changes), env=at(days))
    assert "Traceback" not in result.stderr
    return result


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project whose database is .cortex/cortex.db, so .cortex/config.toml sits beside it."""
    directory = tmp_path / "proj" / ".cortex"
    directory.mkdir(parents=True)
    monkeypatch.setenv("CORTEX_DB", str(directory / "cortex.db"))
    return directory


def test_session_start_prunes(project: Path, tmp_path: Path) -> None:
    import_file(tmp_path, old_memory(iso(0)))
    assert session_start(90).code == 0
    assert export()["learnings"][0]["archived_at"] is None
    result = session_start(91)
    assert result.code == 0
    assert result.stderr == ""
    memory = export()
    for kind in ("learnings", "decisions", "errors"):
        assert {row["archived_at"] for row in memory[kind]} == {iso(91)}, kind


def test_config_switches_pruning_off_at_session_start(project: Path, tmp_path: Path) -> None:
    (project / "config.toml").write_text("[pruning]\nenabled = false\n")
    import_file(tmp_path, old_memory(iso(0)))
    result = session_start(1000)
    assert result.code == 0, result.stderr
    assert result.stderr == ""
    memory = export()
    assert all(row["archived_at"] is None for kind in ("learnings", "errors") for row in memory[kind])


@pytest.mark.parametrize(
    "text",
    [
        "[pruning]\nenable = false\n",  # a typo must not switch anything off
        "[pruning]\nenabled = maybe\n",  # not TOML at all
    ],
)
def test_invalid_config_is_reported_once_and_the_defaults_used(
    project: Path, tmp_path: Path, text: str
) -> None:
    (project / "config.toml").write_text(text)
    import_file(tmp_path, old_memory(iso(0)))
    result = session_start(91)
    assert result.code == 0, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("cortex-hooks")
    assert "config.toml" in lines[0]
    assert result.json()["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert {row["archived_at"] for row in export()["learnings"]} == {iso(91)}  # default pruning ran


# --- the access counter ---------------------------------------------------------------------------


def test_show_counts_an_access_and_lists_never_do() -> None:
    learning = add("a learning", days=0)
    decision = cli_json("decisions", "add", "--title", "D", "--reasoning", "r", env=at(0))["id"]
    error = cli_json("errors", "add", "--message", "E", env=at(0))["id"]
    for command in (("list",), ("list", "--all"), ("decisions", "list"), ("errors", "list")):
        cli_json(*command, env=at(1))
    memory = export()
    for kind in ("learnings", "decisions", "errors"):
        assert (memory[kind][0]["access_count"], memory[kind][0]["last_accessed"]) == (0, None)

    assert cli_json("show", str(learning), env=at(2))["access_count"] == 1
    cli_json("decisions", "show", str(decision), env=at(2))
    cli_json("errors", "show", str(error), env=at(3))
    shown = cli_json("show", str(learning), env=at(4))
    assert (shown["access_count"], shown["last_accessed"]) == (2, iso(4))
    memory = export()
    assert (memory["decisions"][0]["access_count"], memory["decisions"][0]["last_accessed"]) == (
        1,
        iso(2),
    )
    assert (memory["errors"][0]["access_count"], memory["errors"][0]["last_accessed"]) == (1, iso(3))
    assert memory["learnings"][0]["access_count"] == 2


def test_a_hook_match_counts_one_access_per_learning() -> None:
    rm = add("rm -rf", "--regex", r"rm\s+-rf", "--tool", "Bash")
    echo = add("echo", "--regex", "echo", "--tool", "Bash")
    push = add("force push", "--regex", r"push\s+--force", "--tool", "Bash")
    call = payload("pre_tool_use.bash")
    assert run("cortex-pre-tool-use", stdin=call, env=at(1)).code == 0
    twice = dict(call, tool_input={"command": "rm -rf a && rm -rf b"})  # two matches, one call
    assert run("cortex-pre-tool-use", stdin=twice, env=at(2)).code == 0
    counts = {row["id"]: (row["access_count"], row["last_accessed"]) for row in cli_json("list")}
    assert counts == {rm: (2, iso(2)), echo: (1, iso(1)), push: (0, None)}


def test_stats_lists_the_ten_most_accessed_per_kind(tmp_path: Path) -> None:
    counts = [5, 12, 0, 7, 1, 9, 3, 11, 2, 8, 4, 6, 10]  # 12 accessed, 1 never

    def when(index: int) -> str:
        return iso(index)

    import_file(
        tmp_path,
        {
            "learnings": [
                {"anti_pattern": f"L{n}", "correct_pattern": "c", "tool": "Bash",
                 "access_count": n, "last_accessed": when(i) if n else None}
                for i, n in enumerate(counts)
            ] + [{"anti_pattern": "L-archived", "correct_pattern": "c", "tool": "Bash",
                  "access_count": 99, "archived_at": iso(0)}],
            "decisions": [
                {"title": f"D{n}", "reasoning": "r", "access_count": n} for n in counts
            ] + [{"title": "D-archived", "reasoning": "r", "access_count": 99,
                  "archived_at": iso(0)}],
            "errors": [{"message": f"E{n}", "access_count": n} for n in counts],
        },
    )  # fmt: skip
    first = cli_json("stats")
    assert set(first) == {"learnings", "decisions", "errors", "history"}  # the history: test_report
    top = sorted(counts, reverse=True)[:10]
    assert [row["access_count"] for row in first["learnings"]] == top
    assert [row["anti_pattern"] for row in first["learnings"]] == [f"L{n}" for n in top]
    assert [row["title"] for row in first["decisions"]] == [f"D{n}" for n in top]
    assert [row["message"] for row in first["errors"]] == [f"E{n}" for n in top]
    assert cli_json("stats") == first  # reading the stats is not an access
