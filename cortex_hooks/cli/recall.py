"""CLI recall (SPEC §9.3): what both scopes know about some words, best first; each result
returned counts one access."""

from __future__ import annotations

import argparse
import sqlite3
from contextlib import closing
from typing import Any

from cortex_hooks import clock, location
from cortex_hooks.cli import options, render
from cortex_hooks.errors import USAGE, CortexError
from cortex_hooks.memory import records
from cortex_hooks.memory.recall import Found, query_words, ranked
from cortex_hooks.store import kinds, learnings, memories, search
from cortex_hooks.store.connection import Missing, Transaction, open_database

KINDS = ("memory", "learning", "decision", "error", "todo")
SHOW = {
    "memory": "cortex-hooks memories show {id}",
    "learning": "cortex-hooks show {id}",
    "decision": "cortex-hooks decisions show {id}",
    "error": "cortex-hooks errors show {id}",
    "todo": "cortex-hooks todos list",
}


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    recall = commands.add_parser("recall", parents=[common], help="what the memory knows about some words")
    recall.add_argument("query", metavar="QUERY")
    recall.add_argument("--limit", type=int, default=10, metavar="N", help="at most N results (default 10)")
    recall.add_argument("--type", choices=records.TYPES, help="memories of this type only")
    recall.add_argument("--kind", choices=KINDS, help="one kind only")
    only = recall.add_mutually_exclusive_group()
    only.add_argument("--project-only", action="store_const", dest="scopes", const=("project",))
    only.add_argument("--global-only", action="store_const", dest="scopes", const=("global",))
    options.json_flag(recall)
    recall.set_defaults(run=run_recall, scopes=("project", "global"))


def run_recall(args: argparse.Namespace) -> int:
    if args.limit < 1:
        raise CortexError("--limit must be at least 1", USAGE)
    words = query_words(args.query)
    if not words:
        raise CortexError("nothing to recall: the query has no words (only punctuation or nothing)", USAGE)
    wanted = {args.kind} if args.kind else set(KINDS)
    if args.type:
        wanted &= {"memory"}
    match = search.words_query(words)
    paths = _paths(args)
    found: list[Found] = []
    for scope in args.scopes:
        with _opened(paths[scope]) as connection:
            if connection is None:
                continue
            top = memories.max_in_degree(connection)
            for row in search.found(connection, match, wanted):
                if args.type and row["type"] != args.type:
                    continue
                found.append(Found(scope, row, top))
    results = ranked(found, args.limit)
    _count_and_link(paths, results)
    if args.json:
        render.emit_json(results)
    else:
        render.say(_human(results) if results else "Nothing found.")
    return 0


def _paths(args: argparse.Namespace) -> dict[str, str]:
    return {
        "project": location.cli_database(getattr(args, "db", None)),
        "global": location.global_database(getattr(args, "global_db", None)),
    }


class _opened:
    """A scope's database for the duration of a block, or None when it does not exist."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.connection: sqlite3.Connection | None = None

    def __enter__(self) -> sqlite3.Connection | None:
        try:
            self.connection = open_database(self.path)
        except Missing:
            return None
        return self.connection

    def __exit__(self, *_: object) -> None:
        if self.connection is not None:
            self.connection.close()


def _count_and_link(paths: dict[str, str], results: list[dict[str, Any]]) -> None:
    """Each returned row counts one access; a memory's `source_of` edges are listed as `linked`."""
    now = clock.iso(clock.now())
    for scope, path in paths.items():
        mine = [result for result in results if result["scope"] == scope]
        if not mine:
            continue
        with closing(open_database(path)) as connection, Transaction(connection):
            ids = {kind: [r["id"] for r in mine if r["kind"] == kind] for kind in KINDS}
            memories.record_access(connection, ids["memory"], now)
            for learning_id in ids["learning"]:
                learnings.record_access(connection, learning_id, now)
            for kind in ("decision", "error"):
                for row_id in ids[kind]:
                    kinds.record_access(connection, kind + "s", row_id, now)
            linked = memories.sources_of(connection, ids["memory"])
        for result in mine:
            result["linked"] = [
                {"id": row["id"], "type": row["type"], "path": row["path"]}
                for row in linked.get(result["id"], [])
                if result["kind"] == "memory"
            ]
    for result in results:
        result.setdefault("linked", [])


def _human(results: list[dict[str, Any]]) -> str:
    blocks = []
    for result in results:
        show = SHOW[result["kind"]].format(id=result["id"]) + (
            " --global" if result["scope"] == "global" else ""
        )
        what = result["kind"] if result["kind"] != "memory" else f"memory, {result['type']}"
        head = f"#{result['id']} ({result['scope']} {what}, score {result['score']:.2f})"
        body = render.clean(str(result["content"]), one_line=True)
        lines = [head, f"  {body[:300]}{'…' if len(body) > 300 else ''}"]
        lines += [
            f"  linked: {link['type']} #{link['id']} {link['path'] or ''}".rstrip()
            for link in result["linked"]
        ]
        lines.append(f"  show: {show}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)
