"""`python -m cortex_hooks.mcp [--db PATH] [--global-db PATH]`: the MCP server on stdin and
stdout, the program `cortex-hooks mcp` hands over to."""

import sys

from cortex_hooks.mcp.server import run

if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
