"""`import --from cortex [PATH]`: the original Cortex's database (default: the project's
`.claude/cortex.db`, read only) added to the scope acted on, in one transaction. Its learnings
become learnings (auto_block: block, else warn; a regex that does not compile, or that `add`
would refuse, is left out and said), its decisions, errors and unfinished items our decisions,
errors and todos, with counts and times kept where they mean the same. A row that cannot be a
record is listed with the reason; every other one is imported, or none with `--dry-run`."""

from __future__ import annotations

import os
from contextlib import closing
from typing import Any

from cortex_hooks import clock, location
from cortex_hooks.api import databases as db
from cortex_hooks.api import transfer
from cortex_hooks.api.databases import Databases
from cortex_hooks.api.wording import clean, count
from cortex_hooks.errors import CortexError
from cortex_hooks.guard import kind_records
from cortex_hooks.guard.learning_records import ImportedLearning
from cortex_hooks.notes import Notes
from cortex_hooks.store import kinds
from cortex_hooks.store import original_cortex as store
from cortex_hooks.validation import validated

_SEVERITIES = ("low", "medium", "high", "critical")
_PRIORITIES = ("high", "medium", "low")
_KINDS = {"learnings": "learnings", "decisions": "decisions", "errors": "errors", "unfinished": "todos"}


def default_path() -> str:
    return os.path.join(location.project_root(), ".claude", "cortex.db")


def import_database(
    databases: Databases, given: str | None, notes: Notes, *, dry_run: bool
) -> dict[str, Any]:
    """Read the original Cortex's rows, add what can be records; what was imported, what was
    changed on the way (a regex left out) and what was not, and why."""
    path = given or default_path()
    version, tables, left = store.read(path)
    changed: list[dict[str, Any]] = []
    refused: list[dict[str, Any]] = []
    records: dict[str, list[Any]] = {kind: [] for kind in _KINDS.values()}
    for table, kind in _KINDS.items():
        for row in tables[table]:
            try:
                records[kind].append(_record(table, row, changed))
            except CortexError as error:
                refused.append({"table": table, "id": row.get("id"), "reason": error.message})
    records, already = _not_yet_here(databases, records)
    parsed = transfer.ExportFile(**records)
    if dry_run:
        counts = {kind: len(rows) for kind, rows in records.items()}
    else:
        counts = (
            transfer.load(databases, parsed, notes) if any(records.values()) else dict.fromkeys(records, 0)
        )
        counts = {kind: counts.get(kind, 0) for kind in records}
    return {
        "source": path,
        "schema": version,
        "scope": databases.scope,
        "dry_run": dry_run,
        "imported": counts,
        "changed": changed,
        "not_imported": refused,
        "already_here": already,
        "left": left,
    }


def _not_yet_here(
    databases: Databases, records: dict[str, list[Any]]
) -> tuple[dict[str, list[Any]], dict[str, int]]:
    """The records the scope does not hold yet, and how many of each kind it does: a row of the
    same text that began at the same time (imported before: a second import adds nothing twice)."""
    connection = db.for_reading(databases)
    if connection is None:
        return records, dict.fromkeys(records, 0)
    with closing(connection):
        held = {kind: kinds.identities(connection, kind) for kind in records}
    kept = {
        kind: [row for row in rows if _identity(kind, row) not in held[kind]]
        for kind, rows in records.items()
    }
    return kept, {kind: len(records[kind]) - len(kept[kind]) for kind in records}


def _identity(kind: str, record: Any) -> tuple[str, str | None]:
    """A record's (text, time it began), by the fields that tell the stored rows of its kind apart
    (store.kinds.IDENTITY: a record's fields are named as the columns)."""
    text, began = kinds.IDENTITY[kind]
    return getattr(record, text), getattr(record, began)


