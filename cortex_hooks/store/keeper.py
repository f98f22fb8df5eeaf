"""The keeper's copy of a database's guard (docs/internals/integrity.md), its SQL and files: kept
outside the project (location.keeper_folder), out of reach of every git command there, and of
Claude Code's sandbox.

- `copy.db`: the protective tables (PROTECTIVE) as cortex-hooks last left them. A write of ours
  that changes them copies those it touched there before it commits (store.transaction; `watch`
  notes which), except a match's
  boost: a boost only strengthens, and the copy may hold a lower confidence than the database (a
  confidence is judged against the gate, so that is no weakening).
- `backup.db`: the whole database, what a deleted or replaced one is restored from (made when the
  keeper adopts a database, refreshed at each session's end).
- `ledger.json`: what the database was when cortex-hooks last wrote it — its file's inode, its
  schema, and the count of changes to its protective tables, which triggers keep whoever writes
  (schema 22). A writer of ours writes the ledger inside its transaction, under SQLite's write
  lock, so the ledger follows the commits in their order.

Whatever changed the database without changing the ledger with it was another program: the keeper
(cortex_hooks.keeper) then compares the database with the copy (`weakened`) and restores.
"""

from __future__ import annotations

import json
import os
import sqlite3

from cortex_hooks import location, regular_file

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

PROTECTIVE = ("learning", "learning_confidence", "pack", "team_file", "team_entry")
COPY, BACKUP, LEDGER = "copy.db", "backup.db", "ledger.json"
# What of a learning protects (guard.weakening), compared between the copy and the database.
GUARDING = (
    "anti_pattern",
    "correct_pattern",
    "regex",
    "tool",
    "target",
    "severity",
    "action",
    "rewrite",
    "pinned",
    "archived_at",
    "muted",
)


def database_of(connection: sqlite3.Connection) -> str:
    """The file of a connection's main database ("" for one in memory)."""
    return next((row[2] for row in connection.execute("PRAGMA database_list") if row[1] == "main"), "")


def state(connection: sqlite3.Connection, path: str | None = None) -> dict[str, int]:
    """What the ledger holds of a database (at `path`, when the caller knows it): its inode,
    schema cookie and version, and the count of changes to its protective tables."""
    row = connection.execute(
        "SELECT changes, (SELECT schema_version FROM pragma_schema_version),"
        " (SELECT user_version FROM pragma_user_version) FROM keeper_state"
    ).fetchone()
    return {
        "inode": os.stat(path or database_of(connection)).st_ino,
        "schema": int(row[1]),
        "version": int(row[2]),
        "changes": int(row[0]),
    }


def ledger(folder: str) -> dict[str, Any] | None:
    """The ledger of a kept database (None: the keeper keeps none there)."""
    try:
        value = json.loads(regular_file.read_small(os.path.join(folder, LEDGER), 1 << 20))
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def write_ledger(folder: str, value: dict[str, Any]) -> None:
    os.makedirs(folder, mode=0o700, exist_ok=True)
    text = json.dumps(value, sort_keys=True, ensure_ascii=False).encode("utf-8")
    regular_file.write_whole(os.path.join(folder, LEDGER), text, mode=0o600)


def backup(connection: sqlite3.Connection, folder: str) -> None:
    """A whole copy of the database (SQLite's backup: consistent, whatever else is writing)."""
    from contextlib import closing  # here, not on every hook call (0.4 ms)

    path = os.path.join(folder, BACKUP)
    temporary = f"{path}.{os.getpid()}.tmp"
    with closing(sqlite3.connect(temporary)) as target:
        connection.backup(target)
    os.chmod(temporary, 0o600)
    os.replace(temporary, path)


