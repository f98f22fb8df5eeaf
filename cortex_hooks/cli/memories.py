"""CLI commands for memories (SPEC §9.2): remember, memories list|show|update|pin|unpin|archive|
restore, forget, index-code, link."""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
from contextlib import closing
from typing import Any

from cortex_hooks import clock, location, regular_file
from cortex_hooks.cli import database, options, render
from cortex_hooks.errors import USAGE, CortexError, unknown
from cortex_hooks.memory import given, similarity, vocabulary
from cortex_hooks.memory.given import MemoryFields
from cortex_hooks.store import consolidation as flags
from cortex_hooks.store import memories as store
from cortex_hooks.store import recall as recall_store
from cortex_hooks.store.connection import Transaction

TYPE_CHECKING = False
if TYPE_CHECKING:  # a pydantic model, built only to be printed: `remember` checks without pydantic
    from cortex_hooks.memory.records import Memory

CODE_LIMIT = 64 * 1024  # bytes of a file index-code keeps (§9.2)
CUT_NOTE = "\n… [cut: the file goes on past 64 KiB]"


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    remember = commands.add_parser("remember", parents=[common], help="store a memory")
    remember.add_argument("content", metavar="TEXT")
    _memory_options(remember)
    remember.set_defaults(run=run_remember)

    group = commands.add_parser("memories", parents=[common], help="list and manage memories")
    actions = group.add_subparsers(dest="action", metavar="ACTION", parser_class=type(group))
    actions.required = True
    listing = actions.add_parser("list", parents=[common], help="list memories (not an access)")
    listing.add_argument("--type", choices=vocabulary.TYPES)
    options.shown(listing)
    listing.set_defaults(run=run_list)
    show = actions.add_parser("show", parents=[common], help="show one memory and its edges (an access)")
    show.set_defaults(run=run_show)
    update = actions.add_parser("update", parents=[common], help="change a memory")
    update.add_argument("--content", metavar="TEXT")
    _memory_options(update, pin=False)
    update.set_defaults(run=run_update)
    for name, help_text in (
        ("pin", "keep it at the top, never decayed"),
        ("unpin", "decays again"),
        ("archive", "hide it (never deletes)"),
        ("restore", "bring it back from the archive"),
    ):
        actions.add_parser(name, parents=[common], help=help_text).set_defaults(run=run_change, change=name)
    for name in ("show", "update", "pin", "unpin", "archive", "restore"):
        actions.choices[name].add_argument("id", type=options.record_id, metavar="ID")
    for command in actions.choices.values():
        options.json_flag(command)

    forget = commands.add_parser("forget", parents=[common], help="archive a memory (never deletes)")
    which = forget.add_mutually_exclusive_group(required=True)
    which.add_argument("id", nargs="?", type=options.record_id, metavar="ID")
    which.add_argument("--match", metavar="QUERY", help="the memory that best matches these words")
    forget.add_argument("--yes", action="store_true", help="with --match: archive the best of several")
    forget.set_defaults(run=run_forget)

    index = commands.add_parser("index-code", parents=[common], help="remember a file and what it does")
    index.add_argument("path", metavar="PATH")
    index.add_argument("--prose", required=True, metavar="TEXT", help="what the file does, in words")
    index.set_defaults(run=run_index_code)

    link = commands.add_parser("link", parents=[common], help="an edge between two memories")
    link.add_argument("from_id", type=options.record_id, metavar="ID")
    link.add_argument("to_id", type=options.record_id, metavar="ID")
    link.add_argument("--type", required=True, choices=vocabulary.LINKABLE)
    link.add_argument("--strength", type=float, default=1.0, metavar="X", help="0 to 1 (default 1)")
    link.set_defaults(run=run_link)
    for command in (remember, forget, index, link):
        options.json_flag(command)


