"""CLI integrity: what the keeper keeps and put back; `integrity accept` makes a change
it put back for real (the person's command). The work is api.integrity."""

from __future__ import annotations

import argparse
from typing import Any

from cortex_hooks.api import integrity as api
from cortex_hooks.api.wording import clean
from cortex_hooks.cli import database, options, render


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    parser = commands.add_parser(
        "integrity", parents=[common], help="what the keeper keeps of the guard, and what it put back"
    )
    options.json_flag(parser)
    parser.set_defaults(run=run_state)
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    accept = actions.add_parser(
        "accept", parents=[common], help="take as yours the change of a watched file the keeper put back"
    )
    options.json_flag(accept)
    accept.set_defaults(run=run_accept)


def run_state(args: argparse.Namespace) -> int:
    found = api.state(database.of(args))
    if args.json:
        render.emit_json(found)
        return 0
    lines = []
    for kept in found:
        if not kept["kept"]:
            lines.append(
                f"{kept['scope']}: {clean(kept['database'], one_line=True)} is not kept (install keeps it)"
            )
            continue
        where = clean(kept["folder"], one_line=True)
        lines.append(f"{kept['scope']}: {clean(kept['database'], one_line=True)} kept in {where}")
        lines += [f"  watched: {clean(path, one_line=True)}" for path in kept["watched"]]
        lines += [
            f"  {event.get('at', '?')} {clean(str(event.get('what', '')), one_line=True)}"
            for event in kept["events"]
        ]
        if not kept["events"]:
            lines.append("  nothing was put back")
    render.say("\n".join(lines))
    return 0


def run_accept(args: argparse.Namespace) -> int:
    accepted = api.accept(database.of(args))
    if args.json:
        render.emit_json(accepted)
    else:
        render.say(
            "\n".join(
                f"Accepted {clean(item['file'], one_line=True)} as it was changed." for item in accepted
            )
        )
    return 0