def copy_protective(
    connection: sqlite3.Connection, folder: str, tables: tuple[str, ...] = PROTECTIVE
) -> None:
    """The protective tables as the connection sees them now (inside its write transaction: its
    own changes included, nobody else's possible), into the copy: a database of those tables
    alone, made anew (all of them copied) when it is missing or of another schema version.
    `tables`: the ones to copy, when the others are known to be as the copy holds them."""
    path = os.path.join(folder, COPY)
    version = connection.execute("PRAGMA user_version").fetchone()[0]
    copy = sqlite3.connect(path, isolation_level=None)
    try:
        if copy.execute("PRAGMA user_version").fetchone()[0] != version or not _has_tables(copy):
            copy.close()
            _made(connection, path, version)
            copy = sqlite3.connect(path, isolation_level=None)
            tables = PROTECTIVE
        copy.execute("BEGIN IMMEDIATE")
        for table in tables:
            columns = _columns(connection, table)
            listed = ", ".join(columns)
            rows = connection.execute(f"SELECT {listed} FROM main.{table}").fetchall()
            copy.execute(f"DELETE FROM {table}")
            marks = ", ".join("?" for _ in columns)
            copy.executemany(f"INSERT INTO {table} ({listed}) VALUES ({marks})", [tuple(row) for row in rows])
        copy.execute("COMMIT")
    finally:
        if copy.in_transaction:
            copy.execute("ROLLBACK")
        copy.close()


def watch(connection: sqlite3.Connection) -> None:
    """Note, for this connection alone, which protective tables its writes touch (TEMP triggers
    and table: nothing of them is in the file), so that a commit copies those, not all: a
    session's decay changes every confidence, never a learning's 21 columns. Nothing is noted yet
    as it returns."""
    exists = connection.execute("SELECT 1 FROM temp.sqlite_master WHERE name = 'keeper_touched'").fetchone()
    if exists:
        connection.execute("DELETE FROM temp.keeper_touched")
        return
    # (no OR IGNORE in the triggers: a statement's own conflict clause would override it)
    connection.execute("CREATE TEMP TABLE keeper_touched (name TEXT PRIMARY KEY) WITHOUT ROWID")
    for table in PROTECTIVE:
        for event in ("INSERT", "UPDATE", "DELETE"):
            connection.execute(
                f"""CREATE TEMP TRIGGER keeper_touched_{table}_{event.lower()} AFTER {event} ON main.{table}
                    BEGIN INSERT INTO keeper_touched SELECT '{table}'
                    WHERE NOT EXISTS (SELECT 1 FROM keeper_touched WHERE name = '{table}'); END"""
            )


def touched(connection: sqlite3.Connection) -> tuple[str, ...]:
    """The protective tables this connection's writes touched since `watch`."""
    return tuple(row[0] for row in connection.execute("SELECT name FROM temp.keeper_touched ORDER BY name"))


