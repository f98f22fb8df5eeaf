"""The same guard in Codex CLI, Gemini CLI and Copilot CLI, end to end with the real
clients, offline (tests/agent_clients.py): the hooks wired by `cortex-hooks install --agent NAME`,
the model played by tests/mock_models.py. A learned block denies in each and the model reads the
reason; a rewrite runs the corrected command; a learning added in one agent blocks in the next;
the review reaches the model at the session start; the decay runs once per day of use (Codex,
Gemini) or per session end (Copilot); a hook that fails never blocks the work."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from agent_clients import binary, install, network_namespace, patch, run, shell
from support import cli, cli_json, reminder_unless_regex

pytestmark = pytest.mark.agent_cli

AGENTS = ("codex", "gemini", "copilot")


@pytest.fixture(scope="module")
def namespace() -> list[str]:
    return network_namespace()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A git project with an empty memory (install --agent creates it)."""
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    return root


def database(project: Path) -> dict[str, str]:
    return {"CORTEX_DB": str(project / ".cortex" / "cortex.db")}


def learn(project: Path, *args: str) -> dict[str, Any]:
    learned: dict[str, Any] = cli_json("add", *reminder_unless_regex(args), env=database(project))
    return learned


def learning(project: Path, learning_id: int) -> dict[str, Any]:
    rows = cli_json("list", "--all", env=database(project))
    (row,) = [row for row in rows if row["id"] == learning_id]
    return dict(row)


BLOCK_BUILD = (
    "--anti-pattern",
    "rm -r build",
    "--correct",
    "run `make clean`, which keeps the cache",
    "--regex",
    r"^rm\s+-r\s+build",
    "--tool",
    "shell",
    "--auto-block",
)


@pytest.mark.parametrize("agent", AGENTS)
def test_a_learned_block_denies_and_the_model_reads_why(
    agent: str, namespace: list[str], project: Path
) -> None:
    client = binary(agent)
    install(project, agent)
    (project / "build").mkdir()
    (project / "build" / "keep.txt").write_text("still here")
    rule = learn(project, *BLOCK_BUILD)

    done = run(
        agent, client, namespace, project, [shell(agent, "rm -r build && touch ran.flag"), {"text": "Noted."}]
    )
    assert done.code == 0, done.explain()

    assert (project / "build" / "keep.txt").exists(), "the blocked command ran"
    assert not (project / "ran.flag").exists(), "the blocked command ran"
    (said,) = done.outputs()
    assert "cortex-hooks blocked this tool call" in said, done.explain()
    assert f"learning #{rule['id']}" in said
    assert "NEVER: rm -r build" in said
    assert "DO: run `make clean`, which keeps the cache" in said
    assert learning(project, rule["id"])["access_count"] == 1


@pytest.mark.parametrize("agent", AGENTS)
def test_a_rewrite_runs_the_corrected_command(agent: str, namespace: list[str], project: Path) -> None:
    client = binary(agent)
    install(project, agent)
    (project / "original.txt").write_text("ORIGINAL\n")
    (project / "corrected.txt").write_text("CORRECTED\n")
    rule = learn(
        project,
        "--anti-pattern",
        "reading original.txt",
        "--correct",
        "corrected.txt holds the current text",
        "--regex",
        r"\boriginal\.txt\b",
        "--tool",
        "shell",
        "--rewrite",
        "corrected.txt",
    )
    done = run(
        agent, client, namespace, project, [shell(agent, "cat original.txt | tee seen.txt"), {"text": "Ok."}]
    )
    assert done.code == 0, done.explain()

    # the file the corrected command wrote, and the output the model was given, prove which ran
    assert (project / "seen.txt").read_text() == "CORRECTED\n", done.explain()
    (said,) = done.outputs()
    assert "CORRECTED" in said
    assert "ORIGINAL" not in said
    assert _history(project) == [(rule["id"], 1, 0, 0, 0, 1)]


def test_a_learning_added_in_one_agent_blocks_in_the_next(namespace: list[str], project: Path) -> None:
    """Codex's model records the lesson with the CLI (an agent may strengthen its guard); Gemini
    and then Copilot, in the same project, are stopped by it."""
    clients = {agent: binary(agent) for agent in AGENTS}
    for agent in AGENTS:
        install(project, agent)
    cortex = json.loads((project / ".codex" / "hooks.json").read_text())["hooks"]["PreToolUse"][0]["hooks"][0]
    cli_path = cortex["command"].split()[0].replace("cortex-pre-tool-use", "cortex-hooks")
    recorded = (
        f"{cli_path} add --anti-pattern 'touch deploy.lock' --correct 'run ./deploy --lock'"
        " --regex '^touch deploy\\.lock' --tool shell --auto-block"
    )
    first = run(
        "codex", clients["codex"], namespace, project, [shell("codex", recorded), {"text": "Recorded."}]
    )
    assert first.code == 0, first.explain()
    (row,) = cli_json("list", env=database(project))
    assert row["anti_pattern"] == "touch deploy.lock"

    for agent in ("gemini", "copilot"):
        done = run(
            agent, clients[agent], namespace, project, [shell(agent, "touch deploy.lock"), {"text": "Ok."}]
        )
        assert done.code == 0, done.explain()
        assert not (project / "deploy.lock").exists(), f"{agent} ran the command the lesson blocks"
        (said,) = done.outputs()
        assert "NEVER: touch deploy.lock" in said, done.explain()
        assert "DO: run ./deploy --lock" in said
    assert learning(project, row["id"])["access_count"] == 2


