"""CLI embed (docs/guide/embeddings.md): fill the vectors semantic recall lacks, or re-embed everything."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from cortex_hooks.cli import database, options, render


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    embed = commands.add_parser("embed", parents=[common], help="fill the vectors semantic recall uses")
    embed.add_argument(
        "--all", action="store_true", dest="everything", help="re-embed every item (after a model change)"
    )
    options.json_flag(embed)
    embed.set_defaults(run=run_embed)


def run_embed(args: argparse.Namespace) -> int:
    from cortex_hooks.api.embed import fill

    where = database.of(args)
    shows = not args.json and sys.stdout.isatty() and sys.stderr.isatty()
    progress = _Progress()
    try:
        done = fill(where, database.notes(), everything=args.everything, progress=progress if shows else None)
    finally:
        if progress.shown:
            sys.stderr.write("\n")
    if args.json:
        render.emit_json({"model": done.model, "embedded": done.embedded, "vectors": done.vectors})
    else:
        render.say(
            f"Embedded {done.embedded} items with {done.model} ({where.scope}); {done.vectors} vectors."
        )
    return 0


class _Progress:
    """`embedding 40/120` on a terminal, rewritten in place."""

    def __init__(self) -> None:
        self.shown = False

    def __call__(self, done: int, total: int) -> None:
        self.shown = True
        sys.stderr.write(f"\rembedding {done}/{total}")
        sys.stderr.flush()
