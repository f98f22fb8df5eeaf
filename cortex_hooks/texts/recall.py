"""The text of recall's results: one block per result, with the command that shows it in full."""

from __future__ import annotations

from typing import Any

from cortex_hooks.memory.recall import show_command
from cortex_hooks.texts.words import clean

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