def _memory_options(parser: argparse.ArgumentParser, *, pin: bool = True) -> None:
    parser.add_argument("--type", choices=vocabulary.TYPES, help=f"default: {given.DEFAULT_TYPE}")
    parser.add_argument("--summary", metavar="S", help="default: the first line of the content")
    low, high = given.PRIORITIES
    parser.add_argument(
        "--priority", type=int, metavar="N", help=f"{low} to {high} (default {given.DEFAULT_PRIORITY})"
    )
    parser.add_argument("--tag", action="append", dest="tags", metavar="X", help="a tag (repeatable)")
    if pin:
        parser.add_argument("--pin", action="store_true", default=None, dest="pinned")


def _given(args: argparse.Namespace) -> dict[str, Any]:
    names = ("content", "type", "summary", "priority", "tags", "pinned")
    return {name: getattr(args, name) for name in names if getattr(args, name, None) is not None}


def new_row(fields: MemoryFields, now: str, **stored: Any) -> dict[str, Any]:
    """Every column of a new memory row: the fields given, then the defaults and the times."""
    values: dict[str, Any] = {
        "type": fields.type,
        "content": fields.content,
        "summary": fields.summary or given.summary_of(fields.content),
        "priority": fields.priority,
        "confidence": given.DEFAULT_CONFIDENCE,
        "pinned": int(fields.pinned),
        "tags": json.dumps(fields.tags, ensure_ascii=False),
        "source": "explicit",
        "source_session": None,
        "path": None,
        "status": "active",
        "access_count": 0,
        "last_accessed": None,
        "created_at": now,
        "updated_at": now,
        "confirmed_at": now,
        "archived_at": None,
    }
    values.update((name, value) for name, value in stored.items() if value is not None)
    return values


def auto_link(
    connection: sqlite3.Connection,
    memory_id: int,
    content: str,
    now: str,
    vector: tuple[str, bytes] | None = None,
    *,
    link: bool = True,
) -> list[tuple[int, float, bool]]:
    """Compare a memory just stored with the active memories of its scope (SPEC §9.7, §12): a
    `relates_to` edge from it to each older one like it (unless `link` is False: a content update
    adds no edge), and the pairs nearly the same flagged for consolidation. Their ids,
    similarities and whether each is flagged. Candidates come from the full-text index and, with
    a vector, from the nearest vectors of its model, never from a scan of the rows; a pair with
    both vectors of one model is compared by cosine (the model's thresholds), else lexically
    (0.60 / 0.85)."""
    words = similarity.words(content)
    candidates: dict[int, str] = {}
    if words:
        for row in recall_store.similar_memories(
            connection, recall_store.match(connection, sorted(words)), memory_id
        ):
            candidates[row["id"]] = row["content"]
    theirs: dict[int, bytes] = {}
    if vector is not None:
        from cortex_hooks.embeddings import index, vectors
        from cortex_hooks.store import vectors as stored

        model, blob = vector
        limit = vectors.thresholds(model).relates
        _, near = index.nearest(index.of(connection, None, model), blob, {"memory"}, limit, 50)
        ids = {item_id: 0.0 for _, item_id in near if item_id != memory_id}
        for found in recall_store.rows(connection, {"memory": ids}):
            candidates[int(str(found["id"]))] = str(found["content"])
        theirs = stored.of_items(connection, model, "memory", candidates)
    from cortex_hooks.embeddings.similar import between

    linked = []
    for other, text in sorted(candidates.items()):
        likeness = between(
            content, text, vector[0] if vector else None, vector[1] if vector else None, theirs.get(other)
        )
        if likeness.relates:
            value = min(likeness.value, 1.0)  # a cosine may pass 1 by a rounding error
            if link:
                store.link(connection, memory_id, other, "relates_to", strength=round(value, 2), now=now)
            linked.append((other, value, likeness.consolidates))
    flags.flag(connection, memory_id, [(other, value) for other, value, flagged in linked if flagged], now)
    return linked


