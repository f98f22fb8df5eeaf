"""CLI team (docs/guide/team.md): the team file's list, adding a learning of this project to it, trusting it,
muting one of its learnings for yourself, checking it (CI). The work is api.team; this parses
and prints."""

from __future__ import annotations

import argparse
from typing import Any

from cortex_hooks.api import team as api
from cortex_hooks.api import team_check
from cortex_hooks.cli import database, options, render


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    parser = commands.add_parser("team", parents=[common], help="the team file, .claude/cortex-team.jsonl")
    options.json_flag(parser)
    parser.set_defaults(run=run_list)
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    listed = actions.add_parser(
        "list", parents=[common], help="what the team file holds and what is in force"
    )
    listed.set_defaults(run=run_list)
    add = actions.add_parser("add", parents=[common], help="write a learning of this project into the file")
    add.add_argument("team_id", metavar="ID", help="its id in the file, a slug such as acme:no-force-push")
    add.add_argument("--from", dest="learning", type=options.record_id, required=True, metavar="N",
                     help="the learning to share (cortex-hooks list)")  # fmt: skip
    add.set_defaults(run=run_add)
    check = actions.add_parser("check", parents=[common], help="validate the file (exit 1 on a problem)")
    check.set_defaults(run=run_check)
    trust = actions.add_parser("trust", parents=[common], help="let its blocks, asks and rewrites act here")
    trust.set_defaults(run=run_trust)
    for name, muted, help_text in (
        ("mute", True, "one team learning never matches for you"),
        ("unmute", False, "a muted team learning matches again"),
    ):
        command = actions.add_parser(name, parents=[common], help=help_text)
        command.add_argument("team_id", metavar="ID", help="e.g. acme:no-force-push")
        command.set_defaults(run=run_mute, muted=muted)
    for command in actions.choices.values():
        options.json_flag(command)


def run_list(args: argparse.Namespace) -> int:
    listed = api.listing(database.of(args), database.notes())
    render.emit_json(listed) if args.json else render.say(api.listed(listed))
    return 0


def run_add(args: argparse.Namespace) -> int:
    result = api.add(database.of(args), args.team_id, args.learning, database.notes())
    render.emit_json(result) if args.json else render.say(api.added(result))
    return 0


def run_trust(args: argparse.Namespace) -> int:
    result = api.trust(database.of(args), database.notes())
    render.emit_json(result) if args.json else render.say(api.trusted(result))
    return 0


def run_mute(args: argparse.Namespace) -> int:
    result = api.mute(database.of(args), args.team_id, muted=args.muted)
    render.emit_json(result) if args.json else render.say(api.muted(result))
    return 0


def run_check(args: argparse.Namespace) -> int:
    result = team_check.check()
    render.emit_json(result) if args.json else render.say(api.checked(result))
    return 0 if result["ok"] else 1
