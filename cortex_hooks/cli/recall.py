"""CLI recall (SPEC §9.3): what both scopes know about some words, best first; each result
returned counts one access (`--peek`: none, and recall writes nothing)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from cortex_hooks import clock
from cortex_hooks.cli import database, options, render
from cortex_hooks.errors import USAGE, CortexError
from cortex_hooks.memory import vocabulary
from cortex_hooks.memory.recall import Found, query_words, ranked
from cortex_hooks.scopes import Scope, close
from cortex_hooks.store import kinds, learnings, memories
from cortex_hooks.store import recall as recall_store
from cortex_hooks.store.connection import Transaction

if TYPE_CHECKING:
    from cortex_hooks.embeddings.recall import Pending

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
    recall.add_argument("--type", choices=vocabulary.TYPES, help="memories of this type only")
    recall.add_argument("--kind", choices=KINDS, help="one kind only")
    only = recall.add_mutually_exclusive_group()
    only.add_argument("--project-only", action="store_const", dest="scopes", const=("project",))
    only.add_argument("--global-only", action="store_const", dest="scopes", const=("global",))
    recall.add_argument(
        "--peek", action="store_true", help="read only: the results count no access (benchmarks, replays)"
    )
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
    scopes, skipped = database.both(args, args.scopes)
    try:
        for note in skipped:
            render.note(note)
        vector = query_vector(database.embeddings(args), args.query) if scopes else None
        results = ranked(gather(scopes, words, wanted, args.type, vector, limit=args.limit), args.limit)
        for scope in scopes:
            mine = [result for result in results if result["scope"] == scope.name]
            _count_and_link(scope, mine, count=not args.peek)
    finally:
        close(scopes)
    if args.json:
        render.emit_json(results)
    else:
        render.say(_human(results) if results else "Nothing found.")
    return 0


def gather(
    scopes: list[Scope],
    words: list[str],
    wanted: set[str],
    memory_type: str | None = None,
    vector: tuple[str, bytes] | Pending | None = None,
    *,
    limit: int = 10,
) -> list[Found]:
    """What each scope holds for a query, unranked and without counting an access: its best FTS5
    hits (5 for each result asked for, at least recall_store.CANDIDATES: the rank score only reorders
    near-ties), and with the query's vector the nearest items too (SPEC §12)."""
    found: list[Found] = []
    best = max(recall_store.CANDIDATES, 5 * limit)
    for scope in scopes:
        top = memories.max_in_degree(scope.connection)
        rows = recall_store.found(scope.connection, recall_store.query(scope.connection, words), wanted, best)
        if vector is not None:
            from cortex_hooks.embeddings.recall import candidates

            rows = candidates(scope.connection, scope.path, vector, wanted, rows)
        found += [
            Found(scope.name, row, top) for row in rows if not memory_type or row["type"] == memory_type
        ]
    return found


def query_vector(setting: str, query: str) -> Pending | None:
    """The query's vector when semantic recall is on (SPEC §12), else None: keyword recall. Off
    (no key, no extra), this imports nothing of the embeddings' stack. With `gather`, what the MCP
    server calls warm (the model and each database's vectors stay loaded in its process)."""
    from cortex_hooks.embeddings.backend import chosen

    if setting == "off" or chosen(setting) is None:
        return None
    from cortex_hooks.embeddings.recall import pending

    return pending(setting, query)


def _count_and_link(scope: Scope, results: list[dict[str, Any]], *, count: bool = True) -> None:
    """Each returned row counts one access (not with --peek); a memory's `source_of` edges are
    listed as `linked`."""
    now = clock.iso(clock.now())
    ids = {kind: [result["id"] for result in results if result["kind"] == kind] for kind in KINDS}
    if count:
        with Transaction(scope.connection):
            memories.record_access(scope.connection, ids["memory"], now)
            for learning_id in ids["learning"]:
                learnings.record_access(scope.connection, learning_id, now)
            for kind in ("decision", "error"):
                for row_id in ids[kind]:
                    kinds.record_access(scope.connection, kind + "s", row_id, now)
    linked = memories.sources_of(scope.connection, ids["memory"])
    for result in results:
        result["linked"] = [
            {"id": row["id"], "type": row["type"], "path": row["path"]}
            for row in (linked.get(result["id"], []) if result["kind"] == "memory" else [])
        ]


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
