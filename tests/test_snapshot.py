"""The recency-gradient snapshot and the SessionStart context, from real databases.

A realistic database is built once per module through the installed hooks and CLI (sessions by
running cortex-session-start / cortex-session-end at increasing CORTEX_NOW, memory by `import`);
tests that write work on a copy of it.
"""

from __future__ import annotations

import json
import re
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from support import FIXTURES, Result, cli, cli_json, payload, run

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
BUDGET = 6000
HOOK_TEXT_LIMIT = 9500
TRANSCRIPT = FIXTURES / "transcript.jsonl"
FIXTURE_PROMPT = "Please add a greeting module and fix the typo"
LONG_PROMPT = (
    "Migrate the configuration loader from the hand-written INI parser to tomllib, keep the old "
    "keys working for one release, and write the deprecation notes in the changelog"
)
RICH_PROMPT = "Split the store module and add the busy timeout"
RICH_FILES = ["src/store/open.py", "src/store/schema.py", "src/store/tx.py", "docs/STORE.md",
              "tests/test_store.py"]  # fmt: skip
LONG_REASONING = "Readers must never wait for the single writer. " * 8


def ago(days: float, hours: float = 0) -> str:
    return (NOW - timedelta(days=days, hours=hours)).strftime("%Y-%m-%dT%H:%M:%SZ")


def day_of(days: float) -> str:
    return ago(days)[:10]


def now_env(**extra: str) -> dict[str, str]:
    return {"CORTEX_NOW": ago(0), **extra}


def transcript(path: Path, prompt: str, files: list[str]) -> Path:
    """The captured transcript with another first prompt and a Write for each of `files`."""
    records = [json.loads(line) for line in TRANSCRIPT.read_text().splitlines() if line.strip()]
    out: list[dict[str, Any]] = []
    for record in records:
        message = record.get("message")
        if (
            record.get("type") == "user"
            and isinstance(message, dict)
            and message.get("content") == FIXTURE_PROMPT
        ):
            record["message"] = {**message, "content": prompt}
        if record.get("type") == "assistant" and '"tool_use"' in json.dumps(record):
            continue  # the fixture's own changes are replaced by `files`
        out.append(record)
        if record.get("type") == "user" and record["message"].get("content") == prompt:
            for number, file in enumerate(files):
                block = {"type": "tool_use", "id": f"toolu_x_{number}", "name": "Write",
                         "input": {"file_path": file, "content": "x = 1\n"}}  # fmt: skip
                out.append({"type": "assistant", "message": {"role": "assistant", "content": [block]}})
    path.write_text("".join(json.dumps(record, separators=(",", ":")) + "\n" for record in out))
    return path


def write_json(path: Path, document: object) -> Path:
    path.write_text(json.dumps(document))
    return path


def checked(result: Result) -> Result:
    assert result.code == 0, result.stderr
    assert "Traceback" not in result.stderr
    return result


# --- the realistic database ----------------------------------------------------------------------


@dataclass
class Realistic:
    path: Path
    env: dict[str, str]
    snapshot: str
    ids: dict[str, int]  # learning, decision and todo ids by their text


AUTO_BLOCK = [
    ("git push --force to main", "git push --force-with-lease to your own branch"),
    ("rm -rf with a variable path", "check the variable is set: ${DIR:?}"),
    ("editing generated protobuf code", "change the .proto and run make proto"),
]


