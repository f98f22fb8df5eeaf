"""CLI export and import of the whole memory as one validated JSON file (docs/reference/commands.md),
and imports of other tools' rules: hookify's, the original Cortex's database."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from cortex_hooks import regular_file
from cortex_hooks.api import cortex_import, hookify
from cortex_hooks.api import transfer as api
from cortex_hooks.api.wording import clean, count
from cortex_hooks.cli import database, render
from cortex_hooks.errors import USAGE, CortexError


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    export = commands.add_parser("export", parents=[common], help="print the whole memory as JSON")
    export.add_argument("--output", metavar="FILE", help="write to FILE instead of stdout")
    export.add_argument("--json", action="store_true", help="accepted: the export is JSON already")
    export.set_defaults(run=run_export)
    load = commands.add_parser("import", parents=[common], help="add the records of an export file")
    load.add_argument(
        "file",
        metavar="FILE",
        nargs="?",
        help="an export file or a JSON array of learnings; - for stdin (with --from hookify: the folder; "
        "with --from cortex: its database, by default .claude/cortex.db)",
    )
    load.add_argument(
        "--from",
        dest="source",
        choices=["hookify", "cortex"],
        help="read another tool's: hookify's rules (.claude/hookify.*.local.md), the original Cortex's db",
    )
    load.add_argument("--dry-run", action="store_true", help="with --from cortex: say what would be imported")
    load.add_argument("--json", action="store_true", help="print the counts as JSON")
    load.set_defaults(run=run_import)


def run_export(args: argparse.Namespace) -> int:
    """Every record of every kind, archived ones included, as `--json` prints them."""
    document = api.export(database.of(args), database.notes())
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    if args.output:
        _write_private(args.output, text)
        counts = ", ".join(count(len(document[kind]), kind) for kind in (*api.COUNTED, "edges"))
        print(f"Exported {counts} to {clean(args.output)}.", file=sys.stderr)
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
    """All records or none: the whole file is validated before the one write transaction."""
    if args.source == "hookify":
        return _import_hookify(args)
    if args.source == "cortex":
        return _import_cortex(args)
    if args.dry_run:
        raise CortexError("import --dry-run goes with --from cortex", USAGE)
    if args.file is None:
        raise CortexError("import needs a FILE (or --from hookify [DIR])", USAGE)
    parsed = api.parse(_read(args.file), args.file)
    counts = api.load(database.of(args), parsed, database.notes())
    if args.json:
        render.emit_json(counts)
    else:
        render.say("Imported " + ", ".join(count(n, kind) for kind, n in counts.items()) + ".")
    return 0


MAX_IMPORT = 128 << 20  # an export of 100,000 learnings is about a third of this


def _read(file: str) -> bytes:
    """The file to import: a regular file (never a FIFO, which would hang, nor a device such as
    /dev/zero, which never ends, as replay refuses them), or standard input, of at most
    MAX_IMPORT bytes either way."""
    try:
        if file == "-":
            content = sys.stdin.buffer.read(MAX_IMPORT + 1)
            if len(content) > MAX_IMPORT:
                raise OSError(0, f"larger than {MAX_IMPORT:,} bytes")
            return content
        if os.path.exists(file) and not os.path.isfile(file):
            raise OSError(0, "not a regular file (a FIFO or a device is never read)")
        return regular_file.read_small(file, MAX_IMPORT)
    except OSError as error:
        raise CortexError(f"cannot read {clean(file)}: {error.strerror or error}", USAGE) from None


def _import_hookify(args: argparse.Namespace) -> int:
    result = hookify.import_rules(database.of(args), args.file, database.notes())
    render.emit_json(result) if args.json else render.say(hookify.imported(result))
    return 0


def _import_cortex(args: argparse.Namespace) -> int:
    result = cortex_import.import_database(
        database.of(args), args.file, database.notes(), dry_run=args.dry_run
    )
    render.emit_json(result) if args.json else render.say(cortex_import.imported(result))
    return 0
