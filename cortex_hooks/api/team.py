"""The team file (docs/guide/team.md): list what it holds and what is in force here, add a learning of this
project to it, trust it, mute one of its learnings, check it for a team's CI. The rules are
guard.team_rules (pure) and guard.packs.shared_format (the format), the reading api.team_file, the
SQL store.team."""

from __future__ import annotations

import json
import os
from contextlib import closing
from typing import Any

from cortex_hooks import clock, confidence, location, sanitize, stored
from cortex_hooks.api import databases as db
from cortex_hooks.api import team_file, team_read
from cortex_hooks.api.databases import Databases
from cortex_hooks.api.wording import clean, count
from cortex_hooks.errors import USAGE, CortexError
from cortex_hooks.guard import team_rules as team
from cortex_hooks.guard.packs import shared_format
from cortex_hooks.guard.team_rules import waiting_line as waiting
from cortex_hooks.notes import Notes
from cortex_hooks.store import learnings
from cortex_hooks.store import packs as packs_store
from cortex_hooks.store import team as store
from cortex_hooks.store.connection import Transaction
from cortex_hooks.stored.team_rows import TeamFile, TeamListing

SHOWN_PATH = f"{location.TEAM_FOLDER}/{location.TEAM_NAME}"


def _project(databases: Databases) -> Databases:
    if databases.scope == "global":
        raise CortexError("the team file belongs to the project: --global does not apply", USAGE)
    return databases


def listing(databases: Databases, notes: Notes) -> dict[str, Any]:
    """The file's entries, what each declares and what is in force here, its trust and problems."""
    project = location.project_root()
    connection = db.for_reading(_project(databases))
    path = location.team_path(project)
    if connection is None:  # reading never creates a database: the file as it is, nothing trusted
        records, problems = parsed(project)
        entries = [_declared(record) for record in records]
        return {"path": path, "exists": os.path.lexists(path), "trusted": False, "entries": entries,
                "problems": problems}  # fmt: skip
    with closing(connection):
        notes.extend(team_file.refresh(connection, project, databases.project))
        state = store.state(connection)
        trusted = store.trusted(connection)
        entries = [_entry(row) for row in store.listed(connection)]
    problems = _problems(state)
    return {"path": path, "exists": os.path.lexists(path), "trusted": trusted, "entries": entries,
            "problems": problems}  # fmt: skip


def _declared(record: shared_format.Entry) -> dict[str, Any]:
    if isinstance(record, shared_format.SharedMemory):
        return {"id": record.id, "kind": "memory", "action": None, "in_force": None, "rewrite": None,
                "rewrite_in_force": None, "muted": False, "confidence": None, "hits": 0}  # fmt: skip
    return {"id": record.id, "kind": "learning", "action": record.action, "in_force": "warn",
            "rewrite": record.rewrite, "rewrite_in_force": None, "muted": False, "confidence": None,
            "hits": 0}  # fmt: skip


def _entry(row: TeamListing) -> dict[str, Any]:
    learning = row.kind == "learning"
    in_force = row.in_force if learning else None
    return {
        "id": row.id,
        "kind": row.kind,
        "action": row.action,
        "in_force": in_force,
        "rewrite": row.rewrite,
        "rewrite_in_force": row.rewrite_in_force if learning else None,
        "muted": bool(row.muted) if learning else False,
        "confidence": confidence.as_number(row.confidence)
        if learning and row.confidence is not None
        else None,
        "hits": (row.learning_hits if learning else row.memory_hits) or 0,
    }


def _problems(state: TeamFile | None) -> list[str]:
    if state is None:
        return []
    found = json.loads(state.problems or "[]")
    return [str(problem) for problem in found] if isinstance(found, list) else []


def parsed(project: str) -> tuple[list[shared_format.Entry], list[str]]:
    """The file's valid entries and its problems, read within bounds, without a database."""
    loaded = team_read.load(project)
    lines, said = team.lines(loaded.data or b"", cut=loaded.cut)
    problems = loaded.problems + said
    records: list[shared_format.Entry] = []
    seen: dict[str, int] = {}
    for line in lines:
        where = f"{location.TEAM_NAME} line {line.number}"
        if line.text is None:
            problems.append(f"{where}: not UTF-8 text")
            continue
        try:
            record = shared_format.entry(line.text, memories=True)
        except ValueError as error:
            problems.append(f"{where}: {error}")
            continue
        if record.id in seen:
            problems.append(f"{where}: the id {record.id} appears again (first on line {seen[record.id]})")
            continue
        seen[record.id] = line.number
        records.append(record)
    return records, problems


