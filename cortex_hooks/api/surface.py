"""The push surface (SPEC §9.6): `.claude/cortex-memory.local.md` brought up to date now, from
both scopes, as SessionEnd does."""

from __future__ import annotations

from typing import NamedTuple

from cortex_hooks import clock, location
from cortex_hooks.api import databases as db
from cortex_hooks.api.databases import Databases
from cortex_hooks.errors import USAGE, CortexError
from cortex_hooks.install import surface_import
from cortex_hooks.notes import Notes
from cortex_hooks.scopes import close
from cortex_hooks.upkeep import surface


class Written(NamedTuple):
    result: surface.Result
    budget: int  # characters between the markers, as configured for the project
    imported: bool  # Claude Code reads the file: CLAUDE.local.md imports it


def refresh(databases: Databases, notes: Notes, *, dry_run: bool = False) -> Written:
    """Write (dry: compute) the project's surface from both scopes; always both: a call acting on
    the global scope is refused."""
    if databases.scope == "global":
        raise CortexError("surface always reads both scopes: --global does not apply", USAGE)
    project = location.project_root()
    budget = db.config(databases, notes).surface_budget
    scopes, skipped = db.both(databases)
    try:
        result = surface.refresh(
            scopes, project, budget=budget, now=clock.now(), dry_run=dry_run, cli=location.cli_command()
        )
    finally:
        close(scopes)
    result.skipped[:0] = skipped
    return Written(result, budget, surface_import.imported(project))
