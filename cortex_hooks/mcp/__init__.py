"""The MCP front door (docs/guide/mcp.md): a stdio JSON-RPC server whose tools run the CLI's own commands."""
