"""Recall: what both scopes know about some words, best first; each result
returned counts one access (`peek`: none, and recall writes nothing). Keyword recall never
imports pydantic nor, when semantic recall is off, anything of the embeddings' stack."""

from __future__ import annotations

import os

from cortex_hooks import clock
from cortex_hooks.api import databases as db
from cortex_hooks.api.databases import BOTH, Databases
from cortex_hooks.api.wording import clean
from cortex_hooks.errors import USAGE, CortexError
from cortex_hooks.memory.query import KINDS, Found, query_symbols, query_words, ranked, show_command
from cortex_hooks.notes import Notes
from cortex_hooks.store import kinds, memories
from cortex_hooks.store import recall as recall_store
from cortex_hooks.store.connection import Transaction
from cortex_hooks.store.scopes import Scope, close

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from cortex_hooks.embeddings.hybrid import Pending

LIMIT = 10
MOST = 1_000_000  # FTS5 hits read per scope, whatever the limit asked for (SQLite's LIMIT is 64-bit)


def recall(
    databases: Databases,
    query: str,
    notes: Notes,
    *,
    limit: int = LIMIT,
    memory_type: str | None = None,
    kind: str | None = None,
    scopes: tuple[str, ...] = BOTH,
    peek: bool = False,
) -> list[dict[str, Any]]:
    """The best `limit` results of the scopes asked for, as `recall --json` prints them."""
    if limit < 1:
        raise CortexError("--limit must be at least 1", USAGE)
    words = query_words(query)
    symbols = [] if words else query_symbols(query)
    if not words and not symbols:
        raise CortexError("nothing to recall: the query has no words (only punctuation or nothing)", USAGE)
    wanted = {kind} if kind else set(KINDS)
    if memory_type:
        wanted &= {"memory"}
    opened, skipped = db.both(databases, scopes)
    try:
        notes.extend(skipped)
        if not peek:  # the team file's memories as it is now (docs/guide/team.md); a peek writes nothing
            _read_team_file(opened, notes)
        vector = _query_vector(databases, query, notes) if opened else None
        found = gather(opened, words, wanted, memory_type, vector, limit=limit, symbols=symbols)
        if words and "project" in scopes and "memory" in wanted and memory_type in (None, "context"):
            from cortex_hooks.api import claude_memory  # Claude Code's own memory

            found += claude_memory.found(
                opened, words, min(max(recall_store.CANDIDATES, 5 * limit), MOST), notes, peek=peek
            )
        results = ranked(found, limit)
        for scope in opened:  # what Claude Code remembers is read, never counted or linked
            mine = [
                result for result in results if result["scope"] == scope.name and result["source"] == "cortex"
            ]
            _count_and_link(scope, mine, count=not peek)
        for result in results:
            result.setdefault("linked", [])
    finally:
        close(opened)
    return results


def archived(
    databases: Databases,
    query: str,
    *,
    memory_type: str | None = None,
    kind: str | None = None,
    scopes: tuple[str, ...] = BOTH,
) -> list[dict[str, Any]]:
    """The archived memories a query's words find in these scopes (recall returns active rows):
    what recall says when it found nothing active. Reads only; counts no access."""
    words = query_words(query)
    if not words or kind not in (None, "memory"):
        return []
    opened, _skipped = db.both(databases, scopes)  # recall itself has said what was skipped
    try:
        return [
            {"scope": scope.name, "id": row.id, "summary": row.summary}
            for scope in opened
            for row in recall_store.archived_memories(scope.connection, words)
            if memory_type in (None, row.type)
        ]
    finally:
        close(opened)


def _read_team_file(opened: list[Scope], notes: Notes) -> None:
    from cortex_hooks import location
    from cortex_hooks.api import team_file

    for scope in opened:
        if not scope.is_global:
            notes.extend(team_file.refresh(scope.connection, location.project_root(), scope.path))


def gather(
    scopes: list[Scope],
    words: list[str],
    wanted: set[str],
    memory_type: str | None = None,
    vector: tuple[str, bytes] | Pending | None = None,
    *,
    limit: int = LIMIT,
    symbols: list[str] | None = None,
) -> list[Found]:
    """What each scope holds for a query, unranked and without counting an access: its best FTS5
    hits (5 for each result asked for, at least recall_store.CANDIDATES: the rank score only reorders
    near-ties), and with the query's vector the nearest items too. A query of symbols
    alone (no word) finds the rows holding them."""
    found: list[Found] = []
    best = min(max(recall_store.CANDIDATES, 5 * limit), MOST)
    for scope in scopes:
        top = memories.max_in_degree(scope.connection)
        if words:  # semantic recall ranks by the words an item holds (coverage): held=True
            query = recall_store.query(scope.connection, words, held=vector is not None)
            rows = recall_store.found(scope.connection, query, wanted, best)
        else:
            rows = recall_store.containing(scope.connection, symbols or [], wanted, best)
        if vector is not None:
            from cortex_hooks.embeddings.hybrid import candidates

            rows = candidates(scope.connection, scope.path, vector, wanted, rows)
        found += [
            Found(scope.name, row, top) for row in rows if not memory_type or row["type"] == memory_type
        ]
    return found


