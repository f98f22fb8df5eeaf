"""The MCP tools: each one is a CLI command (one implementation, two front doors).

A call's arguments are checked against the tool's model (models.py), turned into the command's
argv, and the command runs in this process with its output captured: the tool says exactly what
the command prints, and a command's error becomes `isError` with its one-line reason. The table
needs no pydantic, so `tools/list` is answered before pydantic is ever imported.
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Callable
from typing import Any

from cortex_hooks import location

# How an argument becomes argv: a subcommand (right after the command: `reflect decay --days 30`),
# a flag given when true, `--option=value`, one `--option=item` per item, a word after `--`, a
# pair of flags for true and false, or a choice among flag lists.
FLAG, VALUE, EACH, WORD, SWITCH, CHOICE = "flag", "value", "each", "word", "switch", "choice"
SUBCOMMAND = "subcommand"
GLOBAL = {"global": (FLAG, "--global")}
_FIELDS = {
    "regex": (VALUE, "--regex"),
    "tool": (VALUE, "--tool"),
    "target": (VALUE, "--target"),
    "severity": (VALUE, "--severity"),
    "confidence": (VALUE, "--confidence"),
    "context": (VALUE, "--context"),
    "anti_pattern": (VALUE, "--anti-pattern"),
    "correct_pattern": (VALUE, "--correct"),
    "pinned": (FLAG, "--pin"),
    **GLOBAL,
}
Arguments = dict[str, tuple[Any, ...]]
Dispatch = Callable[[list[str]], int]  # the CLI's: parse argv, run the command


class Tool:
    """One tool: the CLI words it runs and how each argument becomes argv. (A plain class, not a
    dataclass: `dataclasses` would add its import to every start of the server.)"""

    __slots__ = ("arguments", "command", "description", "name", "writes")

    def __init__(
        self,
        name: str,
        command: tuple[str, ...],
        description: str,
        arguments: Arguments | None = None,
        *,
        writes: bool = False,  # may create the database (the others say when there is none)
    ) -> None:
        self.name = name
        self.command = command
        self.description = description
        self.arguments = arguments or {}
        self.writes = writes


TOOLS = (
    Tool(
        "cortex_add_learning",
        ("add",),
        "Record a learning: an anti-pattern, the correct way, and a regex the PreToolUse hook matches "
        "against tool calls (warns, or with auto_block denies once trusted). Returns the new id (#12).",
        {**_FIELDS, "auto_block": (FLAG, "--auto-block")},
        writes=True,
    ),
    Tool(
        "cortex_update_learning",
        ("update",),
        "Change fields of a learning by id; the others stay. Returns what was updated.",
        {**_FIELDS, "auto_block": (SWITCH, "--auto-block", "--no-auto-block"), "id": (WORD,)},
    ),
    Tool(
        "cortex_list_learnings",
        ("list",),
        "List learnings, one line each: id, confidence, flags, tool/target, anti-pattern -> correct. "
        "Not an access.",
        {
            "archived": (FLAG, "--archived"),
            "all": (FLAG, "--all"),
            "review": (FLAG, "--review"),
            **GLOBAL,
        },
    ),
    Tool(
        "cortex_run_pruning",
        ("prune",),
        "Ebbinghaus pruning: archive never-used old learnings, decisions and errors (never deletes). "
        "Returns how many were (or, with dry_run, would be) archived.",
        {"dry_run": (FLAG, "--dry-run")},
    ),
    Tool(
        "cortex_recall",
        ("recall",),
        "Search what the memory knows (memories, learnings, decisions, errors, todos of the project "
        "and the user), best first. Returns each result's id, scope, kind, score and content.",
        {
            "query": (WORD,),
            "limit": (VALUE, "--limit"),
            "type": (VALUE, "--type"),
            "kind": (VALUE, "--kind"),
            "scope": (CHOICE, {"both": [], "project": ["--project-only"], "global": ["--global-only"]}),
        },
    ),
    Tool(
        "cortex_remember",
        ("remember",),
        "Store a memory (knowledge worth keeping across sessions). Returns the new id (#12) and the "
        "memories it relates to.",
        {
            "content": (WORD,),
            "type": (VALUE, "--type"),
            "summary": (VALUE, "--summary"),
            "priority": (VALUE, "--priority"),
            "tags": (EACH, "--tag"),
            "pinned": (FLAG, "--pin"),
            **GLOBAL,
        },
        writes=True,
    ),
    Tool(
        "cortex_forget",
        ("forget",),
        "Archive a memory (never deletes), by id or by the words that best match it. Says what was "
        "archived and the command that undoes it; when several match equally, lists them instead.",
        {"id": (WORD,), "match": (VALUE, "--match"), **GLOBAL},
    ),
    Tool(
        "cortex_index_code",
        ("index-code",),
        "Remember a file: the prose as a code description and the file's content (64 KiB at most) as "
        "a code memory, linked. Returns both ids.",
        {"path": (WORD,), "prose": (VALUE, "--prose"), **GLOBAL},
        writes=True,
    ),
    Tool(
        "cortex_consolidate",
        ("consolidate",),
        "Merge the memories flagged as nearly the same: a checkpoint first, then the highest-ranked "
        "of each group survives with the union of tags and the others become superseded. Says what "
        "merged and the command that undoes it (consolidate --restore CHECKPOINT).",
        {"dry_run": (FLAG, "--dry-run"), **GLOBAL},
    ),
    Tool(
        "cortex_reflect",
        ("reflect",),
        "Reflect on the memory. action decay: memories not accessed for `days` lose 10% of their "
        "confidence (floor 0.10), listing each change; action similar: pairs of near-duplicate "
        "memories and of near-duplicate learnings, most similar first (writes nothing).",
        {
            "action": (SUBCOMMAND,),
            "days": (VALUE, "--days"),
            "threshold": (VALUE, "--threshold"),
            "limit": (VALUE, "--limit"),
            "dry_run": (FLAG, "--dry-run"),
            **GLOBAL,
        },
    ),
    Tool(
        "cortex_snapshot",
        ("snapshot",),
        "The memory snapshot SessionStart injects, as it would be now. Changes nothing.",
    ),
    Tool(
        "cortex_get_access_stats",
        ("stats",),
        "The ten most accessed learnings, decisions and errors, with their access counts; the last "
        "7 days' matches, denies and warnings and the memories added, recalled, archived and pruned.",
    ),
)
BY_NAME = {tool.name: tool for tool in TOOLS}


def listing() -> list[dict[str, Any]]:
    """The tools as tools/list describes them (the schemas are generated ahead: schemas.py)."""
    from cortex_hooks.mcp.schemas import SCHEMAS

    return [
        {"name": tool.name, "description": tool.description, "inputSchema": SCHEMAS[tool.name]}
        for tool in TOOLS
    ]


def argv(tool: Tool, given: dict[str, Any]) -> list[str]:
    """The CLI argv of a call: options first, then `--` and the words (a word may begin with -)."""
    subcommands: list[str] = []
    options: list[str] = []
    words: list[str] = []
    for name, value in given.items():
        if value is None:
            continue
        how, *spelled = tool.arguments[name]
        if how == SUBCOMMAND:
            subcommands.append(str(value))
        elif how == FLAG and value:
            options.append(spelled[0])
        elif how == SWITCH:
            options.append(spelled[0] if value else spelled[1])
        elif how == VALUE:
            options.append(f"{spelled[0]}={value}")
        elif how == EACH:
            options.extend(f"{spelled[0]}={item}" for item in value)
        elif how == CHOICE:
            options.extend(spelled[0][value])
        elif how == WORD:
            words.append(str(value))
    if tool.name == "cortex_reflect" and subcommands == ["similar"]:
        options = [option for option in options if option != "--dry-run"]  # similar never writes
    return [*tool.command, *subcommands, *options, *(["--", *words] if words else [])]


def call(name: str, arguments: dict[str, Any], dispatch: Dispatch) -> tuple[str, bool]:
    """Run a tool through the CLI's `dispatch`: its text and whether it is an error. `name` is
    one of TOOLS."""
    tool = BY_NAME[name]
    from pydantic import ValidationError

    from cortex_hooks.mcp.models import MODELS
    from cortex_hooks.validation import explain

    try:
        checked = MODELS[name].model_validate(arguments)
    except ValidationError as error:
        return f"invalid arguments: {explain(error)}", True
    given = checked.model_dump(by_alias=True, exclude_unset=True)
    databases = _databases(tool, given)
    missing = [path for path in databases if not os.path.exists(path)]
    code, out, err = run_cli(dispatch, argv(tool, given))
    if code != 0:
        return err.strip().removeprefix("cortex-hooks: ") or f"failed (exit {code})", True
    text = out.rstrip("\n")
    notes = [line.removeprefix("cortex-hooks: ") for line in err.splitlines() if line.strip()]
    if not text:
        text = "(nothing to show)"
    if not tool.writes and len(missing) == len(databases):  # one scope alone is the usual case
        notes += [f"No database at {path} yet: nothing is stored there." for path in missing]
    return "\n".join([text, *notes]), False


def _databases(tool: Tool, given: dict[str, Any]) -> list[str]:
    """The database files a call works on, as the CLI finds them."""
    project, user = location.cli_database(None), location.global_database()
    if given.get("global"):
        return [user]
    if "scope" not in tool.arguments:
        return [project]
    scope = given.get("scope", "both")
    return {"both": [project, user], "project": [project], "global": [user]}[scope]


def run_cli(dispatch: Dispatch, words: list[str]) -> tuple[int, str, str]:
    """The CLI run in this process on these words, behind its own error boundary: exit status,
    stdout and stderr."""
    import contextlib

    from cortex_hooks import boundary

    cached = sys.modules.get("cortex_hooks.config_file")
    if cached is not None:  # it caches per path: a config.toml edited since the last call counts
        cached.load.cache_clear()
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = boundary.guarded(lambda: dispatch(words))
        except SystemExit as stop:  # argparse's --help or --version: never given, but never fatal
            code = stop.code if isinstance(stop.code, int) else 1
    return code, out.getvalue(), err.getvalue()
