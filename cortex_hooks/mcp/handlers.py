"""Each MCP tool's call: its checked arguments (models.py) given to the library, the result
rendered as the text the CLI prints for the same command (the texts beside each result in cortex_hooks.api).

Where the CLI's argument parser refuses a combination (`--archived` with `--all`, an id below 1),
the tool refuses it here in the parser's words, so a reason reads the same from both doors.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cortex_hooks.api.databases import Databases
from cortex_hooks.checks import MAX_ID
from cortex_hooks.errors import USAGE, CortexError
from cortex_hooks.guard.weakening import Weakens
from cortex_hooks.mcp import models
from cortex_hooks.notes import Notes

_NOT_FIELDS = {
    "id",
    "global_",
    "auto_block",
    "pinned",
    "no_regex",
}  # flags, and what names the row or the scope


def _usage(command: str, message: str) -> CortexError:
    """A refusal in the words of the CLI's argument parser for `command`."""
    return CortexError(f"{message} (see cortex-hooks {command} --help)", USAGE)


def _refused(refused: Weakens, command: str) -> CortexError:
    """A weakening asked for through MCP: refused, with the command the person can run."""
    return CortexError(
        f"refused through MCP: {refused.what} would weaken the guard ({'; '.join(refused.reasons)}); "
        f"only the person can do that, in a terminal: {command}",
        USAGE,
    )


def _record_id(command: str, value: int) -> int:
    if not 1 <= value <= MAX_ID:
        raise _usage(command, f"argument ID: not an id: '{value}'")
    return value


def _learning(checked: models.AddLearning | models.UpdateLearning) -> dict[str, Any]:
    """The fields given (None: not given), as api.learnings takes them."""
    names = [name for name in type(checked).model_fields if name not in _NOT_FIELDS]
    given = {name: getattr(checked, name) for name in names if getattr(checked, name) is not None}
    if checked.pinned:
        given["pinned"] = True
    return given


def add_learning(checked: models.AddLearning, databases: Databases, notes: Notes) -> str:
    from cortex_hooks.api import learnings
    from cortex_hooks.api.learnings import added

    given = _learning(checked)
    if checked.auto_block:
        given["auto_block"] = True
    if checked.no_regex:
        if checked.regex is not None:
            raise _usage("add", "argument --no-regex: not allowed with argument --regex")
        given["regex"] = None
    return added(learnings.add(databases, given, notes))  # type: ignore[arg-type]


def update_learning(checked: models.UpdateLearning, databases: Databases, notes: Notes) -> str:
    from cortex_hooks.api import learnings
    from cortex_hooks.api.learnings import update_command, updated

    learning_id = _record_id("update", checked.id)
    given = _learning(checked)
    if checked.auto_block is not None:
        given["auto_block"] = checked.auto_block
    try:
        learning = learnings.update(databases, learning_id, given, notes, may_weaken=False)  # type: ignore[arg-type]
    except Weakens as refused:
        raise _refused(refused, update_command(learning_id, given, databases.scope)) from None
    return updated(learning)


MODEL_WIDTH = 172  # the model's list of learnings: each line as the CLI's was before it fit a terminal


def list_learnings(checked: models.ListLearnings, databases: Databases, notes: Notes) -> str:
    from cortex_hooks.api import learnings
    from cortex_hooks.api.learnings import table

    if checked.archived and checked.all:
        raise _usage("list", "argument --all: not allowed with argument --archived")
    shown = "archived" if checked.archived else "all" if checked.all else "active"
    listed = learnings.listing(databases, shown, notes, review=checked.review)
    return table(listed, width=MODEL_WIDTH)


def run_pruning(checked: models.RunPruning, databases: Databases, notes: Notes) -> str:
    from cortex_hooks.api.upkeep import prune, pruned

    try:
        counts = prune(databases, notes, dry_run=checked.dry_run, may_weaken=False)
    except Weakens as refused:
        raise _refused(refused, "cortex-hooks prune") from None
    return pruned(counts, dry_run=checked.dry_run)


