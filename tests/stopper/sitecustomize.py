"""Loaded into a child process through PYTHONPATH by tests/test_crash_safety.py: numbers the SQL
steps of every connection the process opens (each statement as it starts, every few thousand
virtual-machine instructions inside one, and every few pages a backup copies) and stops the process
(SIGSTOP) at the step named by CORTEX_TEST_STOP_AT, so that the test kills it at a point it chose,
not at one a timer happened to hit. With CORTEX_TEST_STEPS set it writes the steps of a whole run to
that file instead, one a line: the database file of the connection, a tab, what the step was."""

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

    def _step(database: str, what: str) -> None:
        _steps.append(f"{database}\t{what}")
        if len(_steps) == STOP_AT:
            os.kill(os.getpid(), signal.SIGSTOP)

    class _Watched(sqlite3.Connection):
        """A connection whose steps are numbered. A copy through the backup API (a checkpoint, a
        restore) runs no SQL: it is made of steps of BACKUP_PAGES pages each, one step of ours
        after each, named after the database copied into."""

        database = ""

        def backup(self, target: sqlite3.Connection, **options: Any) -> None:
            given = options.pop("progress", None)
            into = getattr(target, "database", "?")

            def progress(status: int, remaining: int, total: int) -> None:
                _step(into, "backup")
                if given is not None:
                    given(status, remaining, total)

            if options.get("pages", -1) <= 0:
                options["pages"] = BACKUP_PAGES
            super().backup(target, progress=progress, **options)

    _connect = sqlite3.connect

    def _watched(database: Any, *args: Any, **kwargs: Any) -> sqlite3.Connection:
        connection = _connect(database, *args, factory=_Watched, **kwargs)
        assert isinstance(connection, _Watched)
        path = connection.database = os.path.abspath(os.fsdecode(database))

        def tick() -> int:
            _step(path, "tick")
            return 0  # go on

        connection.set_trace_callback(lambda statement: _step(path, " ".join(statement.split())[:200]))
        connection.set_progress_handler(tick, TICK)
        return connection

    sqlite3.connect = _watched  # type: ignore[assignment]

    def _write(path: str) -> None:
        with open(path, "w", encoding="utf-8") as file:
            file.write("".join(f"{step}\n" for step in _steps))

    if STEPS:
        atexit.register(_write, STEPS)
        _exit, _record = os._exit, STEPS

        def _leave(status: int) -> None:  # PreToolUse ends without the interpreter's teardown
            _write(_record)
            _exit(status)

        os._exit = _leave  # type: ignore[assignment]
