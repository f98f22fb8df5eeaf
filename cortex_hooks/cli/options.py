"""Command-line options several commands share: ids, which rows a listing shows, `--json`."""

from __future__ import annotations

import argparse

from cortex_hooks.checks import MAX_ID


def record_id(text: str) -> int:
    """An id as given: `3` or `#3` (from 1 to SQLite's largest rowid)."""
    try:
        value = int(text.lstrip("#"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an id (a whole number, as 3 or #3)") from None
    if not 1 <= value <= MAX_ID:
        why = "ids start at 1" if value < 1 else "too large for an id"
        raise argparse.ArgumentTypeError(f"{text!r} is not an id ({why})")
    return value


def shown(parser: argparse.ArgumentParser) -> None:
    """`--archived` or `--all` (active rows by default), as `args.shown`."""
    which = parser.add_mutually_exclusive_group()
    which.add_argument(
        "--archived", action="store_const", dest="shown", const="archived", help="archived ones only"
    )
    which.add_argument("--all", action="store_const", dest="shown", const="all", help="active and archived")
    parser.set_defaults(shown="active")


def days(text: str, most: int = 3650) -> int:
    """A window of days, 1 to `most`."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of days: {text!r}") from None
    if not 1 <= value <= most:
        raise argparse.ArgumentTypeError(f"must lie in 1..{most}")
    return value


def json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON")
