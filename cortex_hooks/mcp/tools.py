"""The MCP tools: their table (tools/list), and a call: arguments checked against the tool's model
(models.py), the library called (calls.py), its result rendered as the text the CLI prints.

An expected failure (a regex that does not compile, an unknown id) is `isError` with its one-line
reason, worded as the CLI words it: the two front doors call the same functions. The table needs
no pydantic, so `tools/list` is answered before pydantic is ever imported.
"""

from __future__ import annotations

import os
from typing import Any

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cortex_hooks.api.databases import Databases


class Options:
    """Where the tools find the databases: `cortex-hooks mcp --db PATH --global-db PATH`; None
    for each, as the environment names them (CORTEX_DB, CLAUDE_PROJECT_DIR, CORTEX_GLOBAL_DB)."""

    __slots__ = ("db", "global_db")

    def __init__(self, db: str | None = None, global_db: str | None = None) -> None:
        self.db = db
        self.global_db = global_db


class Tool:
    """One tool as tools/list names it. (A plain class, not a dataclass: `dataclasses` would add
    its import to every start of the server.)"""

    __slots__ = ("description", "name", "writes")

    def __init__(self, name: str, description: str, *, writes: bool = False) -> None:
        self.name = name
        self.description = description
        self.writes = writes  # may create the database (the others say when there is none)


TOOLS = (
    Tool(
        "cortex_add_learning",
        "Record a learning: an anti-pattern, the correct way, and a regex the PreToolUse hook matches "
        "against tool calls (warns; with action block denies, with ask lets the user decide, once"
        " trusted). Returns the new id (#12).",
        writes=True,
    ),
    Tool(
        "cortex_update_learning",
        "Change fields of a learning by id; the others stay. Returns what was updated.",
    ),
    Tool(
        "cortex_list_learnings",
        "List learnings, one line each: id, confidence, flags, tool/target, anti-pattern -> correct. "
        "Not an access.",
    ),
    Tool(
        "cortex_run_pruning",
        "Ebbinghaus pruning of learnings, decisions and errors (not memories): archive those never "
        "used and old (never deletes). Returns how many of each were (or, with dry_run, would be) archived.",
    ),
    Tool(
        "cortex_recall",
        "Search what the memory knows (memories, learnings, decisions, errors, todos of the project "
        "and the user), best first. Returns each result's id, scope, kind, score and content.",
    ),
    Tool(
        "cortex_remember",
        "Store a memory (knowledge worth keeping across sessions). Returns the new id (#12) and the "
        "memories it relates to.",
        writes=True,
    ),
    Tool(
        "cortex_forget",
        "Archive a memory (never deletes), by id or by the words that best match it. Says what was "
        "archived and the command that undoes it; when several match equally, lists them instead.",
    ),
    Tool(
        "cortex_index_code",
        "Remember a file: the prose as a code description and the file's content (64 KiB at most) as "
        "a code memory, linked. Returns both ids.",
        writes=True,
    ),
    Tool(
        "cortex_consolidate",
        "Merge the memories flagged as nearly the same: a checkpoint first, then the highest-ranked "
        "of each group survives with the union of tags and the others become superseded. Says what "
        "merged and the command that undoes it (consolidate --restore CHECKPOINT).",
    ),
    Tool(
        "cortex_reflect",
        "Reflect on the memory. action decay: memories not accessed for `days` lose 10% of their "
        "confidence (floor 0.10), listing each change; action similar: pairs of near-duplicate "
        "memories and of near-duplicate learnings, most similar first (writes nothing).",
    ),
    Tool(
        "cortex_snapshot",
        "The memory snapshot SessionStart injects, as it would be now. Changes nothing.",
    ),
    Tool(
        "cortex_get_access_stats",
        "The ten most accessed learnings, decisions and errors, with their access counts; the last "
        "7 days' matches, denies and warnings and the memories added, recalled, archived and pruned.",
    ),
)
BY_NAME = {tool.name: tool for tool in TOOLS}


def listing() -> list[dict[str, Any]]:
    """The tools as tools/list describes them, each schema built from its model (models.py)."""
    from cortex_hooks.mcp.models import schema

    return [
        {"name": tool.name, "description": tool.description, "inputSchema": schema(tool.name)}
        for tool in TOOLS
    ]


# The tools that change a memory: the project's push surface follows them (api.surface.follow).
CHANGES_MEMORIES = frozenset(
    {"cortex_remember", "cortex_forget", "cortex_index_code", "cortex_consolidate", "cortex_reflect"}
)


def call(name: str, arguments: dict[str, Any], options: Options | None = None) -> tuple[str, bool]:
    """A tool's text and whether it is an error. `name` is one of TOOLS."""
    from pydantic import ValidationError

    from cortex_hooks import boundary, sanitize
    from cortex_hooks.api.databases import find
    from cortex_hooks.mcp.handlers import CALLS
    from cortex_hooks.mcp.models import MODELS
    from cortex_hooks.notes import Notes
    from cortex_hooks.validation import explain

    tool = BY_NAME[name]
    try:
        checked = MODELS[name].model_validate(arguments)
    except ValidationError as error:
        return f"invalid arguments: {explain(error)}", True
    given = options or Options()
    databases = find(given.db, given.global_db, global_scope=bool(getattr(checked, "global_", False)))
    boundary.works_on(databases.path)
    read = _read(databases, getattr(checked, "scope", None))
    missing = [path for path in read if not os.path.exists(path)]
    notes = Notes()
    try:
        text = CALLS[name](checked, databases, notes).rstrip("\n")
    except Exception as error:  # the CLI's boundary: the same one line, the same log entry
        message, _ = boundary.failure(error)
        return boundary.line("cortex-hooks", message).removeprefix("cortex-hooks: "), True
    if name in CHANGES_MEMORIES and not getattr(checked, "dry_run", False):
        from cortex_hooks.api import surface

        surface.follow(databases, notes)  # the next session's Claude Code reads the surface current
    said = [sanitize.line(note) for note in notes.said]
    if not tool.writes and len(missing) == len(read):  # one scope alone is the usual case
        said += [f"No database at {path} yet: nothing is stored there." for path in missing]
    return "\n".join([text or "(nothing to show)", *said]), False


def _read(databases: Databases, scope: str | None) -> list[str]:
    """The database files a call reads: the scope acted on, or those of recall's `scope`."""
    if databases.scope == "global":
        return [databases.user]
    if scope is None:
        return [databases.project]
    return {
        "both": [databases.project, databases.user],
        "project": [databases.project],
        "global": [databases.user],
    }[scope]