def _has_tables(copy: sqlite3.Connection) -> bool:
    names = {row[0] for row in copy.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    return set(PROTECTIVE) <= names


def _made(connection: sqlite3.Connection, path: str, version: int) -> None:
    """A new copy: the protective tables as the database declares them, and its version."""
    from contextlib import closing

    for stale in (path, path + "-wal", path + "-shm", path + "-journal"):
        if os.path.exists(stale):
            os.remove(stale)
    declared = connection.execute(
        """SELECT sql FROM main.sqlite_master WHERE type = 'table'
           AND name IN (SELECT value FROM json_each(:names))""",
        {"names": json.dumps(PROTECTIVE)},
    ).fetchall()
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    os.close(descriptor)
    with closing(sqlite3.connect(path, isolation_level=None)) as copy:
        for (sql,) in declared:
            copy.execute(sql)
        copy.execute(f"PRAGMA user_version = {int(version)}")


def _columns(connection: sqlite3.Connection, table: str) -> list[str]:
    """A table's stored columns (not its generated ones)."""
    return [row[1] for row in connection.execute(f"PRAGMA main.table_xinfo({table})") if row[6] == 0]


class Weakened:
    """What another program weakened of a kept database, found against the copy: the learnings
    (by id, each with what was lowered, in words), the packs disabled, the team file's trust."""

    __slots__ = ("learnings", "packs", "trust")

    def __init__(self) -> None:
        self.learnings: dict[int, list[str]] = {}
        self.packs: list[str] = []
        self.trust = False

    def __bool__(self) -> bool:
        return bool(self.learnings or self.packs or self.trust)


def weakened(connection: sqlite3.Connection, folder: str, gate: int) -> Weakened:
    """Each protection the copy holds and the database lost: a learning active in the copy that is
    gone, archived or muted, whose action, rewrite, regex, tool, target, anti-pattern, correct
    way or pin changed, whose severity went down, or whose confidence fell to the gate or below
    from above it (`gate`: the block gate in hundredths); a pack enabled in the copy and not in
    the database; the team file's trust gone. A learning added, a confidence raised, a pack
    enabled are kept: they strengthen."""
    from cortex_hooks.guard.weakening import lowered_in_words

    found = Weakened()
    kept = _rows(os.path.join(folder, COPY))
    if kept is None:
        return found
    listed = ", ".join(f"l.{column}" for column in GUARDING)
    now = {
        int(row[0]): dict(zip((*GUARDING, "confidence"), row[1:], strict=True))
        for row in connection.execute(
            f"""SELECT l.id, {listed}, c.confidence FROM main.learning AS l
                LEFT JOIN main.learning_confidence AS c ON c.learning_id = l.id"""
        )
    }
    learnings, packs, trusted = kept
    for learning_id, before in learnings.items():
        reasons = lowered_in_words(before, now.get(learning_id), gate)
        if reasons:
            found.learnings[learning_id] = reasons
    enabled = {str(row[0]) for row in connection.execute("SELECT name FROM main.pack")}
    found.packs = sorted(name for name in packs if name not in enabled)
    trust = connection.execute("SELECT trusted FROM main.team_file WHERE id = 1").fetchone()
    found.trust = trusted is not None and (trust is None or trust[0] != trusted)
    return found


def _rows(path: str) -> tuple[dict[int, dict[str, Any]], dict[str, tuple[Any, ...]], str | None] | None:
    """The copy's active learnings (their protective columns and confidence), its packs' rows and
    the team file's trusted digest, read through a connection of its own (None: no usable copy)."""
    from contextlib import closing

    if not os.path.exists(path):
        return None
    try:
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as copy:
            listed = ", ".join(f"l.{column}" for column in GUARDING)
            learnings = {
                int(row[0]): dict(zip((*GUARDING, "confidence"), row[1:], strict=True))
                for row in copy.execute(
                    f"""SELECT l.id, {listed}, c.confidence FROM learning AS l
                        LEFT JOIN learning_confidence AS c ON c.learning_id = l.id
                        WHERE l.archived_at IS NULL"""
                )
            }
            packs = {str(row[0]): tuple(row) for row in copy.execute("SELECT * FROM pack")}
            trust = copy.execute("SELECT trusted FROM team_file WHERE id = 1").fetchone()
    except sqlite3.Error:
        return None
    return learnings, packs, trust[0] if trust else None


def restore(connection: sqlite3.Connection, folder: str, found: Weakened) -> None:
    """Put back from the copy what `weakened` found lost, inside the caller's write transaction:
    each learning's stored row as the copy holds it (a row gone from the database whole) with its
    confidence, each pack's row, the team file's trust."""
    from contextlib import closing

    from cortex_hooks.store import learnings

    path = f"file:{os.path.join(folder, COPY)}?mode=ro"
    with closing(sqlite3.connect(path, uri=True)) as copy:
        for table, key, ids in (
            ("learning", "id", list(found.learnings)),
            ("learning_confidence", "learning_id", list(found.learnings)),
            ("pack", "name", found.packs),
        ):
            if not ids:
                continue
            columns = _columns(connection, table)
            listed = ", ".join(columns)
            rows = copy.execute(
                f"SELECT {listed} FROM {table} WHERE {key} IN (SELECT value FROM json_each(:ids))",
                {"ids": json.dumps(ids)},
            ).fetchall()
            marks = ", ".join("?" for _ in columns)
            connection.executemany(
                f"INSERT OR REPLACE INTO main.{table} ({listed}) VALUES ({marks})",
                [tuple(row) for row in rows],
            )
        if found.trust:
            trusted = copy.execute("SELECT trusted FROM team_file WHERE id = 1").fetchone()
            connection.execute(
                "UPDATE main.team_file SET trusted = :trusted WHERE id = 1", {"trusted": trusted[0]}
            )
    for learning_id in found.learnings:
        learnings.derive(connection, learning_id)  # the prefilter follows the regex put back


def restore_file(folder: str, database: str) -> bool:
    """The database put back from its backup, when it is gone (deleted or moved away); whether it
    was. (The copy's protective tables, newer, are put back over it as for any weakening.)"""
    from contextlib import closing

    source = os.path.join(folder, BACKUP)
    if not os.path.exists(source):
        return False
    location.create_private(database)
    with closing(sqlite3.connect(source)) as backup, closing(sqlite3.connect(database)) as target:
        backup.backup(target)
    os.chmod(database, 0o600)
    return True


# What the keeper put back in this process, each in a line for the person (a hook's
# systemMessage and the model's context, the CLI's stderr): read and cleared by `told`.
SETTLED: list[str] = []
EVENTS = "events.jsonl"


def settle(connection: sqlite3.Connection, folder: str) -> None:
    """Inside a write transaction of a database the ledger does not account for (another program
    wrote it since cortex-hooks did): what it weakened put back from the copy, and said."""
    database = database_of(connection)
    gate = location.config_for(database).policy.block_gate
    found = weakened(connection, folder, gate)
    if not found:
        return
    restore(connection, folder, found)
    said = [_said(connection, learning_id, reasons) for learning_id, reasons in found.learnings.items()]
    said += [f"the pack {name} was disabled: enabled again (to disable it: cortex-hooks packs disable {name})"
             for name in found.packs]  # fmt: skip
    if found.trust:
        said.append("the team file's trust was changed: put back (to trust it: cortex-hooks team trust)")
    record(folder, database, said)


def _said(connection: sqlite3.Connection, learning_id: int, reasons: list[str]) -> str:
    row = connection.execute(
        "SELECT anti_pattern FROM main.learning WHERE id = :id", {"id": learning_id}
    ).fetchone()
    from cortex_hooks import sanitize

    name = sanitize.line(str(row[0]) if row else "", 60)
    return (
        f"learning #{learning_id} ({name}): {'; '.join(reasons)}: put back "
        f"(to change it for real, in your own terminal: cortex-hooks update {learning_id} …, "
        f"archive {learning_id} or unpin {learning_id})"
    )


def record(folder: str, database: str, said: list[str]) -> None:
    """Events of the keeper: kept in its folder (doctor and the report list them) and said."""
    from cortex_hooks import clock

    SETTLED.extend(said)
    lines = "".join(
        json.dumps({"at": clock.iso(clock.now()), "database": database, "what": what}, ensure_ascii=False)
        + "\n"
        for what in said
    )
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        descriptor = os.open(os.path.join(folder, EVENTS), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        with os.fdopen(descriptor, "a", encoding="utf-8") as stream:
            stream.write(lines)
    except OSError:
        return  # said all the same; the file is only the list doctor shows


def events(folder: str, last: int = 20) -> list[dict[str, Any]]:
    """The keeper's latest events of a database, the newest last."""
    try:
        text = regular_file.read_small(os.path.join(folder, EVENTS), 8 << 20).decode("utf-8", "replace")
    except OSError:
        return []
    found = []
    for line in text.splitlines()[-last:]:
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            found.append(value)
    return found


def told() -> list[str]:
    """What the keeper put back since the last call (each said once)."""
    said = list(SETTLED)
    SETTLED.clear()
    return said
