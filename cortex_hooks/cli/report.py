"""CLI command `report`: one self-contained HTML file of the learnings, the history and the memory."""

from __future__ import annotations

import argparse
import shlex
from contextlib import closing
from typing import Any

from cortex_hooks import clock, location
from cortex_hooks.cli import database, options, render
from cortex_hooks.errors import CortexError


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    report = commands.add_parser(
        "report",
        parents=[common],
        help="write an HTML report: learnings, their history, proposals, the memory",
        description="Write one self-contained HTML file (no script, nothing loaded from elsewhere).",
    )
    report.add_argument(
        "--out", metavar="FILE", help="where to write it (default: report.html beside the database)"
    )
    report.add_argument("--open", action="store_true", help="open it in the web browser")
    report.add_argument(
        "--days", type=options.days, default=30, metavar="N", help="the history's window (default 30)"
    )
    report.set_defaults(run=run)


def _options(args: argparse.Namespace) -> str:
    """What each command in the report needs to reach the same database."""
    words = []
    if getattr(args, "db", None):
        words += ["--db", args.db]
    if getattr(args, "global_db", None):
        words += ["--global-db", args.global_db]
    if database.scope(args) == "global":
        words.append("--global")
    return "".join(f" {shlex.quote(word)}" for word in words)


def run(args: argparse.Namespace) -> int:
    from cortex_hooks.report import document

    path = database.path(args)
    connection = database.for_reading(args)
    if connection is None:
        raise CortexError(f"no database at {path}: nothing to report yet")
    with closing(connection):
        text, charted = document.build(
            connection,
            database=path,
            scope=database.scope(args),
            now=clock.now(),
            days=args.days,
            policy=database.config(args).policy,
            command=location.cli_command(),
            options=_options(args),
        )
    out = args.out or document.default_path(path)
    document.write(out, text)
    render.say(
        f"Wrote {out}" + ("" if charted else " (tables only: pip install 'cortex-hooks[report]' for charts)")
    )
    if args.open:
        _open(out)
    return 0


def _open(path: str) -> None:
    import pathlib
    import webbrowser

    if not webbrowser.open(pathlib.Path(path).resolve().as_uri()):
        render.note(f"no web browser to open: open {path} yourself")
