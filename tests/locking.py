"""Another process holding the database: a write transaction (as a sqlite3 shell or a DB browser
holds one), or the whole file in SQLite's exclusive locking mode; and a sequence of hook runs to
play against a database so held (tests/test_locked.py, test_history, test_ask_rewrite,
test_outcomes_hooks, test_guard_file, test_self_protection_hook)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from support import payload, run

PRE, START, END = "cortex-pre-tool-use", "cortex-session-start", "cortex-session-end"
HOLDER = """
import sqlite3, sys
connection = sqlite3.connect(sys.argv[1], isolation_level=None)
for statement in sys.argv[2:]:
    connection.execute(statement)
print("locked", flush=True)
sys.stdin.read()  # until the test closes our stdin
"""


@contextmanager
def held(db: Path, *statements: str) -> Iterator[None]:
    """A real second process that ran `statements` on the database, until the block ends."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(db), *statements],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "locked"
        yield
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=30)


def write_lock(db: Path) -> Any:
    """A write transaction held by another process, until the block ends."""
    return held(db, "BEGIN EXCLUSIVE")


def held_exclusively(db: Path, statement: str = "SELECT count(*) FROM learning") -> Any:
    """The file held in SQLite's exclusive locking mode (a read is enough to hold it so)."""
    return held(db, "PRAGMA locking_mode=EXCLUSIVE", statement)


def bash(command: str, session: str = "s1") -> dict[str, Any]:
    return payload("pre_tool_use.bash", session_id=session, tool_input={"command": command})


def decision(result: Any) -> str:
    assert result.code == 0, result.stderr
    if not result.stdout.strip():
        return "none"
    return str(result.json()["hookSpecificOutput"].get("permissionDecision", "warn"))


SEQUENCE: list[tuple[str, dict[str, Any]]] = [
    (START, payload("session_start.startup", session_id="s1")),
    (PRE, bash("sudo make install")),  # at 0.40: warned, boosted to 0.50
    (PRE, bash("sudo make install")),  # at 0.50: blocks, 0.60
    (PRE, bash("git status")),
    (END, payload("session_end.other", session_id="s1")),
    (END, payload("session_end.other", session_id="s1")),  # repeated: decays once only
    (START, payload("session_start.startup", session_id="s2")),
    (PRE, bash("sudo make install", "s2")),
    (END, payload("session_end.other", session_id="s2")),
]


def play(db: Path) -> list[str]:
    outcomes = []
    for script, data in SEQUENCE:
        result = run(script, stdin=data, env={"CORTEX_DB": str(db)})
        outcomes.append(decision(result) if script == PRE else f"exit {result.code}")
    return outcomes
