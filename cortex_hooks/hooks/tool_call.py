"""A tool call, and the learnings that may match it: what PreToolUse reads on every call.

A call that matches nothing ends here, having cost a JSON parse and one index lookup per scope:
the prefilter's keys of its texts (guard.prefilter), the candidate rows whose tool matcher
accepts the tool and whose required literals are in the text, and nothing else — no regex, no
clock, no settings (see hooks.pre_tool_use).
"""

from __future__ import annotations

import json
import sqlite3

from cortex_hooks.guard import matching, prefilter
from cortex_hooks.scopes import Scope
from cortex_hooks.store import learnings as store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class ToolCall:
    __slots__ = ("cwd", "tool_input", "tool_name")

    def __init__(self, tool_name: str, tool_input: dict[str, Any], cwd: object = None) -> None:
        self.tool_name = tool_name
        self.tool_input = tool_input
        self.cwd = cwd  # where the team file is looked for, when Claude Code names no project


def lookups(tool_name: str, texts: dict[str, list[str]]) -> tuple[dict[str, list[str]], str]:
    """What the prefilter looks up per key letter (content and raw share theirs: a Bash
    command's loosened, see prefilter.lookup, so each text is cut into grams once), and the keys
    of the short texts: made once for every scope."""
    looked = dict(
        prefilter.lookup(target, tool_name, texts[target]) for target in ("content", "path", "input")
    )
    return looked, _text_keys(looked)


def candidates(
    scope: Scope,
    tool_name: str,
    texts: dict[str, list[str]],
    looked: tuple[dict[str, list[str]], str],
    problems: list[str],
) -> list[Any]:
    """One scope's learnings that may match: the prefilter's and the tool matcher's candidates,
    or, for a database another process holds, its guard file's learnings for this tool."""
    if scope.connection is None:
        return [
            row
            for row in scope.guard or []
            if row["target"] in texts and matching.tool_accepts(row["tool"], tool_name)
        ]
    return _indexed(scope.connection, tool_name, texts, looked, problems)


def _indexed(
    connection: sqlite3.Connection,
    tool_name: str,
    texts: dict[str, list[str]],
    looked: tuple[dict[str, list[str]], str],
    problems: list[str],
) -> list[sqlite3.Row]:
    """The learnings the prefilter and the tool matcher let through, without compiling a regex;
    `looked`: the texts by key letter and the keys of the short ones."""
    rows: list[sqlite3.Row] = []
    seen: dict[str, tuple[str, list[str]]] = {}  # each target's text as looked up, made once
    for row in store.candidates(connection, _lookup_keys(connection, *looked), tool_name):
        if (
            type(row["tool"]) is not str
            or type(row["regex"]) is not str
            or type(row["literals"]) is bytes
            or not (row["rewrite"] is None or type(row["rewrite"]) is str)
        ):
            problems.append(_unreadable(row))  # a hand edit: this learning is skipped, not the rest
        elif matching.tool_accepts(row["tool"], tool_name) and _satisfied(row, tool_name, texts, seen):
            rows.append(row)
    return rows


def _satisfied(
    row: sqlite3.Row, tool_name: str, texts: dict[str, list[str]], seen: dict[str, tuple[str, list[str]]]
) -> bool:
    """The learning's required literals, in its target's text as the prefilter looked it up."""
    target = row["target"]
    if target not in seen:
        seen[target] = prefilter.lookup(target, tool_name, texts[target])
    letter, fragments = seen[target]
    return prefilter.satisfied(row["literals"], fragments, loose=letter == prefilter.LOOSE)


def _unreadable(row: sqlite3.Row) -> str:
    from cortex_hooks.guard import hand_edits

    return hand_edits.named(row["id"], row) or f"learning #{row['id']} skipped: it cannot be read"


def _text_keys(looked: dict[str, list[str]]) -> str:
    """The prefilter keys short texts could satisfy (see cortex_hooks.guard.prefilter), as the JSON
    the candidate query reads: made once for every scope."""
    keys: list[str] = []
    for letter, fragments in looked.items():
        if sum(map(len, fragments)) <= prefilter.SCAN_ABOVE:
            keys += prefilter.text_keys(letter, fragments)
    return json.dumps(keys)


def _lookup_keys(connection: sqlite3.Connection, looked: dict[str, list[str]], short: str) -> str:
    """The keys of short texts, and those of one database's keys that a long text holds."""
    long = [
        key
        for letter, fragments in looked.items()
        if sum(map(len, fragments)) > prefilter.SCAN_ABOVE
        for key in prefilter.present_keys(store.keys_of_target(connection, letter), fragments)
    ]
    return json.dumps([*json.loads(short), *long]) if long else short
