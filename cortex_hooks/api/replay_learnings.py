"""The learnings a replay judges (api.replay): the active ones of both scopes as the hook reads
them, or one learning, a pack's as enabling it would add them, or the learning accepting a
proposal would make; each as the replay's judge reads it (replay.judge.Learned) and as its report
names it."""

from __future__ import annotations

from typing import Any

from cortex_hooks import confidence, location
from cortex_hooks.api import databases as db
from cortex_hooks.api.databases import Databases
from cortex_hooks.api.learnings import readable_rows
from cortex_hooks.errors import USAGE, CortexError, unknown
from cortex_hooks.guard import prefilter
from cortex_hooks.notes import Notes
from cortex_hooks.replay.judge import Learned
from cortex_hooks.scopes import close
from cortex_hooks.store import learnings as store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cortex_hooks.config import Config
    from cortex_hooks.guard.records import LearningFields
    from cortex_hooks.guard.shared import SharedLearning


def stored_learnings(
    databases: Databases, learning_id: int | None, notes: Notes
) -> tuple[list[Learned], list[dict[str, Any]]]:
    """The active learnings of both scopes as the hook reads them (project first), or the one
    learning `learning_id` of the scope acted on, archived or muted as it may be."""
    learned: list[Learned] = []
    described: list[dict[str, Any]] = []
    names = (databases.scope,) if learning_id is not None else db.BOTH
    scopes, skipped = db.both(databases, names)
    notes.extend(skipped)
    try:
        for scope in scopes:
            config = location.config_for(scope.path, notes)
            keys = store.keys_by_learning(scope.connection)
            if learning_id is None:
                rows = readable_rows(store.select(scope.connection, "active"), notes)
            else:
                row = store.get(scope.connection, learning_id)
                rows = readable_rows([row], notes) if row is not None else []
                if rows and (row is not None and (row["archived_at"] or row["muted"])):
                    notes.add(f"replay: learning #{learning_id} is archived or muted: replayed as if active")
            for row in rows:
                values = dict(row)
                if learning_id is not None:
                    values["muted"] = 0
                stored = tuple(sorted(keys.get(row["id"], ()))) or tuple(
                    prefilter.keys(row["regex"], row["target"])
                )
                learned.append(_learned(values, stored, scope.name, config))
                described.append(_described(values, scope.name, config, id=row["id"], slug=row["slug"]))
    finally:
        close(scopes)
    if learning_id is not None and not learned:
        raise unknown("learning", learning_id)
    return learned, described


def pack_learnings(
    databases: Databases, name: str, notes: Notes
) -> tuple[list[Learned], list[dict[str, Any]]]:
    """A pack's learnings (or a group's) as enabling it would add them: pinned, at the start
    confidence, their file's action and rewrite."""
    from cortex_hooks.guard import packs

    config = db.config(databases, notes)
    learned: list[Learned] = []
    described: list[dict[str, Any]] = []
    for one in packs.expand(name):
        for record in packs.load(one):
            values = _pack_row(record, one, config)
            learned.append(
                _learned(values, tuple(prefilter.keys(record.regex, record.target)), databases.scope, config)
            )
            described.append(_described(values, databases.scope, config, id=None, slug=record.id, pack=one))
    return learned, described


def proposal_learnings(
    databases: Databases, fields: LearningFields, proposal_id: int, notes: Notes
) -> tuple[list[Learned], list[dict[str, Any]]]:
    """The learning accepting a proposal would make (api.capture.preview)."""
    config = db.config(databases, notes)
    values = {
        **fields.model_dump(),
        "id": 0,
        "slug": None,
        "muted": 0,
        "literals": prefilter.literals(fields.regex),
    }
    if not fields.regex:
        raise CortexError(f"proposal #{proposal_id} has no regex: nothing to replay", USAGE)
    keys = tuple(prefilter.keys(fields.regex, fields.target))
    return [_learned(values, keys, databases.scope, config)], [
        _described(values, databases.scope, config, id=None, proposal=proposal_id)
    ]


def _pack_row(record: SharedLearning, pack: str, config: Config) -> dict[str, Any]:
    return {
        "id": 0,
        "anti_pattern": record.anti_pattern,
        "correct_pattern": record.correct_pattern,
        "severity": record.severity,
        "regex": record.regex,
        "tool": record.tool,
        "target": record.target,
        "literals": prefilter.literals(record.regex),
        "action": record.action,
        "rewrite": record.rewrite,
        "confidence": config.policy.start,
        "muted": 0,
        "slug": record.id,
        "pack": pack,
    }


def _learned(values: dict[str, Any], keys: tuple[str, ...], scope: str, config: Config) -> Learned:
    return Learned(values, keys, scope, config.policy, (config.regex_timeout, config.regex_timeout_per_mib))


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