def trust(databases: Databases, notes: Notes) -> dict[str, Any]:
    """Accept the team file as it is now (its digest, as direnv's `allow`): its blocks, asks and
    rewrites take effect here; a changed file needs trusting again."""
    project = location.project_root()
    path = location.team_path(project)
    if not os.path.lexists(path):
        raise CortexError(f"no team file at {path} (cortex-hooks team add ID --from N writes one)", USAGE)
    with closing(db.for_writing(_project(databases), notes)) as connection:
        notes.extend(team_file.refresh(connection, project, databases.project, taken=True))
        with Transaction(connection):
            state = store.state(connection)
            digest = state.digest if state is not None else None
            if digest is None:
                raise CortexError(f"{path} could not be read: nothing to trust", USAGE)
            store.record_trust(connection, digest)
            store.put_in_force(connection, True)
        rows = store.listed(connection)
        counted = team.waiting([(row.action, row.rewrite) for row in rows])
        rewrites = [  # what runs instead of the agent's command from now on: shown, each one
            {"id": row.id, "regex": row.regex, "rewrite": row.rewrite}
            for row in rows
            if row.rewrite is not None
        ]
    return {
        "path": path,
        "digest": digest,
        "trusted": True,
        "entries": len(rows),
        **counted,
        "rewrites": rewrites,
    }


def mute(databases: Databases, team_id: str, *, muted: bool = True) -> dict[str, Any]:
    """Mute (or unmute) one team learning, for this person only (the file is the team's)."""
    missing = CortexError(f"no team learning {team_id!r} (cortex-hooks team list)", USAGE)
    connection = db.for_changing(_project(databases), missing)
    with closing(connection), Transaction(connection):
        if not store.set_muted(connection, team_id, muted, clock.iso(clock.now())):
            raise missing
    return {"id": team_id, "muted": muted}


def add(databases: Databases, team_id: str, learning_id: int, notes: Notes) -> dict[str, Any]:
    """Write learning #N of this project into the team file as `team_id`; the learning keeps its
    state and takes the id (this project's entry of it, taken whole here). A file that was
    trusted (or new) stays trusted: the person's own addition is no stranger's."""
    if not shared_format.SLUG.fullmatch(team_id):
        shown = sanitize.line(team_id, 80)
        raise CortexError(f"{shown!r} is no team id: a slug like `acme:no-force-push`", USAGE)
    project = location.project_root()
    path = location.team_path(project)
    unknown = CortexError(f"no learning #{learning_id} in this project's database", USAGE)
    connection = db.for_changing(_project(databases), unknown)
    with closing(connection):
        notes.extend(team_file.refresh(connection, project, databases.project))
        row = learnings.get(connection, learning_id)
        if row is None or row.archived_at is not None:
            raise unknown
        record = _record(row, team_id, learning_id)
        records, problems = parsed(project)
        if len(problems) != len([p for p in problems if " line " not in p]) or _unread(project, records):
            raise CortexError(
                f"{path} has lines that do not validate: fix them first (cortex-hooks team check)", USAGE
            )
        if any(item.id == team_id for item in records):
            raise CortexError(f"{team_id} is already in {SHOWN_PATH}", USAGE)
        owner = packs_store.slug_owner(connection, team_id)
        if owner is not None and owner.id != learning_id:
            raise CortexError(f"{team_id} is the id of learning #{owner.id} already", USAGE)
        was_trusted = store.trusted(connection) or not os.path.lexists(path)
        _write(project, shared_format.dump([*records, record]))
        with Transaction(connection):
            learnings.update(connection, learning_id, {"slug": team_id})
        notes.extend(team_file.refresh(connection, project, databases.project, taken=was_trusted))
        if was_trusted:
            with Transaction(connection):
                state = store.state(connection)
                store.record_trust(connection, state.digest if state is not None else None)
                store.put_in_force(connection, True)
    return {"id": team_id, "from": learning_id, "path": path, "action": record.action,
            "trusted": was_trusted}  # fmt: skip


def _unread(project: str, records: list[shared_format.Entry]) -> bool:
    loaded = team_read.load(project)
    lines, _said = team.lines(loaded.data or b"", cut=loaded.cut)
    return loaded.cut or len(lines) != len(records)