def recall(checked: models.Recall, databases: Databases, notes: Notes) -> str:
    from cortex_hooks.api.recall import LIMIT, archived, results
    from cortex_hooks.api.recall import recall as found

    scopes = {"both": ("project", "global"), "project": ("project",), "global": ("global",)}[checked.scope]
    limit = LIMIT if checked.limit is None else checked.limit
    kind, memory_type = checked.kind, checked.type
    shown = found(
        databases, checked.query, notes, limit=limit, memory_type=memory_type, kind=kind, scopes=scopes
    )
    if shown:
        return results(shown)
    return results(
        shown, archived(databases, checked.query, memory_type=memory_type, kind=kind, scopes=scopes)
    )


def remember(checked: models.Remember, databases: Databases, notes: Notes) -> str:
    from cortex_hooks.api.memories import remember as stored
    from cortex_hooks.api.memories import remembered

    names = ("content", "type", "summary", "priority", "tags")
    given: dict[str, Any] = {
        name: getattr(checked, name) for name in names if getattr(checked, name) is not None
    }
    if checked.pinned:
        given["pinned"] = True
    return remembered(stored(databases, given, notes))  # type: ignore[arg-type]


def forget(checked: models.Forget, databases: Databases, notes: Notes) -> str:
    from cortex_hooks.api import forget as api
    from cortex_hooks.api.forget import forgotten

    if checked.id is not None:
        _record_id("forget", checked.id)
        if checked.match is not None:
            raise _usage("forget", "argument ID: not allowed with argument --match")
        return forgotten(api.by_id(databases, checked.id))
    if checked.match is None:
        raise _usage("forget", "one of the arguments ID --match is required")
    return forgotten(api.by_match(databases, checked.match))


def index_code(checked: models.IndexCode, databases: Databases, notes: Notes) -> str:
    from cortex_hooks.api.index_code import index_code as indexed_now
    from cortex_hooks.api.index_code import indexed

    return indexed(indexed_now(databases, checked.path, checked.prose, notes))


def consolidate(checked: models.Consolidate, databases: Databases, notes: Notes) -> str:
    from cortex_hooks.api.consolidate import consolidate as merged
    from cortex_hooks.api.consolidate import outcome, undo

    result = merged(databases, dry_run=checked.dry_run)
    again = undo(result.checkpoint, databases.scope) if result.checkpoint else None
    return outcome(result, dry_run=checked.dry_run, undo=again)


def reflect(checked: models.Reflect, databases: Databases, notes: Notes) -> str:
    from cortex_hooks.api import reflect as api

    if checked.action == "decay":
        days = api.DAYS if checked.days is None else checked.days
        entities = api.decay(databases, days=days, dry_run=checked.dry_run)
        return api.decayed(entities, days=days, scope=databases.scope, dry_run=checked.dry_run)
    from cortex_hooks.memory.similarity import CONSOLIDATE

    threshold = CONSOLIDATE if checked.threshold is None else checked.threshold
    limit = api.LIMIT if checked.limit is None else checked.limit
    return api.near_pairs(api.similar(databases, notes, threshold=threshold, limit=limit), threshold)


def snapshot(checked: models.NoArguments, databases: Databases, notes: Notes) -> str:
    from cortex_hooks.api.upkeep import snapshot as injected

    return injected(databases, notes).text


def access_stats(checked: models.NoArguments, databases: Databases, notes: Notes) -> str:
    from cortex_hooks.api.upkeep import accessed as most_accessed
    from cortex_hooks.api.upkeep import most_accessed as top

    return most_accessed(top(databases))


CALLS: dict[str, Callable[[Any, Databases, Notes], str]] = {
    "cortex_add_learning": add_learning,
    "cortex_update_learning": update_learning,
    "cortex_list_learnings": list_learnings,
    "cortex_run_pruning": run_pruning,
    "cortex_recall": recall,
    "cortex_remember": remember,
    "cortex_forget": forget,
    "cortex_index_code": index_code,
    "cortex_consolidate": consolidate,
    "cortex_reflect": reflect,
    "cortex_snapshot": snapshot,
    "cortex_get_access_stats": access_stats,
}
