"""CLI command `mcp`: the stdio MCP server (docs/guide/mcp.md), for Claude Code to start.

The server is a program of its own, beside the CLI (`python -m cortex_hooks.mcp`): the command
hands over to it in the same process (exec), so Claude Code's pipes and process id stay its.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    serve = commands.add_parser(
        "mcp", parents=[common], help="the MCP server Claude Code starts (stdio, JSON-RPC)"
    )
    serve.set_defaults(run=run_mcp)


def run_mcp(args: argparse.Namespace) -> int:
    argv = [sys.executable, "-P", "-m", "cortex_hooks.mcp"]  # -P: nothing of the cwd on sys.path
    for option, value in (
        ("--db", getattr(args, "db", None)),
        ("--global-db", getattr(args, "global_db", None)),
    ):
        if value:
            argv += [option, os.path.abspath(value)]
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            stream.flush()
    os.execv(sys.executable, argv)