def _record(row: stored.Learning, team_id: str, learning_id: int) -> shared_format.SharedLearning:
    if row.pack == team.PACK:
        raise CortexError(f"learning #{learning_id} comes from the team file already", USAGE)
    if row.slug is not None and row.slug != team_id:
        raise CortexError(
            f"learning #{learning_id} is {row.slug}: add it under its own id "
            f"(cortex-hooks team add {row.slug} --from {learning_id})",
            USAGE,
        )
    if row.regex is None:
        raise CortexError(
            f"learning #{learning_id} has no regex: a team learning must match something", USAGE
        )
    values = {
        "id": team_id,
        "tool": row.tool,
        "target": row.target,
        "regex": row.regex,
        "anti_pattern": row.anti_pattern,
        "correct_pattern": row.correct_pattern,
        "action": row.action,
        "rewrite": row.rewrite,
        "severity": row.severity,
        "context": row.context,
    }
    try:
        return shared_format.SharedLearning.model_validate(values)
    except ValueError as error:
        raise CortexError(f"learning #{learning_id} cannot go into the team file: {error}", USAGE) from None


def _write(project: str, text: str) -> None:
    """The team file replaced whole (a reader never sees half of it)."""
    path = location.team_path(project)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    temporary = f"{path}.{os.getpid()}.tmp"
    try:
        with open(temporary, "w", encoding="utf-8", newline="\n") as stream:
            stream.write(text)
        os.replace(temporary, path)
    except OSError as error:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise CortexError(f"cannot write {path}: {error.strerror or error}") from None


# What people read of it, from the CLI and the MCP server alike. The texts of the team file: its
# list, what trusting or adding did, check's problems, the line SessionStart says while it waits to
# be trusted.

__all__ = ["added", "checked", "listed", "muted", "trusted", "waiting"]

PATH = ".claude/cortex-team.jsonl"


def listed(listed: dict[str, Any]) -> str:
    if not listed["exists"]:
        return f"No team file ({PATH}). Write one: cortex-hooks team add ID --from N"
    state = (
        "trusted"
        if listed["trusted"]
        else "NOT trusted: its blocks and asks act as warnings (cortex-hooks team trust)"
    )
    lines = [f"{PATH}: {_entries(len(listed['entries']))}, {state}"]
    for entry in listed["entries"]:
        if entry["kind"] == "memory":
            lines.append(f"  {entry['id']}  memory")
            continue
        acting = (
            entry["in_force"]
            if entry["in_force"] == entry["action"]
            else f"{entry['in_force']} (declares {entry['action']})"
        )
        muted = ", muted" if entry["muted"] else ""
        rewrite = ", rewrites" if entry["rewrite"] else ""
        lines.append(f"  {entry['id']}  {acting}{rewrite}{muted}, {count(entry['hits'], 'hits')}")
    lines += [f"  problem: {clean(problem, one_line=True)}" for problem in listed["problems"]]
    return "\n".join(lines)


def trusted(result: dict[str, Any]) -> str:
    acting = [
        count(result[name], plural)
        for name, plural in (("block", "blocks"), ("ask", "asks"), ("rewrite", "rewrites"))
        if result[name]
    ]
    what = f": {', '.join(acting)} now in force" if acting else ""
    lines = [f"Trusted {PATH} ({_entries(result['entries'])}, digest {result['digest'][:12]}){what}."]
    for entry in result.get("rewrites", []):  # each command it will now change before it runs
        lines.append(
            f"  rewrite turned on: {clean(entry['id'], one_line=True)}: what "
            f"`{clean(entry['regex'] or '', one_line=True)}` matches becomes "
            f"`{clean(entry['rewrite'], one_line=True)}`"
        )
    return "\n".join(lines)


def added(result: dict[str, Any]) -> str:
    trust = "" if result["trusted"] else " The file is not trusted here yet: cortex-hooks team trust."
    return (
        f"Added {result['id']} (learning #{result['from']}, {result['action']}) to {PATH}: commit it, "
        f"and each teammate's clone enforces it once they run cortex-hooks team trust.{trust}"
    )


def muted(result: dict[str, Any]) -> str:
    return f"{'Muted' if result['muted'] else 'Unmuted'} team learning {result['id']} (for you only)."


def checked(result: dict[str, Any]) -> str:
    if result["ok"]:
        return f"{PATH}: {_entries(result['entries'])}, no problem."
    return "\n".join(clean(problem, one_line=True) for problem in result["problems"])


def _entries(number: int) -> str:
    return f"{number} {'entry' if number == 1 else 'entries'}"