def realistic_memory() -> dict[str, Any]:
    def learning(anti: str, created: str, **more: Any) -> dict[str, Any]:
        return {"anti_pattern": anti, "correct_pattern": f"instead of {anti}: the right way",
                "tool": "Bash", "created_at": created, "updated_at": created,
                "access_count": 1, **more}  # fmt: skip

    learnings = [
        {"anti_pattern": anti, "correct_pattern": correct, "tool": "Bash", "auto_block": True,
         "regex": re.escape(anti.split()[0]) + r"\b", "created_at": ago(40)}
        for anti, correct in AUTO_BLOCK
    ] + [
        learning("ARCHIVED-AUTO curl | sh", ago(3), auto_block=True, archived_at=ago(2)),
        learning("REVIEW-ME sleep 5 in tests", ago(10), confidence=0.30),
        *(learning(f"RECENT-{n} mocking sqlite", ago(n, 1)) for n in (1, 2, 3, 4)),
        learning("UPDATED-OLD print debugging left in", ago(30), updated_at=ago(2)),
        *(learning(f"OLD-{n} catching bare Exception", ago(30)) for n in (1, 2, 3)),
        learning("PRUNABLE never used", ago(100), access_count=0),
        learning("ARCHIVED-RECENT tabs", ago(1), archived_at=ago(1)),
    ]  # fmt: skip
    decisions = [
        {"title": "DEC-R1 WAL mode for every connection", "reasoning": LONG_REASONING,
         "category": "storage", "created_at": ago(1)},
        *({"title": f"DEC-R{n} recent decision", "reasoning": f"reason {n}", "created_at": ago(n)}
          for n in (2, 3, 5)),
        *({"title": f"DEC-O{n} older decision", "reasoning": "old reason", "created_at": ago(20, n)}
          for n in (1, 2, 3)),
        {"title": "DEC-ARCHIVED", "reasoning": "r", "created_at": ago(1), "archived_at": ago(1)},
    ]  # fmt: skip
    todos: list[dict[str, Any]] = [
        {"text": "TODO-HIGH-1 fix the flaky lock test", "priority": "high"},
        {"text": "TODO-HIGH-2 release 0.2", "priority": "high"},
        {"text": "TODO-MED-1 document the config", "priority": "medium"},
        {"text": "TODO-MED-2 benchmark the prefilter"},
        {"text": "TODO-LOW rename helpers", "priority": "low"},
        {"text": "TODO-DONE ship the installer", "priority": "high", "done": True,
         "done_at": ago(3)},
        {"text": "TODO-ARCHIVED old plan", "priority": "high", "archived_at": ago(4)},
    ]  # fmt: skip
    for todo in todos:
        todo["created_at"] = ago(6)
    errors = [{"message": "sqlite3.OperationalError: database is locked", "first_seen": ago(5)}]
    return {"version": 1, "learnings": learnings, "decisions": decisions, "errors": errors,
            "todos": todos}  # fmt: skip


def sessions_plan(directory: Path) -> list[tuple[str, int, Path]]:
    """Eleven ended sessions, one a day, the latest yesterday: (session id, days ago, transcript)."""
    rich = transcript(directory / "rich.jsonl", RICH_PROMPT, RICH_FILES)
    long = transcript(directory / "long.jsonl", LONG_PROMPT, ["setup.cfg"])
    plan = []
    for number in range(1, 12):
        days = 12 - number
        path = {1: rich, 4: long}.get(days, TRANSCRIPT)
        plan.append((f"sess-{number:02d}", days, path))
    return plan


def start_and_end(env: dict[str, str], session: str, days: int, path: Path) -> None:
    start = payload("session_start.startup", session_id=session, transcript_path=str(path))
    end = payload("session_end.other", session_id=session, transcript_path=str(path))
    checked(run("cortex-session-start", stdin=start, env={**env, "CORTEX_NOW": ago(days, 2)}))
    checked(run("cortex-session-end", stdin=end, env={**env, "CORTEX_NOW": ago(days)}))


@pytest.fixture(scope="module")
def realistic(tmp_path_factory: pytest.TempPathFactory) -> Realistic:
    directory = tmp_path_factory.mktemp("realistic")
    (directory / "home").mkdir()
    env = {"CORTEX_DB": str(directory / "cortex.db"), "HOME": str(directory / "home")}
    checked(cli("todos", "add", "--text", "TODO-SEED created first", "--priority", "low", env=env))
    with ThreadPoolExecutor(max_workers=4) as pool:
        for future in [pool.submit(start_and_end, env, *session) for session in sessions_plan(directory)]:
            future.result()
    still_open = payload("session_start.startup", session_id="sess-open")
    checked(run("cortex-session-start", stdin=still_open, env={**env, "CORTEX_NOW": ago(0, 2)}))
    source = write_json(directory / "memory.json", realistic_memory())
    checked(cli("import", str(source), env=env))
    exported = checked(cli("export", env=env)).json()
    ids = {row["anti_pattern"]: row["id"] for row in exported["learnings"]}
    ids.update({row["title"]: row["id"] for row in exported["decisions"]})
    ids.update({row["text"]: row["id"] for row in exported["todos"]})
    text = checked(cli("snapshot", env={**env, **now_env()})).stdout
    return Realistic(directory / "cortex.db", env, text, ids)


@pytest.fixture
def copy(realistic: Realistic, db: Path) -> Path:
    """This test's database (CORTEX_DB): a copy of the realistic one."""
    with closing(sqlite3.connect(realistic.path)) as source, closing(sqlite3.connect(db)) as target:
        source.backup(target)
    return db


def line_with(text: str, needle: str) -> str:
    found = [line for line in text.splitlines() if needle in line]
    assert len(found) == 1, (needle, found)
    return found[0]


def pointers(text: str, command: str) -> list[str]:
    """The lines that point at `command` (itself, not `command --option`) for what is left out."""
    pattern = re.compile(re.escape(command) + r"(?![\w -])")
    return [line for line in text.splitlines() if pattern.search(line)]


