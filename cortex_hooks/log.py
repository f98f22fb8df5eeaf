"""`cortex.log` beside the database: what one line on stderr cannot hold (the Cortex plan's
NFR-014: errors are logged, never block the session).

An internal error — a bug of ours, a database error — is appended with its traceback; the one
stderr line says where. The file is private (0600), at most LIMIT bytes, rotated once to
`cortex.log.1`. It holds error messages and code locations, never payload contents. Nothing is
logged where the database's folder does not exist: a log never creates one.
"""

from __future__ import annotations

import os

FILENAME = "cortex.log"
LIMIT = 256 * 1024  # bytes, then rotated once: at most twice this on disk
MESSAGE_LIMIT = 500  # characters of an error's message


def path_beside(database: str) -> str:
    return os.path.join(os.path.dirname(os.path.abspath(database)), FILENAME)


def record(database: str | None, where: str, error: BaseException) -> str | None:
    """Append the error and its traceback beside the database; the log's path, or None when
    nothing could be written (no database known yet, or no folder for it)."""
    if database is None:
        return None
    import traceback

    from cortex_hooks import clock

    path = path_beside(database)
    try:
        stamp = clock.iso(clock.now())
    except Exception:  # a bad CORTEX_NOW may be the very error being logged
        stamp = "?"
    message = " ".join(str(error).split())[:MESSAGE_LIMIT]
    frames = "".join(traceback.format_tb(error.__traceback__))
    entry = f"{stamp} {where}: {type(error).__name__}: {message}\n{frames}"
    try:
        if not os.path.isdir(os.path.dirname(path)):
            return None
        if os.path.exists(path) and os.path.getsize(path) > LIMIT:
            os.replace(path, path + ".1")
        descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        with os.fdopen(descriptor, "a", encoding="utf-8", errors="backslashreplace") as log:
            log.write(entry)
    except OSError:
        return None
    return path


def last_entries(database: str, count: int = 3) -> list[str]:
    """The first lines of the last `count` entries of the log beside this database."""
    try:
        with open(path_beside(database), encoding="utf-8", errors="replace") as log:
            heads = [line.rstrip("\n") for line in log if line[:1].isdigit() or line.startswith("? ")]
    except OSError:
        return []
    return heads[-count:]
