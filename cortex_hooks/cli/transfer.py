"""CLI export and import of the whole memory as one validated JSON file (SPEC §2.2)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from contextlib import closing
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from cortex_hooks import clock, needles
from cortex_hooks.cli import database, render
from cortex_hooks.cli.learnings import row_values
from cortex_hooks.errors import USAGE, CortexError
from cortex_hooks.records import ImportedLearning, Learning, validated
from cortex_hooks.store import Transaction
from cortex_hooks.store import learnings as store

FORMAT_VERSION = 1


class ExportFile(BaseModel):
    """The export format; on import every record is validated before anything is written."""

    model_config = ConfigDict(extra="forbid")

    version: Literal[1] = FORMAT_VERSION
    learnings: list[ImportedLearning] = []


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    export = commands.add_parser("export", parents=[common], help="print the whole memory as JSON")
    export.add_argument("--output", metavar="FILE", help="write to FILE instead of stdout")
    export.set_defaults(run=run_export)
    load = commands.add_parser("import", parents=[common], help="add the records of an export file")
    load.add_argument("file", metavar="FILE", help="an export file, or a JSON array of learnings; - for stdin")
    load.add_argument("--json", action="store_true", help="print the counts as JSON")
    load.set_defaults(run=run_import)


def run_export(args: argparse.Namespace) -> int:
    learnings: list[Learning] = []
    connection = database.for_reading(args)
    if connection is not None:
        with closing(connection):
            learnings = [Learning.from_row(row) for row in store.select(connection, "all")]
    document = {
        "version": FORMAT_VERSION,
        "learnings": [learning.model_dump(mode="json") for learning in learnings],
        "decisions": [],
        "errors": [],
        "todos": [],
    }
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    if args.output:
        _write_private(args.output, text)
        print(f"Exported {len(learnings)} learnings to {render.clean(args.output)}.", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


def _write_private(path: str, text: str) -> None:
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as output:
            output.write(text)
    except OSError as error:
        raise CortexError(f"cannot write {path}: {error.strerror or error}") from None


def run_import(args: argparse.Namespace) -> int:
    document = _read(args.file)
    if isinstance(document, list):
        document = {"learnings": document}
    parsed: ExportFile = validated(ExportFile, document, f"{args.file} rejected, nothing imported")
    now = clock.iso(clock.now())
    with closing(database.for_writing(args)) as connection, Transaction(connection):
        for record in parsed.learnings:
            values = row_values(
                record,
                now,
                access_count=record.access_count,
                last_accessed=record.last_accessed,
                created_at=record.created_at,
                updated_at=record.updated_at,
                archived_at=record.archived_at,
            )
            values.pop("id")  # import assigns new ids
            store.insert(connection, values, needles.keys(record.regex, record.target))
    counts = {"learnings": len(parsed.learnings), "decisions": 0, "errors": 0, "todos": 0}
    if args.json:
        render.emit_json(counts)
    else:
        render.say("Imported " + ", ".join(f"{count} {kind}" for kind, count in counts.items()) + ".")
    return 0


def _read(file: str) -> Any:
    try:
        if file == "-":
            raw = sys.stdin.buffer.read()
        else:
            with open(file, "rb") as handle:
                raw = handle.read()
    except OSError as error:
        raise CortexError(f"cannot read {file}: {error.strerror or error}", USAGE) from None
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise CortexError(f"{file} rejected, nothing imported: not a JSON file ({error})", USAGE) from None
