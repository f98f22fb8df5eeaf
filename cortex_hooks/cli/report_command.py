"""CLI command `report`: one self-contained HTML file of the learnings, the history and the memory."""

from __future__ import annotations

import argparse
import pathlib
import shlex
import webbrowser
from typing import Any

from cortex_hooks.api.report import write
from cortex_hooks.cli import database, options, render


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
    if getattr(args, "global_scope", False):
        words.append("--global")
    return "".join(f" {shlex.quote(word)}" for word in words)


def run(args: argparse.Namespace) -> int:
    written = write(database.of(args), database.notes(), days=args.days, out=args.out, options=_options(args))
    render.say(
        f"Wrote {written.path}"
        + ("" if written.charted else " (tables only: pip install 'cortex-hooks[report]' for charts)")
    )
    if args.open:
        _open(written.path)
    return 0


def _open(path: str) -> None:
    if not webbrowser.open(pathlib.Path(path).resolve().as_uri()):
        render.note(f"no web browser to open: open {path} yourself")