def _record(table: str, row: dict[str, Any], changed: list[dict[str, Any]]) -> Any:
    what = f"{table} #{row.get('id')}"
    if table == "learnings":
        return _learning(row, what, changed)
    if table == "decisions":
        values = {
            "id": row["id"],
            "title": _text(row["title"]),
            "reasoning": _text(row["reasoning"]),
            "category": _text(row["category"]) or None,
            "superseded_by": _whole(row["superseded_by"]),
            "created_at": _time(row["created_at"]),
            "updated_at": _time(row["created_at"]),
            **_accessed(row),
        }
        return validated(kind_records.ImportedDecision, values, what)
    if table == "errors":
        first = _time(row["first_seen"])
        values = {
            "message": _text(row["error_message"]),
            "fix": _text(row["fix_description"]) or None,
            "severity": _one_of(row["severity"], _SEVERITIES),
            "occurrences": _count(row["occurrences"], 1),
            "first_seen": first,
            "last_seen": _time(row["last_seen"]) or first,
            **_accessed(row),
        }
        return validated(kind_records.ImportedError, values, what)
    done = _time(row["resolved_at"])
    values = {
        "text": _text(row["description"]),
        "priority": _one_of(row["priority"], _PRIORITIES),
        "done": row["resolved_at"] is not None,
        "done_at": done,
        "created_at": _time(row["created_at"]),
        "updated_at": done or _time(row["created_at"]),
    }
    return validated(kind_records.ImportedTodo, values, what)


def _learning(row: dict[str, Any], what: str, changed: list[dict[str, Any]]) -> ImportedLearning:
    values = {
        "anti_pattern": _text(row["anti_pattern"]),
        "correct_pattern": _text(row["correct_pattern"]),
        "regex": _text(row["detection_regex"]) or None,
        "context": _text(row["context"]) or None,
        "severity": _one_of(row["severity"], _SEVERITIES),
        "action": "block" if _whole(row["auto_block"]) else "warn",
        "created_at": _time(row["created_at"]),
        **_accessed(row),
    }
    values["updated_at"] = values["created_at"]
    try:
        learning: ImportedLearning = validated(ImportedLearning, values, what)
        return learning
    except CortexError as error:
        if values["regex"] is None or f"{what}: regex" not in error.message:
            raise
        changed.append(
            {
                "table": "learnings",
                "id": row.get("id"),
                "regex": values["regex"],
                "reason": error.message.removeprefix(f"{what}: regex: "),
            }
        )
        learning = validated(ImportedLearning, {**values, "regex": None}, what)
        return learning


def _accessed(row: dict[str, Any]) -> dict[str, Any]:
    """Access count, last access and archiving: schema 2's, none in schema 1."""
    return {
        "access_count": _count(row.get("access_count"), 0),
        "last_accessed": _time(row.get("last_accessed")),
        "archived_at": _time(row.get("archived_at")),
    }


def _text(value: object) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return "" if value is None else str(value)


def _one_of(value: object, allowed: tuple[str, ...]) -> str:
    text = _text(value).strip().lower()
    return text if text in allowed else "medium"


def _whole(value: object) -> int | None:
    try:
        return int(value) if isinstance(value, (int, float, str)) and not isinstance(value, bool) else None
    except (ValueError, OverflowError):
        return None


def _count(value: object, least: int) -> int:
    number = _whole(value)
    return number if number is not None and number >= least else least


def _time(value: object) -> str | None:
    """An ISO-8601 time in the one stored form; None for none, or one that cannot be read."""
    if not isinstance(value, str) or not value.strip():
        return None
    try:
        return clock.iso(clock.parse(value))
    except ValueError:
        return None


def imported(result: dict[str, Any]) -> str:
    where = clean(result["source"], one_line=True)
    counts = ", ".join(count(n, kind) for kind, n in result["imported"].items())
    verb = "Would import" if result["dry_run"] else "Imported"
    lines = [
        f"{verb} {counts} of the original Cortex (schema {result['schema']}) from {where} "
        f"({result['scope']}); {len(result['not_imported'])} not imported."
    ]
    already = sum(result["already_here"].values())
    if already:
        lines.append(f"  already here (imported before), not added again: {already}")
    for item in result["changed"]:
        regex, reason = clean(item["regex"], one_line=True), clean(item["reason"], one_line=True)
        lines.append(f"  {item['table']} #{item['id']}: imported without its regex {regex}: {reason}")
    for item in result["not_imported"]:
        lines.append(f"  not imported: {clean(item['reason'], one_line=True)}")
    if result["left"]:
        left = ", ".join(f"{table} ({n})" for table, n in result["left"].items())
        lines.append(f"  left as they are (nothing of ours holds them): {left}")
    return "\n".join(lines)