@pytest.mark.parametrize(("agent", "given"), [("codex", "0.41"), ("gemini", "0.41"), ("copilot", "0.40")])
def test_the_review_reaches_the_model_at_the_session_start(
    agent: str, given: str, namespace: list[str], project: Path
) -> None:
    """Codex and Gemini decay by the day, at its first session start: a learning at 0.41 sinks to
    the review threshold then, and is put to the model in that very session."""
    client = binary(agent)
    install(project, agent)
    stale = learn(
        project, "--anti-pattern", "pip install without a venv", "--correct", "use uv", "--confidence", given
    )
    done = run(agent, client, namespace, project, [{"text": "Noted."}])
    assert done.code == 0, done.explain()
    seen = done.first_request_text()
    assert "lost confidence through disuse and awaits the user's review" in seen, done.explain()
    assert f"#{stale['id']} pip install without a venv (confidence 0.40)" in seen
    assert f"cortex-hooks keep {stale['id']}`" in seen


@pytest.mark.parametrize(("agent", "after_two"), [("codex", 0.69), ("gemini", 0.69), ("copilot", 0.68)])
def test_the_decay_runs_once_per_day_of_use_or_per_session_end(
    agent: str, after_two: float, namespace: list[str], project: Path
) -> None:
    """Codex has no session end and Gemini's is not awaited: one decay per day of use. Copilot
    awaits its sessionEnd: one decay per session."""
    client = binary(agent)
    install(project, agent)
    rule = learn(project, "--anti-pattern", "never matched", "--correct", "x")
    for _ in range(2):
        done = run(agent, client, namespace, project, [{"text": "Noted."}])
        assert done.code == 0, done.explain()
    assert learning(project, rule["id"])["confidence"] == after_two
    listed = cli_json("sessions", "list", env=database(project))
    days = [session for session in listed if session["id"].startswith(f"{agent}:day:")]
    assert len(days) == (1 if agent != "copilot" else 0), listed
    if days:
        assert days[0]["reason"] == "day of use"


@pytest.mark.parametrize("agent", AGENTS)
def test_a_failing_hook_never_blocks_the_work(agent: str, namespace: list[str], project: Path) -> None:
    client = binary(agent)
    install(project, agent)
    db = project / ".cortex" / "cortex.db"
    db.parent.mkdir(exist_ok=True)
    db.write_bytes(b"this is not an SQLite database\n" * 200)
    before = db.read_bytes()
    done = run(agent, client, namespace, project, [shell(agent, "touch ran.flag"), {"text": "Noted."}])
    assert done.code == 0, done.explain()
    assert (project / "ran.flag").exists(), f"a failing hook blocked {agent}'s tool call"
    assert db.read_bytes() == before, "a failing hook changed the database"


ADDS_DEBUG_LINE = (
    "*** Begin Patch\n*** Add File: src/app.js\n+console.log('debug');\n+export const x = 1;\n*** End Patch\n"
)


@pytest.mark.parametrize("agent", ["codex", "copilot"])
def test_a_patch_is_judged_file_by_file_as_writes_and_edits(
    agent: str, namespace: list[str], project: Path
) -> None:
    """Codex (and Copilot, for OpenAI models) write files with apply_patch: a learning of the kind
    `write` reads the lines a patch adds to a file."""
    client = binary(agent)
    install(project, agent)
    rule = learn(
        project,
        "--anti-pattern",
        "console.log left in the code",
        "--correct",
        "use the logger (src/log.js)",
        "--regex",
        r"console\.log\(",
        "--tool",
        "write|edit",
        "--auto-block",
    )
    done = run(agent, client, namespace, project, [patch(agent, ADDS_DEBUG_LINE), {"text": "Ok."}])
    assert done.code == 0, done.explain()
    assert not (project / "src" / "app.js").exists(), "the patch the lesson blocks was applied"
    (said,) = done.outputs()
    assert "NEVER: console.log left in the code" in said, done.explain()
    assert learning(project, rule["id"])["access_count"] == 1


def _history(project: Path) -> list[tuple[Any, ...]]:
    from contextlib import closing

    with closing(sqlite3.connect(project / ".cortex" / "cortex.db")) as connection:
        return connection.execute(
            "SELECT learning_id, matches, denies, asks, warnings, rewrites FROM learning_day ORDER BY 1"
        ).fetchall()


def test_an_ask_is_a_deny_that_says_to_ask_where_the_agent_cannot_ask(
    namespace: list[str], project: Path
) -> None:
    client = binary("codex")
    install(project, "codex")
    learn(
        project,
        "--anti-pattern",
        "force push",
        "--correct",
        "git push --force-with-lease",
        "--regex",
        r"^git push\b.*--force(?![\w-])",
        "--tool",
        "shell",
        "--action",
        "ask",
    )
    done = run(
        "codex", client, namespace, project, [shell("codex", "git push --force origin main"), {"text": "Ok."}]
    )
    assert done.code == 0, done.explain()
    (said,) = done.outputs()
    assert "cortex-hooks asks the user before this tool call" in said, done.explain()
    assert "ask the person in the conversation, and make the call only if they agree" in said
    assert cli("list", env=database(project)).code == 0
