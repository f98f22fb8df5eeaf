"""CLI embed (SPEC §12): fill the vectors semantic recall lacks, or re-embed everything."""

from __future__ import annotations

import argparse
import sys
from contextlib import closing
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
    from cortex_hooks.embeddings.backend import required
    from cortex_hooks.embeddings.model import VoyageError
    from cortex_hooks.embeddings.queue import fill
    from cortex_hooks.errors import CortexError
    from cortex_hooks.store import vectors

    model = required(database.embeddings(args))
    if hasattr(model, "timeout"):  # a remote backend: `embed` is there to wait for it
        from cortex_hooks.embeddings.voyage import PATIENT

        model.timeout = PATIENT
    connection = database.for_reading(args)
    done, stored = 0, 0
    if connection is not None:
        with closing(connection):
            try:
                done = fill(connection, model, everything=args.everything, progress=_progress(args))
            except VoyageError as error:
                raise CortexError(f"{error}; what was embedded so far is kept, run embed again") from None
            finally:
                _end_progress(args)
            stored = vectors.counts(connection).get(model.model_id, 0)
    if args.json:
        render.emit_json({"model": model.model_id, "embedded": done, "vectors": stored})
    else:
        render.say(f"Embedded {done} items with {model.model_id} ({database.scope(args)}); {stored} vectors.")
    return 0


def _shows_progress(args: argparse.Namespace) -> bool:
    return not args.json and sys.stdout.isatty() and sys.stderr.isatty()


def _progress(args: argparse.Namespace) -> Any:
    if not _shows_progress(args):
        return None

    def show(done: int, total: int) -> None:
        sys.stderr.write(f"\rembedding {done}/{total}")
        sys.stderr.flush()

    return show


def _end_progress(args: argparse.Namespace) -> None:
    if _shows_progress(args):
        sys.stderr.write("\n")