def _vector_of(args: argparse.Namespace, fields: MemoryFields) -> tuple[str, bytes] | None:
    """A new memory's vector when semantic recall is on (never a `code` memory's: SPEC §12); None
    when off or when embedding fails (then it stays queued for `cortex-hooks embed`)."""
    setting = database.embeddings(args)
    if fields.type == "code" or setting == "off":
        return None
    from cortex_hooks.embeddings.backend import chosen

    if chosen(setting) is None:
        return None
    from cortex_hooks.embeddings.queue import document_vector

    summary = fields.summary or given.summary_of(fields.content)
    return document_vector(setting, "memory", {"content": fields.content, "summary": summary})


def run_remember(args: argparse.Namespace) -> int:
    fields = given.checked(_given(args), "invalid memory")
    now = clock.iso(clock.now())
    vector = _vector_of(args, fields)
    with closing(database.for_writing(args)) as connection:
        with Transaction(connection):
            memory_id = store.insert(connection, new_row(fields, now))
            if vector is not None:
                from cortex_hooks.store import vectors

                vectors.put(connection, vector[0], "memory", {memory_id: vector[1]})
            linked = auto_link(connection, memory_id, fields.content, now, vector)
        memory = _shown(connection, args, memory_id)
    message = f"Remembered memory #{memory_id} ({fields.type}, {database.scope(args)})."
    if linked:
        related = ", ".join(f"#{other} ({value:.2f})" for other, value, _ in linked)
        message += f" Related to {related}."
        flagged = [other for other, _, consolidates in linked if consolidates]
        if flagged:
            message += (
                " Nearly the same as "
                + ", ".join(f"#{other}" for other in flagged)
                + ": flagged for consolidation (see cortex-hooks consolidate --dry-run)."
            )
    _emit(memory, message)
    return 0


def run_list(args: argparse.Namespace) -> int:
    from cortex_hooks.memory.records import Memory

    shown: list[Memory] = []
    connection = database.for_reading(args)
    if connection is not None:
        with closing(connection):
            top = store.max_in_degree(connection)
            scope = database.scope(args)
            shown = [
                Memory.from_row(row, scope, top) for row in store.select(connection, args.shown, args.type)
            ]
    if args.json:
        render.emit_json(shown)
    else:
        render.say(render.memory_table(shown))
    return 0


def run_show(args: argparse.Namespace) -> int:
    connection = database.for_reading(args)
    if connection is None:
        raise unknown("memory", args.id)
    with closing(connection):
        with Transaction(connection):
            if store.get(connection, args.id) is None:
                raise unknown("memory", args.id)
            store.record_access(connection, [args.id], clock.iso(clock.now()))
        memory = load(connection, args, args.id)
        from cortex_hooks.memory.edges import Edge

        edges = [
            Edge(type=row["type"], from_=row["from_id"], to=row["to_id"], strength=row["strength"])
            for row in store.edges_of(connection, args.id)
        ]
    if args.json:
        shown = [edge.model_dump(by_alias=True) for edge in edges]
        render.emit_json({**memory.model_dump(mode="json"), "edges": shown})  # edges: show only
    else:
        render.say(render.memory_detail(memory, database.scope(args), edges))
    return 0


def run_update(args: argparse.Namespace) -> int:
    changed = _given(args)
    if not changed:
        raise CortexError("nothing to update: give at least one option (see memories update --help)", USAGE)
    now = clock.iso(clock.now())
    with closing(database.for_changing(args, unknown("memory", args.id))) as connection:
        with Transaction(connection):
            current = _current(connection, args.id)
            merged = {
                "content": current["content"],
                "type": current["type"],
                "priority": current["priority"],
                "tags": json.loads(current["tags"] or "[]"),
                "pinned": bool(current["pinned"]),
                **changed,
            }
            if "summary" not in changed and "content" not in changed:
                merged["summary"] = current["summary"]  # else derived again from the new content
            fields = given.checked(merged, "invalid memory")
            changes: dict[str, Any] = {
                "content": fields.content,
                "summary": fields.summary or given.summary_of(fields.content),
                "type": fields.type,
                "priority": fields.priority,
                "tags": json.dumps(fields.tags, ensure_ascii=False),
                "updated_at": now,
            }
            if {"content", "type", "priority"} & set(changed):
                changes["confirmed_at"] = now  # a confirmation (SPEC §9.5)
            store.update(connection, args.id, changes)
            if fields.content != current["content"] and current["status"] == "active":
                auto_link(connection, args.id, fields.content, now, link=False)  # flags only
        database.embed_written(args, connection, "memory", [args.id])
        memory = _shown(connection, args, args.id)
    _emit(memory, f"Updated memory #{args.id}.")
    return 0


