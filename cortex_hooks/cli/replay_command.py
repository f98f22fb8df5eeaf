"""CLI replay: what the guard would have done with past tool calls; writes nothing.
The work is api.replay; this parses and prints, with progress on a terminal."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from cortex_hooks.api import replay as api
from cortex_hooks.api.replay import replayed
from cortex_hooks.cli import database, options, render


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    command = commands.add_parser(
        "replay", parents=[common], help="what the guard would have done with past tool calls (read only)"
    )
    command.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="transcripts or folders of them (default: this project's, in Claude Code's folder of it)",
    )
    command.add_argument(
        "--since", type=options.days, metavar="DAYS", help="only calls of the last DAYS days"
    )
    which = command.add_mutually_exclusive_group()
    which.add_argument("--learning", type=options.record_id, metavar="ID", help="only this learning")
    which.add_argument("--pack", metavar="NAME", help="only this pack's learnings, as enabling it adds them")
    which.add_argument(
        "--proposal", type=options.record_id, metavar="ID", help="only this proposal, as accepted"
    )
    command.add_argument(
        "--each",
        action="store_true",
        help="print each call judged as a JSON line: its tool, input, cwd, answer and the hook's output",
    )
    options.json_flag(command)
    command.set_defaults(run=run_replay)


def run_replay(args: argparse.Namespace) -> int:
    selection = api.Selection(args.learning, args.pack, args.proposal)
    where = api.Where(args.paths, args.since)
    each = _each if args.each else None
    with Progress(shown=not args.json and not args.each) as progress:
        result = api.run(database.of(args), where, database.notes(), selection, progress=progress, each=each)
    if args.each:
        return 0
    if args.json:
        render.emit_json(result)
    else:
        render.say(replayed(result))
    return 0


def _each(call: Any, judged: Any) -> None:
    """One judged call as a JSON line, what the hook would have printed for it included."""
    line = {"tool": call.tool, "input": call.input, "cwd": call.cwd, "answer": judged.answer}
    render.emit_json_line({**line, "output": judged.output})


class Progress:
    """`replay: 350/1,000 transcripts, 70,000 calls` on a terminal (stderr), rewritten in place;
    silent when the output is not a terminal or is JSON."""

    def __init__(self, *, shown: bool) -> None:
        self.shown = shown and sys.stdout.isatty() and sys.stderr.isatty()
        self.written = False

    def __enter__(self) -> Progress | None:
        return self if self.shown else None

    def __exit__(self, *exc: object) -> None:
        if self.written:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()

    def __call__(self, done: int, total: int, calls: int) -> None:
        self.written = True
        sys.stderr.write(f"\rreplay: {done:,}/{total:,} transcripts, {calls:,} calls")
        sys.stderr.flush()
