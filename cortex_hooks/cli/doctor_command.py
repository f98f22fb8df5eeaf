"""CLI doctor: check settings, database, config and every regex, and say how to fix each problem."""

from __future__ import annotations

import argparse
from typing import Any

from cortex_hooks.api.doctor import check
from cortex_hooks.api.wording import clean
from cortex_hooks.cli import database, render


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    doctor = commands.add_parser("doctor", parents=[common], help="check settings, database, regexes")
    doctor.add_argument("--json", action="store_true", help="print JSON")
    # Earlier versions mended hand-edited rows; the tables now refuse them at write, so a script's
    # `doctor --repair` still runs doctor and is told there is nothing left to mend.
    doctor.add_argument("--repair", action="store_true", help=argparse.SUPPRESS)
    doctor.set_defaults(run=run_doctor)


def run_doctor(args: argparse.Namespace) -> int:
    where = database.of(args)
    report = check(where)
    if args.repair:
        render.note("doctor --repair: nothing to mend; the tables refuse a value the code cannot read")
    if args.json:
        render.emit_json({"ok": not report.failed, "database": where.path, "checks": report.checks})
    else:
        for item in report.checks:
            mark = "ok     " if item["status"] == "ok" else "PROBLEM"
            line = f"{mark} {item['check']}: {clean(item['detail'], one_line=True)}"
            if "fix" in item:
                line += f"\n        fix: {clean(item['fix'], one_line=True)}"
            render.say(line)
        render.say("\nAll good." if not report.failed else "\nSome checks failed (see fix: lines).")
    return 1 if report.failed else 0