_CHANGES: dict[str, tuple[dict[str, Any], str]] = {
    "pin": ({"pinned": 1}, "Pinned"),
    "unpin": ({"pinned": 0}, "Unpinned"),
    "restore": ({"status": "active", "archived_at": None}, "Restored"),
}


def run_change(args: argparse.Namespace) -> int:
    now = clock.iso(clock.now())
    with closing(database.for_changing(args, unknown("memory", args.id))) as connection:
        with Transaction(connection):
            current = _current(connection, args.id)
            if args.change == "archive":
                changes: dict[str, Any] = {"status": "archived", "archived_at": current["archived_at"] or now}
                verb = "Archived"
            else:
                values, verb = _CHANGES[args.change]
                changes = dict(values)
            store.update(connection, args.id, {**changes, "updated_at": now})
        memory = _shown(connection, args, args.id)
    _emit(memory, f"{verb} memory #{args.id}.")
    return 0


def run_forget(args: argparse.Namespace) -> int:
    """Archive one memory: by id, or the single best match of a keyword recall."""
    now = clock.iso(clock.now())
    if args.id is not None:
        return _archive(args, args.id, now)
    from cortex_hooks.memory.recall import query_words

    words = query_words(args.match)
    if not words:
        raise CortexError("nothing to match: the query has no words", USAGE)
    connection = database.for_reading(args)
    if connection is None:
        raise CortexError(f"no memory matches {args.match!r}", USAGE)
    with closing(connection):
        found = recall_store.found(connection, recall_store.query(connection, words), {"memory"})
    if not found:
        raise CortexError(f"no memory matches {args.match!r}", USAGE)
    best = float(str(found[0]["relevance"]))
    close = [row for row in found if float(str(row["relevance"])) >= best * 0.9]
    if len(close) > 1 and not args.yes:
        listing = [
            f"#{row['id']} {render.clean(str(row['summary']), one_line=True)[:80]}" for row in close[:10]
        ]
        if args.json:
            render.emit_json(
                {
                    "archived": None,
                    "candidates": [{"id": row["id"], "summary": row["summary"]} for row in close],
                }
            )
        else:
            render.say(
                f"{len(close)} memories match about equally; nothing archived. "
                "Forget one by id (cortex-hooks forget ID), or the best with --yes:\n  "
                + "\n  ".join(listing)
            )
        return 0
    return _archive(args, int(str(found[0]["id"])), now)


def _archive(args: argparse.Namespace, memory_id: int, now: str) -> int:
    with closing(database.for_changing(args, unknown("memory", memory_id))) as connection:
        with Transaction(connection):
            current = _current(connection, memory_id)
            store.update(
                connection,
                memory_id,
                {"status": "archived", "archived_at": current["archived_at"] or now, "updated_at": now},
            )
        memory = _shown(connection, args, memory_id)
    restore = database.scoped(args, f"cortex-hooks memories restore {memory_id}")
    _emit(
        memory,
        f"Forgot memory #{memory_id} (archived, never deleted): "
        f"{render.clean(current['summary'], one_line=True)[:100]}\nUndo: {restore}",
    )
    return 0