def pointer(text: str, command: str) -> str:
    found = pointers(text, command)
    assert len(found) == 1, (command, found)
    return found[0]


def numbers(line: str) -> set[int]:
    return {int(number) for number in re.findall(r"\d+", line)}


# --- what the snapshot says ----------------------------------------------------------------------


def test_review_prompt_comes_first_with_the_exact_commands(realistic: Realistic) -> None:
    text = realistic.snapshot
    review = realistic.ids["REVIEW-ME sleep 5 in tests"]
    assert "review" in text.splitlines()[0].lower()
    entry = line_with(text, "REVIEW-ME")
    assert f"cortex-hooks keep {review}" in entry
    assert f"cortex-hooks archive {review}" in entry
    assert "0.30" in entry
    assert text.index("REVIEW-ME") < min(text.index(anti) for anti, _ in AUTO_BLOCK)
    assert len(text.rstrip("\n")) <= BUDGET


def test_sessions_last_three_in_full_and_seven_older_as_date_and_80_characters(
    realistic: Realistic,
) -> None:
    text = realistic.snapshot
    latest = line_with(text, day_of(1))
    assert RICH_PROMPT in latest
    assert all(file in latest for file in RICH_FILES[:3])
    assert not any(file in latest for file in RICH_FILES[3:])  # at most three key changes
    for days in (2, 3):
        recent = line_with(text, day_of(days))
        assert FIXTURE_PROMPT in recent
        assert "PROJ/hello.py" in recent
    older = [line_with(text, day_of(days)) for days in range(4, 11)]
    assert LONG_PROMPT[:79] in older[0]
    assert LONG_PROMPT[:81] not in older[0]
    assert all(FIXTURE_PROMPT in line for line in older[1:])
    assert not any("hello.py" in line or "setup.cfg" in line for line in older)
    assert day_of(11) not in text  # the eleventh ended session is beyond the ten shown
    assert day_of(0) not in text  # the open session has not ended


def test_decisions_recent_with_short_reasoning_older_as_a_count(realistic: Realistic) -> None:
    text = realistic.snapshot
    for title in ("DEC-R1", "DEC-R2", "DEC-R3", "DEC-R5"):
        assert title in text
    first = line_with(text, "DEC-R1")
    assert LONG_REASONING[:99] in first
    assert LONG_REASONING[:101] not in first
    assert "DEC-O" not in text
    assert "DEC-ARCHIVED" not in text
    count = pointer(text, "cortex-hooks decisions list")
    assert 3 in numbers(count)


def test_learnings_every_auto_block_recent_five_older_as_a_count(realistic: Realistic) -> None:
    text = realistic.snapshot
    for anti, correct in AUTO_BLOCK:
        assert f"blocked: {anti} — the correct way: {correct}" in text
    for recent in ("RECENT-1", "RECENT-2", "RECENT-3", "RECENT-4", "UPDATED-OLD"):
        assert recent in text
    for hidden in ("OLD-1", "OLD-2", "OLD-3", "PRUNABLE", "ARCHIVED-AUTO", "ARCHIVED-RECENT"):
        assert hidden not in text
    # REVIEW-ME and OLD-1..3; PRUNABLE would be archived by this very SessionStart.
    assert 4 in numbers(pointer(text, "cortex-hooks list"))


def test_todos_high_and_medium_only(realistic: Realistic) -> None:
    text = realistic.snapshot
    for shown in ("TODO-HIGH-1", "TODO-HIGH-2", "TODO-MED-1", "TODO-MED-2"):
        assert shown in text
    for hidden in ("TODO-LOW", "TODO-DONE", "TODO-ARCHIVED", "TODO-SEED"):
        assert hidden not in text
    assert text.index("TODO-HIGH-2") < text.index("TODO-MED-1")


# --- the same text as SessionStart, and no writes -------------------------------------------------


def session_start(session: str, source: str = "startup") -> dict[str, Any]:
    data = payload("session_start.startup", session_id=session, source=source)
    result = checked(run("cortex-session-start", stdin=data, env=now_env()))
    assert len(result.stdout) < HOOK_TEXT_LIMIT
    output: dict[str, Any] = result.json()
    return output


def test_snapshot_is_what_session_start_injects_and_writes_nothing(realistic: Realistic, copy: Path) -> None:
    before = (checked(cli("export")).stdout, cli_json("sessions", "list"))
    text = checked(cli("snapshot", env=now_env())).stdout
    assert text == realistic.snapshot
    assert (checked(cli("export")).stdout, cli_json("sessions", "list")) == before

    output = session_start("sess-new")
    assert output["hookSpecificOutput"]["additionalContext"] == text.rstrip("\n")
    assert "1 learning awaits review" in output["systemMessage"]
    sessions = cli_json("sessions", "list")
    assert len(sessions) == len(before[1]) + 1
    assert "sess-new" in {row["id"] for row in sessions}
    pruned = {row["anti_pattern"]: row["archived_at"] for row in cli("export").json()["learnings"]}
    assert pruned["PRUNABLE never used"] == ago(0)  # SessionStart pruned; snapshot only previewed


