"""CLI command `mcp`: the stdio MCP server (SPEC §11), for Claude Code to start."""

from __future__ import annotations

import argparse
import os
from typing import Any


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    serve = commands.add_parser(
        "mcp", parents=[common], help="the MCP server Claude Code starts (stdio, JSON-RPC)"
    )
    serve.set_defaults(run=run_mcp)


def run_mcp(args: argparse.Namespace) -> int:
    if os.environ.get("CORTEX_HOOKS_CHILD") == "1":  # a process we started: no server (SPEC §10.4)
        return 0
    # The tools run CLI commands in this process: --db and --global-db reach them as the environment.
    for option, variable in (("db", "CORTEX_DB"), ("global_db", "CORTEX_GLOBAL_DB")):
        if getattr(args, option, None):
            os.environ[variable] = os.path.abspath(getattr(args, option))
    from cortex_hooks.mcp import server
    from cortex_hooks.store.connection import keep_open

    with keep_open():  # each database stays open from one tool call to the next
        return server.main(args.dispatch)