def run_index_code(args: argparse.Namespace) -> int:
    """A code_description memory (the prose) and a code memory (the file), description -source_of-> code."""
    try:
        with regular_file.open_regular(args.path) as file:  # never a FIFO or a device
            raw = file.read(CODE_LIMIT + 1)
    except (OSError, ValueError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else error
        raise CortexError(f"cannot read {args.path}: {reason}", USAGE) from None
    code = raw[:CODE_LIMIT].decode("utf-8", errors="replace") + (CUT_NOTE if len(raw) > CODE_LIMIT else "")
    if not code.strip():
        raise CortexError(f"{args.path} is empty: nothing to index", USAGE)
    path = _shown_path(args.path)
    prose = given.checked({"content": args.prose, "type": "code_description"}, "invalid prose")
    body = given.checked({"content": code, "type": "code", "summary": f"{path} (code)"}, "invalid file")
    now = clock.iso(clock.now())
    with closing(database.for_writing(args)) as connection:
        with Transaction(connection):
            # Each is compared with the memories stored before it (§9.7): indexing a file again
            # flags the new pair with the old one for consolidation.
            description_id = store.insert(connection, new_row(prose, now, source="code_index", path=path))
            auto_link(connection, description_id, prose.content, now)
            code_id = store.insert(connection, new_row(body, now, source="code_index", path=path))
            auto_link(connection, code_id, code, now)
            store.link(connection, description_id, code_id, "source_of", strength=1.0, now=now)
        database.embed_written(args, connection, "memory", [description_id])  # the prose only: never code
        memory = _shown(connection, args, description_id)
    _emit(memory, f"Indexed {path}: code description #{description_id}, code #{code_id}.")
    return 0


def _shown_path(path: str) -> str:
    """A file's path relative to the project when it lies inside it, else absolute."""
    absolute = os.path.abspath(path)
    root = location.project_root()
    inside = os.path.commonpath([absolute, root]) == root
    return os.path.relpath(absolute, root) if inside else absolute


def run_link(args: argparse.Namespace) -> int:
    if not 0 <= args.strength <= 1:
        raise CortexError(f"--strength must lie in [0, 1], got {args.strength}", USAGE)
    if args.from_id == args.to_id:
        raise CortexError("a memory cannot be linked to itself", USAGE)
    now = clock.iso(clock.now())
    with closing(database.for_changing(args, unknown("memory", args.from_id))) as connection:
        with Transaction(connection):
            for memory_id in (args.from_id, args.to_id):
                if store.get(connection, memory_id) is None:
                    raise unknown("memory", memory_id)
            store.link(connection, args.from_id, args.to_id, args.type, strength=args.strength, now=now)
        edge = {"type": args.type, "from": args.from_id, "to": args.to_id, "strength": args.strength}
    if args.json:
        render.emit_json(edge)
    else:
        render.say(
            f"Linked memory #{args.from_id} -{args.type}-> #{args.to_id} (strength {args.strength:.2f})."
        )
    return 0


def _current(connection: sqlite3.Connection, memory_id: int) -> sqlite3.Row:
    row = store.get(connection, memory_id)
    if row is None:
        raise unknown("memory", memory_id)
    return row


def _shown(connection: sqlite3.Connection, args: argparse.Namespace, memory_id: int) -> Memory | None:
    """The memory as `--json` prints it (a pydantic record, so built only then), else None."""
    return load(connection, args, memory_id) if args.json else None


def _emit(memory: Memory | None, message: str) -> None:
    """The record as JSON when there is one (`--json`), else the message for a person."""
    if memory is not None:
        render.emit_json(memory)
    else:
        render.say(message)


def load(connection: sqlite3.Connection, args: argparse.Namespace, memory_id: int) -> Memory:
    from cortex_hooks.memory.records import Memory

    row = store.get(connection, memory_id)
    if row is None:
        raise unknown("memory", memory_id)
    return Memory.from_row(row, database.scope(args), store.max_in_degree(connection))
