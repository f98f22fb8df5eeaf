"""What a hook does before it judges a call: every kept database and watched file
compared with what cortex-hooks last left, a weakening put back from the keeper's copy, and what
was put back told — to the person (a systemMessage) and to the model.

Cheap when nothing changed, as on almost every call: the ledger read, the database's count of
protective changes and each watched file's stat; nothing is compared, copied or imported more.
"""

from __future__ import annotations

import os
import sqlite3

from cortex_hooks import location, regular_file
from cortex_hooks.store import keeper

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cortex_hooks.store.scopes import Scope

KEYS = ("inode", "schema", "version", "changes")


def restore_missing(databases: list[str]) -> None:
    """Each kept database that is gone (deleted, moved away) put back from its backup, before the
    hook opens it (and said, see store.keeper.told)."""
    for database in databases:
        if os.path.exists(database):
            continue
        folder = location.keeper_folder(database)
        if keeper.ledger(folder) is None:
            continue  # never kept here: hooks never create a database
        if keeper.restore_file(folder, database):
            said = (
                f"the guard's database {database} was deleted or moved away: put back from the copy "
                "kept outside the project (to remove it for real, in your own terminal: "
                "cortex-hooks uninstall --purge)"
            )
            keeper.record(folder, database, [said])


def check(scopes: list[Scope]) -> list[str]:
    """Each open scope's database and watched files against the keeper's ledger; a weakening put
    back (its database's under its own write lock, see store.transaction). What was put back,
    in words (a database another process holds now is compared at a later call)."""
    for scope in scopes:
        if scope.connection is None:
            continue
        folder = location.keeper_folder(scope.path)
        ledger = keeper.ledger(folder)
        if ledger is None:
            continue
        try:
            now = keeper.state(scope.connection, scope.path)
        except (sqlite3.Error, OSError):
            continue
        if any(ledger.get(key) != now[key] for key in KEYS):
            _settled(scope)
        watched = ledger.get("files")
        if isinstance(watched, dict) and watched:
            _files(folder, scope.path, watched)
    return keeper.told()


def _settled(scope: Scope) -> None:
    """The database settled: a write transaction's beginning puts back what was weakened."""
    from cortex_hooks.store.transaction import Transaction, locked

    try:
        with Transaction(scope.connection, light=True):
            pass
    except sqlite3.OperationalError as error:
        if not locked(error):
            raise  # the next call compares again; a lock is no reason to wait


def _files(folder: str, database: str, watched: dict[str, object]) -> None:
    changed = False
    for path, entry in list(watched.items()):
        if not isinstance(entry, dict) or regular_file.fingerprint(path) == entry.get("fingerprint"):
            continue
        from cortex_hooks.keeper import watched_files  # a file changed: rare, and only then

        watched[path], said = watched_files.checked(folder, path, entry)
        changed = True
        if said is not None:
            keeper.record(folder, database, [said])
    if changed:
        ledger = keeper.ledger(folder) or {}
        keeper.write_ledger(folder, {**ledger, "files": {**(ledger.get("files") or {}), **watched}})


def adopt(connection: sqlite3.Connection, database: str, watched: dict[str, str]) -> None:
    """Keep a database and watch these files of it (path: kind), as they are now: install, and
    the first session start of a database kept by no earlier version. A whole backup first (taken
    outside any transaction of this connection: SQLite's backup waits for it), then, in one write
    transaction, the copy of its protective tables and the ledger."""
    from cortex_hooks.keeper import watched_files
    from cortex_hooks.store.transaction import Transaction

    folder = location.keeper_folder(database)
    os.makedirs(folder, mode=0o700, exist_ok=True)
    keeper.backup(connection, folder)
    with Transaction(connection, kept=False):  # the ledger is written here, not by the transaction
        keeper.copy_protective(connection, folder)
        keeper.write_ledger(folder, {"database": keeper.database_of(connection), **keeper.state(connection)})
    ledger = keeper.ledger(folder) or {}
    entries = dict(ledger.get("files") or {})
    entries.update({path: watched_files.keep(folder, path, kind) for path, kind in watched.items()})
    keeper.write_ledger(folder, {**ledger, "files": entries})


def adopt_new(scope: Scope, project: str | None) -> bool:
    """Keep a database no version kept yet (the first session start after an upgrade), watching
    its config file and, for the project's, the settings files that hold our hooks; whether it
    was adopted now."""
    if scope.connection is None or keeper.ledger(location.keeper_folder(scope.path)) is not None:
        return False
    adopt(scope.connection, scope.path, watched(scope.path, project))
    return True


def watched(database: str, project: str | None) -> dict[str, str]:
    """The files the keeper watches for a database: its config file, and (for a project's) every
    settings file of the project and the user that the agent could write, whether it holds our
    hooks or not (`disableAllHooks` or an `env` entry in any of them would reach the guard), and
    the other agents' settings and hook files (their hooks dropped or switched off is put back)."""
    from cortex_hooks.judging import protection
    from cortex_hooks.keeper import environment

    found = {location.config_path(database): "config"}
    found.update(dict.fromkeys(environment.writable_settings(project) if project else [], "settings"))
    if project:  # the other agents' settings and hook files, of the project and the user
        found.update(dict.fromkeys(protection.agent_files([project], os.path.expanduser("~")), "agent"))
    return found


def unwatch(database: str, paths: list[str]) -> None:
    """Stop watching these files of a kept database (uninstall took our hooks out of them)."""
    folder = location.keeper_folder(database)
    ledger = keeper.ledger(folder)
    if ledger is None:
        return
    entries = {path: entry for path, entry in (ledger.get("files") or {}).items() if path not in paths}
    keeper.write_ledger(folder, {**ledger, "files": entries})


def follow(databases: list[str], path: str, kind: str) -> None:
    """The keeper's copy of a watched file follows a change cortex-hooks made to it itself
    (install or uninstall --agent), in each kept database that watches it: never put back."""
    from cortex_hooks.keeper import watched_files

    for database in databases:
        folder = location.keeper_folder(database)
        ledger = keeper.ledger(folder)
        if ledger is None or path not in (ledger.get("files") or {}):
            continue
        entries = {**ledger["files"], path: watched_files.keep(folder, path, kind)}
        keeper.write_ledger(folder, {**ledger, "files": entries})
