"""Loaded into a child process through PYTHONPATH by tests/test_crash_safety.py: numbers the SQL
steps of every connection the process opens (each statement as it starts, every few thousand
virtual-machine instructions inside one, and every few pages a backup copies) and stops the process
(SIGSTOP) at the step named by CORTEX_TEST_STOP_AT, so that the test kills it at a point it chose,
not at one a timer happened to hit. With CORTEX_TEST_STEPS set it writes the steps of a whole run to
that file instead."""

from __future__ import annotations

import os

STOP_AT = int(os.environ.get("CORTEX_TEST_STOP_AT") or 0)
STEPS = os.environ.get("CORTEX_TEST_STEPS")
TICK = 5000  # virtual-machine instructions between two steps inside one statement
BACKUP_PAGES = 16  # database pages copied between two steps of a backup

if STOP_AT or STEPS:
    import atexit
    import signal
    import sqlite3
    from typing import Any

    _steps: list[str] = []

    def _step(what: str) -> None:
        _steps.append(what)
        if len(_steps) == STOP_AT:
            os.kill(os.getpid(), signal.SIGSTOP)

    def _tick() -> int:
        _step("tick")
        return 0  # go on

    class _Backups(sqlite3.Connection):
        """A copy through the backup API (a checkpoint, a restore) runs no SQL: it is made of
        steps of BACKUP_PAGES pages each, one step of ours after each."""

        def backup(self, target: sqlite3.Connection, **options: Any) -> None:
            given = options.pop("progress", None)

            def progress(status: int, remaining: int, total: int) -> None:
                _step("backup")
                if given is not None:
                    given(status, remaining, total)

            if options.get("pages", -1) <= 0:
                options["pages"] = BACKUP_PAGES
            super().backup(target, progress=progress, **options)

    _connect = sqlite3.connect

    def _watched(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        connection: sqlite3.Connection = _connect(*args, factory=_Backups, **kwargs)
        connection.set_trace_callback(lambda statement: _step(" ".join(statement.split())[:60]))
        connection.set_progress_handler(_tick, TICK)
        return connection

    sqlite3.connect = _watched  # type: ignore[assignment]

    def _write(path: str) -> None:
        with open(path, "w", encoding="utf-8") as file:
            file.write("".join(f"{step}\n" for step in _steps))

    if STEPS:
        atexit.register(_write, STEPS)
