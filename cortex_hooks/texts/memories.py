"""The texts of memories: the table `memories list` prints, one memory in full, and what
remember, update, a change, forget, index-code and link did."""

from __future__ import annotations

from cortex_hooks.texts.words import clean, fit, times

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cortex_hooks.api.forget import Forgotten
    from cortex_hooks.api.index_code import Indexed
    from cortex_hooks.api.memories import Link, Remembered
    from cortex_hooks.memory.edges import Edge
    from cortex_hooks.memory.records import Memory

VERBS = {"pin": "Pinned", "unpin": "Unpinned", "archive": "Archived", "restore": "Restored"}


def table(memories: list[Memory], width: int | None = None) -> str:
    """One line per memory: id, type, priority, confidence, flags, summary; each line cut to
    `width` characters (None: whole, for a pipe or a file)."""
    if not memories:
        return "No memories."
    lines = [f"{'ID':>4}  {'TYPE':<16} {'PRI':>3}  {'CONF':<4}  {'FLAGS':<16} SUMMARY"]
    for memory in memories:
        marks = ",".join(
            mark for mark, on in (("pinned", memory.pinned), (memory.status, memory.status != "active")) if on
        )
        lines.append(
            f"{memory.id:>4}  {memory.type:<16} {memory.priority:>3}  {memory.confidence:.2f}  "
            f"{marks or '-':<16} {clean(memory.summary, one_line=True)}"
        )
    return "\n".join(fit(line, width) for line in lines)


def detail(memory: Memory, edges: list[Edge]) -> str:
    tags = ", ".join(memory.tags)
    rows = [
        ("type", memory.type),
        ("summary", memory.summary),
        ("priority", str(memory.priority)),
        ("confidence", f"{memory.confidence:.2f}"),
        ("flags", ",".join(m for m, on in (("pinned", memory.pinned), (memory.status, True)) if on)),
        ("tags", tags),
        ("path", memory.path or ""),
        ("source", memory.source + (f" (session {memory.source_session})" if memory.source_session else "")),
        ("centrality", f"{memory.centrality:.2f}"),
        ("accessed", times(memory.access_count) + f", last {memory.last_accessed or 'never'}"),
        ("created", memory.created_at),
        ("updated", memory.updated_at),
        ("archived", memory.archived_at or ""),
    ]
    body = "\n".join(f"  {name:<11} {clean(value)}" for name, value in rows if value)
    lines = [
        f"  {'edge':<11} #{edge.from_} -{edge.type}-> #{edge.to} ({edge.strength:.2f})" for edge in edges
    ]
    content = "\n".join("    " + line for line in clean(memory.content).splitlines())
    return "\n".join([f"Memory #{memory.id} ({memory.scope})", body, *lines, "  content:", content])


def remembered(result: Remembered) -> str:
    message = f"Remembered memory #{result.id} ({result.type}, {result.scope})."
    if result.related:
        message += (
            " Related to " + ", ".join(f"#{item.id} ({item.similarity:.2f})" for item in result.related) + "."
        )
        flagged = [item.id for item in result.related if item.flagged]
        if flagged:
            message += (
                " Nearly the same as "
                + ", ".join(f"#{other}" for other in flagged)
                + ": flagged for consolidation (see cortex-hooks consolidate --dry-run)."
            )
    return message


def updated(memory_id: int) -> str:
    return f"Updated memory #{memory_id}."


def changed(what: str, memory_id: int) -> str:
    return f"{VERBS[what]} memory #{memory_id}."


def forgotten(result: Forgotten) -> str:
    if result.archived is None:
        listing = [f"#{item.id} {clean(item.summary, one_line=True)[:80]}" for item in result.candidates[:10]]
        return (
            f"{len(result.candidates)} memories match about equally; nothing archived. "
            "Forget one by id (cortex-hooks forget ID), or the best with --yes:\n  " + "\n  ".join(listing)
        )
    return (
        f"Forgot memory #{result.archived} (archived, never deleted): "
        f"{clean(result.summary, one_line=True)[:100]}\nUndo: {result.undo}"
    )


def indexed(result: Indexed) -> str:
    return f"Indexed {result.path}: code description #{result.description}, code #{result.code}."


def linked(edge: Link) -> str:
    return f"Linked memory #{edge.from_} -{edge.type}-> #{edge.to} (strength {edge.strength:.2f})."
