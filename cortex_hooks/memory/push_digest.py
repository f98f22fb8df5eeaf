"""The push surface's digest (docs/guide/surface.md), pure: markdown from the memories of both scopes.

Three sections, each entry one sanitized line with its scope when global and the command that
shows it in full:

- Critical: the pinned memories, then the TOP best-ranked others (memory.rank, both scopes);
- Context: memories naming the current git branch or a file changed in the working tree, then
  those touched (created, updated or accessed) in the last RECENT_DAYS days;
- Code index: code descriptions with their paths.

In every section the project's entries come before the global ones, and an item is shown once:
the first section that holds it keeps it. Code memories (file contents) are never shown. Within
the budget, Code index is cut first, then Context (cortex_hooks.text_budget says what was cut).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from cortex_hooks import sanitize
from cortex_hooks.memory.query import show_command
from cortex_hooks.memory.similarity import WORD
from cortex_hooks.stored.memory_rows import SurfaceItem
from cortex_hooks.text_budget import Section, assemble

TOP = 5
RECENT_DAYS = 7
SUMMARY_LIMIT = 160
PATH_LIMIT = 120
NAMED_FILES = 50  # changed files looked for in the memories: the first 50 (a huge checkout stays cheap)
DEFAULT_BRANCHES = frozenset({"main", "master"})  # every memory saying "main" would name it
HEADER = (
    "## Memory (cortex-hooks)\n"
    "Rewritten as the memory changes (notes outside the markers are kept). Each entry ends with "
    "the command that shows it in full; `cortex-hooks recall WORDS` searches the memory."
)
# The same digest carried by SessionStart's context, where Claude Code reads no surface file
CONTEXT_HEADER = (
    "## Memory (cortex-hooks)\n"
    "Each entry ends with the command that shows it in full; `cortex-hooks recall WORDS` searches the memory."
)
EMPTY = "No memories yet: `cortex-hooks remember TEXT` stores one."
SECTIONS = ("critical", "context", "code_index")


@dataclass
class ScopeRows:
    """What one scope gives the surface, as store.surface reads it."""

    scope: str
    pinned: list[SurfaceItem] = field(default_factory=list)
    pinned_total: int = 0
    top: list[SurfaceItem] = field(default_factory=list)  # each with its `rank`, best first
    touched: list[SurfaceItem] = field(default_factory=list)  # latest first
    naming: list[SurfaceItem] = field(default_factory=list)  # best match first
    code: list[SurfaceItem] = field(default_factory=list)
    code_total: int = 0


@dataclass
class Digest:
    text: str  # the markdown between the markers
    sections: dict[str, list[dict[str, object]]]  # the entries shown, per section


def phrases(branch: str | None, changed: list[str]) -> list[str]:
    """What names the current work: the branch (unless a default one) and the changed files'
    names (the last part of the path: a memory rarely spells the whole of it)."""
    found = [branch] if branch and branch not in DEFAULT_BRANCHES else []
    found += [name.rstrip("/").rsplit("/", 1)[-1] for name in changed[:NAMED_FILES]]
    return [phrase for phrase in dict.fromkeys(found) if WORD.search(phrase)]


def build(
    scopes: list[ScopeRows], *, budget: int, cli: str = "cortex-hooks", heading: str = HEADER
) -> Digest:
    """The digest of these scopes (project first) within `budget` characters, under `heading`."""
    order = {rows.scope: index for index, rows in enumerate(scopes)}
    best = sorted(
        ((rows.scope, row) for rows in scopes for row in rows.top),
        key=lambda pair: (-(pair[1].rank or 0.0), order[pair[0]], pair[1].id),
    )[:TOP]
    seen: set[tuple[str, int]] = set()
    critical = _once(
        [(rows.scope, row) for rows in scopes for row in rows.pinned]
        + sorted(best, key=lambda pair: order[pair[0]]),
        seen,
    )
    context = _once(
        [(rows.scope, row) for rows in scopes for row in rows.naming]
        + [(rows.scope, row) for rows in scopes for row in rows.touched],
        seen,
    )
    code = [(rows.scope, row) for rows in scopes for row in rows.code]
    shown = {"critical": critical, "context": context, "code_index": code}
    sections = [
        Section(
            "### Critical",
            [_entry(scope, row) for scope, row in critical],
            rank=0,
            more="cortex-hooks memories list",
            hidden=sum(rows.pinned_total - len(rows.pinned) for rows in scopes),
        ),
        Section(
            "### Context",
            [_entry(scope, row) for scope, row in context],
            rank=1,
            more="cortex-hooks memories list",
        ),
        Section(
            "### Code index",
            [_code_entry(scope, row) for scope, row in code],
            rank=2,
            more="cortex-hooks memories list --type code_description",
            hidden=sum(rows.code_total - len(rows.code) for rows in scopes),
        ),
    ]
    header = heading + (
        f"\n(`cortex-hooks` is not on PATH here: run it as {sanitize.inert(cli)})"
        if cli != "cortex-hooks"
        else ""
    )
    body = assemble(sections, budget - len(header) - 2)
    listed = {name: len(section.entries) for name, section in zip(SECTIONS, sections, strict=True)}
    return Digest(
        f"{header}\n\n{body or EMPTY}"[:budget],
        {name: [_shown(scope, row) for scope, row in shown[name][: listed[name]]] for name in SECTIONS},
    )


def _once(items: list[tuple[str, SurfaceItem]], seen: set[tuple[str, int]]) -> list[tuple[str, SurfaceItem]]:
    """The items not shown yet, in order; they count as shown from now on."""
    kept = []
    for scope, row in items:
        if (scope, row.id) not in seen:
            seen.add((scope, row.id))
            kept.append((scope, row))
    return kept


def _show(scope: str, row: SurfaceItem) -> str:
    return f"`{show_command('memory', row.id, scope)}`"


def _entry(scope: str, row: SurfaceItem) -> str:
    marks = ["global"] if scope == "global" else []
    marks += ["team"] if row.team is not None else []
    marks += ["pinned"] if row.pinned and row.team is None else []
    tags = _tags(row.tags)
    shown = f" [{', '.join(tags)}]" if tags else ""
    where = f" ({', '.join(marks)})" if marks else ""
    summary = sanitize.line(str(row.summary), SUMMARY_LIMIT)
    return sanitize.inert(f"- #{row.id}{where} {summary}{shown} — {_show(scope, row)}")


def _code_entry(scope: str, row: SurfaceItem) -> str:
    where = " (global)" if scope == "global" else ""
    path = sanitize.line(str(row.path or "?"), PATH_LIMIT).replace("`", "'")
    summary = sanitize.line(str(row.summary), SUMMARY_LIMIT)
    return sanitize.inert(f"- `{path}`{where}: {summary} — {_show(scope, row)}")


def _tags(raw: object) -> list[str]:
    try:
        tags = json.loads(str(raw or "[]"))
    except ValueError:
        return []
    return [sanitize.line(str(tag), 40) for tag in tags][:5] if isinstance(tags, list) else []


def _shown(scope: str, row: SurfaceItem) -> dict[str, object]:
    return {
        "scope": scope,
        "id": row.id,
        "type": row.type,
        "summary": row.summary,
        "pinned": bool(row.pinned),
        "path": row.path,
        "team": row.team is not None,  # from the team file (docs/guide/team.md)
    }
