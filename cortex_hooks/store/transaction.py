"""Write transactions: `BEGIN IMMEDIATE` … `COMMIT`, all or nothing; and the lock they wait on."""

from __future__ import annotations

import sqlite3

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import TracebackType


class Transaction:
    """`BEGIN IMMEDIATE` … `COMMIT`, or `ROLLBACK` on any exception: all or nothing.

    With `keep=False` it always rolls back: a preview of what the work would do.

    A database the keeper keeps (docs/internals/integrity.md, store.keeper) is checked as the
    transaction begins: if another program changed it since cortex-hooks last did, what it weakened
    is put back first, under this very write lock. As it commits, the keeper's copy of the
    protective tables follows what this transaction changed of them (unless `light`: a match's
    boost, which only strengthens), and the ledger follows the database. `kept=False` leaves the
    keeper out (its own writes).
    """

    def __init__(
        self, connection: sqlite3.Connection, *, keep: bool = True, light: bool = False, kept: bool = True
    ) -> None:
        self.connection = connection
        self.keep = keep
        self.light = light
        self.kept: tuple[str, dict[str, object], int] | None = None
        self._keeps = kept

    def __enter__(self) -> sqlite3.Connection:
        self.connection.execute("BEGIN IMMEDIATE")
        if self._keeps:
            try:
                self.kept = _begun(self.connection)
                if self.kept is not None and not self.light:
                    from cortex_hooks.store import keeper

                    keeper.watch(self.connection)
            except BaseException:
                self.connection.execute("ROLLBACK")
                raise
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
            if self.kept is not None:
                _kept(self.connection, *self.kept, light=self.light)
            self.connection.execute("COMMIT")
            if guarded:  # a blocking learning changed: its guard file, outside the lock
                guard_file.after_commit(self.connection)
        elif self.connection.in_transaction:
            self.connection.execute("ROLLBACK")


def _begun(connection: sqlite3.Connection) -> tuple[str, dict[str, object], int] | None:
    """A kept database's keeper folder, its ledger and the count of protective changes as this
    transaction begins, after putting back what another program weakened (None: not kept)."""
    from cortex_hooks import location
    from cortex_hooks.store import keeper

    database = keeper.database_of(connection)
    folder = location.keeper_folder(database) if database else ""
    ledger = keeper.ledger(folder) if folder else None
    if ledger is None:
        return None
    try:
        now = keeper.state(connection)
    except sqlite3.OperationalError:  # a schema before the keeper's (during a migration)
        return None
    if any(ledger.get(key) != now[key] for key in ("inode", "schema", "version", "changes")):
        keeper.settle(connection, folder)
        keeper.copy_protective(connection, folder)  # what is kept now: the copy holds it all
        now = keeper.state(connection)
        ledger = {**ledger, **now}
        keeper.write_ledger(folder, ledger)
    return folder, ledger, now["changes"]


def _kept(
    connection: sqlite3.Connection, folder: str, ledger: dict[str, object], begun: int, *, light: bool
) -> None:
    """Before COMMIT: the copy follows this transaction's protective changes (unless `light`), and
    the ledger the database as this transaction leaves it."""
    from cortex_hooks.store import keeper

    now = keeper.state(connection)
    if now["changes"] != begun and not light:
        keeper.copy_protective(connection, folder, keeper.touched(connection) or keeper.PROTECTIVE)
    keeper.write_ledger(folder, {**ledger, **now})


def locked(error: sqlite3.Error) -> bool:
    """Whether an error says another process holds the write lock."""
    return isinstance(error, sqlite3.OperationalError) and ("locked" in str(error) or "busy" in str(error))
