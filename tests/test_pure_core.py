"""Direct, table-driven tests of pure modules the hooks reach only through a process elsewhere:
text_budget, snapshot, wiring's merge, transcript.summarize."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from support import FIXTURES

from cortex_hooks.guard import memory_snapshot
from cortex_hooks.install import wiring
from cortex_hooks.text_budget import Section, assemble
from cortex_hooks.transcripts import summary as transcript

# --- text_budget ----------------------------------------------------------------------------------


def sections() -> list[Section]:
    """Three sections of five 24-character entries, the middle one the least important."""
    return [
        Section("First:", [f"- first entry number {n:02}" for n in range(5)], rank=0, more="show first"),
        Section("Last:", [f"- last  entry number {n:02}" for n in range(5)], rank=9, more="show last"),
        Section("Middle:", [f"- mid   entry number {n:02}" for n in range(5)], rank=5, more="show mid"),
    ]


def shown(text: str, prefix: str) -> int:
    return sum(1 for line in text.splitlines() if line.startswith(prefix))


def counts(text: str) -> tuple[int, int, int]:
    """Entries shown of the sections of rank 0, 9 and 5."""
    return shown(text, "- first"), shown(text, "- last"), shown(text, "- mid")


@pytest.mark.parametrize(
    ("budget", "expected"),
    [
        (10_000, (5, 5, 5)),  # everything fits: nothing cut, no "more" line
        (337, (5, 2, 5)),  # the least important (rank 9) loses entries first
        (289, (5, 0, 5)),  # and is emptied before the next (rank 5) loses any
        (240, (5, 0, 2)),
        (169, (3, 0, 0)),  # the most important is cut last
    ],
)
def test_assemble_cuts_the_least_important_first(budget: int, expected: tuple[int, int, int]) -> None:
    text = assemble(sections(), budget)
    assert len(text) <= budget
    assert counts(text) == expected, text
    for count, command in zip(expected, ("show first", "show last", "show mid"), strict=True):
        # nothing disappears without a trace: a cut section says how many and where they are
        assert (f"- … {5 - count} more: `{command}`" in text) == (count < 5), (command, text)


def test_assemble_stays_in_every_budget_and_shows_more_as_it_grows() -> None:
    before = (0, 0, 0)
    for budget in range(1, 420):
        text = assemble(sections(), budget)
        assert len(text) <= budget
        first, last, middle = now = counts(text)
        assert all(n >= b for n, b in zip(now, before, strict=True)), (budget, before, now)
        assert last == 0 or middle == first == 5, (budget, now)  # rank 9 keeps entries only if all else fit
        assert middle == 0 or first == 5, (budget, now)
        before = now
    assert before == (5, 5, 5)


def test_assemble_leaves_out_empty_sections_but_keeps_one_that_only_counts() -> None:
    empty = Section("Empty:", [], rank=0, more="x")
    counted = Section("Counted:", [], rank=1, more="list all", hidden=3)
    assert assemble([empty, counted], 1000) == "Counted:\n- … 3 more: `list all`"
    assert assemble([empty], 1000) == ""


# --- snapshot -------------------------------------------------------------------------------------

NOW = datetime(2026, 11, 22, 9, 30, tzinfo=UTC)


def rows(**changes: Any) -> memory_snapshot.Rows:
    values: dict[str, Any] = {
        "sessions": [],
        "decisions": [],
        "auto_block": [],
        "auto_block_total": 0,
        "recent_learnings": [],
        "recent_learnings_total": 0,
        "older_learnings": 0,
        "todos": [],
    }
    values.update(changes)
    return memory_snapshot.Rows(**values)


def rule(n: int) -> dict[str, object]:
    return {"anti_pattern": f"anti {n}", "correct_pattern": f"correct {n}"}


def session(day: int, summary: str | None = "work", changes: object = "[]") -> dict[str, object]:
    return {"ended_at": f"2026-11-{day:02}T10:00:00Z", "summary": summary, "key_changes": changes}


def text_of(section: Section) -> str:
    return section.render() if section.length() else ""


def by_heading(built: list[Section]) -> dict[str, str]:
    return {section.heading: text_of(section) for section in built}


def test_sections_split_recent_from_older_and_count_the_rest() -> None:
    decisions = [
        {"id": 3, "title": "new", "reasoning": "r", "created_at": "2026-11-20T00:00:00Z", "category": "db"},
        {"id": 2, "title": "old", "reasoning": "r", "created_at": "2026-11-01T00:00:00Z"},
        {"id": 1, "title": "older", "reasoning": "r", "created_at": "2026-10-01T00:00:00Z"},
    ]
    todos = [
        {"id": 7, "text": "urgent", "priority": "high"},
        {"id": 8, "text": "later", "priority": "medium"},
    ]
    built = by_heading(
        memory_snapshot.sections(
            rows(
                decisions=decisions,
                todos=todos,
                auto_block=[rule(1)],
                auto_block_total=4,
                recent_learnings=[rule(n) for n in range(7)],
                recent_learnings_total=7,
                older_learnings=1,
            ),
            NOW,
        )
    )
    assert built["Calls cortex-hooks blocks (auto-block learnings):"].splitlines()[1:] == [
        "- blocked: anti 1 — the correct way: correct 1",
        "- … 3 more: `cortex-hooks list`",
    ]
    recent = built["Learnings recorded or updated in the last 7 days:"].splitlines()
    assert recent[1:] == [
        *(f"- anti {n} — the correct way: correct {n}" for n in range(5)),
        "- … 2 more: `cortex-hooks list`",
    ]
    assert built["Older learnings:"] == "Older learnings:\n- 1 older learning: `cortex-hooks list`"
    assert built["Open todos, high priority:"] == "Open todos, high priority:\n- #7 urgent"
    assert built["Open todos, medium priority:"] == "Open todos, medium priority:\n- #8 later"
    assert built["Decisions of the last 7 days:"] == "Decisions of the last 7 days:\n- #3 new [db]: r"
    assert built["Older decisions:"] == "Older decisions:\n- 2 older decisions: `cortex-hooks decisions list`"
    assert built["Recent sessions:"] == built["Earlier sessions:"] == ""


@pytest.mark.parametrize(
    ("changes", "line"),
    [
        ("[]", "- 2026-11-21: work"),
        (json.dumps([{"file": "a.py", "action": "Edit"}]), "- 2026-11-21: work — changed: a.py (Edit)"),
        (
            json.dumps([{"file": f"f{n}", "action": "Write"} for n in range(5)]),
            "- 2026-11-21: work — changed: f0 (Write), f1 (Write), f2 (Write) +2 more",
        ),
        ("not json", "- 2026-11-21: work"),  # unreadable key changes: the summary alone
        (None, "- 2026-11-21: work"),
    ],
)
def test_a_recent_session_line(changes: object, line: str) -> None:
    built = by_heading(memory_snapshot.sections(rows(sessions=[session(21, changes=changes)]), NOW))
    assert built["Recent sessions:"] == f"Recent sessions:\n{line}"


def test_three_recent_sessions_then_seven_earlier_ones_without_their_changes() -> None:
    ended = [session(day, summary=None if day == 1 else f"day {day}") for day in range(20, 0, -1)]
    built = by_heading(memory_snapshot.sections(rows(sessions=ended), NOW))
    assert built["Recent sessions:"].splitlines()[1:] == [f"- 2026-11-{d}: day {d}" for d in (20, 19, 18)]
    earlier = built["Earlier sessions:"].splitlines()[1:]
    assert earlier == [f"- 2026-11-{d:02}: day {d}" for d in range(17, 10, -1)]


def test_session_context_puts_the_review_first_and_names_the_cli_when_it_is_not_on_path() -> None:
    waiting: list[dict[str, object]] = [{"id": 4, "anti_pattern": "stale", "confidence": 40}]
    loaded = rows(todos=[{"id": 1, "text": "ship it", "priority": "high"}])
    text = memory_snapshot.session_context(waiting, 1, loaded, NOW, budget=6000)
    assert text.splitlines()[0].startswith("cortex-hooks: 1 learned anti-pattern lost confidence")
    assert "- #4 stale (confidence 0.40) — keep: `cortex-hooks keep 4`" in text
    assert text.index("stale") < text.index("Project memory (cortex-hooks):\nOpen todos, high priority:")
    assert "not on PATH" not in text

    elsewhere = memory_snapshot.session_context(
        waiting, 1, loaded, NOW, budget=6000, cli="/venv/bin/cortex-hooks"
    )
    assert elsewhere == text + "\n\n(`cortex-hooks` is not on PATH here: run it as /venv/bin/cortex-hooks)"


@pytest.mark.parametrize(
    ("waiting", "loaded", "expected"),
    [
        ([], None, ""),  # nothing to review, snapshot off
        ([], rows(), ""),  # nothing to review, nothing remembered
    ],
)
def test_session_context_of_nothing_is_empty(
    waiting: list[dict[str, object]], loaded: memory_snapshot.Rows | None, expected: str
) -> None:
    assert (
        memory_snapshot.session_context(waiting, 0, loaded, NOW, budget=6000, cli="/x/cortex-hooks")
        == expected
    )


@pytest.mark.parametrize(("budget", "reviews"), [(500, 0), (1000, 3), (3000, 3)])
def test_session_context_stays_in_budget_and_cuts_the_review_last(budget: int, reviews: int) -> None:
    waiting: list[dict[str, object]] = [
        {"id": n, "anti_pattern": f"stale {n}", "confidence": 40} for n in range(3)
    ]
    loaded = rows(
        auto_block=[rule(n) for n in range(100)],
        auto_block_total=100,
        sessions=[session(21 - n % 20, summary="s" * 150) for n in range(10)],
    )
    text = memory_snapshot.session_context(waiting, 3, loaded, NOW, budget=budget, cli="/v/cortex-hooks")
    assert len(text) <= budget
    assert shown(text, "- #") == reviews  # the review's entries (rank 0)
    assert reviews == 3 or shown(text, "- blocked:") + shown(text, "- 2026-") == 0  # cut last
    assert shown(text, "- blocked:") > 0 or budget < 3000
    assert text.endswith("run it as /v/cortex-hooks)")


# --- wiring ---------------------------------------------------------------------------------------

PATHS = {event: f"/new/bin/{script}" for event, script in wiring.SCRIPTS.items()}


@pytest.mark.parametrize(
    ("settings", "pre_tool_use"),
    [
        ({}, [{"matcher": "*", "hooks": [
            {"type": "command", "command": PATHS["PreToolUse"], "timeout": wiring.TIMEOUT}
        ]}]),
        (  # ours at an old path, with the user's timeout: moved in place, the timeout kept
            {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
                {"type": "command", "command": "notify"},
                {"type": "command", "command": "/old/cortex-pre-tool-use", "timeout": 5},
            ]}]}},
            [{"matcher": "Bash", "hooks": [
                {"type": "command", "command": "notify"},
                {"type": "command", "command": PATHS["PreToolUse"], "timeout": 5},
            ]}],
        ),
    ],
)  # fmt: skip
def test_installed(settings: dict[str, Any], pre_tool_use: list[Any]) -> None:
    merged, changes = wiring.installed(settings, PATHS)
    assert merged["hooks"]["PreToolUse"] == pre_tool_use
    assert {change.where for change in changes} == set(wiring.SCRIPTS)
    assert wiring.installed(merged, PATHS) == (merged, [])  # idempotent


@pytest.mark.parametrize(
    ("settings", "expected", "removed"),
    [
        ({"model": "x"}, {"model": "x"}, 0),
        ({"hooks": {"Stop": []}}, {"hooks": {"Stop": []}}, 0),  # an empty list that was there stays
        (
            {"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": "cortex-session-end"}]}]}},
            {},  # the group, the event and the hooks object held only ours
            1,
        ),
        (
            {"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [
                {"type": "command", "command": "'/a b/cortex-pre-tool-use'"},
                {"type": "command", "command": "my-linter"},
            ]}]}},
            {"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [
                {"type": "command", "command": "my-linter"}
            ]}]}},
            1,
        ),
    ],
)  # fmt: skip
def test_uninstalled(settings: dict[str, Any], expected: dict[str, Any], removed: int) -> None:
    result, changes = wiring.uninstalled(settings)
    assert (result, len(changes)) == (expected, removed)
    assert all(change.action == "removed" for change in changes)


# --- transcript -----------------------------------------------------------------------------------


def test_summarize_the_fixture_transcript() -> None:
    summary = transcript.summarize(str(FIXTURES / "transcript.jsonl"))
    assert summary.summary == "Please add a greeting module and fix the typo"
    assert summary.key_changes == [
        {"file": "PROJ/hello.py", "action": "Write"},
        {"file": "PROJ/hello.py", "action": "Edit"},
    ]


def _use(tool_id: str, tool: str, path: str) -> dict[str, Any]:
    content = [{"type": "tool_use", "id": tool_id, "name": tool, "input": {"file_path": path}}]
    return {"type": "assistant", "message": {"role": "assistant", "content": content}}


def _result(tool_id: str, *, error: bool) -> dict[str, Any]:
    content = [{"type": "tool_result", "tool_use_id": tool_id, "is_error": error, "content": "x"}]
    return {"type": "user", "message": {"role": "user", "content": content}}


@pytest.mark.parametrize(
    ("records", "summary", "changes"),
    [
        ([], None, []),
        ([{"type": "user", "message": {"role": "user", "content": "x" * 300}}], "x" * 200, []),
        (["{not json", _use("1", "Write", "a.py")], None, [("a.py", "Write")]),  # a broken line skipped
        ([_use("1", "Write", "a.py"), _result("1", error=True)], None, []),  # a failed call changed nothing
        ([_use("1", "Write", "a.py"), _result("1", error=False)], None, [("a.py", "Write")]),
        ([_use("1", "Edit", "a.py"), _use("2", "Edit", "a.py")], None, [("a.py", "Edit")]),  # once each
        ([_use("1", "Read", "a.py")], None, []),  # reading is no change
    ],
)
def test_summarize(
    tmp_path: Path, records: list[Any], summary: str | None, changes: list[tuple[str, str]]
) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records))
    result = transcript.summarize(str(path))
    assert result.summary == summary
    assert [(c["file"], c["action"]) for c in result.key_changes] == changes
