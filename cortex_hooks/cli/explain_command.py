"""CLI explain: what PreToolUse would decide for a tool call, learning by learning (a Bash command
as the simple commands it was read as); writes nothing."""

from __future__ import annotations

import argparse
from typing import Any

from cortex_hooks import agents
from cortex_hooks.api import explain as api
from cortex_hooks.api.explain import explained
from cortex_hooks.cli import database, render


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    command = commands.add_parser(
        "explain", parents=[common], help="what the hooks would decide for a tool call"
    )
    command.add_argument(
        "--tool",
        required=True,
        metavar="NAME",
        help="tool name, e.g. Bash, or a kind (shell, write, edit, read)",
    )
    command.add_argument(
        "--agent",
        choices=agents.NAMES,
        default="claude",
        help="the agent making the call (its tool names and fields, e.g. --agent gemini --tool "
        "run_shell_command): the output is the answer that agent's hook prints",
    )
    given = command.add_mutually_exclusive_group(required=True)
    given.add_argument("--command", metavar="TEXT", help="a Bash command (tool_input.command)")
    given.add_argument("--input", metavar="JSON", help="the whole tool_input as a JSON object")
    command.add_argument("--all", action="store_true", help="also list learnings for other tools")
    command.add_argument("--json", action="store_true", help="print JSON")
    command.set_defaults(run=run_explain)


def run_explain(args: argparse.Namespace) -> int:
    tool_input = api.tool_input(args.command, args.input)
    result = api.explain(database.of(args), args.tool, tool_input, database.notes(), args.agent)
    if args.json:
        render.emit_json(
            {
                "tool": result.tool,
                "decision": result.decision,
                "output": result.output,
                "read_as": result.read_as,
                "built_in": result.built_in,
                "corrected": result.corrected,
                "learnings": result.learnings,
            }
        )
    else:
        render.say(explained(result, every=args.all, width=render.width()))
    return 0
