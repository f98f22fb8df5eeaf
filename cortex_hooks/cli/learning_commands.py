"""CLI commands for learnings: add, list, show, update, pin/unpin, keep, archive/restore."""

from __future__ import annotations

import argparse
from typing import Any

from cortex_hooks.api import learnings as api
from cortex_hooks.cli import database, options, render
from cortex_hooks.errors import USAGE, CortexError

_FIELD_OPTIONS = {  # option dest -> the field of api.learnings.Given
    "anti_pattern": "anti_pattern",
    "correct": "correct_pattern",
    "regex": "regex",
    "tool": "tool",
    "target": "target",
    "severity": "severity",
    "action": "action",
    "auto_block": "auto_block",
    "rewrite": "rewrite",
    "pin": "pinned",
    "confidence": "confidence",
    "context": "context",
}


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    add = commands.add_parser("add", parents=[common], help="record a learning")
    _field_options(add, required=True)
    add.set_defaults(run=run_add)

    listing = commands.add_parser("list", parents=[common], help="list learnings (not an access)")
    options.shown(listing)
    listing.add_argument("--review", action="store_true", help="only those awaiting review")
    listing.set_defaults(run=run_list)

    show = commands.add_parser("show", parents=[common], help="show one learning (an access)")
    show.set_defaults(run=run_show)

    update = commands.add_parser("update", parents=[common], help="change a learning")
    _field_options(update, required=False)
    update.add_argument("--no-auto-block", dest="auto_block", action="store_false", help="warn only")
    update.add_argument("--no-rewrite", action="store_true", help="remove the rewrite")
    update.set_defaults(run=run_update)

    for name, help_text in (
        ("pin", "exempt a learning from decay and pruning"),
        ("unpin", "a learning decays and may be pruned again"),
        ("keep", "review answer keep: a learning's confidence back to the start value"),
        ("archive", "hide a learning (never deletes)"),
        ("restore", "bring a learning back from the archive"),
    ):
        command = commands.add_parser(name, parents=[common], help=help_text)
        command.set_defaults(run=run_change, change=name)

    for command in (show, update, *(commands.choices[name] for name in api.CHANGES)):
        command.add_argument("id", type=options.record_id, metavar="ID", help="the learning's id")
    for command in commands.choices.values():
        options.json_flag(command)


def _field_options(parser: argparse.ArgumentParser, *, required: bool) -> None:
    parser.add_argument("--anti-pattern", required=required, metavar="TEXT", help="what not to do")
    parser.add_argument("--correct", required=required, metavar="TEXT", help="what to do instead")
    regex = parser.add_mutually_exclusive_group()
    regex.add_argument("--regex", metavar="PATTERN", help="detection regex")
    # An empty --regex is refused and a learning without one never matches: saying so is explicit.
    regex.add_argument(
        "--no-regex",
        action="store_true",
        help="remove the regex (never matches)"
        if not required
        else "no regex: a reminder that never matches",
    )
    parser.add_argument("--tool", metavar="MATCHER", help="Claude Code tool matcher (default *)")
    parser.add_argument("--target", help="content (default), raw, path or input")
    parser.add_argument("--severity", help="low, medium (default), high or critical")
    parser.add_argument(
        "--action",
        metavar="ACTION",
        help="what a trusted match does: block (deny), ask (the user decides) or warn (default)",
    )
    parser.add_argument(
        "--auto-block",
        action="store_true",
        default=None,
        help="deny matching calls once trusted (--action block)",
    )
    parser.add_argument(
        "--rewrite",
        metavar="TEXT",
        help="Bash only: replace the match with TEXT in the command that runs (\\1: a group of the match)",
    )
    parser.add_argument("--pin", action="store_true", default=None, help="exempt from decay and pruning")
    parser.add_argument("--confidence", metavar="X", help="0.30 to 0.90 (default 0.70)")
    parser.add_argument("--context", metavar="TEXT", help="why, where it came from")
    parser.add_argument(
        "--deny-example",
        action="append",
        metavar="TEXT",
        help="a call it must catch (a Bash command, a path …: what its target reads); doctor proves it",
    )
    parser.add_argument(
        "--allow-example",
        action="append",
        metavar="TEXT",
        help="a call it must let through (doctor proves it)",
    )


def _given(args: argparse.Namespace) -> api.Given:
    given: dict[str, Any] = {
        field: getattr(args, option)
        for option, field in _FIELD_OPTIONS.items()
        if getattr(args, option, None) is not None
    }
    examples = {
        kind: listed for kind in ("deny", "allow") if (listed := getattr(args, f"{kind}_example", None))
    }
    if examples:
        given["examples"] = examples
    if getattr(args, "no_regex", False):
        given["regex"] = None
    if getattr(args, "no_rewrite", False):
        if "rewrite" in given:
            raise CortexError("argument --no-rewrite: not allowed with argument --rewrite", USAGE)
        given["rewrite"] = None
    return given  # type: ignore[return-value]


def run_add(args: argparse.Namespace) -> int:
    learning = api.add(database.of(args), _given(args), database.notes())
    render.emit(args, learning, api.added(learning))
    return 0


def run_list(args: argparse.Namespace) -> int:
    learnings = api.listing(database.of(args), args.shown, database.notes(), review=args.review)
    if args.json:
        render.emit_json(learnings)
    else:
        render.say(api.table(learnings, render.width()))
    return 0


def run_show(args: argparse.Namespace) -> int:
    learning = api.show(database.of(args), args.id)
    if args.json:
        render.emit_json(learning)
    else:
        render.say(api.detail(learning))
    return 0


def run_update(args: argparse.Namespace) -> int:
    learning = api.update(database.of(args), args.id, _given(args), database.notes())
    render.emit(args, learning, api.updated(learning))
    return 0


def run_change(args: argparse.Namespace) -> int:
    result = api.change(database.of(args), args.id, args.change, database.notes())
    render.emit(args, result.learning, api.changed(result))
    return 0
