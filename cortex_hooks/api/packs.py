"""Packs (docs/guide/packs.md): the shipped packs and their state in both scopes, enabling or disabling one in
a scope, muting one of its learnings. The rules are guard.packs.shipped (pure), the SQL store.packs."""

from __future__ import annotations

from contextlib import closing
from typing import Any

from cortex_hooks import clock, location
from cortex_hooks.api import databases as db
from cortex_hooks.api.databases import Databases
from cortex_hooks.api.wording import clean, count
from cortex_hooks.config import DEFAULT
from cortex_hooks.errors import USAGE, CortexError
from cortex_hooks.guard.packs import fit
from cortex_hooks.guard.packs import shipped as packs
from cortex_hooks.judging import proof
from cortex_hooks.notes import Notes
from cortex_hooks.store import packs as store
from cortex_hooks.store.connection import Transaction
from cortex_hooks.store.scopes import close


def states(databases: Databases) -> dict[str, dict[str, Any]]:
    """Per shipped pack: enabled in the project and in the global scope, and what is muted."""
    found: dict[str, dict[str, Any]] = {
        name: {"project": False, "global": False, "muted": []} for name in packs.names()
    }
    scopes, _skipped = db.both(databases)
    try:
        for scope in scopes:
            for name in store.enabled(scope.connection):
                if name in found:
                    found[name][scope.name] = True
                    found[name]["muted"] += [
                        slug for slug, row in store.learnings_of(scope.connection, name).items() if row.muted
                    ]
    finally:
        close(scopes)
    return found


def listing(databases: Databases) -> list[dict[str, Any]]:
    """Each shipped pack: its name, how many learnings, where it is enabled, what is muted."""
    return [
        {"name": name, "learnings": len(packs.load(name)), **state}
        for name, state in states(databases).items()
    ]


def check(name: str | None) -> dict[str, Any]:
    """Every shipped pack's rules (or one pack's, or a group's) proved on their examples through
    the judge (api.proof): each rule that cannot fire, or fires on an allow example, named."""
    names = packs.expand(name) if name is not None else packs.names()
    problems: list[str] = []
    rules = 0
    for one in names:
        records = packs.load(one)
        rules += len(records)
        problems += [f"{one}: {failure}" for failure in proof.given(records, one, DEFAULT)]
    return {"packs": names, "rules": rules, "problems": problems, "ok": not problems}


def show(databases: Databases, name: str) -> list[dict[str, Any]]:
    """A pack's learnings and their state here; a group (`core`) as `enable` takes it: each of
    its packs."""
    found = packs.expand(name)
    every = states(databases)
    shown = []
    for one in found:
        state = every[one]
        learnings = [
            {**record.model_dump(mode="json"), "muted": record.id in state["muted"]}
            for record in packs.load(one)
        ]
        shown.append(
            {"name": one, "project": state["project"], "global": state["global"], "learnings": learnings}
        )
    return shown


def enable(databases: Databases, name: str, notes: Notes, *, dry_run: bool = False) -> list[dict[str, Any]]:
    """Enable one pack (or a group such as `core`: every pack in it) in the scope acted on, or say
    what it would change; a summary per pack."""
    return [_enable(databases, one, notes, dry_run=dry_run) for one in packs.expand(name)]


def _enable(databases: Databases, name: str, notes: Notes, *, dry_run: bool) -> dict[str, Any]:
    content = packs.text(name)
    records = packs.load(name)
    now = clock.iso(clock.now())
    start = db.config(databases, notes).policy.start
    connection = db.for_reading(databases) if dry_run else db.for_writing(databases, notes)
    summary: dict[str, Any] = {"pack": name, "scope": databases.scope, "dry_run": dry_run}
    if connection is None:  # a dry run where there is no database yet: everything would be added
        return {**summary, "added": len(records), "updated": 0, "archived": 0}
    with closing(connection):
        with Transaction(connection):
            plan = packs.plan(records, store.learnings_of(connection, name))
            summary.update(added=len(plan.added), updated=len(plan.updated), archived=len(plan.archived))
            if dry_run:
                return summary
            added = store.apply(connection, name, plan, digest=packs.digest(content), now=now, start=start)
        db.embed_written(databases, connection, "learning", added, notes)
    return summary