def _query_vector(databases: Databases, query: str, notes: Notes) -> Pending | None:
    """The query's vector, being computed while FTS5 runs, when semantic recall is on; else None:
    keyword recall, for which nothing of the embeddings' stack is imported."""
    from cortex_hooks.embeddings.backend import on

    setting = db.embeddings(databases, notes)
    if not on(setting):
        return None
    from cortex_hooks.embeddings.hybrid import pending

    return pending(setting, query, notes)


def warm(databases: Databases) -> None:
    """Load now what a semantic recall of these databases needs — the embedding model with its
    optimised session, and each database's stored vectors — so that the first recall finds them
    warm: a long-running process (the MCP server) calls this at its start, in a thread of its own.
    Nothing is said or raised: whatever fails here, the recall itself meets and says."""
    from contextlib import closing

    from cortex_hooks.embeddings import backend

    try:
        setting = db.embeddings(databases, Notes(printed=True))
        model = backend.model_id(setting) if backend.on(setting) else None
        if model is None:
            return
        from cortex_hooks.embeddings import index
        from cortex_hooks.store import vectors

        for path in dict.fromkeys((databases.project, databases.user)):
            if os.path.exists(path):
                with closing(vectors.reader(path)) as connection:
                    index.of(connection, path, model)
        backend.warm_up(setting)
    except Exception:  # warming is an optimisation: the recall itself reports any failure
        return


def _count_and_link(scope: Scope, results: list[dict[str, Any]], *, count: bool = True) -> None:
    """Each returned row counts one access (unless peeking); a memory's `source_of` edges are
    listed as `linked`."""
    now = clock.iso(clock.now())
    ids = {kind: [result["id"] for result in results if result["kind"] == kind] for kind in KINDS}
    if count:
        with Transaction(scope.connection):
            memories.record_access(scope.connection, ids["memory"], now)
            for kind in ("learning", "decision", "error"):
                for row_id in ids[kind]:
                    kinds.record_access(scope.connection, kind + "s", row_id, now)
    linked = memories.sources_of(scope.connection, ids["memory"])
    for result in results:
        result["linked"] = [
            {"id": row.id, "type": row.type, "path": row.path}
            for row in (linked.get(result["id"], []) if result["kind"] == "memory" else [])
        ]


# What people read of it, from the CLI and the MCP server alike. The text of recall's results: one
# block per result, with the command that shows it in full.

CUT = 300  # characters of a result's content shown


SHOWN_ARCHIVED = 3  # archived memories named when nothing active was found


def results(found: list[dict[str, Any]], archived: list[dict[str, Any]] | None = None) -> str:
    """Each result in a block; nothing found: said, with the archived memories that match."""
    if not found:
        return _nothing(archived or [])
    blocks = []
    for result in found:
        if result.get("source") == "claude-code":
            blocks.append(_claude_code(result))
            continue
        what = result["kind"] if result["kind"] != "memory" else f"memory, {result['type']}"
        head = f"#{result['id']} ({result['scope']} {what}, score {result['score']:.2f})"
        body = clean(str(result["content"]), one_line=True)
        lines = [head, f"  {body[:CUT]}{'…' if len(body) > CUT else ''}"]
        lines += [
            f"  linked: {link['type']} #{link['id']} {link['path'] or ''}".rstrip()
            for link in result["linked"]
        ]
        lines.append(f"  show: {show_command(result['kind'], result['id'], result['scope'])}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def _nothing(archived: list[dict[str, Any]]) -> str:
    if not archived:
        return "Nothing found."
    matching = (
        "an archived memory matches" if len(archived) == 1 else f"{len(archived)} archived memories match"
    )
    lines = [f"Nothing active found; {matching} (recall leaves archived ones out):"]
    for memory in archived[:SHOWN_ARCHIVED]:
        where = " --global" if memory["scope"] == "global" else ""
        lines.append(f"#{memory['id']} ({memory['scope']}) {clean(memory['summary'], one_line=True)[:100]}")
        lines.append(f"  show: cortex-hooks memories show {memory['id']}{where}")
        lines.append(f"  bring it back: cortex-hooks memories restore {memory['id']}{where}")
    if len(archived) > SHOWN_ARCHIVED:
        lines.append("All of them: cortex-hooks memories list --archived (--global for the user's)")
    return "\n".join(lines)


ORIGINS = {"auto-memory": "Claude Code auto memory", "claude-md": "Claude Code instructions"}


def _claude_code(result: dict[str, Any]) -> str:
    """A chunk of Claude Code's own memory files: read-only here, seen in full in its file."""
    head = f"{ORIGINS.get(result.get('origin', ''), 'Claude Code memory')} (score {result['score']:.2f})"
    body = clean(str(result["content"]), one_line=True)
    where = clean(f"{result['path']}:{result['line']}", one_line=True)
    return "\n".join([head, f"  {body[:CUT]}{'…' if len(body) > CUT else ''}", f"  file: {where}"])