@pytest.mark.parametrize("source", ["resume", "clear", "compact"])
def test_continuing_sources_inject_context_without_counting_a_session(
    realistic: Realistic, copy: Path, source: str
) -> None:
    """Claude Code resumes and compacts a session it has already started: the context comes
    again, the recorded session stays one row, its start and source unchanged."""
    before = cli_json("sessions", "list")
    going_on = before[0]["id"]
    output = session_start(going_on, source)
    assert output["hookSpecificOutput"]["additionalContext"] == realistic.snapshot.rstrip("\n")
    assert cli_json("sessions", "list") == before


# --- sections, caps and the budget ---------------------------------------------------------------


def test_sections_with_nothing_to_say_are_left_out(db: Path) -> None:
    cli_json("todos", "add", "--text", "The only thing to remember", "--priority", "high")
    text = checked(cli("snapshot", env=now_env())).stdout
    assert "The only thing to remember" in text
    for word in ("session", "decision", "learning", "never", "review"):
        assert word not in text.lower(), word

    cli_json("todos", "archive", "1")
    assert checked(cli("snapshot")).stdout.strip() == ""
    quiet = checked(run("cortex-session-start", stdin=payload("session_start.startup")))
    assert quiet.stdout == ""


def test_at_most_five_recent_learnings_and_decisions(db: Path, tmp_path: Path) -> None:
    memory = {
        "learnings": [
            {"anti_pattern": f"LEARNING-{n}", "correct_pattern": "c", "tool": "Bash",
             "created_at": ago(n), "updated_at": ago(n)} for n in range(1, 8)
        ],
        "decisions": [
            {"title": f"DECISION-{n}", "reasoning": "r", "created_at": ago(n)} for n in range(1, 8)
        ],
    }  # fmt: skip
    checked(cli("import", str(write_json(tmp_path / "m.json", memory)), env=now_env()))
    text = checked(cli("snapshot", env=now_env())).stdout
    for kind in ("LEARNING", "DECISION"):
        assert [f"{kind}-{n}" in text for n in range(1, 8)] == [True] * 5 + [False] * 2, kind
    assert 2 in numbers(pointer(text, "cortex-hooks decisions list"))
    assert 2 in numbers(pointer(text, "cortex-hooks list"))


def test_two_thousand_auto_block_learnings_stay_within_the_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    directory = tmp_path / "proj" / ".cortex"
    directory.mkdir(parents=True)
    monkeypatch.setenv("CORTEX_DB", str(directory / "cortex.db"))
    many = [
        {"anti_pattern": f"BLOCK-{n:04d} " + "never do this thing " * 20,
         "correct_pattern": "do this instead " * 30, "tool": "Bash", "auto_block": True}
        for n in range(2000)
    ] + [
        {"anti_pattern": f"REVIEW-{n} " + "a doubtful habit " * 3, "correct_pattern": "c",
         "tool": "Bash", "confidence": 0.30}
        for n in range(3)
    ]  # fmt: skip
    checked(cli("import", str(write_json(tmp_path / "many.json", many))))
    review_ids = {row["id"] for row in cli_json("list", "--review")}
    assert len(review_ids) == 3

    def check(text: str, budget: int, *, some_shown: bool) -> None:
        assert budget - 600 < len(text) <= budget
        assert "review" in text.splitlines()[0].lower()
        for learning_id in review_ids:
            assert f"cortex-hooks keep {learning_id}" in text
            assert f"cortex-hooks archive {learning_id}" in text
        shown = sum(1 for line in text.splitlines() if "blocked: BLOCK-" in line)
        assert shown < 2000
        if some_shown:
            assert shown > 0
        tails = pointers(text, "cortex-hooks list")
        assert any(2000 - shown in numbers(tail) for tail in tails), (shown, tails)

    text = checked(cli("snapshot")).stdout.rstrip("\n")
    check(text, BUDGET, some_shown=True)
    output = session_start("sess-big")
    assert output["hookSpecificOutput"]["additionalContext"] == text
    assert "3 learnings await review" in output["systemMessage"]

    (directory / "config.toml").write_text("[snapshot]\nbudget = 1000\n")
    small = checked(cli("snapshot"))
    assert small.stderr == ""
    check(small.stdout.rstrip("\n"), 1000, some_shown=False)
