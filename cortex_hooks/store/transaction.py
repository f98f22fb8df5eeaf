"""Write transactions: `BEGIN IMMEDIATE` … `COMMIT`, all or nothing; and the lock they wait on."""

from __future__ import annotations

import sqlite3

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import TracebackType


class Transaction:
    """`BEGIN IMMEDIATE` … `COMMIT`, or `ROLLBACK` on any exception: all or nothing.

    With `keep=False` it always rolls back: a preview of what the work would do.
    """

    def __init__(self, connection: sqlite3.Connection, *, keep: bool = True) -> None:
        self.connection = connection
        self.keep = keep

    def __enter__(self) -> sqlite3.Connection:
        self.connection.execute("BEGIN IMMEDIATE")
        return self.connection

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if kind is None and self.keep:
            from cortex_hooks.store import guard_file

            guarded = guard_file.before_commit(self.connection)
            self.connection.execute("COMMIT")
            if guarded:  # a blocking learning changed: its guard file, outside the lock
                guard_file.after_commit(self.connection)
        elif self.connection.in_transaction:
            self.connection.execute("ROLLBACK")


def locked(error: sqlite3.Error) -> bool:
    """Whether an error says another process holds the write lock."""
    return isinstance(error, sqlite3.OperationalError) and ("locked" in str(error) or "busy" in str(error))
