"""The one error boundary of every process: one line on stderr and the documented exit code.

On the PreToolUse hot path: it imports nothing the hook would not import anyway.
"""

from __future__ import annotations

import sqlite3
import sys

from cortex_hooks.errors import FAILURE, CortexError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable


class _Process:
    database: str | None = None  # set once the process knows which database it works on


PROCESS = _Process()


def works_on(database: str) -> None:
    """The database this process works on: an unexpected error is logged beside it (log.py)."""
    PROCESS.database = database


def guarded(work: Callable[[], int], prefix: str = "cortex-hooks", *, hook: bool = False) -> int:
    """Run `work`; map every failure to one line on stderr and an exit status, never a traceback.

    For a hook this is the failure policy of SPEC §4.4: Claude Code treats exit 1 as a
    non-blocking hook error, so whatever goes wrong here the agent's tool call goes ahead.
    A deliberate deny is printed as JSON by the hook itself, never reached through here, and a
    hook fails with exit 1 whatever went wrong: exit 2 would block the tool call.
    """
    try:
        return work()
    except CortexError as error:
        return _fail(prefix, error.message, FAILURE if hook else error.code)
    except sqlite3.Error as error:
        return _fail(prefix, f"database error: {error}", FAILURE, error)
    except RecursionError:
        return _fail(prefix, "input nested too deeply", FAILURE)
    except MemoryError:
        return _fail(prefix, "out of memory", FAILURE)
    except KeyboardInterrupt:
        return _fail(prefix, "interrupted", 130)
    except Exception as error:  # the last line of defence: still one line, still no traceback
        return _fail(prefix, f"internal error: {type(error).__name__}: {error}", FAILURE, error)


def _fail(prefix: str, message: str, code: int, error: BaseException | None = None) -> int:
    """One line on stderr; an unexpected error also goes, with its traceback, to cortex.log."""
    if error is not None:
        from cortex_hooks import log

        logged = log.record(PROCESS.database, prefix, error)
        if logged is not None:
            message = f"{message[:1500]} (details in {logged})"
    line = " ".join(f"{prefix}: {message}".split())  # one line, whatever the message holds
    try:
        print(line[:2000], file=sys.stderr)
    except (OSError, ValueError):  # stderr closed: nothing more can be said
        return code
    return code
