"""CLI packs (SPEC §14): list the shipped packs, show one, enable or disable it in a scope, mute
one of its learnings. The work is guard.packs (pure) and store.packs (SQL); this parses and prints."""

from __future__ import annotations

import argparse
from contextlib import closing
from typing import Any

from cortex_hooks import clock
from cortex_hooks.cli import database, options, render
from cortex_hooks.errors import USAGE, CortexError
from cortex_hooks.guard import packs
from cortex_hooks.store import packs as store
from cortex_hooks.store.connection import Transaction


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    parser = commands.add_parser("packs", parents=[common], help="shipped learnings that protect on day one")
    options.json_flag(parser)
    parser.set_defaults(run=run_list)
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    show = actions.add_parser("show", parents=[common], help="a pack's learnings and their state here")
    show.add_argument("name", metavar="NAME", help="a pack, e.g. core.git")
    show.set_defaults(run=run_show)
    enable = actions.add_parser("enable", parents=[common], help="add a pack's learnings to this scope")
    enable.add_argument("name", metavar="NAME", help="a pack, or a group such as core")
    enable.add_argument("--dry-run", action="store_true", help="say what would change, change nothing")
    enable.set_defaults(run=run_enable)
    disable = actions.add_parser("disable", parents=[common], help="archive a pack's learnings here")
    disable.add_argument("name", metavar="NAME", help="a pack, or a group such as core")
    disable.set_defaults(run=run_disable)
    for name, muted, help_text in (
        ("mute", True, "one pack learning never matches in this scope"),
        ("unmute", False, "a muted pack learning matches again"),
    ):
        command = actions.add_parser(name, parents=[common], help=help_text)
        command.add_argument("slug", metavar="SLUG", help="e.g. core.git:reset-hard")
        command.set_defaults(run=run_mute, muted=muted)
    for command in actions.choices.values():
        options.json_flag(command)


def _states(args: argparse.Namespace) -> dict[str, dict[str, Any]]:
    """Per shipped pack: enabled in the project and in the global scope, and what is muted."""
    found: dict[str, dict[str, Any]] = {
        name: {"project": False, "global": False, "muted": []} for name in packs.names()
    }
    scopes, _skipped = database.both(args)
    try:
        for scope in scopes:
            for name in store.enabled(scope.connection):
                if name in found:
                    found[name][scope.name] = True
                    found[name]["muted"] += [
                        slug
                        for slug, row in store.learnings_of(scope.connection, name).items()
                        if row["muted"]
                    ]
    finally:
        for scope in scopes:
            scope.connection.close()
    return found


def run_list(args: argparse.Namespace) -> int:
    states = _states(args)
    listed = [{"name": name, "learnings": len(packs.load(name)), **state} for name, state in states.items()]
    if args.json:
        render.emit_json(listed)
        return 0
    lines = []
    for item in listed:
        where = [scope for scope in ("project", "global") if item[scope]]
        muted = f", {len(item['muted'])} muted" if item["muted"] else ""
        state = f"enabled ({' and '.join(where)}{muted})" if where else "not enabled"
        lines.append(f"{item['name']:<18} {render.count(item['learnings'], 'learnings'):<14} {state}")
    lines.append("Enable one: cortex-hooks packs enable NAME (core: every core pack; --global: all projects)")
    render.say("\n".join(lines))
    return 0


def run_show(args: argparse.Namespace) -> int:
    (name,) = _one(args.name)
    records = packs.load(name)
    state = _states(args)[name]
    shown = [{**record.model_dump(mode="json"), "muted": record.id in state["muted"]} for record in records]
    if args.json:
        render.emit_json(
            {"name": name, "project": state["project"], "global": state["global"], "learnings": shown}
        )
        return 0
    lines = [f"{name}: {render.count(len(records), 'learnings')}"]
    for item in shown:
        lines.append(
            f"{item['id']}{' (muted)' if item['muted'] else ''} [{item['action']}, {item['severity']}]\n"
            f"    NEVER: {render.clean(item['anti_pattern'], one_line=True)}\n"
            f"    DO:    {render.clean(item['correct_pattern'], one_line=True)}"
        )
    render.say("\n".join(lines))
    return 0


def _one(name: str) -> list[str]:
    found = packs.expand(name)
    if len(found) != 1:
        raise CortexError(f"{name!r} is a group of packs ({', '.join(found)}): name one", USAGE)
    return found


def enable(args: argparse.Namespace, name: str, *, dry_run: bool) -> dict[str, Any]:
    """Enable one pack in the scope of `args` (or say what it would change); its summary."""
    content = packs.text(name)
    records = packs.load(name)
    now = clock.iso(clock.now())
    start = database.config(args).policy.start
    connection = database.for_reading(args) if dry_run else database.for_writing(args)
    summary: dict[str, Any] = {"pack": name, "scope": database.scope(args), "dry_run": dry_run}
    if connection is None:  # a dry run where there is no database yet: everything would be added
        return {**summary, "added": len(records), "updated": 0, "archived": 0}
    with closing(connection):
        with Transaction(connection):
            plan = packs.plan(records, store.learnings_of(connection, name))
            summary.update(added=len(plan.added), updated=len(plan.updated), archived=len(plan.archived))
            if dry_run:
                return summary
            added = store.apply(connection, name, plan, digest=packs.digest(content), now=now, start=start)
        database.embed_written(args, connection, "learning", added)
    return summary


def said(summary: dict[str, Any]) -> str:
    verb = "would add" if summary["dry_run"] else "added"
    changes = f"{summary['added']} {verb}, {summary['updated']} updated, {summary['archived']} archived"
    head = "Would enable" if summary["dry_run"] else "Enabled"
    return f"{head} {summary['pack']} ({summary['scope']}): {changes}."


def run_enable(args: argparse.Namespace) -> int:
    summaries = [enable(args, name, dry_run=args.dry_run) for name in packs.expand(args.name)]
    if args.json:
        render.emit_json(summaries)
    else:
        render.say("\n".join(said(summary) for summary in summaries))
    return 0


def run_disable(args: argparse.Namespace) -> int:
    now = clock.iso(clock.now())
    summaries: list[dict[str, Any]] = []
    for name in packs.expand(args.name):
        connection = database.for_reading(args)
        archived = 0
        if connection is not None:
            with closing(connection), Transaction(connection):
                rows = store.learnings_of(connection, name)
                active = [int(row["id"]) for row in rows.values() if row["archived_at"] is None]
                store.archive(connection, active, now)
                store.record_disabled(connection, name)
                archived = len(active)
        summaries.append({"pack": name, "scope": database.scope(args), "archived": archived})
    if args.json:
        render.emit_json(summaries)
    else:
        for item in summaries:
            count = render.count(int(item["archived"]), "learnings")
            render.say(f"Disabled {item['pack']} ({item['scope']}): {count} archived.")
    return 0


def run_mute(args: argparse.Namespace) -> int:
    missing = CortexError(
        f"no pack learning {args.slug!r} in this scope (cortex-hooks packs show NAME)", USAGE
    )
    connection = database.for_changing(args, missing)
    with closing(connection), Transaction(connection):
        if not store.set_muted(connection, args.slug, args.muted, clock.iso(clock.now())):
            raise missing
    word = "Muted" if args.muted else "Unmuted"
    if args.json:
        render.emit_json({"slug": args.slug, "muted": args.muted, "scope": database.scope(args)})
    else:
        render.say(f"{word} {args.slug} ({database.scope(args)}).")
    return 0
