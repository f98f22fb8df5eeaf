"""The rules a replay judges (api.replay): the active learnings of both scopes as the hook reads
them, with the built-in protection (the whole guard); or, alone, one learning (as if it were
active), a pack's learnings as enabling it would add them, or the learning accepting a proposal
would make — written into a database of their own (store.scratch). Each learning also as the
replay's report names it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cortex_hooks import clock, confidence, location
from cortex_hooks.api import databases as db
from cortex_hooks.api.databases import Databases
from cortex_hooks.errors import USAGE, CortexError, unknown
from cortex_hooks.frozen import Record
from cortex_hooks.guard.packs import shipped
from cortex_hooks.judging import proof
from cortex_hooks.notes import Notes
from cortex_hooks.store import learnings as store
from cortex_hooks.store.scopes import close

if TYPE_CHECKING:
    from cortex_hooks.config import Config
    from cortex_hooks.guard.learning_records import LearningFields


class Replayed(Record):
    """What a replay judges: the stored `databases` ((scope, path), project first) with `keys` the
    (scope, id) of each learning described; or `rows` to write into a database of their own (in
    scope `scope`, ids given in order); `described` each learning as the report names it."""

    described: list[dict[str, Any]]
    databases: list[tuple[str, str]]
    keys: list[tuple[str, int]]
    rows: list[dict[str, Any]]
    scope: str

    @property
    def whole(self) -> bool:
        """Whether the whole guard is replayed (then the built-in protection judges too)."""
        return not self.rows


def stored_learnings(databases: Databases, learning_id: int | None, notes: Notes) -> Replayed:
    """The active learnings of both scopes as the hook reads them (project first), or the one
    learning `learning_id` of the scope acted on, archived or muted as it may be, alone."""
    described: list[dict[str, Any]] = []
    keys: list[tuple[str, int]] = []
    rows: list[dict[str, Any]] = []
    names = (databases.scope,) if learning_id is not None else db.BOTH
    scopes, skipped = db.both(databases, names)
    notes.extend(skipped)
    try:
        for scope in scopes:
            config = location.config_for(scope.path, notes)
            if learning_id is None:
                found = store.select(scope.connection, "active")
            else:
                row = store.get(scope.connection, learning_id)
                found = [row] if row is not None else []
                if found and (found[0].archived_at or found[0].muted):
                    notes.add(f"replay: learning #{learning_id} is archived or muted: replayed as if active")
            for row in found:
                values: dict[str, Any] = row._asdict()
                described.append(_described(values, scope.name, config, id=row.id, slug=row.slug))
                keys.append((scope.name, row.id))
                rows.append({**values, "muted": 0, "archived_at": None})
        paths = [(scope.name, scope.path) for scope in scopes]
    finally:
        close(scopes)
    if learning_id is not None:
        if not rows:
            raise unknown("learning", learning_id)
        return Replayed(described, [], [], rows, databases.scope)
    return Replayed(described, paths, keys, [], databases.scope)


def pack_learnings(databases: Databases, name: str, notes: Notes) -> Replayed:
    """A pack's learnings (or a group's) as enabling it would add them: pinned, at the start
    confidence, their file's action and rewrite."""
    config = db.config(databases, notes)
    described: list[dict[str, Any]] = []
    rows: list[dict[str, Any]] = []
    for one in shipped.expand(name):
        for record in shipped.load(one):
            values = proof.learning_row(record, one, config)
            rows.append(values)
            described.append(_described(values, databases.scope, config, id=None, slug=record.id, pack=one))
    return Replayed(described, [], [], rows, databases.scope)


def proposal_learnings(
    databases: Databases, fields: LearningFields, proposal_id: int, notes: Notes
) -> Replayed:
    """The learning accepting a proposal would make (api.capture.preview)."""
    config = db.config(databases, notes)
    if not fields.regex:
        raise CortexError(f"proposal #{proposal_id} has no regex: nothing to replay", USAGE)
    values = _row(fields.model_dump(), slug=None, pack=None)
    described = [_described(values, databases.scope, config, id=None, proposal=proposal_id)]
    return Replayed(described, [], [], [values], databases.scope)


def _row(fields: dict[str, Any], **more: Any) -> dict[str, Any]:
    """A learning's every stored column (store.learnings.COLUMNS), from the fields given."""
    now = clock.iso(clock.now())
    values: dict[str, Any] = {
        "pinned": 0,
        "access_count": 0,
        "last_accessed": None,
        "created_at": now,
        "updated_at": now,
        "archived_at": None,
        "context": None,
        "muted": 0,
        "rewrite": None,
    }
    values.update({key: value for key, value in fields.items() if key in store.COLUMNS})
    values.update(more)
    return values


def _described(values: dict[str, Any], scope: str, config: Config, **names: Any) -> dict[str, Any]:
    """A learning as the report names it."""
    return {
        "id": names.get("id"),
        "slug": names.get("slug"),
        "pack": names.get("pack", values.get("pack")),
        "proposal": names.get("proposal"),
        "scope": scope,
        "anti_pattern": values["anti_pattern"],
        "correct_pattern": values["correct_pattern"],
        "regex": values["regex"],
        "tool": values["tool"],
        "target": values["target"],
        "action": values["action"],
        "rewrite": values["rewrite"],
        "confidence": confidence.as_number(values["confidence"]),
        "trusted": confidence.blocks(values["confidence"], config.policy),
    }
