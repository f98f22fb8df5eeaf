"""The background worker (docs/guide/capture.md): scans what SessionEnd's budget left, one worker at a time
per database, detached from the client so that it survives the client's exit.

    python -m cortex_hooks.capture.worker DATABASE [SESSION TRANSCRIPT]

SESSION and TRANSCRIPT name a session SessionEnd could not start to scan (the database was busy):
it has no stored offset yet, so only its name tells the worker it exists.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import time
from contextlib import closing
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cortex_hooks.stored.capture_rows import Scan

SCAN_SLICE = 20.0  # seconds per scan: each commits what it read, so a kill loses little work
MAX_ROUNDS = 1000


def lock_path(database: str) -> str:
    return database + ".capture.lock"


def start(database: str, session: tuple[str, str] | None = None) -> None:
    """Start the worker for a database, detached; it exits at once when one already runs. Every
    process we start is marked CORTEX_HOOKS_CHILD=1 and loses CLAUDECODE (docs/guide/capture.md). `session`:
    (id, transcript) of a session to scan that may have no stored offset yet."""
    from cortex_hooks.boundary import child_environment

    subprocess.Popen(  # -P: nothing of the current folder on sys.path (a project's could shadow us)
        [sys.executable, "-P", "-m", "cortex_hooks.capture.worker", database, *(session or ())],
        env=child_environment(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        close_fds=True,
    )


def run(database: str, session: tuple[str, str] | None = None) -> int:
    """Scan every session whose transcript grew past its stored offset, and `session` (id,
    transcript) first; under the database's capture lock (another worker holding it already does
    the work: a session it has not seen waits for the next SessionEnd's worker)."""
    with open(lock_path(database), "a", encoding="utf-8") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return 0
        from cortex_hooks import clock, location
        from cortex_hooks.capture import scanning
        from cortex_hooks.store import proposals
        from cortex_hooks.store.connection import open_database
        from cortex_hooks.store.transaction import Transaction

        with closing(open_database(database)) as connection:
            policy = location.config_for(database).policy
            errors: list[str] = []
            stuck: set[str] = set()
            if session is not None and proposals.scan_state(connection, session[0]) is None:
                try:  # its first scan records its offset: the rounds below go on from there
                    scanning.scan(
                        connection,
                        session[1],
                        session[0],
                        deadline=time.monotonic() + SCAN_SLICE,
                        now=clock.iso(clock.now()),
                        policy=policy,
                    )
                except Exception as error:
                    errors.append(f"session {session[0]}: {type(error).__name__}: {error}")
            for _round in range(MAX_ROUNDS):
                behind = [
                    row for row in proposals.scans(connection) if _behind(row) and row.session_id not in stuck
                ]
                if not behind:
                    break
                for row in behind:
                    try:
                        outcome = scanning.scan(
                            connection,
                            str(row.transcript),
                            str(row.session_id),
                            deadline=time.monotonic() + SCAN_SLICE,
                            now=clock.iso(clock.now()),
                            policy=policy,
                        )
                    except Exception as error:  # a detached process: its errors are written down
                        errors.append(f"session {row.session_id}: {type(error).__name__}: {error}")
                        stuck.add(str(row.session_id))
                        continue
                    state = proposals.scan_state(connection, outcome.session_id)
                    if outcome.behind and state is not None and state.offset == row.offset:
                        stuck.add(outcome.session_id)  # no progress: a line still being written
            if location.config_for(database).capture_llm == "claude-cli":
                _draft(connection, errors)
            now = clock.iso(clock.now())
            with Transaction(connection):
                proposals.note(connection, "worker_last_run", now, now)
                # a clean run clears the last error: doctor reports only what still fails
                proposals.note(connection, "worker_error", "; ".join(errors)[:1000], now)
    return 0


def _draft(connection: Any, errors: list[str]) -> None:
    """Let the model word the pending proposals it has not worded yet (docs/guide/capture.md), within the
    daily call limit; a failure is written down and the deterministic proposal stands."""
    import tempfile

    from cortex_hooks import clock
    from cortex_hooks.capture import drafting, texts
    from cortex_hooks.capture import regex_synthesis as synth
    from cortex_hooks.redact import redact
    from cortex_hooks.store import proposals
    from cortex_hooks.store.transaction import Transaction

    claude = drafting.binary()
    if claude is None:
        errors.append("model drafting is on but no `claude` was found; proposals keep their own wording")
        return
    today = clock.now().date().isoformat()
    day, _, count = proposals.notes(connection).get("llm_calls", ("", ""))[0].partition(" ")
    used = int(count) if day == today and count.isdigit() else 0
    rows = proposals.undrafted(connection, max(0, drafting.DAILY_LIMIT - used))
    for row in rows:
        record = texts.record(row, proposals.occurrences(connection, row.id))
        with tempfile.TemporaryDirectory() as nowhere:  # no project files, no CLAUDE.md
            result = drafting.call(claude, drafting.prompt(record), nowhere)
        used += 1
        changes: dict[str, str] = {}
        if isinstance(result, str):
            outcome = f"failed: {result}"
        else:
            changes = {
                "anti_pattern": redact(result["anti_pattern"]),
                "correct_pattern": redact(result["correct_pattern"]),
            }
            failed = [item["failed"] for item in record["evidence"]]
            fixed = [
                item["fixed"]
                for item in record["evidence"]
                if item["fixed"] and row.signal != "user-correction"
            ]
            if synth.refusal(result["regex"], failed, fixed, proposals.successes(connection, "")) is None:
                changes["regex"] = result["regex"]
                outcome = "model"
            else:
                outcome = "model (its regex failed the checks and was discarded)"
        now = clock.iso(clock.now())
        with Transaction(connection):
            proposals.drafted(connection, row.id, outcome, changes, now)
            proposals.note(connection, "llm_calls", f"{today} {used}", now)


def _behind(row: Scan) -> bool:
    try:
        return os.stat(row.transcript).st_size > row.offset
    except OSError:
        return False  # a transcript gone: nothing left to scan


def main(argv: list[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else argv
    if len(arguments) not in (1, 3):
        print("usage: python -m cortex_hooks.capture.worker DATABASE [SESSION TRANSCRIPT]", file=sys.stderr)
        return 2
    try:
        return run(arguments[0], (arguments[1], arguments[2]) if len(arguments) == 3 else None)
    except Exception as error:  # nobody reads this process's stderr: the database keeps the error
        _note_error(arguments[0], f"{type(error).__name__}: {error}")
        return 1


def _note_error(database: str, message: str) -> None:
    try:
        from cortex_hooks import clock
        from cortex_hooks.store import proposals
        from cortex_hooks.store.connection import open_database
        from cortex_hooks.store.transaction import Transaction

        with closing(open_database(database)) as connection, Transaction(connection):
            now = clock.iso(clock.now())
            proposals.note(connection, "worker_error", message[:1000], now)
    except Exception:  # the database itself is unusable: doctor will say so
        return


if __name__ == "__main__":
    sys.exit(main())
