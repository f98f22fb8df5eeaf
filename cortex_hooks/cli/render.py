"""The CLI's output channels: `--json` prints the data as stored, a person's text goes to stdout,
a note beside it to stderr (the texts themselves: beside each result in cortex_hooks.api)."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys

from cortex_hooks import sanitize

TYPE_CHECKING = False
if TYPE_CHECKING:  # the records are pydantic models: `recall` prints without importing pydantic
    from typing import Any

    from pydantic import BaseModel


def emit_json(value: Any) -> None:
    """Exactly one JSON value on stdout (records are dumped as their models print them)."""
    if isinstance(value, list):
        value = [_plain(item) for item in value]
    sys.stdout.write(json.dumps(_plain(value), indent=2, ensure_ascii=False) + "\n")


def emit_json_line(value: Any) -> None:
    """One JSON value on one line of stdout (a stream of them: `replay --each`)."""
    sys.stdout.write(json.dumps(_plain(value), ensure_ascii=False) + "\n")


def _plain(value: Any) -> Any:
    return value.model_dump(mode="json") if hasattr(value, "model_dump") else value


def width() -> int | None:
    """The columns a person's table fills: COLUMNS when it is set, else the terminal's; None when
    stdout is no terminal (a pipe, a file), where every line is whole for grep and the like."""
    given = os.environ.get("COLUMNS", "")
    if given.isdigit() and int(given) > 0:
        return int(given)
    if sys.stdout.isatty():
        return shutil.get_terminal_size().columns
    return None


def say(text: str) -> None:
    sys.stdout.write(text + "\n")


def note(text: str) -> None:
    """One line on stderr beside the output: something skipped, or worth knowing."""
    print(f"cortex-hooks: {sanitize.line(text)}", file=sys.stderr)


def emit(args: argparse.Namespace, record: BaseModel, message: str) -> None:
    """The record as JSON with `--json`, else the one-line message."""
    if args.json:
        emit_json(record)
    else:
        say(message)