def disable(databases: Databases, name: str) -> list[dict[str, Any]]:
    """Archive the learnings of a pack (or of each pack of a group) in the scope acted on: nothing
    is deleted, and enabling it again restores them with their state."""
    now = clock.iso(clock.now())
    summaries: list[dict[str, Any]] = []
    for one in packs.expand(name):
        connection = db.for_reading(databases)
        archived = 0
        if connection is not None:
            with closing(connection), Transaction(connection):
                rows = store.learnings_of(connection, one)
                active = [row.id for row in rows.values() if row.archived_at is None]
                store.archive(connection, active, now)
                store.record_disabled(connection, one)
                archived = len(active)
        summaries.append({"pack": one, "scope": databases.scope, "archived": archived})
    return summaries


def mute(databases: Databases, slug: str, *, muted: bool = True) -> dict[str, Any]:
    """Mute (or unmute) one pack learning in the scope acted on."""
    missing = CortexError(f"no pack learning {slug!r} in this scope (cortex-hooks packs show NAME)", USAGE)
    connection = db.for_changing(databases, missing)
    with closing(connection), Transaction(connection):
        if not store.set_muted(connection, slug, muted, clock.iso(clock.now())):
            raise missing
    return {"slug": slug, "muted": muted, "scope": databases.scope}


def fit_lines(databases: Databases, also: list[dict[str, Any]] | None = None) -> list[str]:
    """fit_line's line, as the lines install ends with."""
    line = fit_line(databases, also)
    return [] if line is None else [line]


def fit_line(databases: Databases, also: list[dict[str, Any]] | None = None) -> str | None:
    """What install and doctor say of the packs that fit the project and are enabled in neither
    scope (nor by `also`, the summaries of an install's --packs), or None (guard.packs.fit)."""
    fits = fit.fitting(location.project_root())
    if not fits:
        return None
    enabled = {name for name, state in states(databases).items() if state["project"] or state["global"]}
    return fit.suggestion(fits, enabled | {summary["pack"] for summary in also or []})


# What people read of it, from the CLI and the MCP server alike. The texts of packs: the list, one
# pack shown, what enabling, disabling or muting did.


def listed(listed: list[dict[str, Any]]) -> str:
    lines = []
    for item in listed:
        where = [scope for scope in ("project", "global") if item[scope]]
        muted = f", {len(item['muted'])} muted" if item["muted"] else ""
        state = f"enabled ({' and '.join(where)}{muted})" if where else "not enabled"
        lines.append(f"{item['name']:<18} {count(item['learnings'], 'learnings'):<14} {state}")
    lines.append("Enable one: cortex-hooks packs enable NAME (core: every core pack; --global: all projects)")
    return "\n".join(lines)


def shown(pack: dict[str, Any]) -> str:
    lines = [f"{pack['name']}: {count(len(pack['learnings']), 'learnings')}"]
    for item in pack["learnings"]:
        lines.append(
            f"{item['id']}{' (muted)' if item['muted'] else ''} [{item['action']}, {item['severity']}]\n"
            f"    NEVER: {clean(item['anti_pattern'], one_line=True)}\n"
            f"    DO:    {clean(item['correct_pattern'], one_line=True)}"
        )
    return "\n".join(lines)


def enabled(summary: dict[str, Any]) -> str:
    verb = "would add" if summary["dry_run"] else "added"
    changes = f"{summary['added']} {verb}, {summary['updated']} updated, {summary['archived']} archived"
    head = "Would enable" if summary["dry_run"] else "Enabled"
    return f"{head} {summary['pack']} ({summary['scope']}): {changes}."


def disabled(summary: dict[str, Any]) -> str:
    archived = count(int(summary["archived"]), "learnings")
    return f"Disabled {summary['pack']} ({summary['scope']}): {archived} archived."


def muted(result: dict[str, Any]) -> str:
    return f"{'Muted' if result['muted'] else 'Unmuted'} {result['slug']} ({result['scope']})."


def checked(result: dict[str, Any]) -> str:
    """`packs check`: every rule proved on its examples, or each that is not."""
    if result["ok"]:
        return (
            f"{result['rules']} rules of {len(result['packs'])} packs: each fires on its deny examples only."
        )
    return "\n".join(clean(problem, one_line=True) for problem in result["problems"])
