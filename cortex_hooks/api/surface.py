"""The push surface: `.claude/cortex-memory.local.md` brought up to date now, from
both scopes, as SessionEnd does — by `surface`, by `install`, and after every command or MCP tool
that changed a memory (`follow`): Claude Code reads the file when a session starts, before any
hook of that session could rewrite it, so the file must be current already."""

from __future__ import annotations

from cortex_hooks import clock, location
from cortex_hooks.api import databases as db
from cortex_hooks.api import surface_update as surface
from cortex_hooks.api.databases import Databases
from cortex_hooks.errors import USAGE, CortexError
from cortex_hooks.frozen import Record
from cortex_hooks.install import surface_import
from cortex_hooks.notes import Notes
from cortex_hooks.store.scopes import close


class Written(Record):
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


def follow(databases: Databases, notes: Notes) -> None:
    """After a memory changed (in either scope): the project's surface rewritten, where the
    project keeps one (the file exists, or CLAUDE.local.md imports it), its database is the one
    the change used (a `--db` elsewhere is not this project's memory) and the configuration
    leaves the surface on. A surface that cannot be written is a note: the change is done."""
    import os

    project = location.project_root()
    if not surface_import.wanted(project):
        return
    both = databases.acting_on("project")  # the project's surface, whichever scope changed
    own = os.path.join(project, location.DIRECTORY, location.FILENAME)
    if not (os.path.exists(both.project) and os.path.exists(own) and os.path.samefile(both.project, own)):
        return
    if not db.config(both, notes).surface:
        return
    try:
        written = refresh(both, notes)
    except CortexError as error:
        notes.add(f"surface not refreshed: {error}")
        return
    notes.extend(written.result.skipped)
