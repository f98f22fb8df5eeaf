"""The edge of every process: its one error boundary (one line on stderr and the documented exit
code), and the mark every process cortex-hooks starts carries (docs/guide/capture.md).

On the PreToolUse hot path: it imports nothing the hook would not import anyway.
"""

from __future__ import annotations

import os
import sqlite3
import sys

from cortex_hooks.errors import FAILURE, CortexError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable


class _Process:
    database: str | None = None  # set once the process knows which database it works on


PROCESS = _Process()
CHILD = "CORTEX_HOOKS_CHILD"


def is_child() -> bool:
    """Whether cortex-hooks started this process: then every hook does nothing and the MCP server
    exits at once (docs/guide/capture.md: never recurse)."""
    return os.environ.get(CHILD) == "1"


def child_environment(**extra: str) -> dict[str, str]:
    """The environment of every process cortex-hooks starts: this one's, marked as ours
    (CORTEX_HOOKS_CHILD=1) and without CLAUDECODE (docs/guide/capture.md), with `extra` on top."""
    environment = {name: value for name, value in os.environ.items() if name != "CLAUDECODE"}
    environment[CHILD] = "1"
    environment.update(extra)
    return environment


def works_on(database: str) -> None:
    """The database this process works on: an unexpected error is logged beside it (log.py)."""
    PROCESS.database = database


def guarded(work: Callable[[], int], prefix: str = "cortex-hooks", *, hook: bool = False) -> int:
    """Run `work`; map every failure to one line on stderr and an exit status, never a traceback.

    For a hook this is the failure policy of docs/internals/guarantees.md: Claude Code treats exit 1 as a
    non-blocking hook error, so whatever goes wrong here the agent's tool call goes ahead.
    A deliberate deny is printed as JSON by the hook itself, never reached through here, and a
    hook fails with exit 1 whatever went wrong: exit 2 would block the tool call.
    """
    try:
        return work()
    except (Exception, KeyboardInterrupt) as error:  # the last line of defence: still one line
        message, code = failure(error, prefix, hook=hook)
        try:
            print(line(prefix, message), file=sys.stderr)
        except (OSError, ValueError):  # stderr closed: nothing more can be said
            return code
        return code


def failure(error: BaseException, prefix: str = "cortex-hooks", *, hook: bool = False) -> tuple[str, int]:
    """What an error says to a person and the exit status it maps to: the one mapping of every
    process (the CLI prints it, the MCP server answers it as `isError`). An unexpected error also
    leaves its traceback in cortex.log beside the database, and its message says where."""
    if isinstance(error, CortexError):
        return error.message, FAILURE if hook else error.code
    if isinstance(error, sqlite3.Error):
        return _logged(prefix, f"database error: {error}", error), FAILURE
    if isinstance(error, RecursionError):
        return "input nested too deeply", FAILURE
    if isinstance(error, MemoryError):
        return "out of memory", FAILURE
    if isinstance(error, KeyboardInterrupt):
        return "interrupted", 130
    return _logged(prefix, f"internal error: {type(error).__name__}: {error}", error), FAILURE


def line(prefix: str, message: str) -> str:
    """The one stderr line of a failure, whatever the message holds."""
    return " ".join(f"{prefix}: {message}".split())[:2000]


def _logged(prefix: str, message: str, error: BaseException) -> str:
    from cortex_hooks import log

    logged = log.record(PROCESS.database, prefix, error)
    return message if logged is None else f"{message[:1500]} (details in {logged})"
