"""Output of the CLI: human renderings through the one sanitizer (cortex_hooks.sanitize), so stored
text can never drive a terminal; `--json`, the data as stored.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from cortex_hooks import confidence, sanitize

TYPE_CHECKING = False
if TYPE_CHECKING:  # the records are pydantic models: `recall` prints without importing pydantic
    from pydantic import BaseModel

    from cortex_hooks.guard.records import Learning
    from cortex_hooks.memory.edges import Edge
    from cortex_hooks.memory.records import Memory


def clean(text: str | None, *, one_line: bool = False) -> str:
    """Text safe for a terminal (see cortex_hooks.sanitize)."""
    return sanitize.line(text) if one_line else sanitize.clean(text)


def emit_json(value: Any) -> None:
    """Exactly one JSON value on stdout (records are dumped as their models print them)."""
    if isinstance(value, list):
        value = [_plain(item) for item in value]
    sys.stdout.write(json.dumps(_plain(value), indent=2, ensure_ascii=False) + "\n")


def _plain(value: Any) -> Any:
    return value.model_dump(mode="json") if hasattr(value, "model_dump") else value


def say(text: str) -> None:
    sys.stdout.write(text + "\n")


def note(text: str) -> None:
    """One line on stderr beside the output: something skipped, or worth knowing."""
    print(f"cortex-hooks: {sanitize.line(text)}", file=sys.stderr)


def emit(args: argparse.Namespace, record: BaseModel, message: str) -> None:
    """The record as JSON with `--json`, else the one-line message."""
    if args.json:
        emit_json(record)
    else:
        say(message)


def flags(learning: Learning) -> str:
    marks = []
    if learning.auto_block:
        marks.append("auto-block")
    if learning.pinned:
        marks.append("pinned")
    if learning.archived_at:
        marks.append("archived")
    return ",".join(marks) or "-"


def learning_table(learnings: list[Learning]) -> str:
    """One line per learning: id, confidence, flags, tool and target, anti-pattern -> correct."""
    if not learnings:
        return "No learnings."
    lines = [f"{'ID':>4}  {'CONF':<4}  {'FLAGS':<20} {'TOOL/TARGET':<18} ANTI-PATTERN -> CORRECT"]
    for learning in learnings:
        where = f"{clean(learning.tool, one_line=True)}/{learning.target}"
        text = (
            f"{clean(learning.anti_pattern, one_line=True)} -> "
            f"{clean(learning.correct_pattern, one_line=True)}"
        )
        lines.append(
            f"{learning.id:>4}  {learning.confidence:.2f}  {flags(learning):<20} {where:<18} {text[:120]}"
        )
    return "\n".join(lines)


def learning_detail(learning: Learning) -> str:
    rows = [
        ("anti-pattern", learning.anti_pattern),
        ("correct", learning.correct_pattern),
        ("regex", learning.regex or "(none: never matches)"),
        ("tool", learning.tool),
        ("target", learning.target),
        ("severity", learning.severity),
        ("confidence", confidence.show(round(learning.confidence * 100))),
        ("flags", flags(learning)),
        ("accessed", _times(learning.access_count) + f", last {learning.last_accessed or 'never'}"),
        ("created", learning.created_at),
        ("updated", learning.updated_at),
        ("archived", learning.archived_at or "no"),
        ("context", learning.context or ""),
    ]
    body = "\n".join(f"  {name:<13} {clean(value)}" for name, value in rows if value)
    return f"Learning #{learning.id}\n{body}"


def table(what: str, columns: tuple[str, ...], records: Sequence[BaseModel]) -> str:
    """A plain table: the id, then the given columns, each cut to a readable width."""
    if not records:
        return f"No {what}."
    rows = [
        [
            str(record.model_dump()["id"]),
            *(clean(_text(getattr(record, c)), one_line=True)[:60] for c in columns),
        ]
        for record in records
    ]
    header = ["ID", *(column.upper().replace("_", " ") for column in columns)]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in [header, *rows]
    )


def detail(title: str, record: BaseModel) -> str:
    """Every field but the id, one per line, control characters stripped."""
    fields = record.model_dump(exclude={"id"})
    body = "\n".join(
        f"  {name.replace('_', ' '):<14} {clean(_text(value))}"
        for name, value in fields.items()
        if value not in (None, [], "")
    )
    return f"{title}\n{body}"


def count(number: int, kind: str) -> str:
    """`1 learning`, `2 learnings`: `kind` is given in the plural."""
    return f"{number} {kind.removesuffix('s') if number == 1 else kind}"


def _times(count: int) -> str:
    return "once" if count == 1 else f"{count} times"


def _text(value: object) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return "-"
    if isinstance(value, list):
        return ", ".join(_text(item) for item in value)
    if hasattr(value, "model_dump"):
        return " ".join(f"{v}" for v in value.model_dump().values())
    return str(value)


def memory_table(memories: list[Memory]) -> str:
    """One line per memory: id, type, priority, confidence, flags, summary."""
    if not memories:
        return "No memories."
    lines = [f"{'ID':>4}  {'TYPE':<16} {'PRI':>3}  {'CONF':<4}  {'FLAGS':<16} SUMMARY"]
    for memory in memories:
        marks = ",".join(
            mark for mark, on in (("pinned", memory.pinned), (memory.status, memory.status != "active")) if on
        )
        lines.append(
            f"{memory.id:>4}  {memory.type:<16} {memory.priority:>3}  {memory.confidence:.2f}  "
            f"{marks or '-':<16} {clean(memory.summary, one_line=True)[:100]}"
        )
    return "\n".join(lines)


def memory_detail(memory: Memory, scope: str, edges: list[Edge]) -> str:
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
        ("accessed", _times(memory.access_count) + f", last {memory.last_accessed or 'never'}"),
        ("created", memory.created_at),
        ("updated", memory.updated_at),
        ("archived", memory.archived_at or ""),
    ]
    body = "\n".join(f"  {name:<11} {clean(value)}" for name, value in rows if value)
    lines = [
        f"  {'edge':<11} #{edge.from_} -{edge.type}-> #{edge.to} ({edge.strength:.2f})" for edge in edges
    ]
    content = "\n".join("    " + line for line in clean(memory.content).splitlines())
    return "\n".join([f"Memory #{memory.id} ({scope})", body, *lines, "  content:", content])
