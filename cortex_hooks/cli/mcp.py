"""CLI command `mcp`: the stdio MCP server (docs/guide/mcp.md), for Claude Code to start."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from cortex_hooks import boundary
from cortex_hooks.cli import render
from cortex_hooks.errors import CortexError


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    serve = commands.add_parser(
        "mcp", parents=[common], help="the MCP server Claude Code starts (stdio, JSON-RPC)"
    )
    serve.set_defaults(run=run_mcp)


def run_mcp(args: argparse.Namespace) -> int:
    from cortex_hooks.keeper import environment

    for dropped in environment.drop_untrusted():  # Claude Code starts it with settings' env
        render.note(dropped)
    if boundary.is_child():  # a process we started: no server (docs/guide/capture.md)
        return 0
    if sys.stdin is None or sys.stdout is None:  # started with a closed stream: nothing to serve on
        raise CortexError("the MCP server talks over stdin and stdout, and one of them is closed")
    from cortex_hooks.mcp import server
    from cortex_hooks.mcp.tools import Options
    from cortex_hooks.store.connection import keep_open

    given = Options(
        *(
            os.path.abspath(value) if value else None
            for value in (getattr(args, "db", None), getattr(args, "global_db", None))
        )
    )
    with keep_open():  # each database stays open from one tool call to the next
        return server.main(given)
