"""CLI packs (docs/guide/packs.md): list the shipped packs, show one, enable or disable it in a scope, mute
one of its learnings. The work is api.packs; this parses and prints."""

from __future__ import annotations

import argparse
from typing import Any

from cortex_hooks.api import packs as api
from cortex_hooks.api import replay
from cortex_hooks.api.replay import replayed
from cortex_hooks.cli import database, options, render
from cortex_hooks.cli.replay_command import Progress


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    parser = commands.add_parser(
        "packs", parents=[common], help="shipped learnings that protect on day one (no ACTION: list them)"
    )
    options.json_flag(parser)
    parser.set_defaults(run=run_list)
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    listing = actions.add_parser("list", parents=[common], help="the packs, and where each is enabled")
    listing.set_defaults(run=run_list)
    show = actions.add_parser("show", parents=[common], help="a pack's learnings and their state here")
    show.add_argument("name", metavar="NAME", help="a pack, or a group such as core")
    show.set_defaults(run=run_show)
    check = actions.add_parser(
        "check",
        parents=[common],
        help="prove every pack rule on its examples through the judge (exit 1 if not)",
    )
    check.add_argument("name", nargs="?", metavar="NAME", help="one pack or a group (default: every pack)")
    check.set_defaults(run=run_check)
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


def run_list(args: argparse.Namespace) -> int:
    listed = api.listing(database.of(args))
    render.emit_json(listed) if args.json else render.say(api.listed(listed))
    return 0


def run_show(args: argparse.Namespace) -> int:
    shown = api.show(database.of(args), args.name)  # a group's packs, or the one pack named
    if args.json:
        render.emit_json(shown[0] if len(shown) == 1 and shown[0]["name"] == args.name else shown)
    else:
        render.say("\n\n".join(api.shown(pack) for pack in shown))
    return 0


def run_check(args: argparse.Namespace) -> int:
    checked = api.check(args.name)
    render.emit_json(checked) if args.json else render.say(api.checked(checked))
    return 0 if checked["ok"] else 1


def run_enable(args: argparse.Namespace) -> int:
    where, notes = database.of(args), database.notes()
    summaries = api.enable(where, args.name, notes, dry_run=args.dry_run)
    if args.dry_run:  # each pack's learnings replayed over this project's transcripts
        for summary in summaries:
            summary["replay"] = _replay(where, summary["pack"], args, notes)
    if args.json:
        render.emit_json(summaries)
        return 0
    for summary in summaries:
        render.say(api.enabled(summary))
        if "replay" in summary:
            title = f"What {summary['pack']}'s learnings would have done here:"
            render.say(replayed(summary["replay"], title=title) + "\n")
    return 0


def _replay(where: Any, name: str, args: argparse.Namespace, notes: Any) -> dict[str, Any]:
    with Progress(shown=not args.json) as progress:
        return replay.of_pack(where, name, notes, progress)


def run_disable(args: argparse.Namespace) -> int:
    summaries = api.disable(database.of(args), args.name)
    if args.json:
        render.emit_json(summaries)
    else:
        render.say("\n".join(api.disabled(summary) for summary in summaries))
    return 0


def run_mute(args: argparse.Namespace) -> int:
    result = api.mute(database.of(args), args.slug, muted=args.muted)
    render.emit_json(result) if args.json else render.say(api.muted(result))
    return 0
